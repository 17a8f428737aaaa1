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
    : kind_(Kind::Pointer), dtype_(buffer.dtype()), bytes_(buffer.size()),
      backend_(buffer.backend()), ptr(buffer.address()) {}

const char *KernelArg::kindName() const {
  switch (kind_) {
  case Kind::Pointer:
    return "pointer";
  case Kind::I32:
    return "i32";
  case Kind::I64:
    return "i64";
  case Kind::F32:
    return "fp32";
  }
  return "?";
}

static std::string hex(uint64_t value) {
  std::ostringstream os;
  os << "0x" << std::hex << value;
  return os.str();
}

std::string tile::validateGrid(const std::string &kernel, Grid grid,
                               Grid limit) {
  std::string text = "kernel " + kernel + ": grid (" + std::to_string(grid.x) +
                     ", " + std::to_string(grid.y) + ", " +
                     std::to_string(grid.z) + ")";
  if (grid.x == 0 || grid.y == 0 || grid.z == 0)
    return text + " has a zero dimension";
  const unsigned extents[] = {grid.x, grid.y, grid.z};
  const unsigned limits[] = {limit.x, limit.y, limit.z};
  for (int d = 0; d < 3; ++d)
    if (extents[d] > limits[d])
      return text + " has " + std::to_string(extents[d]) +
             " programs along " + "xyz"[d] + ", more than the limit of " +
             std::to_string(limits[d]);
  return {};
}

/// A dtype's width in bits, for integer and float names ("i32", "fp16",
/// "fp8e4nv"); 0 for others.
static unsigned dtypeBits(std::string_view dtype) {
  if (dtype.substr(0, 3) == "fp8")
    return 8;
  size_t digits = dtype.find_first_of("0123456789");
  if (digits == std::string_view::npos)
    return 0;
  unsigned bits = 0;
  for (char c : dtype.substr(digits))
    bits = bits * 10 + unsigned(c - '0');
  return bits;
}

bool tile::dtypeHolds(std::string_view dtype, std::string_view element) {
  if (dtype.empty() || dtype == element)
    return true;
  auto isInt = [](std::string_view t) {
    return (t[0] == 'i' || t[0] == 'u') && t != "i1";
  };
  unsigned bits = dtypeBits(dtype);
  if (!isInt(dtype) || bits != dtypeBits(element))
    return false;
  return isInt(element) || element == "fp16" || element == "bf16" ||
         element.substr(0, 3) == "fp8";
}

std::string tile::validateLaunch(const KernelMetadata &md, Grid grid,
                                 KernelArgs args, Backend backend) {
  std::string prefix = "kernel " + md.kernel + ": ";
  if (std::string error = validateGrid(md.kernel, grid); !error.empty())
    return error;
  if (args.size() != md.params.size())
    return prefix + "expects " + std::to_string(md.params.size()) +
           " arguments, got " + std::to_string(args.size());

  for (size_t i = 0; i < args.size(); ++i) {
    const ParamInfo &param = md.params[i];
    const KernelArg &arg = args[i];
    std::string which =
        prefix + "argument " + std::to_string(i) + " (" + param.name + ")";
    std::string mismatch = which + " expects " + param.type + ", got " +
                           arg.kindName();
    std::string assumption = ", as this kernel was compiled to assume";
    uint64_t div = param.divisibility;

    if (param.isPointer()) {
      if (arg.kind() != KernelArg::Kind::Pointer)
        return mismatch;
      if (arg.backend() != backend)
        return which + (backend == Backend::CUDA
                            ? " is a host buffer of the interpreter, not "
                              "device memory"
                            : " is device memory, but the kernel runs on the "
                              "interpreter");
      if (!dtypeHolds(arg.pointeeDType(), std::string_view(param.type).substr(1)))
        return which + " expects " + param.type + ", got *" +
               arg.pointeeDType();
      if (div > 1 && arg.pointerValue() % div != 0)
        return which + " = " + hex(arg.pointerValue()) + " is not " +
               std::to_string(div) + "-byte aligned" + assumption;
      continue;
    }

    // An unsigned parameter takes the bits of a signed argument.
    bool is64 = param.type == "i64" || param.type == "u64";
    if (is64 || param.type == "i32" || param.type == "u32") {
      bool ok = arg.kind() == KernelArg::Kind::I32 ||
                (is64 && arg.kind() == KernelArg::Kind::I64);
      if (!ok && arg.kind() == KernelArg::Kind::I64) {
        int64_t wide = arg.i64Value();
        if (param.type == "u32" ? wide < 0 || wide > int64_t(UINT32_MAX)
                                : wide != int64_t(int32_t(wide)))
          return which + " = " + std::to_string(wide) + " does not fit in " +
                 param.type;
      }
      if (!ok)
        return mismatch;
      int64_t value = arg.kind() == KernelArg::Kind::I32 ? arg.i32Value()
                                                         : arg.i64Value();
      if (div > 1 && value % static_cast<int64_t>(div) != 0)
        return which + " = " + std::to_string(value) +
               " is not divisible by " + std::to_string(div) + assumption;
      continue;
    }

    if (param.type == "fp32") {
      if (arg.kind() != KernelArg::Kind::F32)
        return mismatch;
      continue;
    }

    // fp16, bf16 and i1 scalars have no host-side KernelArg yet.
    return which + " has type " + param.type +
           ", which launch() does not support";
  }
  return {};
}

