//===- JIT.cpp - Compile .tl kernels from C++ and launch them -------------===//

#include "tile/JIT.h"

#include "JITSupport.h"
#include "tile/Driver.h"
#include "tile/Error.h"
#include "tile/GPUArch.h"
#include "tile/Grid.h"
#include "tile/Module.h"
#include "tile/Specialization.h"
#include "tilec/Compiler.h"
#include "tilec/Tuning.h"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <fstream>
#include <sstream>
#include <sys/stat.h>

using namespace tile;
using detail::DeviceScope;

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
std::string detail::compilerIdentity() {
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

unsigned detail::targetCapability(const JITOptions &options) {
  const std::string &arch = options.arch;
  if (arch.empty() && options.backend == Backend::CUDA && cudaAvailable())
    return unsigned(computeCapability());
  if (arch.rfind("sm_", 0) == 0)
    return unsigned(std::atoi(arch.c_str() + 3));
  return 90;
}

Constexpr::Constexpr(const std::string &value)
    : kind_(Kind::String), string_(value) {}

std::string Constexpr::text() const { return detail::toScalar(*this).repr(); }

Constexpr Constexpr::parse(const std::string &text) {
  return fromHost(tilec::HostScalar::parse(text), text);
}

tilec::HostScalar detail::toScalar(const Constexpr &value) {
  switch (value.kind()) {
  case Constexpr::Kind::Int:
    return tilec::HostScalar::ofInt(value.intValue());
  case Constexpr::Kind::Float:
    return tilec::HostScalar::ofFloat(value.number());
  case Constexpr::Kind::Bool:
    return tilec::HostScalar::ofBool(value.number() != 0);
  case Constexpr::Kind::String:
    return tilec::HostScalar::ofString(value.string());
  }
  return {};
}

Constexpr Constexpr::fromHost(const tilec::HostScalar &scalar,
                              const std::string &name) {
  switch (scalar.kind) {
  case tilec::HostScalar::Kind::Int:
    return Constexpr(scalar.intValue);
  case tilec::HostScalar::Kind::Float:
    return Constexpr(scalar.floatValue);
  case tilec::HostScalar::Kind::Bool:
    return Constexpr(bool(scalar.intValue));
  case tilec::HostScalar::Kind::String:
    return Constexpr(scalar.text);
  default:
    throw Error("constexpr '" + name + "' is " + scalar.repr() +
                "; the JIT takes ints, floats, bools and strings");
  }
}

uint64_t Constexpr::bits() const {
  if (kind_ != Kind::Float)
    return uint64_t(int_);
  uint64_t bits;
  std::memcpy(&bits, &float_, sizeof(bits));
  return bits;
}

bool Constexpr::operator==(const Constexpr &other) const {
  return kind_ == other.kind_ && bits() == other.bits() &&
         string_ == other.string_;
}

namespace {

/// What a launch argument contributes to its specialization.
struct ArgKey {
  /// Whether it is a pointer, and its dtype (a pointer's elements'), as
  /// one number: pointer << 8 | (dtype + 1), 0 for no dtype.
  uint16_t type;
  /// Its signature hint (tile/Specialization.h): a pointer's alignment in
  /// bytes, an integer's power-of-two divisor (16, 8, 4, 2), 1 for an
  /// integer equal to 1 (on the GPU), 0 for none.
  uint8_t hint;
  Backend backend;

  /// `narrowest`: the launch's narrowestElementBytes; `rowBytes`: where
  /// integers' hints stop (tile::integerHint).
  static ArgKey of(const KernelArg &arg, unsigned narrowest, bool ones,
                   unsigned rowBytes) {
    std::optional<DType> dtype = arg.dtype();
    ArgKey key{uint16_t(uint16_t(arg.isPointer()) << 8 |
                        (dtype ? unsigned(*dtype) + 1 : 0)),
               0, arg.backend()};
    if (arg.isPointer())
      key.hint = uint8_t(pointerHint(arg.pointerValue(),
                                     dtype ? byteSize(*dtype) : 1));
    else if (isInteger(*dtype))
      key.hint =
          uint8_t(integerHint(arg.intValue(), narrowest, ones, rowBytes));
    return key;
  }
  bool operator==(const ArgKey &other) const {
    return type == other.type && hint == other.hint &&
           backend == other.backend;
  }
};

/// FNV-1a, fed field by field.
struct Hasher {
  uint64_t hash = 1469598103934665603ull;
  void add(const void *data, size_t size) {
    for (size_t i = 0; i < size; ++i) {
      hash ^= static_cast<const unsigned char *>(data)[i];
      hash *= 1099511628211ull;
    }
  }
  void add(uint64_t value) { add(&value, sizeof(value)); }
  void add(unsigned value) { add(uint64_t(value)); }
  void add(bool value) { add(uint64_t(value)); }
  void add(Choice value) { add(uint64_t(value)); }
  void add(const std::string &text) {
    add(text.size());
    add(text.data(), text.size());
  }
};

/// The narrowest element, in bytes, of the launch's pointers whose dtype
/// is known (1 where there are none): integers' hints stop at 32 bytes of
/// it (tile::integerHint).
unsigned narrowestElementBytes(KernelArgs args) {
  unsigned narrowest = kMaxUsefulAlignment;
  for (const KernelArg &arg : args)
    if (arg.isPointer() && arg.dtype())
      narrowest = std::min(narrowest, byteSize(*arg.dtype()));
  return narrowest == kMaxUsefulAlignment ? 1 : narrowest;
}

/// Integers equal to 1 are specialized on the GPU only: the interpreter
/// takes every argument.
bool specializesOnes(const JITOptions &options) {
  return options.backend == Backend::CUDA;
}

int deviceOf(const JITOptions &options) {
  return options.device >= 0 ? options.device : currentDevice();
}

/// A launch's hashes with its integers' hints up to 16 and up to 32 bytes
/// (Entry::rowBytes), in one pass: what they share first, then the
/// arguments at each level.
std::array<uint64_t, 2> hashLaunch(KernelArgs args, ConstexprArgs constexprs,
                                   const JITOptions &options) {
  Hasher h;
  for (const auto &[name, value] : constexprs) {
    h.add(name);
    h.add(uint64_t(value.kind()));
    h.add(value.bits());
    h.add(value.string());
  }
  std::apply([&](const auto &...field) { (h.add(field), ...); },
             static_cast<const KernelOptions &>(options).fields());
  h.add(uint64_t(options.backend));
  h.add(uint64_t(int64_t(deviceOf(options))));
  bool ones = specializesOnes(options);
  unsigned narrowest = narrowestElementBytes(args);
  std::array<Hasher, 2> levels = {h, h};
  const unsigned rowBytes[] = {kMaxUsefulAlignment, kMaxUsefulRowAlignment};
  for (const KernelArg &arg : args)
    for (size_t level = 0; level < 2; ++level) {
      ArgKey key = ArgKey::of(arg, narrowest, ones, rowBytes[level]);
      levels[level].add(uint64_t(key.type) | uint64_t(key.hint) << 16 |
                        uint64_t(key.backend) << 24 |
                        uint64_t(rowBytes[level]) << 32);
    }
  return {levels[0].hash, levels[1].hash};
}

} // namespace

/// A loaded specialization and the launch it was made for, field by field
/// (a hash match is confirmed against them).
struct JITFunction::Entry {
  uint64_t hash;
  /// Where its integers' hints stop: 16 bytes for a kernel whose code row
  /// sectors do not change (KernelMetadata::rowSectorsMatter), else 32.
  unsigned rowBytes;
  std::vector<ArgKey> args;
  Constexprs constexprs;
  KernelOptions options;
  Backend backend;
  int device;
  std::unique_ptr<Kernel> kernel;
  /// The argument of each kernel parameter (integers specialized to 1 have
  /// none).
  std::vector<uint32_t> argOf;

  bool matches(KernelArgs launchArgs, ConstexprArgs launchConstexprs,
               const JITOptions &options) const {
    if (launchArgs.size() != args.size() ||
        launchConstexprs.size() != constexprs.size() ||
        static_cast<const KernelOptions &>(options) != this->options ||
        options.backend != backend || deviceOf(options) != device)
      return false;
    bool ones = specializesOnes(options);
    unsigned narrowest = narrowestElementBytes(launchArgs);
    for (size_t i = 0; i < args.size(); ++i) {
      if (!(ArgKey::of(launchArgs[i], narrowest, ones, rowBytes) == args[i]))
        return false;
    }
    size_t i = 0;
    for (const auto &[name, value] : launchConstexprs) {
      if (name != constexprs[i].first || value != constexprs[i].second)
        return false;
      ++i;
    }
    return true;
  }
};

JITFunction::JITFunction(std::string source, std::string filename,
                         std::string kernel,
                         std::vector<std::string> importPath)
    : source(std::move(source)), filename(std::move(filename)),
      kernelName(std::move(kernel)), importPath(std::move(importPath)) {}

JITFunction::~JITFunction() = default;

JITFunction JITFunction::fromFile(const std::string &path, std::string kernel,
                                  std::vector<std::string> importPath) {
  std::ifstream in(path);
  if (!in)
    throw Error("cannot read kernel source " + path);
  std::stringstream text;
  text << in.rdbuf();
  return JITFunction(text.str(), path, std::move(kernel),
                     std::move(importPath));
}

void JITFunction::setCacheDirectory(std::string directory) {
  std::lock_guard<std::mutex> lock(diskCacheMutex);
  diskCache = DiskCache(std::move(directory));
}

DiskCache JITFunction::cacheDirectory() const {
  std::lock_guard<std::mutex> lock(diskCacheMutex);
  return diskCache;
}

std::vector<std::string> JITFunction::argTypes(KernelArgs args, bool ones,
                                               unsigned rowBytes) {
  unsigned narrowest = narrowestElementBytes(args);
  std::vector<std::string> types;
  for (const KernelArg &arg : args) {
    std::optional<DType> dtype = arg.dtype();
    if (!dtype) {
      types.emplace_back();
      continue;
    }
    ArgKey key = ArgKey::of(arg, narrowest, ones, rowBytes);
    std::string hint = key.hint ? ":" + std::to_string(key.hint) : "";
    types.push_back(ParamType{*dtype, arg.isPointer()}.str() + hint);
  }
  return types;
}

tilec::CompileOptions JITFunction::compileOptions(KernelArgs args,
                                                  ConstexprArgs constexprs,
                                                  const JITOptions &options,
                                                  unsigned rowBytes) const {
  tilec::CompileOptions compile;
  compile.kernel = kernelName;
  compile.importPath = importPath;
  static_cast<KernelOptions &>(compile) = options;
  // Launches resolve 0 by their grid (findForGrid); a specialization
  // asked for without one (specialize, compile) runs no clusters.
  if (!compile.clusterSplitK)
    compile.clusterSplitK = 1;
  if (compile.arch.empty()) {
    DeviceScope scope(options.backend == Backend::CUDA ? options.device : -1);
    // The device's target as tilec's --arch native picks it (sm_90a on
    // Hopper; 8.9: sm_80); on the interpreter, the portable default.
    compile.arch = "sm_90";
    if (options.backend == Backend::CUDA) {
      compile.arch = deviceArch();
      if (compile.arch.empty())
        throw Error(noGPUArchFor(describeDevice()));
    }
  }
  for (const auto &[name, value] : constexprs)
    compile.constexprs.emplace_back(name, detail::toScalar(value));
  std::vector<std::string> types =
      argTypes(args, specializesOnes(options), rowBytes);
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i].isPointer() && args[i].backend() != options.backend)
      throw Error(filename + ": argument " + std::to_string(i) +
                  " is a buffer of the " + backendName(args[i].backend()) +
                  " backend, but the kernel runs on the " +
                  backendName(options.backend));
    std::string &type = types[i];
    if (type.empty())
      throw Error(filename + ": argument " + std::to_string(i) +
                  " is a pointer of unknown element type: create its buffer "
                  "with DeviceBuffer::fromHost or call setDType");
    compile.argTypes.push_back(std::move(type));
  }
  return compile;
}

