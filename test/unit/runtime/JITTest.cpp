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
  scale.setCacheDirectory(""); // count compiles, not earlier runs' entries
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

// Raw device addresses name their dtype by their type: the JIT
// specializes them as it does buffers (alignment included).
TEST(JIT, TypedRawPointers) {
  EXPECT_EQ(JITFunction::argType(Ptr<float>(uint64_t(0x1000))), "*fp32:16");
  EXPECT_EQ(JITFunction::argType(Ptr<bf16>(uint64_t(0x1008))), "*bf16");
  EXPECT_EQ(JITFunction::argType(Ptr<fp16>(uint64_t(0x2000))), "*fp16:16");
  EXPECT_EQ(JITFunction::argType(Ptr<int32_t>(uint64_t(0x2004))), "*i32");
  EXPECT_EQ(JITFunction::argType(Ptr<uint8_t>(uint64_t(0x2010))), "*u8:16");
  EXPECT_EQ(JITFunction::argType(Ptr<fp8e4nv>(uint64_t(0x2010))),
            "*fp8e4nv:16");
  KernelArg arg = Ptr<double>(reinterpret_cast<const void *>(0x3000));
  EXPECT_EQ(arg.kind(), KernelArg::Kind::Pointer);
  EXPECT_EQ(arg.pointerValue(), 0x3000u);
  EXPECT_EQ(arg.pointeeDType(), "fp64");
}

// A launch on a stream of its own, into memory passed as a typed raw
// address: nothing reaches the buffer before the stream is waited on, and
// then all of it has.
TEST(JIT, LaunchOnAStreamWithARawPointer) {
  std::string why;
  if (!cudaAvailable(&why))
    GTEST_SKIP() << "no CUDA device: " << why;
  JITFunction scale(kScale, "scale.tl");
  auto buffer = DeviceBuffer::fromHost(std::vector<float>{1, 2, 3});
  Stream stream;
  JITOptions options;
  options.stream = stream.handle();
  scale.launch({1}, {Ptr<float>(buffer.address()), 3},
               {{"MODE", "double"}, {"BLOCK", 4}}, options);
  stream.synchronize();
  EXPECT_EQ(buffer.toHost<float>(), (std::vector<float>{2, 4, 6}));
}

} // namespace
