//===- Kernel.cpp - Typed launches of tilec kernels -----------------------===//

#include "tile/Kernel.h"

#include "DriverApi.h"
#include "tile/DeviceBuffer.h"
#include "tile/Driver.h"
#include "tile/Error.h"
#include "tile/Module.h"

#include <array>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>

using namespace tile;
using namespace tile::cu;

// Above this, the driver refuses dynamic shared memory unless the function
// opts in through CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES.
static constexpr unsigned kDefaultSharedLimit = 48 * 1024;

KernelArg::KernelArg(const DeviceBuffer &buffer)
    : pointer_(true), dtype_(buffer.dtype()), bytes_(buffer.size()),
      backend_(buffer.backend()), bits_(buffer.address()) {}

KernelArg::KernelArg(float value)
    : KernelArg(DType::FP32, encodeFloat(DType::FP32, value)) {}

KernelArg::KernelArg(double value)
    : KernelArg(DType::FP64, encodeFloat(DType::FP64, value)) {}

int64_t KernelArg::intValue() const {
  if (pointer_ || !dtype_ || isFloat(*dtype_))
    return 0;
  unsigned bits = info(*dtype_).bits;
  if (bits >= 64)
    return int64_t(bits_);
  uint64_t value = bits_ & ((uint64_t(1) << bits) - 1);
  // Sign-extend a signed integer's bits.
  if (info(*dtype_).typeClass == DTypeClass::Signed &&
      (value >> (bits - 1)) & 1)
    value |= ~uint64_t(0) << bits;
  return int64_t(value);
}

double KernelArg::floatValue() const {
  return !pointer_ && dtype_ && isFloat(*dtype_) ? decodeFloat(*dtype_, bits_)
                                                 : 0;
}

std::string KernelArg::typeName() const {
  if (pointer_)
    return "pointer";
  return std::string(name(*dtype_));
}

static std::string hex(uint64_t value) {
  std::ostringstream os;
  os << "0x" << std::hex << value;
  return os.str();
}

bool tile::dtypeHolds(std::optional<DType> dtype, DType element) {
  if (!dtype || *dtype == element)
    return true;
  if (!isInteger(*dtype) || byteSize(*dtype) != byteSize(element))
    return false;
  return isInteger(element) || element == DType::FP16 ||
         element == DType::BF16 || element == DType::FP8E5 ||
         element == DType::FP8E4NV;
}