/// What a specialization is compiled for, as one string.
static std::string specializationKey(const tilec::CompileOptions &compile) {
  std::string key = compile.kernel + "|" + compile.key();
  for (const auto &[name, value] : compile.constexprs)
    key += "|" + name + "=" + value.repr();
  for (const std::string &type : compile.argTypes)
    key += "|" + type;
  for (const std::string &directory : compile.importPath)
    key += "|-I" + directory;
  return key;
}

JITFunction::Compiled JITFunction::compile(KernelArgs args,
                                           ConstexprArgs constexprs,
                                           const JITOptions &options) {
  // Keyed by integers' hints up to 16 bytes where the code does not depend
  // on whole row sectors, else up to 32 (KernelMetadata::rowSectorsMatter):
  // two compiles that differ in those hints alone (compileOptions checked
  // every argument).
  const tilec::CompileOptions coarseOptions =
      compileOptions(args, constexprs, options, kMaxUsefulAlignment);
  tilec::CompileOptions fineOptions = coarseOptions;
  fineOptions.argTypes =
      argTypes(args, specializesOnes(options), kMaxUsefulRowAlignment);
  auto diskKey = [&](const tilec::CompileOptions &compile) {
    return detail::compilerIdentity() + "\n" + specializationKey(compile) +
           "\n" + source;
  };
  std::string coarse = diskKey(coarseOptions), fine = diskKey(fineOptions);
  DiskCache cache = cacheDirectory();
  for (const std::string *key : {&coarse, &fine}) {
    auto sections = cache.load(*key);
    if (!sections || sections->size() != 2)
      continue;
    try {
      return {(*sections)[0], KernelMetadata::fromJSON((*sections)[1]), true};
    } catch (const Error &) {
      // Intact but unreadable (written by another metadata format): compile.
    }
  }
  // Compiled first with the hints up to 16 bytes, so that a kernel whose
  // code does not depend on whole row sectors may serve every launch of
  // that key (with hints up to 32 another pass might, say, drop a mask
  // that only 32 proves); one whose code does is compiled again with them.
  auto compileWith = [&](const tilec::CompileOptions &compile) {
    tilec::CompileResult result = tilec::compile(source, filename, compile);
    if (!result.ok)
      throw Error(result.diagnostics);
    return result;
  };
  tilec::CompileResult result = compileWith(coarseOptions);
  if (result.metadata.rowSectorsMatter && coarse != fine)
    result = compileWith(fineOptions);
  ++compiles;
  // The imported modules' contents are part of what it was compiled from.
  (void)cache.store(result.metadata.rowSectorsMatter ? fine : coarse,
                    {result.text, result.metadata.toJSON()}, result.filesRead);
  return {std::move(result.text), std::move(result.metadata), false};
}

