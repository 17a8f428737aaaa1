//===- DriverApi.h - The dlopen'd CUDA driver table -------------*- C++ -*-===//
//
// Private to the runtime. The few driver types and entry points the runtime
// uses, declared here rather than taken from cuda.h so that the runtime builds
// without the CUDA toolkit and binds to libcuda.so.1 only at run time.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_DRIVERAPI_H
#define TILE_LIB_DRIVERAPI_H

#include <cstddef>
#include <string_view>

namespace tile {
namespace cu {

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = struct CUctx_st *;
using CUmodule = struct CUmod_st *;
using CUfunction = struct CUfunc_st *;
using CUstream = struct CUstream_st *;
using CUevent = struct CUevent_st *;
using CUjit_option = int;

constexpr CUresult CUDA_SUCCESS = 0;
constexpr CUresult CUDA_ERROR_NOT_FOUND = 500;

// CUjit_option values.
constexpr CUjit_option CU_JIT_INFO_LOG_BUFFER = 3;
constexpr CUjit_option CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4;
constexpr CUjit_option CU_JIT_ERROR_LOG_BUFFER = 5;
constexpr CUjit_option CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6;
constexpr CUjit_option CU_JIT_GENERATE_LINE_INFO = 13;

// CUdevice_attribute values.
constexpr int CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X = 5;
constexpr int CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y = 6;
constexpr int CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z = 7;
constexpr int CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16;
constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75;
constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76;
constexpr int CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97;

// CUfunction_attribute values.
constexpr int CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8;

// CUlaunchAttributeID values.
constexpr int CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION = 4;

/// cuLaunchKernelEx's attribute (CUDA 12's CUlaunchAttribute: the id, padded
/// to 8 bytes, then a 64-byte union of which the runtime sets one member).
struct CUlaunchAttribute {
  int id;
  char pad[4];
  union {
    char pad[64];
    /// CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION's: the CTAs of a cluster.
    struct {
      unsigned x, y, z;
    } clusterDim;
    /// The union's alignment (it holds pointers and sizes).
    unsigned long long align;
  } value;
};
static_assert(sizeof(CUlaunchAttribute) == 72, "CUDA's CUlaunchAttribute");

/// cuLaunchKernelEx's configuration (CUDA 12's CUlaunchConfig).
struct CUlaunchConfig {
  unsigned gridDimX, gridDimY, gridDimZ;
  unsigned blockDimX, blockDimY, blockDimZ;
  unsigned sharedMemBytes;
  CUstream hStream;
  CUlaunchAttribute *attrs;
  unsigned numAttrs;
};
static_assert(sizeof(CUlaunchConfig) == 56, "CUDA's CUlaunchConfig");

/// Entry points resolved from libcuda.so.1, by their exported (_v2) names.
struct DriverApi {
  CUresult (*cuInit)(unsigned flags);
  CUresult (*cuDriverGetVersion)(int *version);
  CUresult (*cuGetErrorName)(CUresult error, const char **str);
  CUresult (*cuGetErrorString)(CUresult error, const char **str);
  CUresult (*cuDeviceGetCount)(int *count);
  CUresult (*cuDeviceGet)(CUdevice *device, int ordinal);
  CUresult (*cuDeviceGetName)(char *name, int len, CUdevice device);
  CUresult (*cuDeviceGetAttribute)(int *value, int attribute,
                                   CUdevice device);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *ctx, CUdevice device);
  CUresult (*cuCtxSetCurrent)(CUcontext ctx);
  CUresult (*cuCtxSynchronize)();
  CUresult (*cuMemAlloc)(CUdeviceptr *ptr, size_t bytes);
  CUresult (*cuMemFree)(CUdeviceptr ptr);
  CUresult (*cuMemAllocAsync)(CUdeviceptr *ptr, size_t bytes, CUstream stream);
  CUresult (*cuMemFreeAsync)(CUdeviceptr ptr, CUstream stream);
  CUresult (*cuMemcpyHtoD)(CUdeviceptr dst, const void *src, size_t bytes);
  CUresult (*cuMemcpyDtoH)(void *dst, CUdeviceptr src, size_t bytes);
  CUresult (*cuMemsetD8)(CUdeviceptr dst, unsigned char value, size_t n);
  CUresult (*cuMemsetD8Async)(CUdeviceptr dst, unsigned char value, size_t n,
                              CUstream stream);
  CUresult (*cuMemcpyDtoDAsync)(CUdeviceptr dst, CUdeviceptr src, size_t bytes,
                                CUstream stream);
  CUresult (*cuMemGetAddressRange)(CUdeviceptr *base, size_t *bytes,
                                   CUdeviceptr address);
  CUresult (*cuModuleLoadDataEx)(CUmodule *module, const void *image,
                                 unsigned numOptions, CUjit_option *options,
                                 void **optionValues);
  CUresult (*cuModuleGetFunction)(CUfunction *function, CUmodule module,
                                  const char *name);
  CUresult (*cuModuleUnload)(CUmodule module);
  CUresult (*cuFuncSetAttribute)(CUfunction function, int attribute,
                                 int value);
  CUresult (*cuLaunchKernel)(CUfunction function, unsigned gridX,
                             unsigned gridY, unsigned gridZ, unsigned blockX,
                             unsigned blockY, unsigned blockZ,
                             unsigned sharedBytes, CUstream stream,
                             void **params, void **extra);
  CUresult (*cuStreamCreate)(CUstream *stream, unsigned flags);
  CUresult (*cuStreamSynchronize)(CUstream stream);
  CUresult (*cuStreamDestroy)(CUstream stream);
  CUresult (*cuEventCreate)(CUevent *event, unsigned flags);
  CUresult (*cuEventRecord)(CUevent event, CUstream stream);
  CUresult (*cuEventSynchronize)(CUevent event);
  CUresult (*cuEventElapsedTime)(float *ms, CUevent start, CUevent end);
  CUresult (*cuEventDestroy)(CUevent event);
  /// Null before CUDA 12 drivers (kernels whose programs run as clusters
  /// need it).
  CUresult (*cuLaunchKernelEx)(const CUlaunchConfig *config,
                               CUfunction function, void **params,
                               void **extra);
  CUresult (*cuOccupancyMaxActiveBlocksPerMultiprocessor)(
      int *blocks, CUfunction function, int blockSize, size_t sharedBytes);
  /// Null before CUDA 12 drivers (the cluster split's cost model reads it;
  /// without it the model assumes one CTA an SM).
  CUresult (*cuOccupancyMaxActiveClusters)(int *clusters, CUfunction function,
                                           const CUlaunchConfig *config);
  /// Null before CUDA 12 drivers (kernels with tensor maps need it).
  CUresult (*cuTensorMapEncodeTiled)(
      void *map, int dataType, unsigned rank, void *address,
      const unsigned long long *dims, const unsigned long long *strideBytes,
      const unsigned *box, const unsigned *elementStrides, int interleave,
      int swizzle, int l2Promotion, int oobFill);
};

/// The driver table, with device 0's primary context current on the calling
/// thread. Throws tile::Error saying why when CUDA is unavailable.
const DriverApi &driver();

/// The table if the driver was already loaded successfully, else null. Never
/// loads it; for destructors, which must not throw.
const DriverApi *loadedDriver();

/// `kernel` as a name that lives as long as the process (one copy per
/// distinct name), for noteLaunch.
const char *internKernelName(std::string_view kernel);

/// Records the kernel just launched, so synchronize() can name it: one
/// relaxed store, for launches' hot path.
void noteLaunch(const char *internedName);

/// Throws like checkCuda, naming the last kernel launched: for calls that
/// wait on the device, where an earlier launch's asynchronous fault surfaces.
void checkCudaAfterLaunch(CUresult result, const char *call);

} // namespace cu
} // namespace tile

#endif // TILE_LIB_DRIVERAPI_H
