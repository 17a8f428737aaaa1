//===- FuzzRegressionTest.cpp - Replays the inputs the fuzzers found ------===//
//
// Every file in fuzz/regressions once crashed, hung or misreported an error
// in a fuzz target. Each is compiled as both targets compile it (to tile IR,
// and to PTX) and must succeed or fail with a located error, in every build,
// not only in the clang builds that have the fuzzers.
//
//===----------------------------------------------------------------------===//

#include "FuzzInput.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace {

std::vector<std::filesystem::path> regressionInputs() {
  std::vector<std::filesystem::path> inputs;
  for (const auto &entry :
       std::filesystem::directory_iterator(TILEC_FUZZ_REGRESSIONS_DIR))
    if (entry.is_regular_file())
      inputs.push_back(entry.path());
  std::sort(inputs.begin(), inputs.end());
  return inputs;
}

TEST(FuzzRegressionTest, EveryInputCompilesOrFailsLocated) {
  std::vector<std::filesystem::path> inputs = regressionInputs();
  ASSERT_FALSE(inputs.empty()) << "no inputs in " TILEC_FUZZ_REGRESSIONS_DIR;
  for (const std::filesystem::path &input : inputs) {
    std::ifstream file(input, std::ios::binary);
    std::stringstream contents;
    contents << file.rdbuf();
    std::string source = contents.str();
    for (tilec::Stage stage : {tilec::Stage::Tile, tilec::Stage::PTX}) {
      tilec::CompileOptions options = tilec::fuzz::optionsFromRunLines(source);
      options.stopAfter = stage;
      tilec::CompileResult result =
          tilec::compile(source, tilec::fuzz::kFilename, options);
      EXPECT_EQ(tilec::fuzz::diagnosticsProblem(result), "")
          << input.filename() << " to "
          << (stage == tilec::Stage::Tile ? "tile IR" : "PTX");
    }
  }
}

} // namespace
