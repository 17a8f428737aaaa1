//===- JIT.cpp - Compile .tl kernels from C++ and launch them -------------===//

#include "tile/JIT.h"

#include "tile/Driver.h"
#include "tile/Error.h"
#include "tile/Module.h"
#include "tilec/Compiler.h"

#include <dlfcn.h>
#include <fstream>
#include <sstream>
#include <sys/stat.h>

using namespace tile;

/// A file as " path size mtime", or "" when it cannot be read.
static std::string fileIdentity(const char *path) {
  struct stat file;
  if (!path || stat(path, &file) != 0)
    return "";
  return std::string(" ") + path + " " + std::to_string(file.st_size) + " " +
         std::to_string(file.st_mtim.tv_sec) + "." +
         std::to_string(file.st_mtim.tv_nsec);
}

/// What a disk-cache entry was compiled by: tilec's version, the compiler
/// library (so that a rebuilt compiler of the same version does not read
/// its predecessor's kernels) and the libdevice it links (another CUDA's,
/// or TILEC_LIBDEVICE's, compiles math differently).
static std::string compilerIdentity() {
  static const std::string library = [] {
    Dl_info info;
    return dladdr(reinterpret_cast<void *>(&tilec::compile), &info)
               ? fileIdentity(info.dli_fname)
               : std::string();
  }();
  std::string libdevice = tilec::libdevicePath();
  return "tilec " TILEC_VERSION + library + " libdevice" +
         (libdevice.empty() ? std::string() : fileIdentity(libdevice.c_str()));
}

Constexpr::Constexpr(double value) {
  std::ostringstream os;
  os.precision(17);
  os << value;
  text_ = os.str();
  if (text_.find_first_of(".en") == std::string::npos)
    text_ += ".0";
}

Constexpr::Constexpr(const std::string &value) {
  char quote = value.find('\'') == std::string::npos ? '\'' : '"';
  if (value.find(quote) != std::string::npos ||
      value.find('\\') != std::string::npos)
    throw Error("constexpr string " + value +
                " has both kinds of quotes or a backslash");
  text_ = quote + value + quote;
}

JITFunction::JITFunction(std::string source, std::string filename,
                         std::string kernel)
    : source(std::move(source)), filename(std::move(filename)),
      kernelName(std::move(kernel)) {}

JITFunction JITFunction::fromFile(const std::string &path, std::string kernel) {
  std::ifstream in(path);
  if (!in)
    throw Error("cannot read kernel source " + path);
  std::stringstream text;
  text << in.rdbuf();
  return JITFunction(text.str(), path, std::move(kernel));
}

std::string JITFunction::argType(const KernelArg &arg) {
  // Like Triton, specialize on 16-byte alignment and divisibility by 16,
  // which is what lets loads and stores vectorize.
  switch (arg.kind()) {
  case KernelArg::Kind::Pointer:
    if (arg.pointeeDType().empty())
      return "";
    return "*" + arg.pointeeDType() +
           (arg.pointerValue() % 16 == 0 ? ":16" : "");
  case KernelArg::Kind::I32:
    return arg.i32Value() % 16 == 0 ? "i32:16" : "i32";
  case KernelArg::Kind::I64:
    return arg.i64Value() % 16 == 0 ? "i64:16" : "i64";
  case KernelArg::Kind::F32:
    return "fp32";
  }
  return "";
}

tilec::CompileOptions
JITFunction::compileOptions(const std::vector<KernelArg> &args,
                            const Constexprs &constexprs,
                            const JITOptions &options) const {
  tilec::CompileOptions compile;
  compile.kernel = kernelName;
  compile.numWarps = options.numWarps;
  compile.numStages = options.numStages;
  compile.debug = options.debug;
  compile.arch = options.arch;
  if (compile.arch.empty())
    compile.arch = options.backend == Backend::CUDA ? deviceArch() : "sm_90";
  for (const auto &[name, value] : constexprs)
    compile.constexprs.emplace_back(name, value.text());
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i].kind() == KernelArg::Kind::Pointer &&
        args[i].backend() != options.backend)
      throw Error(filename + ": argument " + std::to_string(i) +
                  " is a buffer of the " + backendName(args[i].backend()) +
                  " backend, but the kernel runs on the " +
                  backendName(options.backend));
    std::string type = argType(args[i]);
    if (type.empty())
      throw Error(filename + ": argument " + std::to_string(i) +
                  " is a pointer of unknown element type: create its buffer "
                  "with DeviceBuffer::fromHost or call setDType");
    compile.argTypes.push_back(type);
  }
  return compile;
}

