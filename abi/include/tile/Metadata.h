//===- Metadata.h - Kernel metadata (the .json beside the PTX) --*- C++ -*-===//
//
// tilec writes `k.json` beside `k.ptx`: everything a host needs to launch the
// kernel (entry name, block size, dynamic shared memory, parameter types and
// the specialization assumptions the code was compiled under). These structs
// are the kernel ABI: the compiler fills them, the runtime, the C launcher
// generator and the tools read them, and MetadataJSON.cpp alone maps them to
// and from JSON.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_METADATA_H
#define TILE_METADATA_H

#include "tile/DType.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tile {

/// One entry parameter of a kernel, in PTX order.
struct ParamInfo {
  std::string name;
  /// A pointer to or a scalar of any dtype ("*fp32", "i32"; tile/DType.h).
  ParamType type;
  /// Pointers: the address alignment in bytes the kernel assumes. Integers:
  /// the divisibility of the value the kernel was specialized on. 1 = none.
  unsigned divisibility = 1;

  bool isPointer() const { return type.isPointer; }
};

/// An integer a launcher computes from the launch's arguments: a field of
/// a tensor map it builds (TensorMapInfo). In the JSON, a number, or an
/// array naming the operation first: ["arg", i] is parameter i's value (a
/// pointer's address); ["add" | "sub" | "mul" | "div" | "ceildiv" | "rem" |
/// "min" | "max", a, b] combine two, dividing signed and rounding toward
/// zero (ceildiv: up); ["i32", a] wraps a to 32 bits as the kernel's i32
/// arithmetic does; ["grid", d] is the launch's number of programs along
/// d (0, 1, 2: x, y, z). Everything else is 64-bit.
struct HostExpr {
  enum class Op { Constant, Arg, Grid, Add, Sub, Mul, Div, CeilDiv, Rem, Min, Max, I32 };
  Op op = Op::Constant;
  /// Op::Constant: the value; Op::Arg: the parameter's index; Op::Grid:
  /// the dimension.
  int64_t value = 0;
  std::vector<HostExpr> operands;

  /// The operation named `name` in the JSON ("add"); nullopt if none is.
  static std::optional<Op> parseOp(std::string_view name);
  /// The JSON name of an operation other than Constant.
  static std::string_view opName(Op op);
  /// How many operands an operation takes (Arg's and Grid's is the index
  /// held in `value`).
  static unsigned numOperands(Op op);

  /// The value for the launch of `grid` programs whose parameters have
  /// `args` (pointers as their addresses, integers sign-extended).
  /// Division by zero gives 0.
  int64_t evaluate(const std::vector<int64_t> &args,
                   const std::array<int64_t, 3> &grid = {1, 1, 1}) const;
};

/// A bulk-copy tensor map (CUtensorMap) the launcher builds, with
/// cuTensorMapEncodeTiled, and passes by value (128 bytes, 64-byte
/// aligned) after `params`, in order: tiled, unsigned integer elements of
/// `elementBytes`, zeros outside the tensor, no interleave.
struct TensorMapInfo {
  /// The tensor's address.
  HostExpr base;
  /// Extents in elements, innermost first.
  std::vector<HostExpr> dims;
  /// Strides in elements of every dimension but the innermost.
  std::vector<HostExpr> strides;
  /// The box one copy moves, innermost first.
  std::vector<unsigned> box;
  unsigned elementBytes = 1;
  /// Shared-memory swizzle span in bytes: 32, 64, 128, or 0 for none.
  unsigned swizzle = 0;

  /// "" when the map is well formed for a kernel of `numParams`
  /// parameters (1 to 5 dims, as many box extents, one stride fewer, its
  /// expressions' parameters in range), else what is wrong.
  std::string verify(size_t numParams) const;
};

/// What one load, store or atomic of a kernel certainly reaches through a
/// pointer parameter, where the compiler could prove it
/// (tilec/Dialect/Tile/Analysis/AccessBounds.h): the launch refuses a buffer
/// smaller than that before the kernel runs. The access runs in every
/// program (in loops, at every iteration) and touches the elements
///
///   offset + sum over terms of stride * t,   t = scale * p + q,
///
/// for every p in [0, count) and q in [0, extent) of each term, each term
/// independently of the others, where t < bound (the bound of a term that
/// the access's mask puts on it). The kernel computes the indices in 32- or
/// 64-bit integers; `fits` are the values on the way whose wrapping would
/// change them, and where one does not fit its bits the access is not
/// checked. In the JSON ("accesses"), with HostExprs E:
///
///   {"param": i, "offset": E, "terms": [{"stride": E, "count": E,
///    "scale": n, "extent": n, "bound": E}, ...],
///    "fits": [{"bits": 32, "value": E, "terms": [[E, E], ...]}, ...]}
struct AccessInfo {
  struct Term {
    HostExpr stride;
    /// How many values p takes: the grid's extent along an axis, a loop's
    /// trip count or a tile's extent.
    HostExpr count;
    int64_t scale = 1;
    int64_t extent = 1;
    bool bounded = false;
    HostExpr bound;
  };
  /// A value the kernel computes in `bits`-bit integers: value + the sum of
  /// coefficient * x for x in [0, count), over `terms` (coefficient, count).
  struct Fit {
    unsigned bits = 32;
    HostExpr value;
    std::vector<std::pair<HostExpr, HostExpr>> terms;
  };
  unsigned param = 0;
  HostExpr offset;
  std::vector<Term> terms;
  std::vector<Fit> fits;

