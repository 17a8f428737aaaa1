//===- DTypeRoundTripTest.cpp - Every dtype through the kernel ABI --------===//
//
// For every dtype of the ABI's table: a kernel with a pointer and a scalar
// parameter of it compiles, its metadata reads back with the runtime's
// loader, it runs on the interpreter (and on the GPU where there is one)
// with the right bits, and a second process finds it in the disk cache.
// What the compiler writes, the runtime reads.
//
//===----------------------------------------------------------------------===//

#include "tile/DType.h"
#include "tile/DeviceBuffer.h"
#include "tile/Driver.h"
#include "tile/JIT.h"
#include "tile/Metadata.h"

#include <gtest/gtest.h>

#include <cstring>
#include <sys/wait.h>
#include <unistd.h>

using namespace tile;

namespace {

// Copies x to y and puts the scalar after the copy: every element's bits
// pass through a load and a store, and the scalar's through a parameter.
const char *kCopyAndPut = R"(import triton
import triton.language as tl


@triton.jit
def copy_and_put(x_ptr, y_ptr, s, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask), mask=mask)
    tl.store(y_ptr + n, s)
)";

constexpr int32_t kElements = 10;

/// A value of `dtype` from a small integer, as its bits.
uint64_t bitsOf(DType dtype, int value) {
  if (isFloat(dtype))
    return encodeFloat(dtype, value * 0.5);
  if (dtype == DType::I1)
    return uint64_t(value & 1);
  return uint64_t(int64_t(value)) & (info(dtype).bits >= 64
                                         ? ~uint64_t(0)
                                         : (uint64_t(1) << info(dtype).bits) - 1);
}

/// `count` elements of `dtype` holding bitsOf(i - 3), then room for one more.
std::vector<uint8_t> input(DType dtype) {
  unsigned size = byteSize(dtype);
  std::vector<uint8_t> bytes((kElements + 1) * size);
  for (int i = 0; i < kElements; ++i) {
    uint64_t bits = bitsOf(dtype, i - 3);
    std::memcpy(&bytes[size_t(i) * size], &bits, size);
  }
  return bytes;
}

/// Runs copy_and_put on `backend` and checks y's bits.
void runAndCheck(JITFunction &kernel, DType dtype, Backend backend) {
  unsigned size = byteSize(dtype);
  std::vector<uint8_t> x = input(dtype);
  DeviceBuffer dx = DeviceBuffer::fromHost(x, backend);
  dx.setDType(dtype);
  DeviceBuffer dy(x.size(), backend);
  dy.setDType(dtype);
  dy.fill(0);
  uint64_t scalar = bitsOf(dtype, 5);
  JITOptions options;
  options.backend = backend;
  kernel.launch({1},
                {dx, dy, KernelArg::scalarOf(dtype, scalar), kElements},
                {{"BLOCK", 16}}, options);
  if (backend == Backend::CUDA)
    synchronize();
  std::vector<uint8_t> y = dy.toHost<uint8_t>();
  std::vector<uint8_t> expected = x;
  std::memcpy(&expected[size_t(kElements) * size], &scalar, size);
  EXPECT_EQ(y, expected) << name(dtype) << " on "
                         << (backend == Backend::CUDA ? "the GPU"
                                                      : "the interpreter");
}

std::vector<KernelArg> typedArgs(DType dtype) {
  return {KernelArg::pointer(0x1000, dtype), KernelArg::pointer(0x2000, dtype),
          KernelArg::scalarOf(dtype, bitsOf(dtype, 5)), kElements};
}

JITOptions sm90() {
  JITOptions options;
  options.arch = "sm_90";
  return options;
}

std::string freshDirectory() {
  std::string dir = ::testing::TempDir() + "tilec-dtypes-" +
                    std::to_string(getpid());
  std::string command = "rm -rf '" + dir + "'";
  EXPECT_EQ(std::system(command.c_str()), 0);
  return dir;
}

} // namespace

TEST(DTypeRoundTrip, EveryDTypeCompilesLoadsAndRuns) {
  for (const DTypeInfo &row : kDTypes) {
    SCOPED_TRACE(std::string(row.name));
    JITFunction kernel(kCopyAndPut, "copy_and_put.tl");
    kernel.setCacheDirectory("");
    JITFunction::Compiled compiled =
        kernel.compile(typedArgs(row.dtype), {{"BLOCK", 16}}, sm90());
    // The metadata as a launcher reads it from the .json beside the PTX.
    KernelMetadata md = KernelMetadata::fromJSON(compiled.metadata.toJSON());
    ASSERT_EQ(md.params.size(), 4u);
    EXPECT_EQ(md.params[0].type, ParamType::pointer(row.dtype));
    EXPECT_EQ(md.params[2].type, ParamType::scalar(row.dtype));
    EXPECT_EQ(md.params[2].type.str(), row.name);
    runAndCheck(kernel, row.dtype, Backend::Interpreter);
    if (cudaAvailable())
      runAndCheck(kernel, row.dtype, Backend::CUDA);
  }
}

// The JIT's disk cache is read back through the metadata's JSON: every
// dtype's specialization compiled by one process is a hit in the next.
TEST(DTypeRoundTrip, DiskCacheHitsInASecondProcess) {
  std::string dir = freshDirectory();
  for (const DTypeInfo &row : kDTypes) {
    JITFunction kernel(kCopyAndPut, "copy_and_put.tl");
    kernel.setCacheDirectory(dir);
    EXPECT_FALSE(
        kernel.compile(typedArgs(row.dtype), {{"BLOCK", 16}}, sm90())
            .fromDiskCache)
        << row.name;
  }
  // The child reports the dtypes it had to compile again in its exit code.
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    int misses = 0;
    for (const DTypeInfo &row : kDTypes) {
      JITFunction kernel(kCopyAndPut, "copy_and_put.tl");
      kernel.setCacheDirectory(dir);
      try {
        misses += !kernel.compile(typedArgs(row.dtype), {{"BLOCK", 16}},
                                  sm90())
                       .fromDiskCache;
      } catch (...) {
        ++misses;
      }
    }
    _exit(misses);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "dtypes missed in the second process";
}
