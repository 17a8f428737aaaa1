//===- tilec.cpp - The tilec command line compiler ------------------------===//
//
// Compiles a Triton-style .tl kernel ahead of time to PTX (or a cubin) and
// the metadata JSON a host needs to launch it. Any stage can be printed
// with --emit, for debugging and for lit tests.
//
//===----------------------------------------------------------------------===//

#include "ToolSupport.h"
#include "tilec/Compiler.h"
#include "tilec/Frontend/Builtins.h"
#include "tilec/Target/C/CLauncher.h"
#include "tilec/Target/PTX/PTXEmitter.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/raw_ostream.h"

#include <CLI/CLI.hpp>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

namespace {

constexpr int kExitCompileError = 1;
constexpr int kExitUsageError = 2;

const char *kDescription =
    "tilec compiles a kernel written in Triton's kernel language (a .tl file:\n"
    "Python with @triton.jit functions) to PTX for NVIDIA GPUs, through MLIR\n"
    "and LLVM's NVPTX backend. Beside the PTX (or cubin) it writes a .json\n"
    "file with what a host needs to launch the kernel: the entry name, threads\n"
    "per block, dynamic shared memory and the parameter types. Constexpr\n"
    "parameters are fixed with -D; runtime parameter types come from\n"
    "annotations or --signature. A .mlir input (tile IR) starts at the tile\n"
    "stage. Every stage can be printed with --emit.\n";

const char *kFooter = R"(Output:
  With -o FILE, the result goes to FILE and, for --emit=ptx and cubin, the
  metadata to FILE with its extension replaced by .json. --emit=c writes
  FILE.h and FILE.c (FILE without its extension): the kernel's cubin (where
  ptxas is found) and PTX and a typed C launcher that needs only the CUDA
  driver; with several --signature, one launcher per specialization and a
  dispatcher that picks by the arguments' alignment, divisibility and ones.
  Without -o (or with
  -o -), text stages (ast, tile, ttgpu, llvm, ptx) are printed to stdout and
  no metadata is written; --emit=cubin needs -o. With --report, stdout gets
  the report alone (the code goes to -o, if given).

Examples:
  tilec add.tl -o add.ptx                    # add.ptx + add.json, for sm_90
  tilec add.tl -D BLOCK=1024 --num-warps 8 -o add.ptx
  tilec add.tl --signature "*fp32:16, *fp32:16, *fp32:16, i32, 1024" -o add.ptx
  tilec matmul.tl --kernel matmul --name matmul_128x128 --arch sm_80 -o mm.ptx
  tilec add.tl --emit=cubin -o add.cubin     # runs ptxas as well
  tilec add.tl --signature "..." --emit=c -o add   # add.h, add.c: add(stream, grid..., args)
  tilec add.tl --signature "*fp32:16, ..., i32:16, 1024" \\
               --signature "*fp32, ..., i32, 1024" --emit=c -o add   # add() dispatches
  tilec add.tl --emit=ttgpu                  # the laid-out tile IR, on stdout
  tilec kernel.mlir --emit=llvm              # hand-written tile IR to LLVM IR
  tilec add.tl -o add.ptx --time             # wall time of each stage
  tilec add.tl --report                      # registers, occupancy, SASS mix

Exit status: 0 on success, 1 on a compile error (diagnostics on stderr),
2 on a usage error.)";

bool writeFile(const std::string &path, const char *data, size_t size) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out)
    return false;
  out.write(data, std::streamsize(size));
  return bool(out.flush());
}

/// `dir/k.ptx` -> `dir/k.json`; a name without extension gets `.json`.
std::string metadataPath(const std::string &output) {
  size_t slash = output.find_last_of('/');
  size_t dot = output.find_last_of('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash) ||
      dot == (slash == std::string::npos ? 0 : slash + 1))
    return output + ".json";
  return output.substr(0, dot) + ".json";
}

int fail(const std::string &message, int code = kExitCompileError) {
  std::cerr << "tilec: error: " << message << "\n";
  return code;
}

