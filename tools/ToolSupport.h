//===- ToolSupport.h - What tilec and tile-run share ------------*- C++ -*-===//
//
// --kernel, -D, --num-warps, --num-stages, --arch, --device-tensor-maps,
// --debug, --no-line-info, --signature, --config and --debug-only mean the
// same in tilec and tile-run, both apply a kernel's @triton.autotune
// configs and @triton.heuristics the same way, and both read their source
// the same way: one definition each.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_TOOLS_TOOLSUPPORT_H
#define TILEC_TOOLS_TOOLSUPPORT_H

#include "tile/GPUArch.h"
#include "tilec/Compiler.h"
#include "tilec/Target/PTX/KernelReport.h"
#include "tilec/Tuning.h"

#include "tile/DiskCache.h"
#include "tile/Driver.h"

#include "llvm/Support/Debug.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace tilec {

/// The words of an option the compiler may decide (tile::Choice).
inline const std::map<std::string, tile::Choice> kChoices = {
    {"auto", tile::Choice::Auto},
    {"on", tile::Choice::On},
    {"off", tile::Choice::Off}};

/// Adds the kernel-selecting flags to `app`; -D values land in `defines`
/// until applyDefines moves them into `options`.
/// With `signatures`, --signature may be repeated and lands there (tilec
/// --emit=c: one launcher over several specializations).
inline void addKernelFlags(CLI::App &app, CompileOptions &options,
                           std::vector<std::string> &defines,
                           const std::string &kernelHelp,
                           std::vector<std::string> *signatures = nullptr) {
  app.add_option("--kernel", options.kernel, kernelHelp)->option_text("NAME");
  app.add_option("-D", defines, "Sets a constexpr parameter, e.g. -D BLOCK=1024")
      ->option_text("NAME=VALUE")
      ->allow_extra_args(false);
  app.add_option("-I", options.importPath,
                 "Searches DIR for the modules the file imports, after its\n"
                 "package root and before TILEC_PATH's directories")
      ->option_text("DIR")
      ->allow_extra_args(false);
  app.add_option("--num-warps", options.numWarps,
                 "Warps per block: 1, 2, 4 (default), 8, 16, 32")
      ->check(CLI::IsMember({1u, 2u, 4u, 8u, 16u, 32u}))
      ->option_text("N");
  app.add_option("--num-stages", options.numStages,
                 "Pipeline stages of loops whose loads feed tl.dot\n"
                 "(Triton's num_stages, default 3; tl.range(...,\n"
                 "num_stages=S) overrides it per loop)")
      ->check(CLI::Validator(
          [](std::string &text) -> std::string {
            // Digits only: CLI11 would wrap "-1" around to a huge unsigned.
            bool digits = !text.empty() &&
                          text.find_first_not_of("0123456789") ==
                              std::string::npos;
            if (!digits || text.find_first_not_of('0') == std::string::npos)
              return "must be a positive integer, not '" + text + "'";
            return "";
          },
          "N >= 1"))
      ->option_text("N");
  std::vector<std::string> archs = {"native"};
  for (const tile::GPUArch &arch : tile::gpuArchs())
    archs.push_back(std::string(arch.name));
  app.add_option("--arch", options.arch,
                 "GPU architecture: sm_90, sm_90a or sm_80, or native: the\n"
                 "GPU present's (sm_90a on Hopper). Default: TILEC_ARCH,\n"
                 "else the GPU present's, else sm_90")
      ->check(CLI::IsMember(archs))
      ->option_text("ARCH");
  app.add_flag("--device-tensor-maps", options.deviceTensorMaps,
               "Bulk copies' tensor maps are built by the kernel, none\n"
               "by the launcher (the metadata's \"tensor_maps\"): for\n"
               "launchers that pass the parameters alone");
  app.add_flag("--deterministic", options.deterministic,
               "Floating-point atomic adds give the same bits on every\n"
               "run: programs along the grid's last axis with more than\n"
               "one take turns (split-K's splits add in order)");
  app.add_option("--cluster-split-k", options.clusterSplitK,
                 "CTAs of a thread-block cluster that split a dot\n"
                 "kernel's K loop, summing in a fixed order (sm_90+):\n"
                 "1 never; 0 as the launch's grid decides, clusters or\n"
                 "stream-K (tile-run's cuda backend; tilec alone: never);\n"
                 "2 to 8 that many (default 0)")
      ->check(CLI::Range(0u, 8u))
      ->option_text("N");
  app.add_flag("--stream-k", options.streamK,
               "A stream-K dot kernel: the launch's last programs, which\n"
               "would leave SMs idle, run by CTAs that share out their K\n"
               "loops and sum in a fixed order");
  app.add_option("--warp-specialize", options.warpSpecialize,
                 "Loops whose tl.range(..., warp_specialize=) does not\n"
                 "say: auto as the compiler measured it to pay, on\n"
                 "wherever a loop allows it, off never (a producer\n"
                 "warpgroup for a dot loop's bulk copies; attention's\n"
                 "second dot an iteration late, its warpgroups taking\n"
                 "turns at the tensor cores, sm_90a) (default auto)")
      ->transform(CLI::CheckedTransformer(kChoices, CLI::ignore_case))
      ->option_text("auto|on|off");
  app.add_option("--persistent", options.persistent,
                 "A grid's programs run by the CTAs the GPU holds at once,\n"
                 "each running the programs its number apart, so that a\n"
                 "producer warpgroup copies the next one's first blocks\n"
                 "while the consumers finish this one: auto as the\n"
                 "compiler measured it to pay (attention whose programs\n"
                 "all run the same keys, sm_90a), on wherever the kernel\n"
                 "allows it, off never (default auto)")
      ->transform(CLI::CheckedTransformer(kChoices, CLI::ignore_case))
      ->option_text("auto|on|off");
  app.add_flag("--debug", options.debug,
               "Compile tl.device_assert and runtime `assert` in\n"
               "(Triton's debug mode); they are dropped otherwise");
  app.add_flag_callback(
      "--no-line-info", [&options] { options.lineInfo = false; },
      "No .tl file and line in the PTX and cubin (.file/.loc,\n"
      "which compute-sanitizer, Nsight Compute and cuda-gdb\n"
      "show; on by default); TILEC_DISABLE_LINE_INFO=1 too");
  std::string help = "Every parameter's type in order, as Triton's AOT:\n"
                     "\"*fp32:16, *bf16, i32, 1024\" (pointer:alignment,\n"
                     "int:divisibility, int:1 for the value 1, or a\n"
                     "constexpr's value)";
  if (signatures)
    app.add_option("--signature", *signatures,
                   help + "; repeated with --emit=c: one\n"
                          "launcher dispatching over the specializations")
        ->option_text("SIG")
        ->allow_extra_args(false);
  else
    app.add_option("--signature", options.signature, help)->option_text("SIG");
}

