//===- Autotune.cpp - The JIT's autotuning and heuristics -----------------===//
//
// A launch of a tuned kernel first picks its constexprs: the config chosen
// for its key (timing every config the first time the key is seen, or
// reading the choice from the disk cache), then the heuristics' values.
// Everything after that is an ordinary JIT launch (JIT.cpp).
//
//===----------------------------------------------------------------------===//

#include "tile/JIT.h"

#include "JITSupport.h"
#include "tile/DeviceBuffer.h"
#include "tile/Driver.h"
#include "tile/Error.h"
#include "tile/Timing.h"
#include "tilec/Tuning.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <limits>
#include <unordered_map>

using namespace tile;
using detail::DeviceScope;
using detail::toScalar;

int64_t Constexpr::intValue() const {
  if (kind_ != Kind::Int)
    throw Error("constexpr " + text() + " is not an int");
  return int_;
}

int64_t Meta::operator[](const std::string &name) const {
  for (const auto &[key, value] : values)
    if (key == name)
      return value.intValue();
  std::string names;
  for (const auto &entry : values)
    names += (names.empty() ? "" : ", ") + entry.first;
  throw Error("the launch has no constexpr '" + name + "' (it has: " +
              (names.empty() ? "none" : names) + ")");
}

std::string Config::describe() const {
  std::string text;
  for (const auto &[name, value] : constexprs)
    text += name + ": " + value.text() + ", ";
  return text + "num_warps: " + std::to_string(numWarps) +
         ", num_stages: " + std::to_string(numStages);
}

static tilec::HostScalar toScalar(const KernelArg &arg) {
  if (arg.isPointer())
    return tilec::HostScalar::pointer(
        arg.dtype() ? std::string(name(*arg.dtype())) : std::string());
  if (isFloat(*arg.dtype()))
    return tilec::HostScalar::ofFloat(arg.floatValue());
  return tilec::HostScalar::ofInt(arg.intValue());
}

JITFunction::Tuning *JITFunction::readTuning(const JITOptions &options) {
  std::lock_guard<std::mutex> lock(mutex);
  if (!tuningRead.load(std::memory_order_acquire)) {
    std::string diagnostics;
    auto decorators = tilec::KernelTuning::read(
        source, filename, kernelName, detail::targetCapability(options),
        diagnostics);
    if (!decorators)
      throw Error(diagnostics);
    auto t = std::make_unique<Tuning>();
    for (const tilec::KernelTuning::Param &param : decorators->params())
      if (!param.isConstexpr)
        t->runtimeParams.push_back(param.name);
    if (cppTuning) {
      t->autotune = *cppTuning;
    } else {
      t->configsFromDecorators = true;
      for (const tilec::TuningConfig &config : decorators->configs()) {
        Config c;
        for (const auto &[name, value] : config.constexprs)
          c.constexprs.emplace_back(name, Constexpr::fromHost(value, name));
        c.numWarps = config.numWarps;
        c.numStages = config.numStages;
        t->autotune.configs.push_back(std::move(c));
      }
      t->autotune.key = decorators->key();
      t->autotune.resetToZero = decorators->resetToZero();
      t->autotune.restoreValue = decorators->restoreValue();
      t->autotune.warmupMs = decorators->warmupMs();
      t->autotune.repMs = decorators->repMs();
    }
    auto known = [&](const std::string &name) {
      for (const tilec::KernelTuning::Param &param : decorators->params())
        if (param.name == name)
          return true;
      return false;
    };
    for (const auto *names : {&t->autotune.key, &t->autotune.resetToZero,
                              &t->autotune.restoreValue})
      for (const std::string &name : *names)
        if (!known(name))
          throw Error(filename + ": autotuning names '" + name +
                      "', which is not a parameter of the kernel");
    bool hasHeuristics = !decorators->heuristics().empty();
    t->decorators = std::move(decorators);
    if (!t->autotune.configs.empty() || hasHeuristics)
      tuning = std::move(t);
    tuningRead.store(true, std::memory_order_release);
  }
  return tuning.get();
}

