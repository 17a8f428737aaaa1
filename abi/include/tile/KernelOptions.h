//===- KernelOptions.h - What a kernel is compiled for ----------*- C++ -*-===//
//
// The options a kernel is specialized on beyond its source, its arguments'
// types and its constexprs: tilec's flags, the JIT's JITOptions and the
// compiler's CompileOptions are each a KernelOptions and more. The JIT's
// specialization key (its in-memory hash and equality, the disk cache's key)
// covers every field through fields(), so a new option is a field here and
// its entry in fields() and kFieldNames, and the compiler reading it.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_KERNELOPTIONS_H
#define TILE_KERNELOPTIONS_H

#include <cstdlib>
#include <iterator>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

namespace tile {

/// An option the compiler may decide for itself.
enum class Choice : unsigned {
  Auto, ///< where the compiler measured it to pay
  Off,  ///< never
  On,   ///< wherever the kernel allows it
};

/// Whether a loop runs warp-specialized (a producer warpgroup issuing its
/// copies) and attention's two dots an iteration apart, where its
/// tl.range(..., warp_specialize=) does not say.
using WarpSpecialize = Choice;

/// Whether a grid's programs run persistent: the CTAs the GPU holds at once
/// each running the programs their number apart (the metadata's
/// "persistent").
using Persistent = Choice;

/// Whether kernels carry line information by default: yes, as Triton's,
/// unless $TILEC_DISABLE_LINE_INFO is set to anything but "" or "0"
/// (Triton's TRITON_DISABLE_LINE_INFO). Read once.
inline bool lineInfoByDefault() {
  static const bool enabled = [] {
    const char *disable = std::getenv("TILEC_DISABLE_LINE_INFO");
    return !disable || !*disable || std::string(disable) == "0";
  }();
  return enabled;
}

struct KernelOptions {
  /// Warps per program (a power of two, 1 to 32).
  unsigned numWarps = 4;
  /// Software-pipeline stages of loops whose loads feed tl.dot (Triton's
  /// num_stages): the module's `tile.num_stages`, the metadata's
  /// "num_stages".
  unsigned numStages = 3;
  /// tl.device_assert and runtime `assert` compiled in (Triton's debug
  /// mode).
  bool debug = false;
  /// The .tl source's file and line of each instruction in the PTX (.file
  /// and .loc) and so in the cubin: what compute-sanitizer, Nsight Compute
  /// and cuda-gdb show. It does not change the code ptxas makes.
  bool lineInfo = lineInfoByDefault();
  /// Floating-point atomic adds in a fixed order of programs, so that they
  /// give the same bits on every run: the programs along the grid's last
  /// axis with more than one take turns (tilegpu-order-atomics; the
  /// metadata's "turnstiles").
  bool deterministic = false;
  /// Bulk copies' tensor maps are built by the kernel even where the
  /// launcher could build them from the arguments (the metadata's
  /// "tensor_maps"): for launchers that pass the parameters alone.
  bool deviceTensorMaps = false;
  /// The CTAs of a thread-block cluster that split a dot kernel's K loop
  /// and sum their accumulators in a fixed order through distributed
  /// shared memory, so that a small grid fills the GPU (sm_90+; the
  /// metadata's "cluster_dims"). 1: never. 0: as the launch's cost model
  /// decides (the JIT and tile-run know the grid and the GPU; the compiler
  /// alone, never). 2 to 8: that many, where the kernel allows it.
  unsigned clusterSplitK = 0;
  /// A stream-K kernel (tilegpu-stream-k): the launch cuts the K loops of
  /// a last wave that would leave SMs idle into parts that the idle CTAs
  /// run, summed in a fixed order (the metadata's
  /// "stream_k_partial_bytes"). The JIT and tile-run
  /// ask for it where clusterSplitK is 0 and the cost model says so
  /// (chooseStreamK).
  bool streamK = false;
  /// For loops whose tl.range does not say (the module's
  /// `tile.warp_specialize`).
  WarpSpecialize warpSpecialize = WarpSpecialize::Auto;
  /// Whether the programs run persistent (tilegpu-persistent-programs:
  /// programs independent of each other's order, one function, no stream-K
  /// or cluster split, tensor maps the launcher builds).
  Persistent persistent = Persistent::Auto;
  /// "sm_80", "sm_90" or "sm_90a" (tile/GPUArch.h). The JIT's empty: the
  /// device's, all of it (tile::deviceArch(): sm_90a on Hopper).
  std::string arch;

  /// Every field, for comparing and hashing.
  auto fields() const {
    return std::tie(numWarps, numStages, debug, lineInfo, deterministic,
                    deviceTensorMaps, clusterSplitK, streamK, warpSpecialize,
                    persistent, arch);
  }
  static constexpr const char *kFieldNames[] = {
      "num_warps",       "num_stages",    "debug",
      "line_info",       "deterministic", "device_tensor_maps",
      "cluster_split_k", "stream_k",      "warp_specialize",
      "persistent",      "arch"};

  bool operator==(const KernelOptions &other) const {
    return fields() == other.fields();
  }
  bool operator!=(const KernelOptions &other) const {
    return !(*this == other);
  }

  /// Every field as text, "num_warps=4|num_stages=3|debug=0|...": the disk
  /// cache's key.
  std::string key() const {
    std::string text;
    size_t i = 0;
    auto add = [&](const auto &value) {
      text += std::string(i ? "|" : "") + kFieldNames[i] + "=";
      using Field = std::decay_t<decltype(value)>;
      if constexpr (std::is_same_v<Field, std::string>)
        text += value;
      else if constexpr (std::is_enum_v<Field>)
        text +=
            std::to_string(static_cast<std::underlying_type_t<Field>>(value));
      else
        text += std::to_string(value);
      ++i;
    };
    std::apply([&](const auto &...values) { (add(values), ...); }, fields());
    return text;
  }
};

static_assert(std::tuple_size_v<decltype(std::declval<KernelOptions>()
                                              .fields())> ==
                  std::size(KernelOptions::kFieldNames),
              "a name for every field of KernelOptions");

} // namespace tile

#endif // TILE_KERNELOPTIONS_H
