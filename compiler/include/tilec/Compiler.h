//===- Compiler.h - .tl source to PTX, in one call --------------*- C++ -*-===//
//
// The compiler's public entry point, used by tilec and by the JIT. It has no
// MLIR in its interface, so host code includes it cheaply.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_COMPILER_H
#define TILEC_COMPILER_H

#include "tile/KernelOptions.h"
#include "tile/Metadata.h"
#include "tilec/Frontend/HostScalar.h"
#include "tilec/Interpreter/InterpreterArg.h"

#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace tilec {

/// The stages `--emit` can stop after.
enum class Stage { AST, Tile, TileGPU, LLVM, PTX, Cubin };

/// What to compile and how: the kernel's options (tile/KernelOptions.h),
/// and which kernel, its specialization and how far.
struct CompileOptions : tile::KernelOptions {
  CompileOptions() { arch = "sm_90"; }

  /// The @triton.jit function to compile; empty: the file's only one.
  std::string kernel;
  /// The PTX entry's name; empty: the kernel's.
  std::string entryName;
  /// Triton's AOT signature: "*fp32:16, *fp32, i32, 1024".
  std::string signature;
  /// Constexpr values by name, typed: -D NAME=VALUE's are
  /// HostScalar::parse(VALUE); a string may hold any text.
  std::vector<NamedScalar> constexprs;
  /// Types of the runtime (non-constexpr) parameters in order, from a JIT
  /// call's arguments: "*fp32:16", "i32".
  std::vector<std::string> argTypes;
  /// Where imported modules are searched (-I), after the file's package
  /// root and before TILEC_PATH's directories.
  std::vector<std::string> importPath;
  Stage stopAfter = Stage::PTX;
  /// Measure the wall time of each stage into CompileResult::timingReport.
  bool timing = false;
};

struct CompileResult {
  bool ok = false;
  /// Errors as `file:line:col: error: message`, the line and a caret.
  std::string diagnostics;
  /// The last stage's text: AST dump, MLIR, LLVM IR or PTX.
  std::string text;
  /// The cubin, for Stage::Cubin.
  std::vector<char> cubin;
  /// Filled from Stage::PTX on.
  tile::KernelMetadata metadata;
  /// With CompileOptions::timing: one line per stage, in milliseconds.
  std::string timingReport;
  /// The modules the kernel's imports led the frontend to read, besides
  /// `filename`: each path and the text compiled from it, which a cache
  /// of the result must check.
  std::vector<std::pair<std::string, std::string>> filesRead;
};

/// Compiles `source` (the contents of `filename`) as far as
/// `options.stopAfter`. Thread-safe: each call has its own MLIR context.
CompileResult compile(const std::string &source, const std::string &filename,
                      const CompileOptions &options);

/// Compiles `source` to tile IR (the frontend and the tile-level
/// transforms) and runs the kernel on the CPU interpreter for the grid
/// (x, y, z), with `args` for its runtime parameters in order, then any
/// further buffers the kernel reaches only through addresses it is given
/// (int64 values cast to pointers); buffers are read and written in place. Compile and run errors alike go to
/// `diagnostics`; `metadata` describes the kernel. Before it runs, the
/// grid is checked against CUDA's limits (tile::kMaxGrid), as a GPU launch
/// checks it; `validate`, where given, checks the launch against the
/// kernel's metadata too (the JIT's tile::validateLaunch): a message it
/// returns is the error.
CompileResult interpret(
    const std::string &source, const std::string &filename,
    const CompileOptions &options, unsigned gridX, unsigned gridY,
    unsigned gridZ, const std::vector<InterpreterArg> &args,
    const std::function<std::string(const tile::KernelMetadata &)> &validate =
        nullptr);

/// The libdevice.10.bc that compiles link (TILEC_LIBDEVICE, under CUDA_HOME
/// or /usr/local/cuda), or "" where there is none.
std::string libdevicePath();

/// Parses a stage name of `--emit` ("ast", "tile", "ttgpu", "llvm", "ptx",
/// "cubin"); false when unknown.
bool parseStage(const std::string &name, Stage &stage);

} // namespace tilec

#endif // TILEC_COMPILER_H