namespace {

/// Whether `value` (read as unsigned where `isUnsigned`) is within the
/// range of the integer dtype `type`.
bool fitsInteger(int64_t value, bool isUnsigned, DType type) {
  unsigned bits = info(type).bits;
  if (::tile::isUnsigned(type)) {
    if (!isUnsigned && value < 0)
      return false;
    return bits >= 64 || uint64_t(value) < (uint64_t(1) << bits);
  }
  if (isUnsigned && (value < 0 || (bits < 64 && uint64_t(value) >> (bits - 1))))
    return false;
  if (bits >= 64)
    return true;
  int64_t limit = int64_t(1) << (bits - 1);
  return value >= -limit && value < limit;
}

/// Checks `arg` against parameter `param` of a kernel running on `backend`
/// and stores what the parameter takes in `slot`: 8 bytes, from which the
/// driver reads the parameter's size (little-endian), so narrower values
/// sit in the low bytes. Where it does not fit, returns false and, where
/// `why` is given, what is wrong ("expects i32, got fp32"), to follow the
/// argument's name. Builds no string for an argument that fits.
bool passArgument(const ParamInfo &param, const KernelArg &arg,
                  Backend backend, uint64_t &slot, std::string *why) {
  auto fail = [&](auto message) {
    if (why)
      *why = message();
    return false;
  };
  auto mismatch = [&] {
    return " expects " + param.type.str() + ", got " + arg.typeName();
  };
  const char *assumption = ", as this kernel was compiled to assume";
  uint64_t div = param.divisibility;
  DType want = param.type.dtype;

  if (param.isPointer()) {
    if (!arg.isPointer())
      return fail(mismatch);
    if (arg.backend() != backend)
      return fail([&] {
        return std::string(backend == Backend::CUDA
                               ? " is a host buffer of the interpreter, not "
                                 "device memory"
                               : " is device memory, but the kernel runs on "
                                 "the interpreter");
      });
    if (!dtypeHolds(arg.dtype(), want))
      return fail([&] {
        return " expects " + param.type.str() + ", got *" +
               std::string(name(*arg.dtype()));
      });
    if (div > 1 && arg.pointerValue() % div != 0)
      return fail([&] {
        return " = " + hex(arg.pointerValue()) + " is not " +
               std::to_string(div) + "-byte aligned" + assumption;
      });
    slot = arg.pointerValue();
    return true;
  }
  if (arg.isPointer())
    return fail(mismatch);
  DType have = *arg.dtype();
  const DTypeInfo &wanted = info(want);

  if (wanted.typeClass == DTypeClass::Bool) {
    if (have != DType::I1)
      return fail(mismatch);
    slot = arg.bits() & 1;
    return true;
  }

  if (isFloat(want)) {
    if (!isFloat(have))
      return fail(mismatch);
    slot = have == want ? arg.bits() : encodeFloat(want, arg.floatValue());
    return true;
  }

  // Integers: an argument no wider than the parameter is extended (a
  // signed one's bits serve an unsigned parameter of its width; an
  // unsigned one must fit a signed parameter); a wider one is refused,
  // naming its value where that does not fit.
  if (!isInteger(have))
    return fail(mismatch);
  int64_t value = arg.intValue();
  bool unsignedValue = isUnsigned(have);
  auto text = [&] {
    return unsignedValue ? std::to_string(uint64_t(value))
                         : std::to_string(value);
  };
  bool wider = info(have).bits > wanted.bits;
  bool unsignedIntoSigned =
      unsignedValue && !isUnsigned(want) && info(have).bits == wanted.bits;
  if (wider || unsignedIntoSigned) {
    if (!fitsInteger(value, unsignedValue, want))
      return fail([&] {
        return " = " + text() + " does not fit in " +
               std::string(wanted.name);
      });
    if (wider)
      return fail(mismatch);
  }
  bool divisible = unsignedValue ? uint64_t(value) % div == 0
                                 : value % int64_t(div) == 0;
  if (div > 1 && !divisible)
    return fail([&] {
      return " = " + text() + " is not divisible by " + std::to_string(div) +
             assumption;
    });
  slot = wanted.bits >= 64 ? uint64_t(value)
                           : uint64_t(value) & ((uint64_t(1) << wanted.bits) - 1);
  return true;
}

} // namespace

std::string tile::validateLaunch(const KernelMetadata &md, Grid grid,
                                 KernelArgs args, Backend backend) {
  std::string prefix = "kernel " + md.kernel + ": ";
  if (std::string error = validateGrid(md.kernel, grid, kMaxGrid,
                                       md.clusterDims);
      !error.empty())
    return error;
  if (args.size() != md.params.size())
    return prefix + "expects " + std::to_string(md.params.size()) +
           " arguments, got " + std::to_string(args.size());
  for (size_t i = 0; i < args.size(); ++i) {
    const ParamInfo &param = md.params[i];
    uint64_t slot;
    std::string why;
    if (!passArgument(param, args[i], backend, slot, &why))
      return prefix + "argument " + std::to_string(i) + " (" + param.name +
             ")" + why;
  }
  return {};
}

/// How many clusters of 1 to kMaxModelClusterSplit CTAs of `function` (of
/// `md`'s block and shared memory) its device runs at once; 0 where the
/// driver cannot say.
static ClusterCapacity readClusterCapacity(const KernelMetadata &md,
                                           CUfunction function) {
  ClusterCapacity capacity{};
  const DriverApi &api = driver();
  if (!api.cuOccupancyMaxActiveClusters)
    return capacity;
  for (unsigned ctas = 1; ctas <= kMaxModelClusterSplit; ++ctas) {
    CUlaunchAttribute attribute{};
    attribute.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    attribute.value.clusterDim = {ctas, 1, 1};
    CUlaunchConfig config{};
    config.gridDimX = ctas;
    config.gridDimY = config.gridDimZ = 1;
    config.blockDimX = md.threadsPerBlock;
    config.blockDimY = config.blockDimZ = 1;
    config.sharedMemBytes = md.sharedBytes;
    config.attrs = &attribute;
    config.numAttrs = 1;
    int clusters = 0;
    if (api.cuOccupancyMaxActiveClusters(&clusters, function, &config) ==
            CUDA_SUCCESS &&
        clusters > 0)
      capacity[ctas] = uint64_t(clusters);
  }
  return capacity;
}

