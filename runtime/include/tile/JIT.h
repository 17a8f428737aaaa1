//===- JIT.h - Compile .tl kernels from C++ and launch them -----*- C++ -*-===//
//
// Triton's @jit, from C++: a JITFunction compiles its kernel for each new
// specialization (constexpr values, argument types and alignment, warps,
// pipeline stages, architecture) the first time it is launched with it,
// keeps the result in memory and on disk (DiskCache.h: a later process
// finds it there), and launches through the runtime.
//
//   tile::JITFunction add = tile::JITFunction::fromFile("vector_add.tl");
//   add.launch({tile::cdiv(n, 1024)}, {x, y, out, n}, {{"BLOCK_SIZE", 1024}});
//
//===----------------------------------------------------------------------===//

#ifndef TILE_JIT_H
#define TILE_JIT_H

#include "tile/DiskCache.h"
#include "tile/Kernel.h"

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace tilec {
struct CompileOptions;
} // namespace tilec

namespace tile {

/// A constexpr's value: an int, a float, a bool or a string (such as an
/// input_precision, "ieee").
class Constexpr {
public:
  Constexpr(int value) : text_(std::to_string(value)) {}
  Constexpr(int64_t value) : text_(std::to_string(value)) {}
  Constexpr(double value);
  Constexpr(bool value) : text_(value ? "True" : "False") {}
  /// Throws tile::Error for a string with both kinds of quotes or a
  /// backslash, which the text form cannot hold.
  Constexpr(const char *value) : Constexpr(std::string(value)) {}
  Constexpr(const std::string &value);
  /// The value as source text ("1024", "0.5", "True", "'ieee'").
  const std::string &text() const { return text_; }

private:
  std::string text_;
};

using Constexprs = std::vector<std::pair<std::string, Constexpr>>;

struct JITOptions {
  /// CUDA, or the CPU interpreter (the buffers must live where the kernel
  /// runs: DeviceBuffer's backend).
  Backend backend = Backend::CUDA;
  unsigned numWarps = 4;
  /// Software-pipeline stages of loops whose loads feed tl.dot (Triton's
  /// num_stages); part of the specialization.
  unsigned numStages = 3;
  /// Compiles tl.device_assert and runtime `assert` in (Triton's debug
  /// mode); part of the specialization.
  bool debug = false;
  /// "sm_80", "sm_90", "sm_90a"; empty: the current device's, all of it
  /// (tile::deviceArch(): sm_90a on Hopper).
  std::string arch;
  /// The CUstream CUDA launches are enqueued on (a tile::Stream's handle(),
  /// or a caller's own); null: the default stream. Not part of the
  /// specialization.
  void *stream = nullptr;
};

/// ceil(a / b), for grids.
inline unsigned cdiv(int64_t a, int64_t b) { return unsigned((a + b - 1) / b); }

class JITFunction {
public:
  /// `kernel` names the @triton.jit function; empty: the source's only one.
  JITFunction(std::string source, std::string filename, std::string kernel = "");
  /// Reads a .tl file. Throws tile::Error when it cannot be read.
  static JITFunction fromFile(const std::string &path, std::string kernel = "");

  /// Compiles the specialization these arguments need (once) and launches
  /// it, or runs it on the interpreter (synchronously). Compile errors, and
  /// errors the interpreter finds, throw tile::Error with the diagnostics.
  void launch(Grid grid, const std::vector<KernelArg> &args,
              const Constexprs &constexprs = {},
              const JITOptions &options = {});

  /// The kernel for a specialization, compiled on first use.
  const Kernel &specialize(const std::vector<KernelArg> &args,
                           const Constexprs &constexprs,
                           const JITOptions &options);

  /// A specialization's PTX and metadata, from the disk cache or compiled
  /// (and then stored there). Needs no GPU.
  struct Compiled {
    std::string ptx;
    KernelMetadata metadata;
    bool fromDiskCache = false;
  };
  Compiled compile(const std::vector<KernelArg> &args,
                   const Constexprs &constexprs, const JITOptions &options);

  /// How many specializations were compiled (found in neither cache).
  unsigned compileCount() const { return compiles.load(); }

  /// The on-disk cache (DiskCache::defaultDirectory() unless set; "" turns
  /// it off).
  void setCacheDirectory(std::string directory) {
    diskCache = DiskCache(std::move(directory));
  }
  const DiskCache &cacheDirectory() const { return diskCache; }

  /// The type string a launch argument specializes its parameter to:
  /// "*fp32:16", "i32", "i64:16", "fp32".
  static std::string argType(const KernelArg &arg);

private:
  void interpret(Grid grid, const std::vector<KernelArg> &args,
                 const Constexprs &constexprs, const JITOptions &options);
  /// What to compile for these arguments and options.
  tilec::CompileOptions compileOptions(const std::vector<KernelArg> &args,
                                       const Constexprs &constexprs,
                                       const JITOptions &options) const;

  std::string source, filename, kernelName;
  DiskCache diskCache{DiskCache::defaultDirectory()};
  std::mutex mutex;
  std::map<std::string, std::unique_ptr<Kernel>> cache;
  std::atomic<unsigned> compiles{0};
};

} // namespace tile

#endif // TILE_JIT_H
