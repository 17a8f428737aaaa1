//===- PipelineFuzzer.cpp - libFuzzer target: .tl source to PTX ----------===//
//
// The whole compiler on arbitrary text: frontend, layouts, software
// pipelining, lowering to NVVM and LLVM's NVPTX backend, with the
// specialization the input's RUN lines give (see FuzzInput.h). ptxas is not
// run: an external process per input would dominate the fuzzer's time, and
// the lit tests run ptxas on every kind of kernel.
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
  options.stopAfter = tilec::Stage::PTX;
  tilec::fuzz::checkDiagnostics(
      tilec::compile(source, tilec::fuzz::kFilename, options));
  return 0;
}
