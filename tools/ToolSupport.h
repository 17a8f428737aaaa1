//===- ToolSupport.h - What tilec and tile-run share ------------*- C++ -*-===//
//
// --kernel, -D, --num-warps, --num-stages, --arch, --device-tensor-maps,
// --debug and --signature mean the
// same in tilec and tile-run, and both read their source the same way: one
// definition each.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_TOOLS_TOOLSUPPORT_H
#define TILEC_TOOLS_TOOLSUPPORT_H

#include "tilec/Compiler.h"
#include "tilec/Target/GPUArch.h"

#include <CLI/CLI.hpp>

#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

namespace tilec {

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
  std::vector<std::string> archs;
  for (const GPUArch &arch : gpuArchs())
    archs.push_back(arch.name.str());
  app.add_option("--arch", options.arch,
                 "GPU architecture: sm_90, sm_90a or sm_80 (default:\n"
                 "sm_90; tile-run's cuda backend: the device's, sm_90a\n"
                 "on Hopper)")
      ->check(CLI::IsMember(archs))
      ->option_text("ARCH");
  app.add_flag("--device-tensor-maps", options.deviceTensorMaps,
               "Bulk copies' tensor maps are built by the kernel, none\n"
               "by the launcher (the metadata's \"tensor_maps\"): for\n"
               "launchers that pass the parameters alone");
  app.add_flag("--debug", options.debug,
               "Compile tl.device_assert and runtime `assert` in\n"
               "(Triton's debug mode); they are dropped otherwise");
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
    options.constexprs.emplace_back(define.substr(0, eq), define.substr(eq + 1));
  }
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

} // namespace tilec

#endif // TILEC_TOOLS_TOOLSUPPORT_H
