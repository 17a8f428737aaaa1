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
// A kernel under @triton.autotune is tuned as Triton tunes it: the first
// launch with a new key (the values of the arguments autotune names, the
// pointers' dtypes and the caller's constexprs) times every config (less
// those prune_configs_by drops) and keeps the fastest, in memory and in
// the disk cache, so a later process launches its choice at once.
// @triton.heuristics' constexprs are computed at every launch. A grid that
// depends on the chosen constexprs is a function of them:
//
//   tile::JITFunction add = tile::JITFunction::fromFile("add.tl");
//   add.launch([&](const tile::Meta &meta) {
//     return tile::Grid{tile::cdiv(n, meta["BLOCK_SIZE"])};
//   }, {x, y, out, n});
//
//===----------------------------------------------------------------------===//

#ifndef TILE_JIT_H
#define TILE_JIT_H

#include "tile/DiskCache.h"
#include "tile/Kernel.h"
#include "tile/KernelOptions.h"
#include "tile/Specialization.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace tilec {
struct CompileOptions;
struct HostScalar;
class KernelTuning;
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
  /// Any string: constexprs reach the compiler as values, not as text.
  Constexpr(const char *value) : Constexpr(std::string(value)) {}
  Constexpr(const std::string &value);
  /// A -D value as tilec reads one: an int, a float, True/False, a quoted
  /// string, or else the text itself as a string. Throws tile::Error for
  /// None.
  static Constexpr parse(const std::string &text);
  /// The constexpr `name` as host code computed it (tilec/Frontend/
  /// HostScalar.h: a config's, a heuristic's, a tool's -D). Throws
  /// tile::Error for a value the JIT has no Constexpr for: None, a pointer.
  static Constexpr fromHost(const tilec::HostScalar &value,
                            const std::string &name);
  /// The value as Python's repr ("1024", "0.5", "True", "'ieee'").
  std::string text() const;
  bool operator==(const Constexpr &other) const;
  bool operator!=(const Constexpr &other) const { return !(*this == other); }
  /// For hashing: the kind and the value's bits.
  Kind kind() const { return kind_; }
  uint64_t bits() const;
  const std::string &string() const { return string_; }
  /// An Int's value; throws tile::Error for another kind.
  int64_t intValue() const;
  /// A Float's, an Int's or a Bool's value as a double.
  double number() const { return kind_ == Kind::Float ? float_ : double(int_); }

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