/// Adds --config, which picks one of the kernel's @triton.autotune configs.
inline void addConfigFlag(CLI::App &app, int &config) {
  app.add_option("--config", config,
                 "Use the kernel's Nth @triton.autotune config (from 0):\n"
                 "its constexprs, num_warps and num_stages")
      ->check(CLI::NonNegativeNumber)
      ->option_text("N");
}

/// Adds --debug-only, which prints the LLVM_DEBUG output of the passes it
/// names (tile-opt's -debug-only; --debug is Triton's debug mode). The
/// output is compiled in with TILEC_ENABLE_ASSERTIONS only: without it the
/// flag is a usage error rather than silence.
inline void addDebugOnlyFlag(CLI::App &app) {
  app.add_option_function<std::vector<std::string>>(
         "--debug-only",
         [](const std::vector<std::string> &types) {
#ifdef NDEBUG
           (void)types;
           throw CLI::ValidationError(
               "--debug-only", "tilec was built without debug output "
                               "(configure with -DTILEC_ENABLE_ASSERTIONS=ON)");
#else
           std::vector<const char *> names; // copied by LLVM
           for (const std::string &type : types)
             names.push_back(type.c_str());
           llvm::DebugFlag = true;
           llvm::setCurrentDebugTypes(names.data(), names.size());
#endif
         },
         "Print the debug output of these passes to stderr,\n"
         "e.g. tilegpu-assign-layouts,tilegpu-pipeline")
      ->delimiter(',')
      ->option_text("PASS,...");
}

/// Adds --report[=text|json]: each compiled kernel's registers, spills,
/// shared memory, occupancy and instruction mix (tilec::reportKernel).
inline void addReportFlag(CLI::App &app, std::string &format) {
  // A flag whose value comes only after '=': `--report x.npy` leaves
  // tile-run's argument alone.
  app.add_flag("--report{text}", format,
               "Print each kernel's registers, spills, local and shared\n"
               "memory, occupancy on the target, SASS instruction mix\n"
               "(ptxas -v; nvdisasm or cuobjdump where found) and how\n"
               "its programs run (clusters, stream-K, persistent), as\n"
               "text or, with =json, a JSON line per kernel, on stdout")
      ->check(CLI::IsMember({"text", "json"}))
      ->option_text("[=json]");
}