Kernel::Kernel(std::shared_ptr<Module> module, KernelMetadata metadata)
    : module_(std::move(module)), metadata_(std::move(metadata)),
      device_(currentDevice()), name_(internKernelName(metadata_.kernel)) {
  if (!module_)
    throw Error("kernel " + metadata_.kernel + ": null module");
  function_ = module_->function(metadata_.kernel);
  DeviceLimits limits = deviceLimits();
  deviceGrid_ = {limits.maxGrid[0], limits.maxGrid[1], limits.maxGrid[2]};
  // A cluster's CTAs count against the limits: launches compare the
  // programs against these without multiplying.
  const std::array<unsigned, 3> &cluster = metadata_.clusterDims;
  if (!cluster[0] || !cluster[1] || !cluster[2])
    throw Error("kernel " + metadata_.kernel + ": its clusters (" +
                std::to_string(cluster[0]) + ", " + std::to_string(cluster[1]) +
                ", " + std::to_string(cluster[2]) + ") have no CTAs");
  maxGrid_ = {deviceGrid_.x / cluster[0], deviceGrid_.y / cluster[1],
              deviceGrid_.z / cluster[2]};
  if (metadata_.ctasPerCluster() > 1 && !driver().cuLaunchKernelEx)
    throw Error("kernel " + metadata_.kernel + " runs each program as a "
                "cluster of " + std::to_string(metadata_.ctasPerCluster()) +
                " CTAs, which takes cuLaunchKernelEx: the CUDA driver "
                "predates it (CUDA 12)");
  // Beyond the opt-in limit the driver answers CUDA_ERROR_INVALID_VALUE.
  if (metadata_.sharedBytes > limits.maxSharedBytes)
    throw Error("kernel " + metadata_.kernel + ": " +
                std::to_string(metadata_.sharedBytes) +
                " bytes of shared memory per block, more than the device's "
                "limit of " + std::to_string(limits.maxSharedBytes) +
                " (CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN): "
                "compile it with smaller blocks or fewer stages");
  if (metadata_.sharedBytes > kDefaultSharedLimit)
    checkCuda(driver().cuFuncSetAttribute(
                  static_cast<CUfunction>(function_),
                  CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                  static_cast<int>(metadata_.sharedBytes)),
              "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)",
              metadata_.kernel);
  // After the shared memory's limit: the occupancy queries take it.
  if (metadata_.streamKSplittable || metadata_.streamKPartialBytes ||
      metadata_.persistent) {
    int perSM = 0;
    checkCuda(driver().cuOccupancyMaxActiveBlocksPerMultiprocessor(
                  &perSM, static_cast<CUfunction>(function_),
                  int(metadata_.threadsPerBlock), metadata_.sharedBytes),
              "cuOccupancyMaxActiveBlocksPerMultiprocessor", metadata_.kernel);
    residentCtas_ = uint64_t(perSM) * uint64_t(multiprocessorCount());
  }
  // After the shared memory's limit: the occupancy query takes it.
  if (metadata_.clusterSplittable && metadata_.ctasPerCluster() == 1) {
    multiprocessors_ = unsigned(multiprocessorCount());
    computeCapability_ = unsigned(computeCapability());
    clusterCapacity_ = readClusterCapacity(
        metadata_, static_cast<CUfunction>(function_));
  }
}

bool Kernel::streamKFor(uint64_t programs) const {
  return metadata_.streamKSplittable && !metadata_.streamKPartialBytes &&
         metadata_.ctasPerCluster() == 1 &&
         chooseStreamK(programs, residentCtas_).splitPrograms != 0;
}

unsigned Kernel::clusterSplitFor(uint64_t programs) const {
  if (!metadata_.clusterSplittable || metadata_.ctasPerCluster() != 1)
    return 1;
  return chooseClusterSplitK(programs, multiprocessors_, computeCapability_,
                             clusterCapacity_);
}

static std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw Error("cannot open " + path + ": " + std::strerror(errno));
  return std::string(std::istreambuf_iterator<char>(in),
                     std::istreambuf_iterator<char>());
}