/// How the JIT compiles and launches: the kernel's options
/// (tile/KernelOptions.h, each part of the specialization; an empty arch
/// is the device's), where it runs and on which stream.
///
/// clusterSplitK 0 (the default) is decided per launch, before the
/// specialization is looked up: on the GPU by tile::chooseClusterSplitK
/// (tile/Grid.h) from the grid's programs, the device's SMs, the target's
/// compute capability and how many clusters of the kernel run at once, so
/// that a dot kernel whose grid leaves much of an sm_90 GPU idle runs each
/// program as a cluster of 2 to 4 CTAs that split its K loop; a launch
/// whose grid fills the GPU, and every launch on the interpreter, gets 1.
/// The kernel with one CTA a program is compiled first (its metadata
/// tells whether it splits, its capacity how many clusters fit), then the
/// split chosen, if any; each is a specialization, compiled once.
/// specialize() and compile(), which have no grid, take 0 as 1. 1 never
/// clusters; 2 to 8 ask for that many CTAs where the kernel allows it.
struct JITOptions : KernelOptions {
  /// CUDA, or the CPU interpreter (the buffers must live where the kernel
  /// runs: DeviceBuffer's backend).
  Backend backend = Backend::CUDA;
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

/// A launch's constexprs as its grid function sees them (Triton's `meta`):
/// the caller's, then the chosen config's, then the heuristics'.
class Meta {
public:
  explicit Meta(const Constexprs &values) : values(values) {}
  /// An int constexpr's value; throws tile::Error when there is none.
  int64_t operator[](const std::string &name) const;
  const Constexprs &all() const { return values; }

private:
  const Constexprs &values;
};

/// A grid computed from the launch's constexprs (`lambda meta: (...)`).
using GridFunction = std::function<Grid(const Meta &)>;
/// Enables an overload for callables that compute a grid (so that a braced
/// `{n}` still means a Grid).
template <class F>
using IfGridFunction =
    std::enable_if_t<std::is_invocable_r_v<Grid, F, const Meta &>>;

/// One autotuning config (Triton's triton.Config).
struct Config {
  Constexprs constexprs;
  unsigned numWarps = 4;
  unsigned numStages = 3;
  /// "BLOCK: 64, num_warps: 4, num_stages: 3".
  std::string describe() const;
};

/// What one tuning found.
struct TuningReport {
  /// The key's arguments and values: "M=512, N=512".
  std::string key;
  std::vector<Config> configs;
  /// Each config's median milliseconds; infinity for one pruned or failed.
  std::vector<float> ms;
  /// Why configs failed (a compile error, too much shared memory), a line
  /// each.
  std::string failures;
  size_t best = 0;
};

/// @triton.autotune from C++ (JITFunction::autotune).
struct Autotune {
  std::vector<Config> configs;
  /// The parameters whose values key the choice.
  std::vector<std::string> key;
  /// Pointer parameters zeroed before each timed run, and put back after
  /// each: for kernels that accumulate into or update their buffers.
  std::vector<std::string> resetToZero, restoreValue;
  /// Milliseconds of warm-up and of timed runs per config (do_bench's).
  unsigned warmupMs = 25, repMs = 100;
};

class JITFunction {
public:
  /// `kernel` names the @triton.jit function; empty: the source's only one.
  /// The modules `filename` imports are found in its package root, then in
  /// `importPath` (tilec's -I), then in TILEC_PATH's directories.
  JITFunction(std::string source, std::string filename, std::string kernel = "",
              std::vector<std::string> importPath = {});
  ~JITFunction();
  /// Reads a .tl or .py file. Throws tile::Error when it cannot be read.
  static JITFunction fromFile(const std::string &path, std::string kernel = "",
                              std::vector<std::string> importPath = {});

  /// Compiles the specialization these arguments need (once) and launches
  /// it, or runs it on the interpreter (synchronously). Compile errors, and
  /// errors the interpreter finds, throw tile::Error with the diagnostics.
  /// Like Triton's, a specialization is the constexprs, the options, each
  /// pointer's dtype and alignment, and each integer's divisibility or
  /// (on the GPU) its being 1, which makes it a constant of the kernel;
  /// unlike Triton's, alignments and divisors below 16 count where they
  /// can change the code (tile/Specialization.h). A launch of a compiled specialization allocates
  /// nothing and builds no strings.
  void launch(Grid grid, KernelArgs args, ConstexprArgs constexprs = {},
              const JITOptions &options = {});
  /// The launch with a grid computed from its constexprs (a callable taking
  /// a Meta), for kernels whose autotune configs or heuristics choose the
  /// block sizes.
  template <class GridFn, class = IfGridFunction<GridFn>>
  void launch(GridFn &&grid, KernelArgs args, ConstexprArgs constexprs = {},
              const JITOptions &options = {}) {
    launchWith(GridFunction(std::forward<GridFn>(grid)), args, constexprs,
               options);
  }

  /// Tunes with these configs instead of the file's @triton.autotune (or
  /// without one). Call it before launching. Throws tile::Error for a key or
  /// buffer that names no parameter.
  void autotune(Autotune tuning);
  /// The config autotuning chose for a launch like this one, tuning first
  /// when its key is new. Throws tile::Error when the kernel is not tuned.
  Config tunedConfig(const GridFunction &grid, KernelArgs args,
                     ConstexprArgs constexprs = {},
                     const JITOptions &options = {});
  /// How many keys were tuned by timing configs (not found on disk).
  unsigned tuningCount() const { return tunings.load(); }
  /// Those tunings, in order.
  std::vector<TuningReport> tuningReports() const;

  /// The launch with everything fixed, for loops that repeat it: see
  /// BoundLaunch. CUDA only.
  BoundLaunch bind(Grid grid, KernelArgs args, ConstexprArgs constexprs = {},
                   const JITOptions &options = {});
  template <class GridFn, class = IfGridFunction<GridFn>>
  BoundLaunch bind(GridFn &&grid, KernelArgs args,
                   ConstexprArgs constexprs = {},
                   const JITOptions &options = {}) {
    return bindWith(GridFunction(std::forward<GridFn>(grid)), args, constexprs,
                    options);
  }

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