const JITFunction::Entry &JITFunction::find(KernelArgs args,
                                            ConstexprArgs constexprs,
                                            const JITOptions &options) {
  // A kernel whose code row sectors do not change is keyed by integers'
  // hints up to 16 bytes, any other up to 32 (Entry::rowBytes).
  const std::array<uint64_t, 2> hashes = hashLaunch(args, constexprs, options);
  auto lookup = [&](const std::vector<const Entry *> *list) -> const Entry * {
    if (list)
      for (const Entry *entry : *list)
        if (std::find(hashes.begin(), hashes.end(), entry->hash) !=
                hashes.end() &&
            entry->matches(args, constexprs, options))
          return entry;
    return nullptr;
  };
  if (const Entry *entry = lookup(published.load(std::memory_order_acquire)))
    return *entry;

  std::lock_guard<std::mutex> lock(mutex);
  if (const Entry *entry = lookup(published.load(std::memory_order_acquire)))
    return *entry;
  auto entry = std::make_unique<Entry>();
  Compiled compiled = compile(args, constexprs, options);
  entry->rowBytes = compiled.metadata.rowSectorsMatter ? kMaxUsefulRowAlignment
                                                       : kMaxUsefulAlignment;
  entry->hash = hashes[entry->rowBytes == kMaxUsefulRowAlignment];
  bool ones = specializesOnes(options);
  unsigned narrowest = narrowestElementBytes(args);
  for (const KernelArg &arg : args)
    entry->args.push_back(ArgKey::of(arg, narrowest, ones, entry->rowBytes));
  entry->constexprs.assign(constexprs.begin(), constexprs.end());
  entry->options = options;
  entry->backend = options.backend;
  entry->device = deviceOf(options);
  // The kernel's parameters are the arguments less the integers the
  // compiler made constants.
  for (size_t i = 0; i < args.size(); ++i)
    if (entry->args[i].hint != 1) // only integers have the hint 1
      entry->argOf.push_back(uint32_t(i));
  if (entry->argOf.size() != compiled.metadata.params.size())
    throw Error(filename + ": kernel " + compiled.metadata.kernel + " takes " +
                std::to_string(compiled.metadata.params.size()) +
                " arguments, but the launch gives " +
                std::to_string(entry->argOf.size()) +
                (entry->argOf.size() == args.size()
                     ? std::string()
                     : " (less the integers equal to 1)"));
  {
    DeviceScope scope(options.device);
    auto module = Module::loadPTX(compiled.ptx, compiled.metadata);
    entry->kernel = std::make_unique<Kernel>(module, std::move(compiled.metadata));
  }
  auto list = std::make_unique<std::vector<const Entry *>>();
  if (const std::vector<const Entry *> *old = published.load())
    *list = *old;
  list->push_back(entry.get());
  entries.push_back(std::move(entry));
  published.store(list.get(), std::memory_order_release);
  lists.push_back(std::move(list));
  return *entries.back();
}