Kernel Kernel::load(const std::string &path) {
  size_t dot = path.find_last_of('.');
  size_t slash = path.find_last_of('/');
  std::string ext;
  if (dot != std::string::npos && (slash == std::string::npos || dot > slash))
    ext = path.substr(dot);
  if (ext != ".ptx" && ext != ".cubin")
    throw Error("cannot load " + path + ": expected a .ptx or .cubin file");

  std::string jsonPath = path.substr(0, dot) + ".json";
  KernelMetadata md;
  try {
    md = KernelMetadata::fromJSON(readFile(jsonPath));
  } catch (const Error &e) {
    throw Error(jsonPath + ": " + e.what());
  }

  std::string image = readFile(path);
  std::shared_ptr<Module> module =
      ext == ".ptx" ? Module::loadPTX(image, md)
                    : Module::loadCubin(std::vector<char>(image.begin(),
                                                          image.end()),
                                        md.kernel);
  return Kernel(std::move(module), std::move(md));
}

namespace {

/// A CUtensorMap: what a kernel parameter of one holds.
struct alignas(64) TensorMap {
  unsigned char bytes[128];
};

/// `n` elements, in the object up to `Inline` (a launch's parameters, on
/// the stack) and on the heap beyond.
template <class T, size_t Inline> class LaunchArray {
public:
  explicit LaunchArray(size_t n) {
    if (n > Inline) {
      heap_.reset(new T[n]);
      data_ = heap_.get();
    }
  }
  T *data() { return data_; }
  T &operator[](size_t i) { return data_[i]; }

private:
  T inline_[Inline];
  std::unique_ptr<T[]> heap_;
  T *data_ = inline_;
};

/// The argument for parameter `p`.
const KernelArg &argFor(KernelArgs args, const uint32_t *argOf, size_t p) {
  return args[argOf ? argOf[p] : p];
}

/// Parameter p's argument in slots[p] (passArgument), for arguments that
/// Kernel::check accepted.
void packArgs(const KernelMetadata &md, KernelArgs args, const uint32_t *argOf,
              uint64_t *slots) {
  for (size_t p = 0; p < md.params.size(); ++p)
    (void)passArgument(md.params[p], argFor(args, argOf, p), Backend::CUDA,
                       slots[p], nullptr);
}

/// The tensor map `info` describes for a launch whose parameters have the
/// values `values`. An empty tensor (an extent not positive) cannot be
/// copied from, and cuTensorMapEncodeTiled refuses it: its map stays zero.
TensorMap encodeTensorMap(const DriverApi &api, const TensorMapInfo &info,
                          const std::vector<int64_t> &values,
                          const std::array<int64_t, 3> &grid,
                          const std::string &kernel, size_t index) {
  TensorMap map{};
  std::vector<unsigned long long> dims, strideBytes;
  for (const HostExpr &dim : info.dims) {
    int64_t extent = dim.evaluate(values, grid);
    if (extent <= 0)
      return map;
    dims.push_back(static_cast<unsigned long long>(extent));
  }
  for (const HostExpr &stride : info.strides)
    strideBytes.push_back(static_cast<unsigned long long>(
        stride.evaluate(values, grid) * int64_t(info.elementBytes)));
  std::vector<unsigned> elementStrides(info.dims.size(), 1);
  std::string call = "cuTensorMapEncodeTiled(tensor map " +
                     std::to_string(index) + ")";
  if (!api.cuTensorMapEncodeTiled)
    throw Error(call + " failed for kernel " + kernel +
                ": the CUDA driver predates tensor maps (CUDA 12)");
  auto address = static_cast<uint64_t>(info.base.evaluate(values, grid));
  checkCuda(api.cuTensorMapEncodeTiled(
                &map, getTensorMapDataType(info.elementBytes),
                unsigned(dims.size()), reinterpret_cast<void *>(address),
                dims.data(), strideBytes.data(), info.box.data(),
                elementStrides.data(), /*interleave=*/0,
                getTensorMapSwizzle(info.swizzle), /*l2Promotion=*/0,
                /*oobFill=*/0),
            call.c_str(), kernel);
  return map;
}

/// What parameter `param` holds in `slot` as HostExprs see it: a pointer's
/// address, an integer sign- or zero-extended by its dtype, 0 for a float.
int64_t hostValue(const ParamInfo &param, uint64_t slot) {
  if (param.isPointer())
    return int64_t(slot);
  return KernelArg::scalarOf(param.type.dtype, slot).intValue();
}

/// The tensor maps the launcher builds, from the parameters' values, into
/// `maps`.
void encodeTensorMaps(const DriverApi &api, const KernelMetadata &md,
                      const uint64_t *slots, Grid grid, TensorMap *maps) {
  std::vector<int64_t> values;
  for (size_t p = 0; p < md.params.size(); ++p)
    values.push_back(hostValue(md.params[p], slots[p]));
  for (size_t i = 0; i < md.tensorMaps.size(); ++i)
    maps[i] = encodeTensorMap(api, md.tensorMaps[i], values,
                              {grid.x, grid.y, grid.z}, md.kernel, i);
}

/// The parameters a launch adds after the arguments and tensor maps: the
/// programs' global scratch, the turnstiles, and a stream-K kernel's grid
/// (x, y, z), split programs, parts, head parts and workspace, or a
/// persistent kernel's grid (never both).
constexpr size_t kLaunchExtras = 9;

/// Enqueues a grid of `ctas` CTAs in clusters of `cluster` (Kernel::check
/// keeps the grid within the device's limits).
CUresult launchClusters(const DriverApi &api, const KernelMetadata &md,
                        CUfunction function, Grid ctas,
                        std::array<unsigned, 3> cluster, void **params,
                        CUstream stream) {
  CUlaunchAttribute attribute{};
  attribute.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
  attribute.value.clusterDim = {cluster[0], cluster[1], cluster[2]};
  CUlaunchConfig config{};
  config.gridDimX = ctas.x;
  config.gridDimY = ctas.y;
  config.gridDimZ = ctas.z;
  config.blockDimX = md.threadsPerBlock;
  config.blockDimY = 1;
  config.blockDimZ = 1;
  config.sharedMemBytes = md.sharedBytes;
  config.hStream = stream;
  config.attrs = &attribute;
  config.numAttrs = 1;
  return api.cuLaunchKernelEx(&config, function, params, nullptr);
}

/// Enqueues `function` with `params` (room for kLaunchExtras more: the
/// programs' global scratch and the turnstiles, each allocated and freed in
/// stream order where the kernel has it, so that launches on other streams
/// get their own; the turnstiles zeroed first). Both are per program: a
/// cluster's CTAs take their shares of their program's scratch. A stream-K
/// kernel runs the grid as chooseStreamK decides for `residentCtas`, its
/// CTAs the device holds at once, with a workspace whose flags are zeroed;
/// a persistent kernel as many CTAs as run at once, passed the grid.
void enqueue(const DriverApi &api, const KernelMetadata &md, void *function,
             const char *name, Grid grid, void **params, size_t count,
             void *stream, uint64_t residentCtas) {
  auto cuStream = static_cast<CUstream>(stream);
  size_t programs = size_t(grid.x) * grid.y * grid.z;
  StreamKLaunch plan{programs, 0, 0, 0};
  if (md.streamKPartialBytes)
    plan = chooseStreamK(programs, residentCtas);
  // Kernel::check kept the CTAs within the device's limit along x.
  Grid ctas = grid;
  if (md.streamKPartialBytes)
    ctas = Grid{unsigned(plan.ctas), 1, 1};
  else if (md.persistent)
    ctas = Grid{unsigned(persistentCtas(programs, residentCtas)), 1, 1};
  unsigned streamK[3] = {unsigned(plan.splitPrograms), plan.parts,
                         plan.headParts};
  CUdeviceptr scratch = 0, turnstiles = 0, workspace = 0;
  // Each buffer in stream order; what was allocated goes back if a later
  // step throws.
  auto allocate = [&](CUdeviceptr &buffer, size_t bytes, const char *call,
                      size_t zeroed = 0, const char *zeroCall = nullptr) {
    try {
      checkCuda(api.cuMemAllocAsync(&buffer, bytes, cuStream), call,
                md.kernel);
      if (zeroed)
        checkCuda(api.cuMemsetD8Async(buffer, 0, zeroed, cuStream), zeroCall,
                  md.kernel);
    } catch (...) {
      for (CUdeviceptr allocated : {scratch, turnstiles, workspace})
        if (allocated)
          (void)api.cuMemFreeAsync(allocated, cuStream);
      throw;
    }
  };
  if (md.globalScratchBytes) {
    // A part per CTA: a stream-K kernel's CTAs, not its programs.
    size_t parts = md.streamKPartialBytes ? size_t(plan.ctas) : programs;
    allocate(scratch, parts * md.globalScratchBytes,
             "cuMemAllocAsync(global scratch)");
    params[count++] = &scratch;
  }
  if (md.turnstiles) {
    allocate(turnstiles, 4 * programs, "cuMemAllocAsync(turnstiles)",
             4 * programs, "cuMemsetD8Async(turnstiles)");
    params[count++] = &turnstiles;
  }
  if (md.streamKPartialBytes) {
    uint64_t pieces = plan.pieces();
    if (pieces)
      allocate(workspace, md.streamKWorkspaceBytes(pieces),
               "cuMemAllocAsync(stream-K workspace)", 4 * pieces,
               "cuMemsetD8Async(stream-K flags)");
    params[count++] = &grid.x;
    params[count++] = &grid.y;
    params[count++] = &grid.z;
    for (unsigned &value : streamK)
      params[count++] = &value;
    params[count++] = &workspace;
  }
  if (md.persistent) {
    params[count++] = &grid.x;
    params[count++] = &grid.y;
    params[count++] = &grid.z;
  }
  noteLaunch(name);
  // Each program a cluster (a cluster split), or neighbouring programs
  // one, sharing copies, where the grid's x divides into them (any other
  // launch is correct too: each CTA then copies for itself).
  std::array<unsigned, 3> cluster = md.clusterDims;
  if (md.ctasPerCluster() > 1)
    ctas = {grid.x * cluster[0], grid.y * cluster[1], grid.z * cluster[2]};
  else if (md.clusterPrograms > 1 && ctas.x % md.clusterPrograms == 0 &&
           api.cuLaunchKernelEx)
    cluster = {md.clusterPrograms, 1, 1};
  CUresult launched;
  const char *call = "cuLaunchKernel";
  if (cluster == std::array<unsigned, 3>{1, 1, 1}) {
    launched = api.cuLaunchKernel(
        static_cast<CUfunction>(function), ctas.x, ctas.y, ctas.z,
        md.threadsPerBlock, 1, 1, md.sharedBytes, cuStream,
        count ? params : nullptr, nullptr);
  } else {
    launched = launchClusters(api, md, static_cast<CUfunction>(function), ctas,
                              cluster, count ? params : nullptr, cuStream);
    call = "cuLaunchKernelEx";
  }
  if (scratch)
    checkCuda(api.cuMemFreeAsync(scratch, cuStream),
              "cuMemFreeAsync(global scratch)", md.kernel);
  if (turnstiles)
    checkCuda(api.cuMemFreeAsync(turnstiles, cuStream),
              "cuMemFreeAsync(turnstiles)", md.kernel);
  if (workspace)
    checkCuda(api.cuMemFreeAsync(workspace, cuStream),
              "cuMemFreeAsync(stream-K workspace)", md.kernel);
  checkCuda(launched, call, md.kernel);
}

/// The bytes from `address` to the end of the driver allocation holding
/// it, and with `contiguous`, of the allocations mapped right after it
/// too (PyTorch's expandable segments map one tensor's memory as several);
/// 0 where the driver knows no allocation there.
uint64_t allocationBytes(uint64_t address, bool contiguous) {
  const DriverApi &api = driver();
  CUdeviceptr base = 0;
  size_t size = 0;
  if (api.cuMemGetAddressRange(&base, &size, address) != CUDA_SUCCESS)
    return 0;
  uint64_t end = base + size;
  // A bounded walk: a launch's error is worth a few calls, not a scan.
  for (int i = 0; contiguous && i < 64; ++i) {
    if (api.cuMemGetAddressRange(&base, &size, end) != CUDA_SUCCESS ||
        base != end)
      break;
    end = base + size;
  }
  return end - address;
}

/// validateBuffers, with parameter p's argument `args[argOf[p]]`. Raw
/// device addresses (tile::Ptr, KernelArg::pointer) on the GPU are checked
/// against their driver allocations (cuMemGetAddressRange), where the
/// driver knows them, and an error they cause is confirmed over the
/// allocations mapped after theirs before it is reported.
std::string bufferError(const KernelMetadata &md, Grid grid, KernelArgs args,
                        const uint32_t *argOf, bool onGPU) {
  size_t n = md.params.size();
  LaunchArray<int64_t, 24> values(n);
  LaunchArray<uint64_t, 24> bytes(n);
  bool checked = false, raw = false;
  for (size_t p = 0; p < n; ++p) {
    const KernelArg &arg = argFor(args, argOf, p);
    bytes[p] = 0;
    values[p] = arg.isPointer() ? int64_t(arg.pointerValue()) : arg.intValue();
    if (!arg.isPointer())
      continue;
    bytes[p] = arg.bufferBytes();
    if (!bytes[p] && arg.pointerValue() && onGPU &&
        arg.backend() == Backend::CUDA) {
      bytes[p] = allocationBytes(arg.pointerValue(), /*contiguous=*/false);
      raw |= bytes[p] != 0;
    }
    checked |= bytes[p] != 0 || arg.pointerValue() == 0;
  }
  if (!checked)
    return {};
  std::array<int64_t, 3> programs = {grid.x, grid.y, grid.z};
  std::string error =
      checkBufferSizes(md, values.data(), bytes.data(), programs);
  if (error.empty() || !raw)
    return error;
  for (size_t p = 0; p < n; ++p) {
    const KernelArg &arg = argFor(args, argOf, p);
    if (arg.isPointer() && !arg.bufferBytes() && arg.pointerValue())
      bytes[p] = allocationBytes(arg.pointerValue(), /*contiguous=*/true);
  }
  return checkBufferSizes(md, values.data(), bytes.data(), programs);
}

} // namespace