void JITFunction::autotune(Autotune tuning) {
  if (tuning.configs.empty())
    throw Error(filename + ": autotune() needs at least one config");
  if (tuningRead.load())
    throw Error(filename + ": autotune() comes before the first launch");
  cppTuning = std::make_unique<Autotune>(std::move(tuning));
}

namespace {
/// The arguments and constexprs of a launch by name, as host code reads
/// them.
std::vector<tilec::NamedScalar>
namedValues(const std::vector<std::string> &params, KernelArgs args,
            ConstexprArgs constexprs, const std::string &filename) {
  if (args.size() != params.size()) {
    std::string names;
    for (const std::string &param : params)
      names += (names.empty() ? "" : ", ") + param;
    throw Error(filename + ": the kernel takes " +
                std::to_string(params.size()) + " arguments (" + names +
                "), the launch gives " + std::to_string(args.size()));
  }
  std::vector<tilec::NamedScalar> values;
  for (size_t i = 0; i < args.size(); ++i)
    values.emplace_back(params[i], toScalar(args[i]));
  for (const auto &[name, value] : constexprs)
    values.emplace_back(name, toScalar(value));
  return values;
}
} // namespace

/// Applies config `config` (none: SIZE_MAX) and the heuristics to a launch.
static void configure(const tilec::KernelTuning &decorators,
                      const Autotune &autotune, size_t config,
                      std::vector<tilec::NamedScalar> values,
                      Constexprs &constexprs, JITOptions &options,
                      const std::string &filename) {
  if (config != SIZE_MAX) {
    const Config &chosen = autotune.configs[config];
    for (const auto &[name, value] : chosen.constexprs) {
      for (const auto &given : constexprs)
        if (given.first == name)
          throw Error(filename + ": the launch gives constexpr '" + name +
                      "', which autotuning chooses: leave it out");
      constexprs.emplace_back(name, value);
      values.emplace_back(name, toScalar(value));
    }
    options.numWarps = chosen.numWarps;
    options.numStages = chosen.numStages;
  }
  // A constexpr the launch gives itself is not computed.
  std::vector<tilec::NamedScalar> results;
  std::string error;
  if (!decorators.applyHeuristics(values, results, error))
    throw Error(error);
  for (const auto &[name, value] : results)
    constexprs.emplace_back(name, Constexpr::fromHost(value, name));
}

/// What picks a config: the values of the key's arguments, every
/// pointer's dtype, the launch's own constexprs and where it runs.
static std::string tuningKey(const Autotune &autotune,
                             const std::vector<tilec::NamedScalar> &values,
                             KernelArgs args, ConstexprArgs constexprs,
                             const JITOptions &options,
                             const std::string &filename) {
  std::string key;
  for (const std::string &name : autotune.key) {
    auto it = std::find_if(values.begin(), values.end(),
                           [&](const auto &v) { return v.first == name; });
    if (it == values.end())
      throw Error(filename + ": autotune's key '" + name +
                  "' is neither an argument nor a constexpr of the launch");
    key += it->second.repr() + ",";
  }
  key += "|";
  for (const KernelArg &arg : args)
    if (arg.isPointer())
      key += (arg.dtype() ? std::string(name(*arg.dtype())) : "") + ",";
  key += "|";
  for (const auto &[name, value] : constexprs)
    key += name + "=" + value.text() + ",";
  key += "|" + std::string(backendName(options.backend)) + "|" +
         options.key() + "|" +
         std::to_string(options.device >= 0 ? options.device
                                            : currentDevice());
  return key;
}

JITFunction::Resolved JITFunction::resolve(Tuning &tuning,
                                           const GridFunction *grid,
                                           Grid fixed, KernelArgs args,
                                           ConstexprArgs constexprs,
                                           const JITOptions &options) {
  std::vector<tilec::NamedScalar> values =
      namedValues(tuning.runtimeParams, args, constexprs, filename);
  size_t config = SIZE_MAX;
  if (!tuning.autotune.configs.empty()) {
    std::string key = tuningKey(tuning.autotune, values, args, constexprs,
                                options, filename);
    std::lock_guard<std::mutex> lock(tuning.mutex);
    auto it = tuning.chosen.find(key);
    config = it != tuning.chosen.end()
                 ? it->second
                 : tune(tuning, key, grid, fixed, args, constexprs, options);
    tuning.chosen.emplace(key, config);
  }
  Resolved resolved{Constexprs(constexprs.begin(), constexprs.end()), options,
                    fixed, config};
  configure(*tuning.decorators, tuning.autotune, config, std::move(values),
            resolved.constexprs, resolved.options, filename);
  if (grid)
    resolved.grid = (*grid)(Meta(resolved.constexprs));
  return resolved;
}