static Kernel::ParamKind getParamKind(const std::string &type) {
  if (!type.empty() && type[0] == '*')
    return Kernel::ParamKind::Pointer;
  // An unsigned parameter takes the bits of a signed argument.
  if (type == "i32" || type == "u32")
    return Kernel::ParamKind::I32;
  if (type == "i64" || type == "u64")
    return Kernel::ParamKind::I64;
  if (type == "fp32")
    return Kernel::ParamKind::F32;
  // fp16, bf16 and i1 scalars have no host-side KernelArg yet.
  return Kernel::ParamKind::Unsupported;
}

Kernel::Kernel(std::shared_ptr<Module> module, KernelMetadata metadata)
    : module_(std::move(module)), metadata_(std::move(metadata)),
      device_(currentDevice()), name_(internKernelName(metadata_.kernel)) {
  if (!module_)
    throw Error("kernel " + metadata_.kernel + ": null module");
  function_ = module_->function(metadata_.kernel);
  for (const ParamInfo &param : metadata_.params) {
    kinds_.push_back(getParamKind(param.type));
    elements_.push_back(param.isPointer() ? param.type.substr(1) : "");
  }
  DeviceLimits limits = deviceLimits();
  maxGrid_ = {limits.maxGrid[0], limits.maxGrid[1], limits.maxGrid[2]};
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
      ext == ".ptx" ? Module::loadPTX(image, md.kernel)
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

/// Whether `arg` may be passed for a parameter of `kind` (a pointer: to
/// `element`) that the kernel assumes divisible by `div`: validateLaunch's
/// test, without its message.
bool fits(Kernel::ParamKind kind, uint64_t div, const std::string &element,
          const KernelArg &arg) {
  using Kind = KernelArg::Kind;
  switch (kind) {
  case Kernel::ParamKind::Pointer:
    return arg.kind() == Kind::Pointer && arg.backend() == Backend::CUDA &&
           (div <= 1 || arg.pointerValue() % div == 0) &&
           (arg.pointeeDType() == element ||
            dtypeHolds(arg.pointeeDType(), element));
  case Kernel::ParamKind::I32:
  case Kernel::ParamKind::I64: {
    bool is64 = kind == Kernel::ParamKind::I64;
    if (arg.kind() != Kind::I32 && !(is64 && arg.kind() == Kind::I64))
      return false;
    int64_t value = arg.kind() == Kind::I32 ? arg.i32Value() : arg.i64Value();
    return div <= 1 || value % static_cast<int64_t>(div) == 0;
  }
  case Kernel::ParamKind::F32:
    return arg.kind() == Kind::F32;
  case Kernel::ParamKind::Unsupported:
    return false;
  }
  return false;
}

/// Parameter p's argument in slots[p]: 8 bytes each, from which the driver
/// reads the parameter's size (little-endian), so i32 and f32 sit in the
/// low bytes and an i32 for an i64 parameter is widened here.
void packArgs(const std::vector<Kernel::ParamKind> &kinds, KernelArgs args,
              const uint32_t *argOf, uint64_t *slots) {
  for (size_t p = 0; p < kinds.size(); ++p) {
    const KernelArg &arg = argFor(args, argOf, p);
    slots[p] = 0;
    if (arg.kind() == KernelArg::Kind::Pointer) {
      slots[p] = arg.pointerValue();
    } else if (kinds[p] == Kernel::ParamKind::I64) {
      int64_t v = arg.kind() == KernelArg::Kind::I32 ? arg.i32Value()
                                                     : arg.i64Value();
      std::memcpy(&slots[p], &v, sizeof(v));
    } else if (arg.kind() == KernelArg::Kind::I32) {
      int32_t v = arg.i32Value();
      std::memcpy(&slots[p], &v, sizeof(v));
    } else {
      float v = arg.f32Value();
      std::memcpy(&slots[p], &v, sizeof(v));
    }
  }
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

/// The tensor maps the launcher builds, from the parameters' values
/// (pointers as addresses, integers sign-extended), into `maps`.
void encodeTensorMaps(const DriverApi &api, const KernelMetadata &md,
                      const std::vector<Kernel::ParamKind> &kinds,
                      const uint64_t *slots, Grid grid, TensorMap *maps) {
  std::vector<int64_t> values;
  for (size_t p = 0; p < kinds.size(); ++p)
    values.push_back(kinds[p] == Kernel::ParamKind::I32
                         ? int64_t(int32_t(uint32_t(slots[p])))
                         : static_cast<int64_t>(slots[p]));
  for (size_t i = 0; i < md.tensorMaps.size(); ++i)
    maps[i] = encodeTensorMap(api, md.tensorMaps[i], values,
                              {grid.x, grid.y, grid.z}, md.kernel, i);
}

/// The parameters a launch adds after the arguments and tensor maps: the
/// programs' global scratch and the turnstiles.
constexpr size_t kLaunchExtras = 2;

/// Enqueues `function` with `params` (room for kLaunchExtras more: the
/// programs' global scratch and the turnstiles, each allocated and freed in
/// stream order where the kernel has it, so that launches on other streams
/// get their own; the turnstiles zeroed first).
void enqueue(const DriverApi &api, const KernelMetadata &md, void *function,
             const char *name, Grid grid, void **params, size_t count,
             void *stream) {
  CUdeviceptr scratch = 0, turnstiles = 0;
  auto cuStream = static_cast<CUstream>(stream);
  size_t programs = size_t(grid.x) * grid.y * grid.z;
  if (md.globalScratchBytes) {
    checkCuda(api.cuMemAllocAsync(&scratch, programs * md.globalScratchBytes,
                                  cuStream),
              "cuMemAllocAsync(global scratch)", md.kernel);
    params[count++] = &scratch;
  }
  if (md.turnstiles) {
    checkCuda(api.cuMemAllocAsync(&turnstiles, 4 * programs, cuStream),
              "cuMemAllocAsync(turnstiles)", md.kernel);
    checkCuda(api.cuMemsetD8Async(turnstiles, 0, 4 * programs, cuStream),
              "cuMemsetD8Async(turnstiles)", md.kernel);
    params[count++] = &turnstiles;
  }
  noteLaunch(name);
  CUresult launched = api.cuLaunchKernel(
      static_cast<CUfunction>(function), grid.x, grid.y, grid.z,
      md.threadsPerBlock, 1, 1, md.sharedBytes, cuStream,
      count ? params : nullptr, nullptr);
  if (scratch)
    checkCuda(api.cuMemFreeAsync(scratch, cuStream),
              "cuMemFreeAsync(global scratch)", md.kernel);
  if (turnstiles)
    checkCuda(api.cuMemFreeAsync(turnstiles, cuStream),
              "cuMemFreeAsync(turnstiles)", md.kernel);
  checkCuda(launched, "cuLaunchKernel", md.kernel);
}

/// validateBuffers, with parameter p's argument `args[argOf[p]]`.
std::string bufferError(const KernelMetadata &md, Grid grid, KernelArgs args,
                        const uint32_t *argOf) {
  size_t n = md.params.size();
  LaunchArray<int64_t, 24> values(n);
  LaunchArray<uint64_t, 24> bytes(n);
  bool sized = false;
  for (size_t p = 0; p < n; ++p) {
    const KernelArg &arg = argFor(args, argOf, p);
    bytes[p] = 0;
    switch (arg.kind()) {
    case KernelArg::Kind::Pointer:
      values[p] = int64_t(arg.pointerValue());
      bytes[p] = arg.bufferBytes();
      sized |= bytes[p] != 0;
      break;
    case KernelArg::Kind::I32:
      values[p] = arg.i32Value();
      break;
    case KernelArg::Kind::I64:
      values[p] = arg.i64Value();
      break;
    case KernelArg::Kind::F32:
      values[p] = 0;
      break;
    }
  }
  if (!sized)
    return {};
  return checkBufferSizes(md, values.data(), bytes.data(),
                          {grid.x, grid.y, grid.z});
}

} // namespace

std::string tile::validateBuffers(const KernelMetadata &md, Grid grid,
                                  KernelArgs args) {
  if (md.accesses.empty() || args.size() != md.params.size())
    return {};
  return bufferError(md, grid, args, nullptr);
}

void Kernel::check(Grid grid, KernelArgs args, const uint32_t *argOf) const {
  bool gridOk = grid.x && grid.y && grid.z && grid.x <= maxGrid_.x &&
                grid.y <= maxGrid_.y && grid.z <= maxGrid_.z;
  if (!gridOk)
    throw Error(validateGrid(metadata_.kernel, grid, maxGrid_));
  bool ok = argOf || args.size() == kinds_.size();
  for (size_t p = 0; ok && p < kinds_.size(); ++p)
    ok = fits(kinds_[p], metadata_.params[p].divisibility, elements_[p],
              argFor(args, argOf, p));
  if (ok && device_ == currentDevice()) {
    if (metadata_.accesses.empty())
      return;
    std::string error = bufferError(metadata_, grid, args, argOf);
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
    for (size_t p = 0; p < kinds_.size(); ++p)
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
  size_t count = kinds_.size(), maps = metadata_.tensorMaps.size();
  LaunchArray<uint64_t, 24> slots(count);
  LaunchArray<void *, 32> params(count + maps + kLaunchExtras);
  packArgs(kinds_, args, argOf, slots.data());
  for (size_t p = 0; p < count; ++p)
    params[p] = &slots[p];
  if (!maps)
    return enqueue(api, metadata_, function_, name_, grid, params.data(),
                   count, stream);
  LaunchArray<TensorMap, 3> built(maps);
  encodeTensorMaps(api, metadata_, kinds_, slots.data(), grid, built.data());
  for (size_t i = 0; i < maps; ++i)
    params[count + i] = &built[i];
  enqueue(api, metadata_, function_, name_, grid, params.data(), count + maps,
          stream);
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
  state->slots.resize(kinds_.size());
  packArgs(kinds_, args, argOf, state->slots.data());
  state->maps.resize(metadata_.tensorMaps.size());
  if (!state->maps.empty())
    encodeTensorMaps(driver(), metadata_, kinds_, state->slots.data(), grid,
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
  if (!md.globalScratchBytes && !md.turnstiles)
    return enqueue(driver(), md, kernel.function_, kernel.name_,
                   state_->grid, const_cast<void **>(state_->params.data()),
                   count, stream);
  LaunchArray<void *, 32> params(count + kLaunchExtras);
  std::memcpy(params.data(), state_->params.data(), count * sizeof(void *));
  enqueue(driver(), kernel.metadata(), kernel.function_, kernel.name_,
          state_->grid, params.data(), count, stream);
}