/// What a specialization is compiled for, as one string.
static std::string specializationKey(const tilec::CompileOptions &compile) {
  std::string key = compile.kernel + "|" + compile.arch + "|" +
                    std::to_string(compile.numWarps) + "|" +
                    std::to_string(compile.numStages) +
                    (compile.debug ? "|debug" : "");
  for (const auto &[name, value] : compile.constexprs)
    key += "|" + name + "=" + value;
  for (const std::string &type : compile.argTypes)
    key += "|" + type;
  return key;
}

JITFunction::Compiled JITFunction::compile(const std::vector<KernelArg> &args,
                                           const Constexprs &constexprs,
                                           const JITOptions &options) {
  tilec::CompileOptions compile = compileOptions(args, constexprs, options);
  std::string diskKey = compilerIdentity() + "\n" +
                        specializationKey(compile) + "\n" + source;
  if (auto sections = diskCache.load(diskKey); sections && sections->size() == 2) {
    try {
      return {(*sections)[0], KernelMetadata::fromJSON((*sections)[1]), true};
    } catch (const Error &) {
      // Intact but unreadable (written by another metadata format): compile.
    }
  }
  tilec::CompileResult result = tilec::compile(source, filename, compile);
  if (!result.ok)
    throw Error(result.diagnostics);
  ++compiles;
  (void)diskCache.store(diskKey, {result.text, result.metadata.toJSON()});
  return {std::move(result.text), std::move(result.metadata), false};
}

const Kernel &JITFunction::specialize(const std::vector<KernelArg> &args,
                                      const Constexprs &constexprs,
                                      const JITOptions &options) {
  std::string key =
      specializationKey(compileOptions(args, constexprs, options));
  std::lock_guard<std::mutex> lock(mutex);
  auto it = cache.find(key);
  if (it != cache.end())
    return *it->second;
  Compiled compiled = compile(args, constexprs, options);
  auto module = Module::loadPTX(compiled.ptx, compiled.metadata.kernel);
  auto kernel = std::make_unique<Kernel>(module, std::move(compiled.metadata));
  return *cache.emplace(key, std::move(kernel)).first->second;
}

void JITFunction::interpret(Grid grid, const std::vector<KernelArg> &args,
                            const Constexprs &constexprs,
                            const JITOptions &options) {
  tilec::CompileOptions compile = compileOptions(args, constexprs, options);
  std::vector<tilec::InterpreterArg> interpreterArgs;
  for (const KernelArg &arg : args) {
    switch (arg.kind()) {
    case KernelArg::Kind::Pointer:
      interpreterArgs.push_back(tilec::InterpreterArg::buffer(
          reinterpret_cast<void *>(arg.pointerValue()), arg.bufferBytes()));
      break;
    case KernelArg::Kind::I32:
      interpreterArgs.push_back(tilec::InterpreterArg::integer(arg.i32Value()));
      break;
    case KernelArg::Kind::I64:
      interpreterArgs.push_back(tilec::InterpreterArg::integer(arg.i64Value()));
      break;
    case KernelArg::Kind::F32:
      interpreterArgs.push_back(tilec::InterpreterArg::real(arg.f32Value()));
      break;
    }
  }
  if (grid.x == 0 || grid.y == 0 || grid.z == 0)
    throw Error(filename + ": the grid has a zero dimension");
  tilec::CompileResult result = tilec::interpret(
      source, filename, compile, grid.x, grid.y, grid.z, interpreterArgs);
  if (!result.ok)
    throw Error(result.diagnostics);
}

void JITFunction::launch(Grid grid, const std::vector<KernelArg> &args,
                         const Constexprs &constexprs,
                         const JITOptions &options) {
  if (options.backend == Backend::Interpreter)
    return interpret(grid, args, constexprs, options);
  specialize(args, constexprs, options).launch(grid, args, options.stream);
}