/// --emit=c: `output`.h and `output`.c (without `output`'s extension), with
/// each specialization's cubin where ptxas can make one (else the PTX
/// alone, said on stderr).
int writeCLauncher(const std::vector<tilec::CompileResult> &results,
                   const std::string &input, const std::string &output) {
  std::string base = output;
  size_t slash = base.find_last_of('/'), dot = base.find_last_of('.');
  if (dot != std::string::npos && (slash == std::string::npos || dot > slash + 1))
    base = base.substr(0, dot);
  std::vector<tilec::CSpecialization> specs;
  for (const tilec::CompileResult &result : results) {
    tilec::CSpecialization &spec = specs.emplace_back();
    spec.metadata = result.metadata;
    spec.ptx = result.text;
    llvm::Expected<std::vector<char>> assembled =
        tilec::assembleCubin(result.text, result.metadata.arch);
    if (assembled)
      spec.cubin = std::move(*assembled);
    else
      std::cerr << "tilec: warning: no cubin embedded (the PTX alone, which "
                   "the driver compiles at load): "
                << llvm::toString(assembled.takeError()) << "\n";
  }
  std::string headerName = base.substr(slash == std::string::npos ? 0 : slash + 1) + ".h";
  tilec::CLauncher launcher;
  try {
    launcher = tilec::emitCLauncher(specs, headerName, input);
  } catch (const std::exception &e) {
    return fail(e.what());
  }
  for (const auto &[path, text] :
       {std::pair(base + ".h", &launcher.header), std::pair(base + ".c", &launcher.source)})
    if (!writeFile(path, text->data(), text->size()))
      return fail("cannot write '" + path + "': " + std::strerror(errno));
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  CLI::App app(kDescription, "tilec");
  app.footer(kFooter);
  app.set_version_flag("--version",
                       std::string("tilec " TILEC_VERSION
                                   " (LLVM " LLVM_VERSION_STRING ")"));
  app.get_formatter()->column_width(24);

  std::string input, output, emit = "ptx";
  std::vector<std::string> defines;
  tilec::CompileOptions options;
  bool timing = false;

  app.add_option("file", input, "The .tl source (or .mlir tile IR; - reads stdin)")
      ->required()
      ->option_text(" ");
  app.add_option("-o,--output", output,
                 "Output file; - for stdout (see Output below)")
      ->option_text("FILE");
  std::vector<std::string> signatures;
  tilec::addKernelFlags(
      app, options, defines,
      "The @triton.jit function to compile (default: the only one)",
      &signatures);
  app.add_option("--name", options.entryName,
                 "Name of the PTX entry (default: the kernel's)")
      ->option_text("ENTRY");
  app.add_option("--emit", emit,
                 "Stop after: ast, tile, ttgpu, llvm, ptx (default), cubin; "
                 "or c, a C launcher")
      ->check(CLI::IsMember({"ast", "tile", "ttgpu", "llvm", "ptx", "cubin", "c"}))
      ->option_text("STAGE");
  app.add_flag("--time", timing,
               "Print the wall time of each compiler stage to stderr");
  bool verbose = false;
  app.add_flag("--verbose", verbose,
               "Say on stderr which --arch is compiled for, and why");
  // Prints and exits during parsing, as --help does: no file needed.
  app.add_option_function<std::string>(
         "--list-builtins",
         [](const std::string &format) {
           tilec::printBuiltins(
               llvm::outs(),
               format == "markdown" ? tilec::BuiltinListFormat::Markdown
               : format == "dict"   ? tilec::BuiltinListFormat::Dict
                                    : tilec::BuiltinListFormat::Text);
           llvm::outs().flush();
           throw CLI::Success();
         },
         "Print the tl functions and tile methods with their parameters "
         "(text, markdown: README's table, dict: libFuzzer's) and exit")
      ->expected(0, 1)
      ->default_str("text")
      ->check(CLI::IsMember({"text", "markdown", "dict"}))
      ->option_text("[FORMAT]");
  std::string reportFormat;
  tilec::addReportFlag(app, reportFormat);
  int config = -1;
  tilec::addConfigFlag(app, config);
  tilec::addDebugOnlyFlag(app);

  try {
    app.parse(argc, argv);
  } catch (const CLI::Success &e) {
    return app.exit(e); // --help, --version
  } catch (const CLI::ParseError &e) {
    app.exit(e);
    return kExitUsageError;
  }

  std::string archChoice, archError;
  if (!tilec::resolveArch(app.get_option("--arch")->count() != 0,
                          /*readEnvironment=*/true, options, archChoice,
                          archError))
    return fail(archError, kExitUsageError);
  if (verbose)
    std::cerr << "tilec: --arch " << archChoice << "\n";

  bool emitC = emit == "c";
  if (!emitC && !tilec::parseStage(emit, options.stopAfter))
    return fail("unknown stage '" + emit + "'", kExitUsageError);
  if (emitC && (output.empty() || output == "-"))
    return fail("--emit=c writes FILE.h and FILE.c: give FILE with -o",
                kExitUsageError);
  std::string defineError;
  if (!tilec::applyDefines(defines, options, defineError))
    return fail(defineError, kExitUsageError);
  bool toStdout = output.empty() || output == "-";
  bool report = app.get_option("--report")->count() != 0;
  if (report && !emitC && options.stopAfter != tilec::Stage::PTX &&
      options.stopAfter != tilec::Stage::Cubin)
    return fail("--report needs the kernel's PTX: --emit=ptx (the default), "
                "cubin or c",
                kExitUsageError);
  if (toStdout && options.stopAfter == tilec::Stage::Cubin && !report)
    return fail("--emit=cubin writes a binary: give the output file with -o",
                kExitUsageError);
  options.timing = timing;

  std::string source;
  if (!tilec::readFile(input, source))
    return fail("cannot read '" + input + "': " + std::strerror(errno));

  if (signatures.size() > 1 && !emitC)
    return fail("several --signature make one C launcher: they need --emit=c",
                kExitUsageError);
  std::string filename = input == "-" ? "<stdin>" : input;
  // A --signature gives every constexpr, as Triton's AOT compiler wants;
  // without one, heuristics compute those -D leaves out.
  if (!llvm::StringRef(input).ends_with(".mlir")) {
    std::string tuningError;
    if (!tilec::applyTuning(source, filename, options, config, {}, tuningError,
                            /*heuristics=*/signatures.empty())) {
      std::cerr << tuningError;
      return kExitCompileError;
    }
  }
  if (signatures.empty())
    signatures.emplace_back();
  std::vector<tilec::CompileResult> results;
  for (const std::string &signature : signatures) {
    options.signature = signature;
    tilec::CompileResult &result = results.emplace_back(
        tilec::compile(source, filename, options));
    if (timing)
      std::cerr << result.timingReport;
    // Errors, and on success the warnings.
    std::cerr << result.diagnostics;
    if (!result.ok)
      return kExitCompileError;
  }

  // The report is what stdout gets; the code goes to -o, if given.
  if (report)
    for (const tilec::CompileResult &result : results)
      if (!tilec::printReport(result, reportFormat, "tilec"))
        return kExitCompileError;
  if (emitC)
    return writeCLauncher(results, input, output);
  const tilec::CompileResult &result = results.front();
  if (toStdout && report)
    return 0;
  if (toStdout) {
    std::cout << result.text;
    std::cout.flush();
    return std::cout ? 0 : fail("cannot write to stdout");
  }
  bool binary = options.stopAfter == tilec::Stage::Cubin;
  const std::vector<char> &cubin = result.cubin;
  if (!(binary ? writeFile(output, cubin.data(), cubin.size())
               : writeFile(output, result.text.data(), result.text.size())))
    return fail("cannot write '" + output + "': " + std::strerror(errno));

  if (options.stopAfter == tilec::Stage::PTX || binary) {
    std::string jsonPath = metadataPath(output);
    if (jsonPath == output)
      return fail("the metadata would overwrite '" + output + "'");
    std::string json;
    try {
      json = result.metadata.toJSON();
    } catch (const std::exception &e) {
      return fail(std::string("invalid kernel metadata: ") + e.what());
    }
    json += "\n";
    if (!writeFile(jsonPath, json.data(), json.size()))
      return fail("cannot write '" + jsonPath + "': " + std::strerror(errno));
  }
  return 0;
}