const Kernel &JITFunction::specialize(KernelArgs args, ConstexprArgs constexprs,
                                      const JITOptions &options) {
  if (!options.clusterSplitK) {
    // No grid to decide by: no clusters (compileOptions), under the key a
    // launch that decides 1 finds.
    JITOptions single = options;
    single.clusterSplitK = 1;
    return *find(args, constexprs, single).kernel;
  }
  return *find(args, constexprs, options).kernel;
}

void JITFunction::interpret(Grid grid, KernelArgs args,
                            ConstexprArgs constexprs,
                            const JITOptions &options) {
  tilec::CompileOptions compile = compileOptions(args, constexprs, options);
  std::vector<tilec::InterpreterArg> interpreterArgs;
  for (const KernelArg &arg : args) {
    if (arg.isPointer())
      interpreterArgs.push_back(tilec::InterpreterArg::buffer(
          reinterpret_cast<void *>(arg.pointerValue()), arg.bufferBytes()));
    else if (isFloat(*arg.dtype()))
      interpreterArgs.push_back(tilec::InterpreterArg::real(arg.floatValue()));
    else
      interpreterArgs.push_back(tilec::InterpreterArg::integer(arg.intValue()));
  }
  // The checks a GPU launch makes (the grid's are the compiler's).
  auto validate = [&](const KernelMetadata &metadata) {
    return validateLaunch(metadata, Grid{}, args, Backend::Interpreter);
  };
  tilec::CompileResult result =
      tilec::interpret(source, filename, compile, grid.x, grid.y, grid.z,
                       interpreterArgs, validate);
  if (!result.ok)
    throw Error(result.diagnostics);
}