std::string tile::validateBuffers(const KernelMetadata &md, Grid grid,
                                  KernelArgs args) {
  if (md.accesses.empty() || args.size() != md.params.size())
    return {};
  return bufferError(md, grid, args, nullptr, /*onGPU=*/false);
}

void Kernel::check(Grid grid, KernelArgs args, const uint32_t *argOf) const {
  bool gridOk = grid.x && grid.y && grid.z && grid.x <= maxGrid_.x &&
                grid.y <= maxGrid_.y && grid.z <= maxGrid_.z;
  if (!gridOk)
    throw Error(validateGrid(metadata_.kernel, grid, deviceGrid_,
                             metadata_.clusterDims));
  if (metadata_.persistent &&
      uint64_t(grid.x) * grid.y * grid.z > kMaxPersistentPrograms)
    throw Error("kernel " + metadata_.kernel + ": grid (" +
                std::to_string(grid.x) + ", " + std::to_string(grid.y) + ", " +
                std::to_string(grid.z) +
                ") has more programs than a "
                "persistent kernel's limit of " +
                std::to_string(kMaxPersistentPrograms) +
                ": compile it with --persistent off (JITOptions::persistent)");
  if (metadata_.streamKPartialBytes) {
    uint64_t programs = uint64_t(grid.x) * grid.y * grid.z;
    uint64_t ctas = chooseStreamK(programs, residentCtas_).ctas;
    if (ctas > deviceGrid_.x)
      throw Error("kernel " + metadata_.kernel + ": grid (" +
                  std::to_string(grid.x) + ", " + std::to_string(grid.y) +
                  ", " + std::to_string(grid.z) + ") runs stream-K as " +
                  std::to_string(ctas) + " CTAs along x, more than the "
                  "limit of " + std::to_string(deviceGrid_.x));
  }
  size_t count = metadata_.params.size();
  bool ok = argOf || args.size() == count;
  for (size_t p = 0; ok && p < count; ++p) {
    uint64_t slot;
    ok = passArgument(metadata_.params[p], argFor(args, argOf, p),
                      Backend::CUDA, slot, nullptr);
  }
  if (ok && device_ == currentDevice()) {
    if (metadata_.accesses.empty())
      return;
    std::string error =
        bufferError(metadata_, grid, args, argOf, /*onGPU=*/true);
    if (!error.empty())
      throw Error(error);
    return;
  }
  if (ok)
    throw Error("kernel " + metadata_.kernel + " was loaded on device " +
                std::to_string(device_) + ", but the calling thread's device "
                "is " + std::to_string(currentDevice()));
  // The message, built only for an error.
  std::vector<KernelArg> selected;
  if (argOf)
    for (size_t p = 0; p < count; ++p)
      selected.push_back(argFor(args, argOf, p));
  std::string error = validateLaunch(
      metadata_, grid, argOf ? KernelArgs(selected) : args);
  throw Error(error.empty() ? "kernel " + metadata_.kernel + ": invalid launch"
                            : error);
}

