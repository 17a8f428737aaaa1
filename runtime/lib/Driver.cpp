//===- Driver.cpp - Loading and initializing the CUDA driver --------------===//
//
// libcuda.so.1 is opened with dlopen on first use, never linked, so binaries
// start on machines without a GPU and say why CUDA is unavailable instead of
// failing in the dynamic loader.
//
//===----------------------------------------------------------------------===//

#include "tile/Driver.h"

#include "DriverApi.h"
#include "tile/Error.h"

#include <atomic>
#include <dlfcn.h>
#include <mutex>

using namespace tile;
using namespace tile::cu;

namespace {

struct DriverState {
  DriverApi api{};
  bool ok = false;
  std::string whyNot;
  CUdevice device = 0;
  CUcontext context = nullptr;
};

std::once_flag initOnce;
std::atomic<bool> initialized{false};

// Leaked on purpose: Modules and DeviceBuffers destroyed during static
// destruction may still need the table.
DriverState &state() {
  static DriverState *s = new DriverState();
  return *s;
}

std::mutex lastLaunchMutex;
std::string &lastLaunch() {
  static std::string *name = new std::string();
  return *name;
}

std::string errorText(const DriverApi &api, CUresult result) {
  const char *name = nullptr;
  const char *text = nullptr;
  if (!api.cuGetErrorName || api.cuGetErrorName(result, &name) != CUDA_SUCCESS)
    name = nullptr;
  if (!api.cuGetErrorString ||
      api.cuGetErrorString(result, &text) != CUDA_SUCCESS)
    text = nullptr;
  std::string out = name ? name : "CUDA error " + std::to_string(result);
  if (text)
    out += std::string(" (") + text + ")";
  return out;
}

template <class Fn>
bool bind(void *lib, Fn &slot, const char *symbol, std::string &whyNot) {
  dlerror();
  void *address = dlsym(lib, symbol);
  if (!address) {
    const char *err = dlerror();
    whyNot = std::string("libcuda.so.1 lacks ") + symbol + ": " +
             (err ? err : "symbol not found");
    return false;
  }
  slot = reinterpret_cast<Fn>(address);
  return true;
}

/// Fills `s` or sets s.whyNot; never throws.
void initialize(DriverState &s) {
  void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char *err = dlerror();
    s.whyNot = std::string("libcuda.so.1 not found: ") +
               (err ? err : "dlopen failed");
    return;
  }

  DriverApi &a = s.api;
  std::string &why = s.whyNot;
  bool bound =
      bind(lib, a.cuInit, "cuInit", why) &&
      bind(lib, a.cuDriverGetVersion, "cuDriverGetVersion", why) &&
      bind(lib, a.cuGetErrorName, "cuGetErrorName", why) &&
      bind(lib, a.cuGetErrorString, "cuGetErrorString", why) &&
      bind(lib, a.cuDeviceGetCount, "cuDeviceGetCount", why) &&
      bind(lib, a.cuDeviceGet, "cuDeviceGet", why) &&
      bind(lib, a.cuDeviceGetName, "cuDeviceGetName", why) &&
      bind(lib, a.cuDeviceGetAttribute, "cuDeviceGetAttribute", why) &&
      bind(lib, a.cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", why) &&
      bind(lib, a.cuCtxSetCurrent, "cuCtxSetCurrent", why) &&
      bind(lib, a.cuCtxSynchronize, "cuCtxSynchronize", why) &&
      bind(lib, a.cuMemAlloc, "cuMemAlloc_v2", why) &&
      bind(lib, a.cuMemFree, "cuMemFree_v2", why) &&
      bind(lib, a.cuMemAllocAsync, "cuMemAllocAsync", why) &&
      bind(lib, a.cuMemFreeAsync, "cuMemFreeAsync", why) &&
      bind(lib, a.cuMemcpyHtoD, "cuMemcpyHtoD_v2", why) &&
      bind(lib, a.cuMemcpyDtoH, "cuMemcpyDtoH_v2", why) &&
      bind(lib, a.cuMemsetD8, "cuMemsetD8_v2", why) &&
      bind(lib, a.cuModuleLoadDataEx, "cuModuleLoadDataEx", why) &&
      bind(lib, a.cuModuleGetFunction, "cuModuleGetFunction", why) &&
      bind(lib, a.cuModuleUnload, "cuModuleUnload", why) &&
      bind(lib, a.cuFuncSetAttribute, "cuFuncSetAttribute", why) &&
      bind(lib, a.cuLaunchKernel, "cuLaunchKernel", why) &&
      bind(lib, a.cuStreamCreate, "cuStreamCreate", why) &&
      bind(lib, a.cuStreamSynchronize, "cuStreamSynchronize", why) &&
      bind(lib, a.cuStreamDestroy, "cuStreamDestroy_v2", why) &&
      bind(lib, a.cuEventCreate, "cuEventCreate", why) &&
      bind(lib, a.cuEventRecord, "cuEventRecord", why) &&
      bind(lib, a.cuEventSynchronize, "cuEventSynchronize", why) &&
      bind(lib, a.cuEventElapsedTime, "cuEventElapsedTime", why) &&
      bind(lib, a.cuEventDestroy, "cuEventDestroy_v2", why);
  if (!bound)
    return;
  std::string optional;
  if (!bind(lib, a.cuTensorMapEncodeTiled, "cuTensorMapEncodeTiled", optional))
    a.cuTensorMapEncodeTiled = nullptr;

  CUresult r = a.cuInit(0);
  if (r != CUDA_SUCCESS) {
    why = (r == 100 ? "no CUDA device: cuInit failed: "  // CUDA_ERROR_NO_DEVICE
                    : "cuInit failed: ") +
          errorText(a, r);
    return;
  }
  int count = 0;
  r = a.cuDeviceGetCount(&count);
  if (r != CUDA_SUCCESS || count == 0) {
    why = "no CUDA device";
    if (r != CUDA_SUCCESS)
      why += ": cuDeviceGetCount failed: " + errorText(a, r);
    return;
  }
  if ((r = a.cuDeviceGet(&s.device, 0)) != CUDA_SUCCESS) {
    why = "cuDeviceGet failed: " + errorText(a, r);
    return;
  }
  // The primary context is the one the runtime API and other libraries share.
  if ((r = a.cuDevicePrimaryCtxRetain(&s.context, s.device)) != CUDA_SUCCESS) {
    why = "cuDevicePrimaryCtxRetain failed: " + errorText(a, r);
    return;
  }
  s.ok = true;
}

void ensureInitialized() {
  std::call_once(initOnce, [] {
    initialize(state());
    initialized.store(true, std::memory_order_release);
  });
}

} // namespace