  /// The elements from the parameter's address that the access reaches at
  /// a launch of `grid` programs whose parameters have `values` (pointers
  /// as their addresses, integers sign-extended): its last element's index
  /// plus one. 0 where it reaches nothing at or past the address, or where
  /// that cannot be told (a fit fails, the host's arithmetic overflows).
  uint64_t reachedElements(const int64_t *values, size_t numValues,
                           const std::array<int64_t, 3> &grid) const;
  /// Whether the access touches any element at that launch: every term
  /// takes a value (a program, an iteration, an element below its bound).
  /// A null pointer it touches faults. False where that cannot be told.
  bool reachesAny(const int64_t *values, size_t numValues,
                  const std::array<int64_t, 3> &grid) const;
};

/// CUtensorMapDataType of a tensor map over `elementBytes`-wide elements:
/// unsigned integers, as the copy engine moves bits and fills zeros. The
/// runtime's encoder and the kernels' own maps (tensormap.replace takes the
/// same values) both use it.
int getTensorMapDataType(unsigned elementBytes);
/// CUtensorMapSwizzle of a shared-memory swizzle span of `bytes` (32, 64,
/// 128; anything else: none).
int getTensorMapSwizzle(unsigned bytes);

/// The contents of a kernel's metadata file, `k.json` beside `k.ptx` (README,
/// "Three ways in"; docs/ARCHITECTURE.md, "What crosses the seams").
struct KernelMetadata {
  /// The PTX entry name.
  std::string kernel;
  unsigned numWarps = 4;
  unsigned threadsPerBlock = 128;
  /// Dynamic shared memory in bytes the launch must provide.
  unsigned sharedBytes = 0;
  std::string arch = "sm_90";
  /// The PTX ISA version of the kernel's PTX, times ten (84 for 8.4), as
  /// Triton's metadata has it ("ptx_version"): 8.1 unless an instruction
  /// needs more (fp8 mma.sync: 8.4). A CUDA driver older than the release
  /// that introduced it cannot load the PTX (checkDriverVersion). 0 where
  /// the metadata does not say.
  unsigned ptxVersion = 0;
  /// Bytes of global memory each program needs for itself (the tensor maps
  /// of its bulk copies that it builds; each CTA, for a stream-K kernel).
  /// When not 0 the PTX entry takes one more pointer after `params` and
  /// `tensorMaps`: the address of programs (CTAs) x globalScratchBytes bytes,
  /// 128-byte aligned, that the launch provides (the runtime allocates it
  /// on the launch's stream).
  unsigned globalScratchBytes = 0;
  /// Deterministic atomics (tilec --deterministic): the PTX entry takes one
  /// more pointer, last: 4 bytes per program of zeroed global memory, the
  /// turnstiles by which programs take turns at their floating-point atomic
  /// adds (the runtime allocates and zeroes it on the launch's stream).
  bool turnstiles = false;
  /// The thread-block cluster each program runs as (tilec's
  /// --cluster-split-k: the CTAs split the program's K loop and sum in a
  /// fixed order), {1, 1, 1} for none. A launch of grid (x, y, z) programs
  /// starts (x * clusterDims[0], y * clusterDims[1], z * clusterDims[2])
  /// CTAs in clusters of this shape (cuLaunchKernelEx's cluster dimension);
  /// "cluster_dims" in the JSON, absent for none.
  std::array<unsigned, 3> clusterDims = {1, 1, 1};
  /// Programs along x that may run as one thread-block cluster, a CTA
  /// each, sharing the copies of a tile they both read (multicast): a
  /// launch whose grid's x divides by it starts the same CTAs in clusters
  /// of (clusterPrograms, 1, 1) (cuLaunchKernelEx); any other launch, or
  /// one without clusters, is correct too, each CTA copying for itself.
  /// "cluster_programs" in the JSON, absent for 1.
  unsigned clusterPrograms = 1;
  /// Whether the code depends on rows being whole 32-byte sectors, beyond
  /// the 16-byte alignment of vector accesses and bulk copies (a bulk copy
  /// two programs could share: tile/Specialization.h): the JIT keys a kernel
  /// without it by integers' hints up to 16 bytes, so that strides that
  /// differ only past them share it. "row_sectors_matter" in the JSON,
  /// absent for false.
  bool rowSectorsMatter = false;
  /// Whether tilegpu-cluster-split-k can split the kernel's K loop over a
  /// cluster's CTAs (a dot kernel's, on sm_90+), whether or not this
  /// compilation did: a launcher that decides the split
  /// (KernelOptions::clusterSplitK 0) compiles one CTA per program first
  /// and asks for a split only of a kernel that has one. "cluster_splittable"
  /// in the JSON, absent for false.
  bool clusterSplittable = false;
  /// Whether tilegpu-stream-k can run the kernel stream-K (a dot kernel's
  /// K loop whose bounds do not depend on the program), whether or not
  /// this compilation did: a launcher that decides (KernelOptions::
  /// clusterSplitK 0) asks for a stream-K kernel only of one that can.
  /// "stream_k_splittable" in the JSON, absent for false.
  bool streamKSplittable = false;
  /// A stream-K kernel (tilec --stream-k): the bytes of one partial
  /// accumulator; 0 for any other kernel. A launch of grid (x, y, z)
  /// programs starts StreamKLaunch::ctas CTAs along x (chooseStreamK, on
  /// the CTAs the device holds at once), and the PTX entry takes, after
  /// every other parameter, x, y and z, StreamKLaunch::splitPrograms, parts
  /// and headParts (.u32 each), and the workspace's address (.u64):
  /// streamKWorkspaceBytes(pieces()) of global memory whose first 4 *
  /// pieces() bytes are zeroed. "stream_k_partial_bytes" in the JSON,
  /// absent for 0.
  unsigned streamKPartialBytes = 0;
  /// A persistent kernel (tilegpu-persistent-programs): a launch of grid
  /// (x, y, z) programs starts min(x * y * z, the CTAs the device holds at
  /// once) CTAs along x (persistentCtas), each running the programs its
  /// number apart, and the PTX entry takes x, y and z (.u32 each) after
  /// every other parameter; x * y * z is at most 2^30. "persistent"
  /// in the JSON, absent for false.
  bool persistent = false;
  /// The workspace of a stream-K launch that splits off `pieces` pieces: a
  /// zeroed flag (4 bytes) a piece, padded to 128 bytes, then a partial
  /// accumulator a piece.
  uint64_t streamKWorkspaceBytes(uint64_t pieces) const {
    return (4 * pieces + 127) / 128 * 128 + pieces * streamKPartialBytes;
  }
  /// The CTAs of one cluster.
  unsigned ctasPerCluster() const {
    return clusterDims[0] * clusterDims[1] * clusterDims[2];
  }
  /// Tensor maps the launch builds and passes after `params` (before the
  /// global scratch).
  std::vector<TensorMapInfo> tensorMaps;
  /// What the kernel's accesses through its pointer parameters reach, for
  /// checking buffers (checkBufferSizes); none for accesses the compiler
  /// could not bound.
  std::vector<AccessInfo> accesses;
  /// Software-pipeline stages the kernel was compiled for (Triton's
  /// num_stages); informational, a launch does not need it.
  unsigned numStages = 3;
  std::vector<ParamInfo> params;
  /// Constexpr name -> value as JSON text, e.g. "1024", "1.5", "true",
  /// "\"ieee\"", "null".
  std::vector<std::pair<std::string, std::string>> constexprs;

