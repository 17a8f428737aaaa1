//===- JITTest.cpp - The JIT's constexprs and specialization key ----------===//
//
// String constexprs reach the kernel; num_stages is part of what a
// specialization is compiled for (the GPU test, skipped without a GPU,
// counts compilations).
//
//===----------------------------------------------------------------------===//

#include "tile/JIT.h"
#include "tile/DeviceBuffer.h"
#include "tile/Driver.h"
#include "tile/Error.h"

#include <gtest/gtest.h>

using namespace tile;

namespace {

const char *kScale = R"(import triton
import triton.language as tl


@triton.jit
def scale_kernel(x_ptr, n, MODE: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    if MODE == "double":
        x = x * 2
    tl.store(x_ptr + offs, x, mask=offs < n)
)";

TEST(JIT, StringConstexprText) {
  EXPECT_EQ(Constexpr("ieee").text(), "'ieee'");
  EXPECT_EQ(Constexpr(std::string("it's")).text(), "\"it's\"");
  EXPECT_THROW(Constexpr("'\""), Error);
  EXPECT_EQ(Constexpr(true).text(), "True"); // not taken for a string
}

TEST(JIT, StringConstexprOnTheInterpreter) {
  JITFunction scale(kScale, "scale.tl");
  std::vector<float> x = {1, 2, 3};
  auto buffer = DeviceBuffer::fromHost(x, Backend::Interpreter);
  JITOptions options;
  options.backend = Backend::Interpreter;
  options.numStages = 2;
  scale.launch({1}, {buffer, 3}, {{"MODE", "double"}, {"BLOCK", 4}}, options);
  EXPECT_EQ(buffer.toHost<float>(), (std::vector<float>{2, 4, 6}));
  scale.launch({1}, {buffer, 3}, {{"MODE", "keep"}, {"BLOCK", 4}}, options);
  EXPECT_EQ(buffer.toHost<float>(), (std::vector<float>{2, 4, 6}));
}

TEST(JIT, NumStagesIsPartOfTheSpecialization) {
  std::string why;
  if (!cudaAvailable(&why))
    GTEST_SKIP() << "no CUDA device: " << why;
  JITFunction scale(kScale, "scale.tl");
  auto buffer = DeviceBuffer::fromHost(std::vector<float>{1, 2, 3});
  JITOptions options;
  Constexprs constexprs = {{"MODE", "double"}, {"BLOCK", 4}};
  scale.launch({1}, {buffer, 3}, constexprs, options);
  scale.launch({1}, {buffer, 3}, constexprs, options);
  EXPECT_EQ(scale.compileCount(), 1u);
  options.numStages = 4;
  const Kernel &kernel = scale.specialize({buffer, 3}, constexprs, options);
  EXPECT_EQ(kernel.metadata().numStages, 4u);
  EXPECT_EQ(scale.compileCount(), 2u);
}

} // namespace
