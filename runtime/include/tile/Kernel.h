//===- Kernel.h - Typed launches of tilec kernels ---------------*- C++ -*-===//
//
// A Kernel pairs a loaded entry with its metadata, and checks each launch's
// arguments against the parameter types and the alignment/divisibility
// assumptions the kernel was specialized on before handing them to the driver.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_KERNEL_H
#define TILE_KERNEL_H

#include "tile/Backend.h"
#include "tile/Borrowed.h"
#include "tile/Metadata.h"

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace tile {

class DeviceBuffer;
class Module;

/// The launch grid, in programs (CUDA blocks).
struct Grid {
  unsigned x = 1, y = 1, z = 1;
};

/// The most programs a grid may have along x, y and z: CUDA's limits on
/// every device of compute capability 3.0 and later, which the interpreter
/// keeps too so that its runs behave as the GPU's. A Kernel checks its
/// device's own (CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X/Y/Z).
constexpr Grid kMaxGrid{2147483647u, 65535u, 65535u};

/// Checks a launch's grid: "" when every extent is 1 to `limit`'s, else
/// the error, e.g. "kernel add_kernel: grid (1, 70000, 1) has 70000
/// programs along y, more than the limit of 65535".
std::string validateGrid(const std::string &kernel, Grid grid,
                         Grid limit = kMaxGrid);

/// Whether a buffer of `dtype` ("fp32"; empty: unknown) holds the elements
/// of a pointer parameter to `element` ("fp32"): the same dtype, an integer
/// of the same width and the other signedness, or an integer whose width
/// carries the bits of fp16 and bf16 (2 bytes) or fp8 (1 byte), as NumPy
/// has no such dtypes.
bool dtypeHolds(std::string_view dtype, std::string_view element);

/// Element types of device memory that C++ has no type for: a pointer to
/// them (`Ptr<fp16>`) says which dtype the kernel reads there.
struct fp16 { uint16_t bits; };
struct bf16 { uint16_t bits; };
struct fp8e4nv { uint8_t bits; };
struct fp8e5 { uint8_t bits; };

/// The dtype tilec names `T` by ("fp32" for float, "i32" for int32_t).
template <typename T> constexpr const char *dtypeOf() {
  static_assert(sizeof(T) == 0, "no tilec dtype for this element type");
  return "";
}
template <> constexpr const char *dtypeOf<float>() { return "fp32"; }
template <> constexpr const char *dtypeOf<double>() { return "fp64"; }
template <> constexpr const char *dtypeOf<fp16>() { return "fp16"; }
template <> constexpr const char *dtypeOf<bf16>() { return "bf16"; }
template <> constexpr const char *dtypeOf<fp8e4nv>() { return "fp8e4nv"; }
template <> constexpr const char *dtypeOf<fp8e5>() { return "fp8e5"; }
template <> constexpr const char *dtypeOf<bool>() { return "i1"; }
template <> constexpr const char *dtypeOf<int8_t>() { return "i8"; }
template <> constexpr const char *dtypeOf<int16_t>() { return "i16"; }
template <> constexpr const char *dtypeOf<int32_t>() { return "i32"; }
template <> constexpr const char *dtypeOf<int64_t>() { return "i64"; }
template <> constexpr const char *dtypeOf<uint8_t>() { return "u8"; }
template <> constexpr const char *dtypeOf<uint16_t>() { return "u16"; }
template <> constexpr const char *dtypeOf<uint32_t>() { return "u32"; }
template <> constexpr const char *dtypeOf<uint64_t>() { return "u64"; }

/// A raw device address of `T`s: memory from cudaMalloc, cuMemAlloc, CuPy
/// (`.data.ptr`) or PyTorch (`.data_ptr()`), passed as a kernel argument
/// without a dtype string: `k.launch(grid, {tile::Ptr<float>(x), n})`.
template <typename T> struct Ptr {
  explicit Ptr(uint64_t address) : address(address) {}
  explicit Ptr(const void *address)
      : address(reinterpret_cast<uintptr_t>(address)) {}
  uint64_t address;
};

/// One kernel argument; implicit from a buffer or a scalar so calls read
/// `k.launch(grid, {x, y, out, n})`. Other integer types (size_t, unsigned)
/// need a cast to int32_t or int64_t, which keeps the intended width explicit.
class KernelArg {
public:
  enum class Kind { Pointer, I32, I64, F32 };

  /// The buffer's device address.
  KernelArg(const DeviceBuffer &buffer);
  KernelArg(int32_t value) : kind_(Kind::I32), i32(value) {}
  KernelArg(int64_t value) : kind_(Kind::I64), i64(value) {}
  KernelArg(float value) : kind_(Kind::F32), f32(value) {}
  /// A typed raw device address.
  template <typename T>
  KernelArg(Ptr<T> p) : kind_(Kind::Pointer), dtype_(dtypeOf<T>()), ptr(p.address) {}
  /// A raw device address (e.g. an offset into a buffer); `Ptr<T>` says
  /// its dtype by its type.
  static KernelArg pointer(uint64_t address, std::string dtype = "") {
    KernelArg arg(int32_t(0));
    arg.kind_ = Kind::Pointer;
    arg.ptr = address;
    arg.dtype_ = std::move(dtype);
    return arg;
  }

  Kind kind() const { return kind_; }
  uint64_t pointerValue() const { return ptr; }
  int32_t i32Value() const { return i32; }
  int64_t i64Value() const { return i64; }
  float f32Value() const { return f32; }
  /// A pointer's element type ("fp32"), when known.
  const std::string &pointeeDType() const { return dtype_; }
  /// For a buffer: its size in bytes and where it lives.
  size_t bufferBytes() const { return bytes_; }
  Backend backend() const { return backend_; }

  /// "pointer", "i32", "i64" or "fp32", as launch errors name them.
  const char *kindName() const;

private:
  Kind kind_;
  std::string dtype_;
  size_t bytes_ = 0;
  Backend backend_ = Backend::CUDA;
  union {
    uint64_t ptr;
    int32_t i32;
    int64_t i64;
    float f32;
  };
};

/// A launch's arguments: a braced list (`{x, y, out, n}`) or a vector.
using KernelArgs = Borrowed<KernelArg>;

/// Checks a launch without performing it: the grid (validateGrid, against
/// kMaxGrid), the argument count, each argument's kind against its
/// parameter's type (an i32 is widened for an i64 parameter; fp32 accepts
/// only float), a buffer's dtype against its pointer's (dtypeHolds) and its
/// memory against `backend` (where the kernel runs), pointer alignment and
/// integer divisibility against `divisibility`. Returns "" when the launch
/// is valid, else the error message, e.g. "kernel add_kernel: argument 2
/// (out_ptr) expects *fp32, got i32". Needs no GPU.
std::string validateLaunch(const KernelMetadata &metadata, Grid grid,
                           KernelArgs args, Backend backend = Backend::CUDA);

/// Checks a launch's buffers against what the kernel's loads, stores and
/// atomics reach at it, where the compiler could bound them
/// (KernelMetadata::accesses, checkBufferSizes): "" when each is large
/// enough, else the error, e.g. "kernel add_kernel: argument 2 (out_ptr)
/// needs 4000 bytes (1000 fp32 elements) for this launch, but its buffer
/// has 400 bytes". Buffers (DeviceBuffer) know their size; raw addresses
/// are not checked (the memory PyTorch's expandable segments map spans
/// several driver allocations). Kernel::launch checks this too; the
/// interpreter checks every access as it runs instead, naming the line.
/// Needs no GPU.
std::string validateBuffers(const KernelMetadata &metadata, Grid grid,
                            KernelArgs args);

class BoundLaunch;

/// A launchable kernel: one module entry and its metadata, on the device
/// that was the loading thread's.
class Kernel {
public:
  /// Looks up `metadata.kernel` in `module`. Throws tile::Error if absent,
  /// or if its shared memory is more than the device lets a block have
  /// (CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN).
  Kernel(std::shared_ptr<Module> module, KernelMetadata metadata);

  /// Loads `path` (.ptx or .cubin) and the metadata `.json` beside it
  /// (`k.ptx` -> `k.json`).
  static Kernel load(const std::string &path);

  const KernelMetadata &metadata() const { return metadata_; }
  const std::shared_ptr<Module> &module() const { return module_; }
  /// The device it was loaded on (tile::currentDevice() then).
  int device() const { return device_; }

  /// Validates (see validateLaunch, with the grid against the device's
  /// limits, and validateBuffers) and enqueues the kernel on `stream` (a
  /// CUstream; null is the default stream) with blockDim =
  /// (threadsPerBlock, 1, 1) and sharedBytes of dynamic shared memory.
  /// Asynchronous: faults during execution surface at synchronize(). The
  /// calling thread's device must be the kernel's.
  void launch(Grid grid, KernelArgs args, void *stream = nullptr) const;

  /// The launch with these arguments, validated and with its tensor maps
  /// built once, for loops that repeat it (Triton's do_bench lambdas).
  BoundLaunch bind(Grid grid, KernelArgs args, void *stream = nullptr) const;

  /// How a parameter's argument is checked and passed.
  enum class ParamKind : uint8_t { Pointer, I32, I64, F32, Unsupported };

private:
  friend class JITFunction;
  friend class BoundLaunch;
  /// Launches, or binds, with parameter p's argument `args[argOf[p]]`
  /// (argOf null: args[p]); the JIT leaves out integers specialized to 1.
  void launch(Grid grid, KernelArgs args, const uint32_t *argOf,
              void *stream) const;
  BoundLaunch bind(Grid grid, KernelArgs args, const uint32_t *argOf,
                   void *stream) const;
  /// Throws validateLaunch's error unless the arguments fit.
  void check(Grid grid, KernelArgs args, const uint32_t *argOf) const;

  std::shared_ptr<Module> module_;
  KernelMetadata metadata_;
  void *function_ = nullptr;
  int device_ = 0;
  std::vector<ParamKind> kinds_;
  /// Each pointer parameter's element type ("fp32"), empty for the others.
  std::vector<std::string> elements_;
  /// The device's grid limits.
  Grid maxGrid_ = kMaxGrid;
  const char *name_ = nullptr; ///< interned, for the driver's last launch
};

/// A kernel's launch with its grid, arguments and stream fixed: launch()
/// only enqueues it (allocating a scratch buffer in stream order where the
/// kernel builds its own tensor maps). Copies share the arguments; the
/// kernel must outlive them.
class BoundLaunch {
public:
  /// Enqueues the launch on the bound stream, or on `stream`.
  void launch() const;
  void launch(void *stream) const;

private:
  friend class Kernel;
  struct State;
  std::shared_ptr<const State> state_;
};

} // namespace tile

#endif // TILE_KERNEL_H
