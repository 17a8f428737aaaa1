//===- Module.cpp - Loading PTX and cubin modules -------------------------===//

#include "tile/Module.h"

#include "DriverApi.h"
#include "tile/Driver.h"
#include "tile/Error.h"

#include <cstdint>
#include <iterator>

using namespace tile;
using namespace tile::cu;

std::shared_ptr<Module> Module::load(const void *image, bool isPTX,
                                     std::string_view kernelName) {
  const DriverApi &api = driver();
  // Without a log buffer a PTX JIT failure says only "a PTX JIT compilation
  // failed"; the log says which line and why.
  static constexpr size_t kLogSize = 16384;
  std::string errorLog(kLogSize, '\0');
  // Line info: PTX's .loc directives, where the kernel has them, kept in
  // the code the driver compiles (ptxas's -lineinfo), for compute-sanitizer
  // and Nsight Compute.
  CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER,
                            CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                            CU_JIT_GENERATE_LINE_INFO};
  void *values[] = {errorLog.data(), reinterpret_cast<void *>(kLogSize),
                    reinterpret_cast<void *>(uintptr_t(1))};

  CUmodule module = nullptr;
  CUresult r = api.cuModuleLoadDataEx(&module, image, std::size(options),
                                      options, values);
  if (r != CUDA_SUCCESS) {
    errorLog.resize(errorLog.find('\0'));
    try {
      checkCuda(r, "cuModuleLoadDataEx", kernelName);
    } catch (const Error &e) {
      std::string message = e.what();
      message += isPTX ? " loading PTX" : " loading cubin";
      if (!errorLog.empty())
        message += ":\n" + errorLog;
      throw Error(message);
    }
  }
  return std::shared_ptr<Module>(new Module(module));
}

std::shared_ptr<Module> Module::loadPTX(const std::string &ptx,
                                        std::string_view kernelName) {
  // c_str() supplies the NUL terminator the driver needs to find the end.
  return load(ptx.c_str(), /*isPTX=*/true, kernelName);
}

std::shared_ptr<Module> Module::loadPTX(const std::string &ptx,
                                        const KernelMetadata &metadata) {
  if (std::string error = checkDriverVersion(metadata, driverVersion());
      !error.empty())
    throw Error(error);
  return loadPTX(ptx, metadata.kernel);
}

std::shared_ptr<Module> Module::loadCubin(const std::vector<char> &cubin,
                                          std::string_view kernelName) {
  if (cubin.empty())
    throw Error("cannot load an empty cubin [kernel " +
                std::string(kernelName) + "]");
  return load(cubin.data(), /*isPTX=*/false, kernelName);
}

Module::~Module() {
  if (const DriverApi *api = loadedDriver())
    api->cuModuleUnload(static_cast<CUmodule>(module));
}

void *Module::function(const std::string &name) const {
  CUfunction function = nullptr;
  CUresult r = driver().cuModuleGetFunction(
      &function, static_cast<CUmodule>(module), name.c_str());
  if (r == CUDA_ERROR_NOT_FOUND)
    throw Error("kernel " + name + ": no entry named " + name +
                " in the loaded module");
  checkCuda(r, "cuModuleGetFunction", name);
  return function;
}
