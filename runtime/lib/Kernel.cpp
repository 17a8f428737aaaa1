//===- Kernel.cpp - Typed launches of tilec kernels -----------------------===//

#include "tile/Kernel.h"

#include "DriverApi.h"
#include "tile/DeviceBuffer.h"
#include "tile/Driver.h"
#include "tile/Error.h"
#include "tile/Module.h"

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

std::string tile::validateLaunch(const KernelMetadata &md, Grid grid,
                                 const std::vector<KernelArg> &args) {
  std::string prefix = "kernel " + md.kernel + ": ";
  if (grid.x == 0 || grid.y == 0 || grid.z == 0)
    return prefix + "grid (" + std::to_string(grid.x) + ", " +
           std::to_string(grid.y) + ", " + std::to_string(grid.z) +
           ") has a zero dimension";
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
      if (arg.backend() != Backend::CUDA)
        return which + " is a host buffer of the interpreter, not device "
                       "memory";
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

Kernel::Kernel(std::shared_ptr<Module> module, KernelMetadata metadata)
    : module_(std::move(module)), metadata_(std::move(metadata)) {
  if (!module_)
    throw Error("kernel " + metadata_.kernel + ": null module");
  function_ = module_->function(metadata_.kernel);
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

} // namespace

void Kernel::launch(Grid grid, const std::vector<KernelArg> &args,
                    void *stream) const {
  std::string error = validateLaunch(metadata_, grid, args);
  if (!error.empty())
    throw Error(error);

  // One 8-byte slot per argument; the driver reads each parameter's size
  // from the slot's start (little-endian), so i32 and f32 sit in the low
  // bytes and an i32 for an i64 parameter is widened here.
  std::vector<uint64_t> slots(args.size(), 0);
  std::vector<void *> params(args.size());
  for (size_t i = 0; i < args.size(); ++i) {
    const KernelArg &arg = args[i];
    const std::string &type = metadata_.params[i].type;
    if (arg.kind() == KernelArg::Kind::Pointer) {
      slots[i] = arg.pointerValue();
    } else if (type == "i64" || type == "u64") {
      int64_t v = arg.kind() == KernelArg::Kind::I32 ? arg.i32Value()
                                                     : arg.i64Value();
      std::memcpy(&slots[i], &v, sizeof(v));
    } else if (arg.kind() == KernelArg::Kind::I32) {
      int32_t v = arg.i32Value();
      std::memcpy(&slots[i], &v, sizeof(v));
    } else {
      float v = arg.f32Value();
      std::memcpy(&slots[i], &v, sizeof(v));
    }
    params[i] = &slots[i];
  }

  const DriverApi &api = driver();
  // The tensor maps built here, from the arguments' values (pointers as
  // addresses, integers sign-extended), passed by value after them.
  std::vector<TensorMap> maps;
  if (!metadata_.tensorMaps.empty()) {
    std::vector<int64_t> values;
    for (const KernelArg &arg : args)
      values.push_back(arg.kind() == KernelArg::Kind::Pointer
                           ? static_cast<int64_t>(arg.pointerValue())
                       : arg.kind() == KernelArg::Kind::I64 ? arg.i64Value()
                                                            : arg.i32Value());
    for (size_t i = 0; i < metadata_.tensorMaps.size(); ++i)
      maps.push_back(encodeTensorMap(api, metadata_.tensorMaps[i], values,
                                     {grid.x, grid.y, grid.z}, metadata_.kernel, i));
    for (TensorMap &map : maps)
      params.push_back(&map);
  }
  // The programs' global scratch (their tensor maps), allocated and freed
  // in stream order: launches on other streams get their own.
  CUdeviceptr scratch = 0;
  auto cuStream = static_cast<CUstream>(stream);
  if (metadata_.globalScratchBytes) {
    size_t bytes = size_t(grid.x) * grid.y * grid.z * metadata_.globalScratchBytes;
    checkCuda(api.cuMemAllocAsync(&scratch, bytes, cuStream),
              "cuMemAllocAsync(global scratch)", metadata_.kernel);
    params.push_back(&scratch);
  }
  noteLaunch(metadata_.kernel);
  CUresult launched = api.cuLaunchKernel(
      static_cast<CUfunction>(function_), grid.x, grid.y, grid.z,
      metadata_.threadsPerBlock, 1, 1, metadata_.sharedBytes, cuStream,
      params.empty() ? nullptr : params.data(), nullptr);
  if (scratch)
    checkCuda(api.cuMemFreeAsync(scratch, cuStream),
              "cuMemFreeAsync(global scratch)", metadata_.kernel);
  checkCuda(launched, "cuLaunchKernel", metadata_.kernel);
}