void Kernel::launch(Grid grid, KernelArgs args, void *stream) const {
  launch(grid, args, nullptr, stream);
}

void Kernel::launch(Grid grid, KernelArgs args, const uint32_t *argOf,
                    void *stream) const {
  check(grid, args, argOf);
  const DriverApi &api = driver();
  size_t count = metadata_.params.size(), maps = metadata_.tensorMaps.size();
  LaunchArray<uint64_t, 24> slots(count);
  LaunchArray<void *, 32> params(count + maps + kLaunchExtras);
  packArgs(metadata_, args, argOf, slots.data());
  for (size_t p = 0; p < count; ++p)
    params[p] = &slots[p];
  if (!maps)
    return enqueue(api, metadata_, function_, name_, grid, params.data(),
                   count, stream, residentCtas_);
  LaunchArray<TensorMap, 3> built(maps);
  encodeTensorMaps(api, metadata_, slots.data(), grid, built.data());
  for (size_t i = 0; i < maps; ++i)
    params[count + i] = &built[i];
  enqueue(api, metadata_, function_, name_, grid, params.data(), count + maps,
          stream, residentCtas_);
}

struct BoundLaunch::State {
  const Kernel *kernel;
  Grid grid;
  void *stream;
  std::vector<uint64_t> slots;
  std::vector<TensorMap> maps;
  /// The arguments' and maps' addresses, then room for kLaunchExtras more.
  std::vector<void *> params;
};

