//===- Driver.h - Access to the CUDA driver ---------------------*- C++ -*-===//
//
// The runtime loads libcuda.so.1 with dlopen on first use (never linking it),
// initializes the driver and makes a device's primary context current on
// each thread that uses it: device 0's, or the one setDevice chose. On a machine
// without a GPU every binary still starts; the first call that needs the
// device throws a tile::Error saying why CUDA is unavailable.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_DRIVER_H
#define TILE_DRIVER_H

#include <string>
#include <string_view>

namespace tile {

/// Loads and initializes the driver if not yet done. Returns false, and sets
/// `*whyNot` (e.g. "libcuda.so.1 not found: ..." or "no CUDA device") when
/// the driver or a device is unavailable.
bool cudaAvailable(std::string *whyNot = nullptr);

/// Throws tile::Error if `result` (a CUresult) is not CUDA_SUCCESS, e.g.
/// "cuLaunchKernel failed: CUDA_ERROR_INVALID_VALUE (invalid argument)
/// [kernel add_kernel]". `call` names the driver function.
void checkCuda(int result, const char *call, std::string_view kernel = {});

/// Waits for all work on the device (cuCtxSynchronize). Asynchronous faults
/// surface here, so the error names the last kernel launched.
void synchronize();

/// A CUDA stream of its own, for launches that overlap the host's work.
/// It is ordered with the legacy default stream, on which DeviceBuffer's
/// copies run (a non-blocking stream would let a kernel read a buffer
/// before its upload finished). Launches take any CUstream as `void *`:
/// this one's handle(), or a caller's (CuPy's, PyTorch's). Throws
/// tile::Error when CUDA is unavailable.
class Stream {
public:
  Stream();
  ~Stream();
  Stream(const Stream &) = delete;
  Stream &operator=(const Stream &) = delete;
  /// The CUstream.
  void *handle() const { return handle_; }
  /// Waits for the stream's work; a fault names the last kernel launched.
  void synchronize() const;

private:
  void *handle_ = nullptr;
};

/// How many CUDA devices there are (0 where CUDA is unavailable).
int deviceCount();

/// Makes device `ordinal` the calling thread's: its primary context becomes
/// current, and the thread's later allocations, module loads and launches
/// go to it (cudaSetDevice's meaning). Throws tile::Error for an ordinal
/// this machine does not have.
void setDevice(int ordinal);

/// The calling thread's device: 0 until setDevice.
int currentDevice();

/// The name of the calling thread's device, e.g. "NVIDIA H100 80GB HBM3".
std::string deviceName();

/// Its name and compute capability, for messages: "NVIDIA H200, compute
/// capability 9.0".
std::string describeDevice();

/// The calling thread's device's compute capability as major * 10 + minor,
/// e.g. 90. Read from the driver once per device.
int computeCapability();

/// The calling thread's device's streaming multiprocessors
/// (CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT), e.g. 132 on an H100 SXM.
/// Read from the driver once per device.
int multiprocessorCount();

/// The --arch the JIT and tilec's --arch native compile for the calling
/// thread's device (tile::gpuArchForDevice): its own architecture-specific
/// target where tilec has one (sm_90a on Hopper: wgmma), else the newest
/// target it runs (sm_80 on Ada, sm_90 on Blackwell); "" for a device older
/// than every target.
std::string deviceArch();

/// The CUDA driver's version, e.g. 12080.
int driverVersion();

/// What the calling thread's device allows one launch, from its attributes.
struct DeviceLimits {
  /// The most programs (blocks) along x, y and z
  /// (CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X/Y/Z).
  unsigned maxGrid[3];
  /// The most dynamic shared memory a block may have once its function
  /// opts in (CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN).
  unsigned maxSharedBytes;
};
DeviceLimits deviceLimits();

} // namespace tile

#endif // TILE_DRIVER_H