  /// Parses metadata JSON. Throws tile::Error("invalid kernel metadata: ...")
  /// naming what is wrong (syntax error position, missing or mistyped field).
  static KernelMetadata fromJSON(std::string_view text);

  /// Serializes to the JSON that fromJSON reads back; throws tile::Error if a
  /// constexpr value is not valid JSON text.
  std::string toJSON() const;
};

/// The CUDA release that introduced PTX ISA `ptxVersion` (times ten), as
/// cuDriverGetVersion counts (1000 * major + 10 * minor: 12040 for 12.4):
/// the oldest driver that loads such PTX. 0 for a version this table does
/// not know (before 7.0, or past 9.x).
int getMinDriverVersion(unsigned ptxVersion);

/// Checks that a CUDA driver of `driverVersion` (cuDriverGetVersion's) can
/// load the kernel's PTX (KernelMetadata::ptxVersion): "" when it can or
/// the metadata does not say, else the error, e.g. "kernel k: its PTX is
/// ISA 8.4, which needs a CUDA 12.4 or newer driver, and this driver is
/// CUDA 12.2: update the driver, or load the kernel's cubin ...". Needs
/// no GPU.
std::string checkDriverVersion(const KernelMetadata &metadata,
                               int driverVersion);

/// Checks a launch's buffers against what the kernel's accesses reach
/// (KernelMetadata::accesses) at a launch of `grid` programs: `values` holds
/// every parameter's value (as AccessInfo::reachedElements takes them) and
/// `bytes` each pointer's bytes from its address to the end of its buffer
/// (0: unknown, not checked). A null pointer that an access touches
/// (AccessInfo::reachesAny) is an error too, whatever its bytes. Returns ""
/// or the error, e.g. "kernel add_kernel: argument 2 (out_ptr) needs 4000
/// bytes (1000 fp32 elements) for this launch, but its buffer has 400
/// bytes", "kernel add_kernel: argument 0 (x_ptr) is null, and the kernel
/// accesses it at this launch".
std::string checkBufferSizes(const KernelMetadata &metadata,
                             const int64_t *values, const uint64_t *bytes,
                             const std::array<int64_t, 3> &grid);

} // namespace tile

#endif // TILE_METADATA_H