BoundLaunch Kernel::bind(Grid grid, KernelArgs args, void *stream) const {
  return bind(grid, args, nullptr, stream);
}

BoundLaunch Kernel::bind(Grid grid, KernelArgs args, const uint32_t *argOf,
                         void *stream) const {
  check(grid, args, argOf);
  auto state = std::make_shared<BoundLaunch::State>();
  state->kernel = this;
  state->grid = grid;
  state->stream = stream;
  state->slots.resize(metadata_.params.size());
  packArgs(metadata_, args, argOf, state->slots.data());
  state->maps.resize(metadata_.tensorMaps.size());
  if (!state->maps.empty())
    encodeTensorMaps(driver(), metadata_, state->slots.data(), grid,
                     state->maps.data());
  for (uint64_t &slot : state->slots)
    state->params.push_back(&slot);
  for (TensorMap &map : state->maps)
    state->params.push_back(&map);
  state->params.resize(state->params.size() + kLaunchExtras, nullptr);
  BoundLaunch bound;
  bound.state_ = std::move(state);
  return bound;
}

void BoundLaunch::launch() const { launch(state_->stream); }

void BoundLaunch::launch(void *stream) const {
  const Kernel &kernel = *state_->kernel;
  if (kernel.device() != currentDevice())
    throw Error("kernel " + kernel.metadata().kernel + " was loaded on device " +
                std::to_string(kernel.device()) + ", but the calling thread's "
                "device is " + std::to_string(currentDevice()));
  size_t count = state_->params.size() - kLaunchExtras;
  // The driver only reads the parameters; the extras need a copy.
  const KernelMetadata &md = kernel.metadata();
  if (!md.globalScratchBytes && !md.turnstiles && !md.streamKPartialBytes &&
      !md.persistent)
    return enqueue(driver(), md, kernel.function_, kernel.name_,
                   state_->grid, const_cast<void **>(state_->params.data()),
                   count, stream, kernel.residentCtas_);
  LaunchArray<void *, 32> params(count + kLaunchExtras);
  std::memcpy(params.data(), state_->params.data(), count * sizeof(void *));
  enqueue(driver(), kernel.metadata(), kernel.function_, kernel.name_,
          state_->grid, params.data(), count, stream, kernel.residentCtas_);
}
