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
// A launch of a specialization already loaded is a hash of the arguments'
// kinds and hints and a lock-free lookup; bind() fixes a launch for loops.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_JIT_H
#define TILE_JIT_H

#include "tile/DiskCache.h"
#include "tile/Kernel.h"

#include <atomic>
#include <cstdint>
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
/// input_precision, "ieee"). Ints, floats and bools are held as values, so
/// a launch that names constexprs builds no strings.
class Constexpr {
public:
  enum class Kind : uint8_t { Int, Float, Bool, String };
  Constexpr(int value) : kind_(Kind::Int), int_(value) {}
  Constexpr(int64_t value) : kind_(Kind::Int), int_(value) {}
  Constexpr(double value) : kind_(Kind::Float), float_(value) {}
  Constexpr(bool value) : kind_(Kind::Bool), int_(value) {}
  /// Throws tile::Error for a string with both kinds of quotes or a
  /// backslash, which the text form cannot hold.
  Constexpr(const char *value) : Constexpr(std::string(value)) {}
  Constexpr(const std::string &value);
  /// The value as source text ("1024", "0.5", "True", "'ieee'").
  std::string text() const;
  bool operator==(const Constexpr &other) const;
  bool operator!=(const Constexpr &other) const { return !(*this == other); }
  /// For hashing: the kind and the value's bits.
  Kind kind() const { return kind_; }
  uint64_t bits() const;
  const std::string &string() const { return string_; }

private:
  Kind kind_;
  int64_t int_ = 0;
  double float_ = 0;
  std::string string_;
};

using NamedConstexpr = std::pair<std::string, Constexpr>;
using Constexprs = std::vector<NamedConstexpr>;

/// A launch's constexprs: a braced list (`{{"BLOCK", 1024}}`) or a
/// Constexprs vector.
using ConstexprArgs = Borrowed<NamedConstexpr>;

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
  /// "sm_80", "sm_90", "sm_90a"; empty: the device's, all of it
  /// (tile::deviceArch(): sm_90a on Hopper).
  std::string arch;
  /// The CUstream CUDA launches are enqueued on (a tile::Stream's handle(),
  /// or a caller's own); null: the default stream. Not part of the
  /// specialization.
  void *stream = nullptr;
  /// The GPU to launch on (its ordinal); -1: the calling thread's
  /// (tile::setDevice). Each device gets its own module.
  int device = -1;
};

/// ceil(a / b), for grids.
inline unsigned cdiv(int64_t a, int64_t b) { return unsigned((a + b - 1) / b); }

class JITFunction {
public:
  /// `kernel` names the @triton.jit function; empty: the source's only one.
  JITFunction(std::string source, std::string filename, std::string kernel = "");
  ~JITFunction();
  /// Reads a .tl file. Throws tile::Error when it cannot be read.
  static JITFunction fromFile(const std::string &path, std::string kernel = "");

  /// Compiles the specialization these arguments need (once) and launches
  /// it, or runs it on the interpreter (synchronously). Compile errors, and
  /// errors the interpreter finds, throw tile::Error with the diagnostics.
  /// Like Triton, a specialization is the constexprs, the options, each
  /// pointer's dtype and 16-byte alignment, and whether each integer is
  /// divisible by 16 or (on the GPU) equal to 1, which makes it a constant
  /// of the kernel. A launch of a compiled specialization allocates
  /// nothing and builds no strings.
  void launch(Grid grid, KernelArgs args, ConstexprArgs constexprs = {},
              const JITOptions &options = {});

  /// The launch with everything fixed, for loops that repeat it: see
  /// BoundLaunch. CUDA only.
  BoundLaunch bind(Grid grid, KernelArgs args, ConstexprArgs constexprs = {},
                   const JITOptions &options = {});

  /// The kernel for a specialization, compiled on first use. Its
  /// parameters are the arguments less the integers specialized to 1.
  const Kernel &specialize(KernelArgs args, ConstexprArgs constexprs,
                           const JITOptions &options);

  /// A specialization's PTX and metadata, from the disk cache or compiled
  /// (and then stored there). Needs no GPU.
  struct Compiled {
    std::string ptx;
    KernelMetadata metadata;
    bool fromDiskCache = false;
  };
  Compiled compile(KernelArgs args, ConstexprArgs constexprs,
                   const JITOptions &options);

  /// How many specializations were compiled (found in neither cache).
  unsigned compileCount() const { return compiles.load(); }

  /// The on-disk cache (DiskCache::defaultDirectory() unless set; "" turns
  /// it off). Safe while other threads compile: they use one or the other.
  void setCacheDirectory(std::string directory);
  DiskCache cacheDirectory() const;

  /// The type string a launch argument specializes its parameter to:
  /// "*fp32:16", "i32", "i64:16", "i32:1" (with `ones`), "fp32".
  static std::string argType(const KernelArg &arg, bool ones = false);

private:
  struct Entry;
  void interpret(Grid grid, KernelArgs args, ConstexprArgs constexprs,
                 const JITOptions &options);
  /// What to compile for these arguments and options.
  tilec::CompileOptions compileOptions(KernelArgs args,
                                       ConstexprArgs constexprs,
                                       const JITOptions &options) const;
  /// The loaded specialization for a launch: found without a lock, or
  /// compiled and loaded.
  const Entry &find(KernelArgs args, ConstexprArgs constexprs,
                    const JITOptions &options);

  std::string source, filename, kernelName;
  mutable std::mutex diskCacheMutex;
  DiskCache diskCache{DiskCache::defaultDirectory()};
  /// Guards `entries` and publishing `published`.
  std::mutex mutex;
  std::vector<std::unique_ptr<Entry>> entries;
  /// The entries so far, as launches read them (an immutable list,
  /// replaced whole when one is added; the old ones are kept).
  std::atomic<const std::vector<const Entry *> *> published{nullptr};
  std::vector<std::unique_ptr<std::vector<const Entry *>>> lists;
  std::atomic<unsigned> compiles{0};
};

} // namespace tile

#endif // TILE_JIT_H
