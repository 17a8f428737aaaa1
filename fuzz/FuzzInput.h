//===- FuzzInput.h - A fuzz input: a .tl file and its options ---*- C++ -*-===//
//
// The fuzz targets take a whole .tl file, as the test suite writes them: the
// options of a compile (the specialization: --signature, -D, --kernel,
// --num-warps, --num-stages, --arch, --deterministic, --debug) come from
// the file's `RUN:` lines, so every lit test is a seed with its own
// specialization, and the fuzzer
// mutates the options with the source. The oracle: a compile succeeds, or it
// fails with a located `file:line:col: error:` that is not an internal error.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_FUZZ_FUZZINPUT_H
#define TILEC_FUZZ_FUZZINPUT_H

#include "tilec/Compiler.h"

#include <string>

namespace tilec::fuzz {

/// The name the fuzz targets give every input (diagnostics start with it).
inline constexpr const char *kFilename = "fuzz.tl";

/// The compile options of the first `RUN:` line that names any, clamped to
/// values the compiler accepts (a fuzzed `--num-warps 7` becomes 4): the
/// fuzzer's time goes into the source, not into option errors.
CompileOptions optionsFromRunLines(const std::string &source);

/// What is wrong with a compile's outcome, or "" where nothing is: a failed
/// compile's first error must be located in the source and must not be one
/// of tilec's internal errors.
std::string diagnosticsProblem(const CompileResult &result);

/// Aborts with diagnosticsProblem's message where it has one: the fuzzer
/// then keeps the input as a crash.
void checkDiagnostics(const CompileResult &result);

} // namespace tilec::fuzz

#endif // TILEC_FUZZ_FUZZINPUT_H
