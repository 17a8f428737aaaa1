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
#include "tile/GPUArch.h"

#include <algorithm>
#include <atomic>
#include <dlfcn.h>
#include <mutex>
#include <set>

using namespace tile;
using namespace tile::cu;

namespace {

/// Devices beyond this many are refused by setDevice.
constexpr int kMaxDevices = 64;

/// What a device is and keeps being: read once, for launches that ask on
/// their hot path (the JIT's cost model). 0 until read.
struct DeviceFacts {
  std::atomic<int> capability{0};
  std::atomic<int> multiprocessors{0};
};

struct DriverState {
  DriverApi api{};
  bool ok = false;
  std::string whyNot;
  int deviceCount = 0;
  /// Each device's primary context, retained on first use.
  std::atomic<CUcontext> contexts[kMaxDevices] = {};
  std::mutex retainMutex;
  DeviceFacts facts[kMaxDevices];
};

/// The calling thread's device, and the context this runtime last made
/// current on it.
thread_local int threadDevice = 0;
thread_local CUcontext threadContext = nullptr;

std::once_flag initOnce;
std::atomic<bool> initialized{false};

// Leaked on purpose: Modules and DeviceBuffers destroyed during static
// destruction may still need the table.
DriverState &state() {
  static DriverState *s = new DriverState();
  return *s;
}

/// The last kernel launched (an interned name).
std::atomic<const char *> lastLaunch{nullptr};

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
      bind(lib, a.cuMemsetD8Async, "cuMemsetD8Async", why) &&
      bind(lib, a.cuMemcpyDtoDAsync, "cuMemcpyDtoDAsync_v2", why) &&
      bind(lib, a.cuMemGetAddressRange, "cuMemGetAddressRange_v2", why) &&
      bind(lib, a.cuModuleLoadDataEx, "cuModuleLoadDataEx", why) &&
      bind(lib, a.cuModuleGetFunction, "cuModuleGetFunction", why) &&
      bind(lib, a.cuModuleUnload, "cuModuleUnload", why) &&
      bind(lib, a.cuFuncSetAttribute, "cuFuncSetAttribute", why) &&
      bind(lib, a.cuLaunchKernel, "cuLaunchKernel", why) &&
      bind(lib, a.cuOccupancyMaxActiveBlocksPerMultiprocessor,
           "cuOccupancyMaxActiveBlocksPerMultiprocessor", why) &&
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
  if (!bind(lib, a.cuLaunchKernelEx, "cuLaunchKernelEx", optional))
    a.cuLaunchKernelEx = nullptr;
  if (!bind(lib, a.cuOccupancyMaxActiveClusters,
            "cuOccupancyMaxActiveClusters", optional))
    a.cuOccupancyMaxActiveClusters = nullptr;

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
  s.deviceCount = std::min(count, kMaxDevices);
  CUdevice device;
  CUcontext context;
  if ((r = a.cuDeviceGet(&device, 0)) != CUDA_SUCCESS) {
    why = "cuDeviceGet failed: " + errorText(a, r);
    return;
  }
  // The primary context is the one the runtime API and other libraries share.
  if ((r = a.cuDevicePrimaryCtxRetain(&context, device)) != CUDA_SUCCESS) {
    why = "cuDevicePrimaryCtxRetain failed: " + errorText(a, r);
    return;
  }
  s.contexts[0].store(context);
  s.ok = true;
}

/// Device `ordinal`'s primary context, retained on first use.
CUcontext primaryContext(DriverState &s, int ordinal) {
  if (CUcontext context = s.contexts[ordinal].load(std::memory_order_acquire))
    return context;
  std::lock_guard<std::mutex> lock(s.retainMutex);
  if (CUcontext context = s.contexts[ordinal].load())
    return context;
  CUdevice device;
  CUcontext context;
  checkCuda(s.api.cuDeviceGet(&device, ordinal), "cuDeviceGet");
  checkCuda(s.api.cuDevicePrimaryCtxRetain(&context, device),
            "cuDevicePrimaryCtxRetain");
  s.contexts[ordinal].store(context, std::memory_order_release);
  return context;
}

