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
#include "tile/DType.h"
#include "tile/Grid.h"
#include "tile/HostTypes.h"
#include "tile/Metadata.h"

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace tile {

class DeviceBuffer;
class Module;

/// Whether a buffer of `dtype` (nullopt: unknown) holds the elements of a
/// pointer parameter to `element`: the same dtype, an integer of the same
/// width and the other signedness, or an integer whose width carries the
/// bits of fp16 and bf16 (2 bytes) or fp8 (1 byte), as NumPy has no such
/// dtypes.
bool dtypeHolds(std::optional<DType> dtype, DType element);

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
/// `k.launch(grid, {x, y, out, n})`. A scalar's C++ type is its dtype
/// (int32_t: i32, float: fp32, double: fp64, bool: i1, tile::fp16: fp16
/// bits, ...); other integer types (long long) need a cast, which keeps the
/// intended width explicit.
class KernelArg {
public:
  /// The buffer's device address.
  KernelArg(const DeviceBuffer &buffer);
  KernelArg(bool value) : KernelArg(DType::I1, value) {}
  KernelArg(int8_t value) : KernelArg(DType::I8, uint8_t(value)) {}
  KernelArg(int16_t value) : KernelArg(DType::I16, uint16_t(value)) {}
  KernelArg(int32_t value) : KernelArg(DType::I32, uint32_t(value)) {}
  KernelArg(int64_t value) : KernelArg(DType::I64, uint64_t(value)) {}
  KernelArg(uint8_t value) : KernelArg(DType::U8, value) {}
  KernelArg(uint16_t value) : KernelArg(DType::U16, value) {}
  KernelArg(uint32_t value) : KernelArg(DType::U32, value) {}
  KernelArg(uint64_t value) : KernelArg(DType::U64, value) {}
  KernelArg(fp16 value) : KernelArg(DType::FP16, value.bits) {}
  KernelArg(bf16 value) : KernelArg(DType::BF16, value.bits) {}
  KernelArg(fp8e5 value) : KernelArg(DType::FP8E5, value.bits) {}
  KernelArg(fp8e4nv value) : KernelArg(DType::FP8E4NV, value.bits) {}
  KernelArg(float value);
  KernelArg(double value);
  /// A typed raw device address.
  template <typename T>
  KernelArg(Ptr<T> p)
      : pointer_(true), dtype_(dtypeOf<T>()), bits_(p.address) {}
  /// A raw device address (e.g. an offset into a buffer); `Ptr<T>` says
  /// its dtype by its type.
  static KernelArg pointer(uint64_t address,
                           std::optional<DType> dtype = std::nullopt) {
    KernelArg arg(DType::I32, 0);
    arg.pointer_ = true;
    arg.bits_ = address;
    arg.dtype_ = dtype;
    return arg;
  }

  bool isPointer() const { return pointer_; }
  /// A scalar's dtype; a pointer's element dtype, where known.
  std::optional<DType> dtype() const { return dtype_; }
  uint64_t pointerValue() const { return bits_; }
  /// An integer or i1 scalar's value, sign- or zero-extended by its dtype.
  int64_t intValue() const;
  /// A float scalar's value (fp16, bf16 and fp8 decoded).
  double floatValue() const;
  /// The scalar's bits, in the low bytes (an fp16's 16, an i32's 32).
  uint64_t bits() const { return bits_; }
  /// For a buffer: its size in bytes and where it lives.
  size_t bufferBytes() const { return bytes_; }
  Backend backend() const { return backend_; }

  /// "pointer" or the scalar's dtype ("i32"), as launch errors name it.
  std::string typeName() const;

  /// A scalar of `dtype` whose bits are `bits` (in the low bytes).
  static KernelArg scalarOf(DType dtype, uint64_t bits) {
    return KernelArg(dtype, bits);
  }

private:
  KernelArg(DType dtype, uint64_t bits) : dtype_(dtype), bits_(bits) {}

  bool pointer_ = false;
  std::optional<DType> dtype_;
  size_t bytes_ = 0;
  Backend backend_ = Backend::CUDA;
  uint64_t bits_ = 0;
};

/// A launch's arguments: a braced list (`{x, y, out, n}`) or a vector.
using KernelArgs = Borrowed<KernelArg>;

/// Checks a launch without performing it: the grid (validateGrid, against
/// kMaxGrid, in CTAs where the programs run as clusters), the argument
/// count, each argument against its parameter's type (an integer passes for
/// an integer parameter whose width holds its value, or that has its width:
/// a signed argument's bits for an unsigned parameter; a float for a float
/// parameter, rounded to its precision; bools for i1), a buffer's dtype
/// against its pointer's (dtypeHolds) and its memory against `backend`
/// (where the kernel runs), pointer alignment and integer divisibility
/// against `divisibility`. Returns "" when the launch is valid, else the
/// error message, e.g. "kernel add_kernel: argument 2 (out_ptr) expects
/// *fp32, got i32". Needs no GPU.
std::string validateLaunch(const KernelMetadata &metadata, Grid grid,
                           KernelArgs args, Backend backend = Backend::CUDA);

/// Checks a launch's buffers against what the kernel's loads, stores and
/// atomics reach at it, where the compiler could bound them
/// (KernelMetadata::accesses, checkBufferSizes): "" when each is large
/// enough, else the error, e.g. "kernel add_kernel: argument 2 (out_ptr)
/// needs 4000 bytes (1000 fp32 elements) for this launch, but its buffer
/// has 400 bytes", or a null pointer the kernel touches. Buffers
/// (DeviceBuffer) know their size; raw addresses are not checked here.
/// Kernel::launch checks this too, and there also raw addresses on the GPU
/// against their driver allocations (cuMemGetAddressRange), an error
/// confirmed over the allocations mapped right after (PyTorch's expandable
/// segments map one tensor as several) before it is reported. The
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
  /// A kernel whose programs run as thread-block clusters (the metadata's
  /// clusterDims) starts grid * clusterDims CTAs through cuLaunchKernelEx,
  /// and the device's limits hold for those. Asynchronous: faults during
  /// execution surface at synchronize(). The calling thread's device must
  /// be the kernel's.
  void launch(Grid grid, KernelArgs args, void *stream = nullptr) const;

  /// The launch with these arguments, validated and with its tensor maps
  /// built once, for loops that repeat it (Triton's do_bench lambdas).
  BoundLaunch bind(Grid grid, KernelArgs args, void *stream = nullptr) const;

  /// The CTAs per program tile::chooseClusterSplitK gives a launch of
  /// `programs` programs of this kernel, compiled with one CTA a program
  /// (KernelOptions::clusterSplitK 0, decided by the JIT and tile-run): 1
  /// where its metadata says it does not split (clusterSplittable), else
  /// by its device's SMs and compute capability and how many clusters of
  /// it run at once (cuOccupancyMaxActiveClusters, asked at load).
  unsigned clusterSplitFor(uint64_t programs) const;

  /// Whether a launch of `programs` programs of this kernel, compiled with
  /// one CTA a program, should run its stream-K form instead
  /// (KernelOptions::streamK; decided by the JIT and tile-run where
  /// clusterSplitK is 0 and no cluster split was chosen): the metadata says
  /// it can (streamKSplittable) and tile::chooseStreamK splits programs for
  /// the CTAs its device holds at once.
  bool streamKFor(uint64_t programs) const;

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
  /// The device's grid limits, in CTAs.
  Grid deviceGrid_ = kMaxGrid;
  /// The most programs along x, y and z: the device's limits over the
  /// cluster's extents.
  Grid maxGrid_ = kMaxGrid;
  const char *name_ = nullptr; ///< interned, for the driver's last launch
  /// For clusterSplitFor, read at load where the kernel could split: its
  /// device's SMs and compute capability, and its clusters' capacity.
  unsigned multiprocessors_ = 0, computeCapability_ = 0;
  ClusterCapacity clusterCapacity_{};
  /// The CTAs of this kernel its device holds at once (SMs times
  /// cuOccupancyMaxActiveBlocksPerMultiprocessor), read at load for a
  /// stream-K kernel or one that could be; else 0.
  uint64_t residentCtas_ = 0;
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