namespace {
/// A buffer autotuning zeroes or restores around each timed run.
struct TunedBuffer {
  uint64_t address = 0;
  size_t bytes = 0;
  std::unique_ptr<DeviceBuffer> saved;
};
} // namespace

size_t JITFunction::tune(Tuning &tuning, const std::string &key,
                         const GridFunction *grid, Grid fixed, KernelArgs args,
                         ConstexprArgs constexprs, const JITOptions &options) {
  const Autotune &autotune = tuning.autotune;
  std::vector<tilec::NamedScalar> values =
      namedValues(tuning.runtimeParams, args, constexprs, filename);
  std::vector<size_t> candidates;
  if (tuning.configsFromDecorators) {
    std::string error;
    if (!tuning.decorators->prune(values, candidates, error))
      throw Error(error);
  } else {
    for (size_t k = 0; k < autotune.configs.size(); ++k)
      candidates.push_back(k);
  }

  // A choice made before, by this process or another, on this device.
  std::string where = "interpreter";
  if (options.backend == Backend::CUDA) {
    DeviceScope scope(options.device);
    where = deviceName() + " " +
            (options.arch.empty() ? deviceArch() : options.arch);
  }
  std::string configs;
  for (const Config &config : autotune.configs)
    configs += config.describe() + "\n";
  std::string diskKey = "autotune\n" + detail::compilerIdentity() + "\n" +
                        where + "\n" + kernelName + "\n" + key + "\n" +
                        configs + source;
  DiskCache cache = cacheDirectory();
  if (auto sections = cache.load(diskKey); sections && sections->size() == 2) {
    size_t index = size_t(std::strtoull((*sections)[0].c_str(), nullptr, 10));
    if (index < autotune.configs.size() &&
        autotune.configs[index].describe() == (*sections)[1])
      return index;
  }

  // Buffers the runs must not leave changed.
  auto buffer = [&](const std::string &name) {
    size_t i = std::find(tuning.runtimeParams.begin(),
                         tuning.runtimeParams.end(), name) -
               tuning.runtimeParams.begin();
    if (i >= args.size() || !args[i].isPointer())
      throw Error(filename + ": autotuning resets or restores '" + name +
                  "', which is not a pointer argument");
    TunedBuffer b;
    b.address = args[i].pointerValue();
    b.bytes = args[i].bufferBytes();
    if (!b.bytes && options.backend == Backend::CUDA) {
      DeviceScope scope(options.device);
      b.bytes = allocationBytesFrom(b.address);
    }
    return b;
  };
  std::vector<TunedBuffer> zeroed, restored;
  for (const std::string &name : autotune.resetToZero)
    zeroed.push_back(buffer(name));
  for (const std::string &name : autotune.restoreValue) {
    restored.push_back(buffer(name));
    TunedBuffer &b = restored.back();
    DeviceScope scope(options.device);
    b.saved = std::make_unique<DeviceBuffer>(b.bytes, options.backend);
    copyMemory(options.backend, b.saved->address(), b.address, b.bytes,
               options.stream);
  }
  auto resetBuffers = [&] {
    for (const TunedBuffer &b : zeroed)
      fillMemory(options.backend, b.address, 0, b.bytes, options.stream);
  };
  auto restoreBuffers = [&] {
    for (const TunedBuffer &b : restored)
      copyMemory(options.backend, b.address, b.saved->address(), b.bytes,
                 options.stream);
  };

  std::vector<float> ms(autotune.configs.size(),
                        std::numeric_limits<float>::infinity());
  std::string failures;
  for (size_t k : candidates) {
    try {
      Resolved launch{Constexprs(constexprs.begin(), constexprs.end()),
                      options, fixed, k};
      configure(*tuning.decorators, autotune, k, values, launch.constexprs,
                launch.options, filename);
      if (grid)
        launch.grid = (*grid)(Meta(launch.constexprs));
      auto run = [&] {
        resetBuffers();
        launchResolved(launch, args);
        restoreBuffers();
      };
      if (options.backend == Backend::CUDA) {
        DeviceScope scope(options.device);
        ms[k] = benchmarkMs(run, options.stream, autotune.warmupMs,
                            autotune.repMs);
      } else {
        // The interpreter runs synchronously: the median of a few runs'
        // wall time.
        std::vector<float> times;
        do {
          auto start = std::chrono::steady_clock::now();
          run();
          times.push_back(std::chrono::duration<float, std::milli>(
                              std::chrono::steady_clock::now() - start)
                              .count());
        } while (times.size() < 3 &&
                 times.size() * times.front() < autotune.repMs);
        std::sort(times.begin(), times.end());
        ms[k] = times[times.size() / 2];
      }
    } catch (const Error &e) {
      std::string why = e.what();
      failures += "\n  " + autotune.configs[k].describe() + ": " +
                  why.substr(0, why.find('\n'));
      ms[k] = std::numeric_limits<float>::infinity();
    }
  }
  size_t best = size_t(std::min_element(ms.begin(), ms.end()) - ms.begin());
  if (std::isinf(ms[best]))
    throw Error(filename + ": no autotune config of the kernel ran:" +
                failures);
  // The launch that asked sees its buffers as it left them.
  resetBuffers();
  restoreBuffers();
  ++tunings;
  (void)cache.store(diskKey, {std::to_string(best),
                              autotune.configs[best].describe()});
  TuningReport report;
  for (const std::string &name : autotune.key)
    for (const auto &[param, value] : values)
      if (param == name)
        report.key += (report.key.empty() ? "" : ", ") + name + "=" +
                      value.repr();
  report.configs = autotune.configs;
  report.ms = ms;
  report.failures = failures;
  report.best = best;
  if (const char *print = std::getenv("TILEC_PRINT_AUTOTUNING");
      print && *print && std::string(print) != "0") {
    std::cerr << "tilec: autotuned " << filename << " for " << report.key
              << "\n";
    for (size_t k = 0; k < ms.size(); ++k)
      std::cerr << "  " << (k == best ? "* " : "  ")
                << autotune.configs[k].describe() << ": "
                << (std::isinf(ms[k]) ? std::string("not run")
                                      : std::to_string(ms[k]) + " ms")
                << "\n";
    if (!failures.empty())
      std::cerr << "  failed:" << failures << "\n";
  }
  tuning.reports.push_back(std::move(report));
  return best;
}