/// The calling thread's device as a CUdevice.
CUdevice currentCUdevice() {
  const DriverApi &api = driver();
  CUdevice device;
  checkCuda(api.cuDeviceGet(&device, threadDevice), "cuDeviceGet");
  return device;
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
  // A context is current per thread: make the thread's device's current
  // on each new thread, and after setDevice.
  CUcontext context = primaryContext(s, threadDevice);
  if (threadContext != context) {
    checkCuda(s.api.cuCtxSetCurrent(context), "cuCtxSetCurrent");
    threadContext = context;
  }
  return s.api;
}

int tile::deviceCount() {
  ensureInitialized();
  return state().ok ? state().deviceCount : 0;
}

void tile::setDevice(int ordinal) {
  int count = deviceCount();
  if (ordinal < 0 || ordinal >= count) {
    std::string why;
    cudaAvailable(&why);
    throw Error("no CUDA device " + std::to_string(ordinal) + ": " +
                (count ? "this machine has " + std::to_string(count)
                       : "CUDA is not available: " + why));
  }
  threadDevice = ordinal;
  (void)driver();
}

int tile::currentDevice() { return threadDevice; }

const DriverApi *cu::loadedDriver() {
  if (!initialized.load(std::memory_order_acquire) || !state().ok)
    return nullptr;
  return &state().api;
}

const char *cu::internKernelName(std::string_view kernel) {
  static std::mutex mutex;
  // Leaked on purpose, as the driver's state: launches may name a kernel
  // during static destruction.
  static auto *names = new std::set<std::string, std::less<>>();
  std::lock_guard<std::mutex> lock(mutex);
  auto it = names->find(kernel);
  if (it == names->end())
    it = names->emplace(kernel).first;
  return it->c_str();
}

void cu::noteLaunch(const char *internedName) {
  lastLaunch.store(internedName, std::memory_order_relaxed);
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
  const char *last = lastLaunch.load(std::memory_order_relaxed);
  std::string kernel = last ? last : "";
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
  checkCuda(api.cuDeviceGetName(name, sizeof(name) - 1, currentCUdevice()),
            "cuDeviceGetName");
  return name;
}

std::string tile::describeDevice() {
  int capability = computeCapability();
  return deviceName() + ", compute capability " +
         std::to_string(capability / 10) + "." +
         std::to_string(capability % 10);
}

/// The calling thread's device's facts, read from the driver on first use
/// (two threads may both read them: the same values).
static const DeviceFacts &deviceFacts() {
  const DriverApi &api = driver();
  DeviceFacts &facts = state().facts[threadDevice];
  if (facts.multiprocessors.load(std::memory_order_acquire))
    return facts;
  CUdevice device = currentCUdevice();
  auto attribute = [&](int which) {
    int value = 0;
    checkCuda(api.cuDeviceGetAttribute(&value, which, device),
              "cuDeviceGetAttribute");
    return value;
  };
  int major = attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
  int minor = attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
  int multiprocessors = attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
  facts.capability.store(major * 10 + minor, std::memory_order_relaxed);
  facts.multiprocessors.store(multiprocessors > 0 ? multiprocessors : 1,
                              std::memory_order_release);
  return facts;
}

int tile::computeCapability() {
  return deviceFacts().capability.load(std::memory_order_relaxed);
}

int tile::multiprocessorCount() {
  return deviceFacts().multiprocessors.load(std::memory_order_relaxed);
}

std::string tile::deviceArch() {
  std::optional<GPUArch> arch = gpuArchForDevice(unsigned(computeCapability()));
  return arch ? std::string(arch->name) : std::string();
}

DeviceLimits tile::deviceLimits() {
  const DriverApi &api = driver();
  CUdevice device = currentCUdevice();
  auto attribute = [&](int which) {
    int value = 0;
    checkCuda(api.cuDeviceGetAttribute(&value, which, device),
              "cuDeviceGetAttribute");
    return unsigned(value);
  };
  return {{attribute(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X),
           attribute(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y),
           attribute(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z)},
          attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)};
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