void JITFunction::launch(Grid grid, KernelArgs args, ConstexprArgs constexprs,
                         const JITOptions &options) {
  if (Tuning *t = tuningFor(options))
    return launchResolved(resolve(*t, nullptr, grid, args, constexprs, options),
                          args);
  launchUntuned(grid, args, constexprs, options);
}

void JITFunction::launchResolved(const Resolved &launch, KernelArgs args) {
  launchUntuned(launch.grid, args, launch.constexprs, launch.options);
}

void JITFunction::launchUntuned(Grid grid, KernelArgs args,
                                ConstexprArgs constexprs,
                                const JITOptions &options) {
  // The interpreter runs no clusters (compileOptions takes 0 as 1).
  if (options.backend == Backend::Interpreter)
    return interpret(grid, args, constexprs, options);
  DeviceScope scope(options.device);
  const Entry &entry = findForGrid(grid, args, constexprs, options);
  entry.kernel->launch(grid, args, entry.argOf.data(), options.stream);
}

const JITFunction::Entry &JITFunction::findForGrid(Grid grid, KernelArgs args,
                                                   ConstexprArgs constexprs,
                                                   const JITOptions &options) {
  if (options.clusterSplitK)
    return find(args, constexprs, options);
  // The split is part of the specialization, so it is decided before the
  // lookup, by the kernel with one CTA a program (Kernel::clusterSplitFor:
  // whether it splits at all, and how many of its clusters, the split's
  // resources, run at once). The copy allocates nothing: an arch fits a
  // string's own storage.
  // Where no cluster split is chosen, the stream-K form may be
  // (Kernel::streamKFor), unless asked for already.
  JITOptions decided = options;
  decided.clusterSplitK = 1;
  if (options.streamK)
    return find(args, constexprs, decided);
  const Entry &single = find(args, constexprs, decided);
  uint64_t programs = uint64_t(grid.x) * grid.y * grid.z;
  decided.clusterSplitK = single.kernel->clusterSplitFor(programs);
  if (decided.clusterSplitK == 1)
    decided.streamK = single.kernel->streamKFor(programs);
  return decided.clusterSplitK == 1 && !decided.streamK
             ? single
             : find(args, constexprs, decided);
}

BoundLaunch JITFunction::bind(Grid grid, KernelArgs args,
                              ConstexprArgs constexprs,
                              const JITOptions &options) {
  if (Tuning *t = tuningFor(options))
    return bindResolved(resolve(*t, nullptr, grid, args, constexprs, options),
                        args);
  return bindResolved({Constexprs(constexprs.begin(), constexprs.end()),
                       options, grid},
                      args);
}

BoundLaunch JITFunction::bindResolved(const Resolved &launch,
                                      KernelArgs args) {
  const JITOptions &options = launch.options;
  ConstexprArgs constexprs = launch.constexprs;
  Grid grid = launch.grid;
  if (options.backend != Backend::CUDA)
    throw Error(filename + ": bind() launches on the GPU; the interpreter "
                "runs each launch() as it comes");
  DeviceScope scope(options.device);
  const Entry &entry = findForGrid(grid, args, constexprs, options);
  return entry.kernel->bind(grid, args, entry.argOf.data(), options.stream);
}
