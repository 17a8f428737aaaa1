//===- JIT.cpp - Compile .tl kernels from C++ and launch them -------------===//

#include "tile/JIT.h"

#include "tile/Driver.h"
#include "tile/Error.h"
#include "tile/Module.h"
#include "tilec/Compiler.h"

#include <fstream>
#include <sstream>

using namespace tile;

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

const Kernel &JITFunction::specialize(const std::vector<KernelArg> &args,
                                      const Constexprs &constexprs,
                                      const JITOptions &options) {
  tilec::CompileOptions compile = compileOptions(args, constexprs, options);
  std::string key = compile.kernel + "|" + compile.arch + "|" +
                    std::to_string(compile.numWarps) + "|" +
                    std::to_string(compile.numStages) +
                    (compile.debug ? "|debug" : "");
  for (const auto &[name, value] : compile.constexprs)
    key += "|" + name + "=" + value;
  for (const std::string &type : compile.argTypes)
    key += "|" + type;

  std::lock_guard<std::mutex> lock(mutex);
  auto it = cache.find(key);
  if (it != cache.end())
    return *it->second;
  tilec::CompileResult result = tilec::compile(source, filename, compile);
  if (!result.ok)
    throw Error(result.diagnostics);
  ++compiles;
  auto module = Module::loadPTX(result.text, result.metadata.kernel);
  auto kernel = std::make_unique<Kernel>(module, result.metadata);
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