/// Prints `result`'s kernel report in `format` ("json", else text) on
/// stdout; false after saying why on stderr (`tool`: error) when ptxas
/// cannot assemble its PTX.
inline bool printReport(const CompileResult &result, const std::string &format,
                        const char *tool) {
  llvm::Expected<KernelReport> report =
      reportKernel(result.text, result.metadata);
  if (!report) {
    std::cerr << tool
              << ": error: --report: " << llvm::toString(report.takeError())
              << "\n";
    return false;
  }
  std::cout << (format == "json" ? reportJSON(*report) + "\n"
                                 : formatReport(*report));
  std::cout.flush();
  return true;
}

/// Reads a whole file, or standard input for "-"; false when unreadable.
inline bool readFile(const std::string &path, std::string &contents) {
  if (path == "-") {
    contents.assign(std::istreambuf_iterator<char>(std::cin),
                    std::istreambuf_iterator<char>());
    return true;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return false;
  std::ostringstream buffer;
  buffer << in.rdbuf();
  contents = buffer.str();
  return !in.bad();
}

/// The GPU present's (the driver's device 0) compute capability and a
/// description of it; false with `why` where there is none. cuInit takes a
/// few hundred milliseconds on some machines (300 on the H200 here, more
/// than the compile), so the answer is kept in the disk cache for as long
/// as the driver, the GPUs it lists (/proc/driver/nvidia) and
/// CUDA_VISIBLE_DEVICES and CUDA_DEVICE_ORDER stay what they were.
inline bool presentDevice(unsigned &capability, std::string &device,
                          std::string &why) {
  std::string key = "the GPU present\n";
  for (const char *var : {"CUDA_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER"}) {
    const char *value = std::getenv(var);
    key += std::string(var) + (value ? "=" + std::string(value) : " unset");
    key += "\n";
  }
  std::vector<std::pair<std::string, std::string>> facts;
  auto read = [&](const std::string &path) {
    std::string contents;
    if (!readFile(path, contents))
      return false;
    facts.emplace_back(path, std::move(contents));
    return true;
  };
  if (read("/proc/driver/nvidia/version")) {
    std::vector<std::string> gpus;
    std::error_code error;
    for (const auto &entry :
         std::filesystem::directory_iterator("/proc/driver/nvidia/gpus", error))
      gpus.push_back(entry.path().string() + "/information");
    std::sort(gpus.begin(), gpus.end());
    for (const std::string &gpu : gpus)
      if (read(gpu))
        key += gpu + "\n";
  }
  tile::DiskCache cache(facts.empty() ? std::string()
                                      : tile::DiskCache::defaultDirectory());
  if (!cache.directory().empty())
    if (auto known = cache.load(key); known && known->size() == 2) {
      capability = unsigned(std::atoi((*known)[0].c_str()));
      device = (*known)[1];
      return capability != 0;
    }
  if (!tile::cudaAvailable(&why))
    return false;
  try {
    capability = unsigned(tile::computeCapability());
    device = tile::describeDevice();
  } catch (const std::exception &error) {
    why = error.what();
    return false;
  }
  if (!cache.directory().empty())
    cache.store(key, {std::to_string(capability), device}, facts);
  return true;
}

/// The --arch for the GPU present: tile::gpuArchForDevice of its compute
/// capability, as the JIT picks it. "" with `why` (no driver, no device, a
/// device older than every target) where there is none; `device` says which it
/// is.
inline std::string nativeArch(std::string &why, std::string &device) {
  unsigned capability = 0;
  if (!presentDevice(capability, device, why))
    return "";
  if (std::optional<tile::GPUArch> arch = tile::gpuArchForDevice(capability))
    return std::string(arch->name);
  why = tile::noGPUArchFor(device);
  return "";
}

/// Where a tool's --arch comes from, when it is not given: with
/// `readEnvironment` (tilec), TILEC_ARCH (a name or native); else the GPU
/// present's; else `options.arch` as it was (sm_90: PTX that any GPU of
/// compute capability 9.0 or more runs). native, given or from TILEC_ARCH,
/// must find a GPU. False with `error` for a TILEC_ARCH tilec does not know
/// or a native without a GPU; `choice` says what was chosen and why (tilec
/// --verbose).
inline bool resolveArch(bool given, bool readEnvironment,
                        CompileOptions &options, std::string &choice,
                        std::string &error) {
  std::string asked = given ? options.arch : "";
  std::string source = given ? "--arch" : "TILEC_ARCH";
  const char *env = readEnvironment ? std::getenv("TILEC_ARCH") : nullptr;
  if (!given && env && *env) {
    asked = env;
    if (asked != "native" && !tile::lookupGPUArch(asked)) {
      error = "TILEC_ARCH=" + asked + ": tilec compiles for " +
              tile::supportedGPUArchs() + ", or native";
      return false;
    }
  }
  if (!asked.empty() && asked != "native") {
    options.arch = asked;
    choice = options.arch + " (" + source + ")";
    return true;
  }
  std::string why, device;
  std::string native = nativeArch(why, device);
  if (!native.empty()) {
    options.arch = native;
    choice = native + " (" + (asked.empty() ? "" : source + " native: ") +
             "the GPU present, " + device + ")";
    return true;
  }
  if (!asked.empty()) {
    error = source + " native needs a GPU: " + why;
    return false;
  }
  choice = options.arch + " (the default: no GPU, " + why + ")";
  return true;
}

/// The compute capability an --arch names (sm_90a: 90).
inline unsigned archCapability(const std::string &arch) {
  std::optional<tile::GPUArch> known = tile::lookupGPUArch(arch);
  return known ? known->computeCapability : 90;
}

/// Applies the kernel's decorators to a compile: config `config`'s
/// constexprs, warps and stages (none: -1), then the @triton.heuristics of
/// the constexprs -D did not give, on `args` (the runtime arguments' values
/// in order, where the tool knows them: tile-run does, tilec does not). False with `error` (diagnostics, then a note) when a config or a
/// heuristic cannot be applied. Without --config, decorators tilec cannot
/// read are left alone: -D gives what they would. `heuristics` false: the
/// caller gives every constexpr (a --signature).
inline bool applyTuning(const std::string &source, const std::string &filename,
                        CompileOptions &options, int config,
                        const std::vector<HostScalar> &args,
                        std::string &error, bool heuristics = true) {
  auto tuning = KernelTuning::read(source, filename, options.kernel,
                                   archCapability(options.arch), error);
  if (!tuning)
    return config < 0 ? (error.clear(), true) : false;
  if (config >= 0) {
    const std::vector<TuningConfig> &configs = tuning->configs();
    if (size_t(config) >= configs.size()) {
      error = filename + ": error: --config " + std::to_string(config) +
              ": the kernel has " + std::to_string(configs.size()) +
              " @triton.autotune config" + (configs.size() == 1 ? "" : "s") +
              (configs.empty()
                   ? std::string()
                   : " (0 to " + std::to_string(configs.size() - 1) + ")") +
              "\n";
      return false;
    }
    for (const auto &[name, value] : configs[size_t(config)].constexprs) {
      for (const auto &given : options.constexprs)
        if (given.first == name) {
          error = filename + ": error: -D " + name + " and --config " +
                  std::to_string(config) + " both set '" + name + "'\n";
          return false;
        }
      options.constexprs.emplace_back(name, value);
    }
    options.numWarps = configs[size_t(config)].numWarps;
    options.numStages = configs[size_t(config)].numStages;
  }
  if (!heuristics || tuning->heuristics().empty())
    return true;
  // What the heuristics read: the arguments (unknown where the tool has no
  // value), then the constexprs.
  std::vector<NamedScalar> values;
  size_t argIndex = 0;
  for (const KernelTuning::Param &param : tuning->params())
    if (!param.isConstexpr)
      values.emplace_back(param.name, argIndex < args.size()
                                          ? args[argIndex++]
                                          : HostScalar::unknown());
  for (const auto &given : options.constexprs)
    values.push_back(given);
  std::vector<NamedScalar> results;
  if (!tuning->applyHeuristics(values, results, error)) {
    std::string missing;
    for (const std::string &name : tuning->heuristics())
      if (std::none_of(values.begin(), values.end(),
                       [&](const NamedScalar &v) { return v.first == name; }))
        missing += " -D " + name + "=VALUE";
    error += filename + ": note: @triton.heuristics computes the constexprs "
                        "-D does not give; give them with" + missing + "\n";
    return false;
  }
  for (const NamedScalar &result : results)
    options.constexprs.push_back(result);
  return true;
}

/// Moves `-D NAME=VALUE`s into options.constexprs (`-D NAME=` gives the
/// empty string); false, with `error` set, on one that is not NAME=VALUE.
inline bool applyDefines(const std::vector<std::string> &defines,
                         CompileOptions &options, std::string &error) {
  for (const std::string &define : defines) {
    size_t eq = define.find('=');
    if (eq == 0 || eq == std::string::npos) {
      error = "-D expects NAME=VALUE, not '" + define + "'";
      return false;
    }
    options.constexprs.emplace_back(define.substr(0, eq),
                                    HostScalar::parse(define.substr(eq + 1)));
  }
  return true;
}

} // namespace tilec

#endif // TILEC_TOOLS_TOOLSUPPORT_H