void JITFunction::launchWith(const GridFunction &grid, KernelArgs args,
                             ConstexprArgs constexprs,
                             const JITOptions &options) {
  if (Tuning *t = tuningFor(options))
    return launchResolved(resolve(*t, &grid, {}, args, constexprs, options),
                          args);
  Constexprs given(constexprs.begin(), constexprs.end());
  launch(grid(Meta(given)), args, constexprs, options);
}

BoundLaunch JITFunction::bindWith(const GridFunction &grid, KernelArgs args,
                                  ConstexprArgs constexprs,
                                  const JITOptions &options) {
  Tuning *t = tuningFor(options);
  if (!t) {
    Constexprs given(constexprs.begin(), constexprs.end());
    return bind(grid(Meta(given)), args, constexprs, options);
  }
  return bindResolved(resolve(*t, &grid, {}, args, constexprs, options), args);
}

Config JITFunction::tunedConfig(const GridFunction &grid, KernelArgs args,
                                ConstexprArgs constexprs,
                                const JITOptions &options) {
  Tuning *t = tuningFor(options);
  if (!t || t->autotune.configs.empty())
    throw Error(filename + ": the kernel has no autotune configs");
  return t->autotune.configs[resolve(*t, &grid, {}, args, constexprs, options)
                                 .config];
}

std::vector<TuningReport> JITFunction::tuningReports() const {
  if (!tuning)
    return {};
  std::lock_guard<std::mutex> lock(tuning->mutex);
  return tuning->reports;
}