const DriverApi &cu::driver() {
  ensureInitialized();
  DriverState &s = state();
  if (!s.ok)
    throw Error("CUDA is not available: " + s.whyNot);
  // A context is current per thread; make ours current on each new thread.
  thread_local bool contextCurrent = false;
  if (!contextCurrent) {
    checkCuda(s.api.cuCtxSetCurrent(s.context), "cuCtxSetCurrent");
    contextCurrent = true;
  }
  return s.api;
}

const DriverApi *cu::loadedDriver() {
  if (!initialized.load(std::memory_order_acquire) || !state().ok)
    return nullptr;
  return &state().api;
}

void cu::noteLaunch(std::string_view kernel) {
  std::lock_guard<std::mutex> lock(lastLaunchMutex);
  lastLaunch().assign(kernel.data(), kernel.size());
}

bool tile::cudaAvailable(std::string *whyNot) {
  ensureInitialized();
  if (!state().ok && whyNot)
    *whyNot = state().whyNot;
  return state().ok;
}

void tile::checkCuda(int result, const char *call, std::string_view kernel) {
  if (result == CUDA_SUCCESS)
    return;
  const DriverApi *api = loadedDriver();
  std::string message = std::string(call) + " failed: " +
                        (api ? errorText(*api, result)
                             : "CUDA error " + std::to_string(result));
  if (!kernel.empty())
    message += " [kernel " + std::string(kernel) + "]";
  throw Error(message);
}

void cu::checkCudaAfterLaunch(CUresult result, const char *call) {
  if (result == CUDA_SUCCESS)
    return;
  std::string kernel;
  {
    std::lock_guard<std::mutex> lock(lastLaunchMutex);
    kernel = lastLaunch();
  }
  const DriverApi *api = loadedDriver();
  std::string message = std::string(call) + " failed: " +
                        (api ? errorText(*api, result)
                             : "CUDA error " + std::to_string(result));
  if (!kernel.empty())
    message += " after launching kernel " + kernel;
  throw Error(message);
}

void tile::synchronize() {
  checkCudaAfterLaunch(driver().cuCtxSynchronize(), "cuCtxSynchronize");
}

std::string tile::deviceName() {
  const DriverApi &api = driver();
  char name[256] = {};
  checkCuda(api.cuDeviceGetName(name, sizeof(name) - 1, state().device),
            "cuDeviceGetName");
  return name;
}

int tile::computeCapability() {
  const DriverApi &api = driver();
  int major = 0, minor = 0;
  checkCuda(api.cuDeviceGetAttribute(
                &major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                state().device),
            "cuDeviceGetAttribute");
  checkCuda(api.cuDeviceGetAttribute(
                &minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                state().device),
            "cuDeviceGetAttribute");
  return major * 10 + minor;
}

std::string tile::deviceArch() {
  int capability = computeCapability();
  return "sm_" + std::to_string(capability) + (capability == 90 ? "a" : "");
}

int tile::driverVersion() {
  const DriverApi &api = driver();
  int version = 0;
  checkCuda(api.cuDriverGetVersion(&version), "cuDriverGetVersion");
  return version;
}

tile::Stream::Stream() {
  CUstream stream = nullptr;
  // CU_STREAM_DEFAULT: ordered with the legacy default stream.
  checkCuda(driver().cuStreamCreate(&stream, 0), "cuStreamCreate");
  handle_ = stream;
}

tile::Stream::~Stream() {
  if (const DriverApi *api = loadedDriver())
    api->cuStreamDestroy(static_cast<CUstream>(handle_));
}

void tile::Stream::synchronize() const {
  checkCudaAfterLaunch(
      driver().cuStreamSynchronize(static_cast<CUstream>(handle_)),
      "cuStreamSynchronize");
}
