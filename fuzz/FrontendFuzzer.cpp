//===- FrontendFuzzer.cpp - libFuzzer target: .tl source to tile IR ------===//
//
// The lexer, the parser, the host-code evaluator and MLIR generation, with
// the tile-level transforms, on arbitrary text (see FuzzInput.h).
//
//===----------------------------------------------------------------------===//

#include "FuzzInput.h"

#include <cstddef>
#include <cstdint>

// Run by hand, the fuzzer needs no ASAN_OPTIONS: see scripts/sanitized-build.sh
// for why user poisoning is off.
extern "C" const char *__asan_default_options() {
  return "allow_user_poisoning=0";
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string source(reinterpret_cast<const char *>(data), size);
  tilec::CompileOptions options = tilec::fuzz::optionsFromRunLines(source);
  options.stopAfter = tilec::Stage::Tile;
  tilec::fuzz::checkDiagnostics(
      tilec::compile(source, tilec::fuzz::kFilename, options));
  return 0;
}