  /// The type strings a launch's arguments specialize their parameters to
  /// (tile/Specialization.h): "*fp32:16", "*fp16:8", "i32", "i64:16",
  /// "i32:8" (a stride of 5000 beside fp16 pointers), "i32:1" (with
  /// `ones`), "fp32"; "" for a pointer of unknown dtype. `rowBytes`: the
  /// alignment integers' hints stop at (the JIT's key of a kernel whose
  /// code row sectors do not change takes 16).
  static std::vector<std::string>
  argTypes(KernelArgs args, bool ones = false,
           unsigned rowBytes = kMaxUsefulRowAlignment);

private:
  struct Entry;
  struct Tuning;
  /// A launch's constexprs and options once its config and heuristics are
  /// applied, and its grid.
  struct Resolved {
    Constexprs constexprs;
    JITOptions options;
    Grid grid;
    /// The autotune config applied; SIZE_MAX: none.
    size_t config = SIZE_MAX;
  };
  /// The kernel's tuning, read on first use; null when it has neither
  /// configs nor heuristics.
  Tuning *tuningFor(const JITOptions &options) {
    return tuningRead.load(std::memory_order_acquire) ? tuning.get()
                                                      : readTuning(options);
  }
  Tuning *readTuning(const JITOptions &options);
  /// Applies the tuned config (tuning first for a new key) and the
  /// heuristics (Autotune.cpp). `grid` null: `fixed`.
  Resolved resolve(Tuning &tuning, const GridFunction *grid, Grid fixed,
                   KernelArgs args, ConstexprArgs constexprs,
                   const JITOptions &options);
  /// Times each config for this launch; returns the fastest's index.
  size_t tune(Tuning &tuning, const std::string &key, const GridFunction *grid,
              Grid fixed, KernelArgs args, ConstexprArgs constexprs,
              const JITOptions &options);
  void launchResolved(const Resolved &launch, KernelArgs args);
  /// A launch with its config and heuristics applied: runs on the
  /// interpreter, or decides the cluster split (0) by the grid and then
  /// finds the specialization and launches it.
  void launchUntuned(Grid grid, KernelArgs args, ConstexprArgs constexprs,
                     const JITOptions &options);
  void launchWith(const GridFunction &grid, KernelArgs args,
                  ConstexprArgs constexprs, const JITOptions &options);
  BoundLaunch bindWith(const GridFunction &grid, KernelArgs args,
                       ConstexprArgs constexprs, const JITOptions &options);
  BoundLaunch bindResolved(const Resolved &launch, KernelArgs args);
  void interpret(Grid grid, KernelArgs args, ConstexprArgs constexprs,
                 const JITOptions &options);
  /// What to compile for these arguments and options.
  tilec::CompileOptions
  compileOptions(KernelArgs args, ConstexprArgs constexprs,
                 const JITOptions &options,
                 unsigned rowBytes = kMaxUsefulRowAlignment) const;
  /// The loaded specialization for a launch: found without a lock, or
  /// compiled and loaded.
  const Entry &find(KernelArgs args, ConstexprArgs constexprs,
                    const JITOptions &options);
  /// The specialization a launch of `grid` runs on the GPU: find()'s, with
  /// clusterSplitK 0 decided first (tile::chooseClusterSplitK) from the
  /// kernel with one CTA a program: its metadata says whether it splits
  /// at all, its capacity how many clusters run at once.
  const Entry &findForGrid(Grid grid, KernelArgs args,
                           ConstexprArgs constexprs, const JITOptions &options);

  std::string source, filename, kernelName;
  std::vector<std::string> importPath;
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
  /// Set (release) once the decorators are read: launches check it with one
  /// load.
  std::atomic<bool> tuningRead{false};
  std::unique_ptr<Tuning> tuning;
  std::unique_ptr<Autotune> cppTuning;
  std::atomic<unsigned> tunings{0};
};

} // namespace tile

#endif // TILE_JIT_H
