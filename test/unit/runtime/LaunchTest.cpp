//===- LaunchTest.cpp - Loading and launching kernels on a GPU ------------===//
//
// Skipped where cudaAvailable() is false. The faulting kernel runs in a child
// process (a death test), since an illegal address poisons the context.
//
//===----------------------------------------------------------------------===//

#include "tile/DeviceBuffer.h"
#include "tile/Driver.h"
#include "tile/Error.h"
#include "tile/Kernel.h"
#include "tile/Module.h"
#include "tile/Timing.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <unistd.h>

using namespace tile;

namespace {

// out[i] = x[i] + y[i] for i < n, one element per thread.
const char *const kAddPTX = R"(
.version 8.0
.target sm_80
.address_size 64

.visible .entry add_kernel(
    .param .u64 x_ptr,
    .param .u64 y_ptr,
    .param .u64 out_ptr,
    .param .s32 n)
{
    .reg .pred %p<2>;
    .reg .b32 %r<6>;
    .reg .f32 %f<4>;
    .reg .b64 %rd<12>;

    ld.param.u64 %rd1, [x_ptr];
    ld.param.u64 %rd2, [y_ptr];
    ld.param.u64 %rd3, [out_ptr];
    ld.param.s32 %r1, [n];
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %ntid.x;
    mov.u32 %r4, %tid.x;
    mad.lo.s32 %r5, %r2, %r3, %r4;
    setp.ge.s32 %p1, %r5, %r1;
    @%p1 bra DONE;
    cvta.to.global.u64 %rd4, %rd1;
    cvta.to.global.u64 %rd5, %rd2;
    cvta.to.global.u64 %rd6, %rd3;
    mul.wide.s32 %rd7, %r5, 4;
    add.s64 %rd8, %rd4, %rd7;
    add.s64 %rd9, %rd5, %rd7;
    add.s64 %rd10, %rd6, %rd7;
    ld.global.f32 %f1, [%rd8];
    ld.global.f32 %f2, [%rd9];
    add.f32 %f3, %f1, %f2;
    st.global.f32 [%rd10], %f3;
DONE:
    ret;
}
)";

// Stores through the pointer it is given; launched with an unmapped address.
const char *const kFaultPTX = R"(
.version 8.0
.target sm_80
.address_size 64

.visible .entry oob_kernel(
    .param .u64 p)
{
    .reg .b32 %r<2>;
    .reg .b64 %rd<3>;

    ld.param.u64 %rd1, [p];
    cvta.to.global.u64 %rd2, %rd1;
    mov.u32 %r1, 42;
    st.global.u32 [%rd2], %r1;
    ret;
}
)";

KernelMetadata addMetadata(unsigned sharedBytes = 0) {
  KernelMetadata md;
  md.kernel = "add_kernel";
  md.arch = "sm_80";
  md.sharedBytes = sharedBytes;
  md.params = {{"x_ptr", ParamType::pointer(DType::FP32), 16},
               {"y_ptr", ParamType::pointer(DType::FP32), 16},
               {"out_ptr", ParamType::pointer(DType::FP32), 16},
               {"n", ParamType::scalar(DType::I32), 1}};
  return md;
}

class GPU : public ::testing::Test {
protected:
  void SetUp() override {
    std::string why;
    if (!cudaAvailable(&why))
      GTEST_SKIP() << "no CUDA device: " << why;
  }
};

void runAdd(const Kernel &kernel, int n) {
  std::vector<float> x(n), y(n);
  for (int i = 0; i < n; ++i) {
    x[i] = float(i);
    y[i] = 0.5f * float(i % 1000);
  }
  DeviceBuffer dx = DeviceBuffer::fromHost(x);
  DeviceBuffer dy = DeviceBuffer::fromHost(y);
  // One element more than n: the bounds check must leave it alone.
  DeviceBuffer dout((n + 1) * sizeof(float));
  dout.fill(0xFF);
  unsigned block = kernel.metadata().threadsPerBlock;
  kernel.launch({(n + block - 1) / block}, {dx, dy, dout, n});
  synchronize();
  std::vector<float> out = dout.toHost<float>();
  ASSERT_EQ(out.size(), size_t(n) + 1);
  for (int i = 0; i < n; ++i)
    ASSERT_EQ(out[i], x[i] + y[i]) << "at " << i;
  uint32_t sentinel;
  std::memcpy(&sentinel, &out[n], sizeof(sentinel));
  EXPECT_EQ(sentinel, 0xFFFFFFFFu);
}

TEST_F(GPU, DeviceInfo) {
  EXPECT_FALSE(deviceName().empty());
  EXPECT_GE(computeCapability(), 50);
  EXPECT_GT(multiprocessorCount(), 0);
  EXPECT_GT(driverVersion(), 0);
}

TEST_F(GPU, BufferRoundTrip) {
  std::vector<int32_t> data = {1, 2, 3, -4};
  DeviceBuffer buffer = DeviceBuffer::fromHost(data);
  EXPECT_EQ(buffer.size(), 16u);
  EXPECT_NE(buffer.address(), 0u);
  EXPECT_EQ(buffer.toHost<int32_t>(), data);
  buffer.fill(0);
  EXPECT_EQ(buffer.toHost<int32_t>(), std::vector<int32_t>(4, 0));
  DeviceBuffer moved = std::move(buffer);
  EXPECT_EQ(buffer.address(), 0u);
  EXPECT_EQ(moved.size(), 16u);
  EXPECT_THROW(moved.copyFromHost(data.data(), 17), Error);
}

TEST_F(GPU, AddMillionElements) {
  Kernel kernel(Module::loadPTX(kAddPTX, "add_kernel"), addMetadata());
  runAdd(kernel, 1000003);
}

TEST_F(GPU, LargeDynamicSharedMemory) {
  // Above 48 KiB the launch fails unless the function opted in.
  Kernel kernel(Module::loadPTX(kAddPTX, "add_kernel"),
                addMetadata(100 * 1024));
  runAdd(kernel, 4099);
}

TEST_F(GPU, LoadFromFiles) {
  std::string dir = ::testing::TempDir();
  std::string base = dir + "/tile_rt_test_" + std::to_string(getpid());
  {
    std::ofstream(base + ".ptx") << kAddPTX;
    std::ofstream(base + ".json") << addMetadata().toJSON();
  }
  Kernel kernel = Kernel::load(base + ".ptx");
  std::remove((base + ".ptx").c_str());
  std::remove((base + ".json").c_str());
  EXPECT_EQ(kernel.metadata().kernel, "add_kernel");
  runAdd(kernel, 1000);
}

TEST_F(GPU, BadArgumentType) {
  Kernel kernel(Module::loadPTX(kAddPTX, "add_kernel"), addMetadata());
  DeviceBuffer buffer(1024);
  try {
    kernel.launch({1}, {buffer, buffer, 7, 256});
    FAIL() << "expected an error";
  } catch (const Error &e) {
    EXPECT_STREQ(e.what(),
                 "kernel add_kernel: argument 2 (out_ptr) expects *fp32, got "
                 "i32");
  }
  EXPECT_THROW(kernel.launch({0}, {buffer, buffer, buffer, 256}), Error);
}

// What the device allows a block: at its limit the kernel loads and runs,
// beyond it the error says how much it asked for and what the limit is.
TEST_F(GPU, SharedMemoryBeyondTheDevice) {
  unsigned limit = deviceLimits().maxSharedBytes;
  ASSERT_GT(limit, 48u * 1024);
  runAdd(Kernel(Module::loadPTX(kAddPTX, "add_kernel"), addMetadata(limit)),
         1000);
  try {
    Kernel(Module::loadPTX(kAddPTX, "add_kernel"), addMetadata(limit + 1));
    FAIL() << "expected an error";
  } catch (const Error &e) {
    EXPECT_EQ(std::string(e.what()),
              "kernel add_kernel: " + std::to_string(limit + 1) +
                  " bytes of shared memory per block, more than the device's "
                  "limit of " + std::to_string(limit) +
                  " (CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN): "
                  "compile it with smaller blocks or fewer stages");
  }
}

TEST_F(GPU, GridBeyondTheDevice) {
  DeviceLimits limits = deviceLimits();
  Kernel kernel(Module::loadPTX(kAddPTX, "add_kernel"), addMetadata());
  DeviceBuffer buffer = DeviceBuffer::fromHost(std::vector<float>(16));
  try {
    kernel.launch({1, limits.maxGrid[1] + 1}, {buffer, buffer, buffer, 0});
    FAIL() << "expected an error";
  } catch (const Error &e) {
    std::string y = std::to_string(limits.maxGrid[1] + 1);
    EXPECT_EQ(std::string(e.what()),
              "kernel add_kernel: grid (1, " + y + ", 1) has " + y +
                  " programs along y, more than the limit of " +
                  std::to_string(limits.maxGrid[1]));
  }
  try {
    kernel.launch({1, 1, limits.maxGrid[2] + 1}, {buffer, buffer, buffer, 0});
    FAIL() << "expected an error";
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("programs along z"), std::string::npos)
        << e.what();
  }
  // At the limit the launch goes (n = 0: no thread stores).
  kernel.launch({1, limits.maxGrid[1]}, {buffer, buffer, buffer, 0});
  synchronize();
}

TEST_F(GPU, BufferOfTheWrongDType) {
  Kernel kernel(Module::loadPTX(kAddPTX, "add_kernel"), addMetadata());
  auto ints = DeviceBuffer::fromHost(std::vector<int32_t>(256));
  auto reals = DeviceBuffer::fromHost(std::vector<float>(256));
  try {
    kernel.launch({1}, {reals, ints, reals, 256});
    FAIL() << "expected an error";
  } catch (const Error &e) {
    EXPECT_STREQ(e.what(), "kernel add_kernel: argument 1 (y_ptr) expects "
                           "*fp32, got *i32");
  }
}

// add_kernel's store, as the compiler bounds it: out[block * 128 + thread]
// where that is below n.
KernelMetadata boundedAddMetadata() {
  KernelMetadata md = addMetadata();
  AccessInfo access;
  access.param = 2;
  AccessInfo::Term term;
  term.stride.value = 1;
  term.count.op = HostExpr::Op::Grid;
  term.count.value = 0;
  term.scale = md.threadsPerBlock;
  term.extent = md.threadsPerBlock;
  term.bounded = true;
  term.bound.op = HostExpr::Op::Arg;
  term.bound.value = 3;
  access.terms.push_back(term);
  md.accesses.push_back(access);
  return md;
}

TEST_F(GPU, BufferTooSmallForTheMasks) {
  Kernel kernel(Module::loadPTX(kAddPTX, "add_kernel"), boundedAddMetadata());
  runAdd(kernel, 1000); // its output has one element to spare
  DeviceBuffer x = DeviceBuffer::fromHost(std::vector<float>(1000, 1.0f));
  DeviceBuffer out = DeviceBuffer::fromHost(std::vector<float>(999, 7.0f));
  try {
    kernel.launch({8}, {x, x, out, 1000});
    FAIL() << "expected an error";
  } catch (const Error &e) {
    EXPECT_STREQ(e.what(), "kernel add_kernel: argument 2 (out_ptr) needs 4000 "
                           "bytes (1000 fp32 elements) for this launch, but "
                           "its buffer has 3996 bytes");
  }
  synchronize();
  EXPECT_EQ(out.toHost<float>(), std::vector<float>(999, 7.0f))
      << "the kernel ran";
  // A bound launch is checked once, when bound.
  EXPECT_THROW(kernel.bind({8}, {x, x, out, 1000}), Error);
  kernel.bind({8}, {x, x, out, 999}).launch();
  synchronize();
  EXPECT_EQ(out.toHost<float>(), std::vector<float>(999, 2.0f));
}

// Each CTA stores its cluster's id * 16 + its rank in the cluster at
// out[ctaid.x] (sm_90: thread-block clusters).
const char *const kClusterIdsPTX = R"(
.version 8.0
.target sm_90
.address_size 64

.visible .entry cluster_ids(
    .param .u64 out_ptr)
{
    .reg .b32 %r<6>;
    .reg .b64 %rd<5>;

    ld.param.u64 %rd1, [out_ptr];
    cvta.to.global.u64 %rd2, %rd1;
    mov.u32 %r1, %ctaid.x;
    mov.u32 %r2, %clusterid.x;
    mov.u32 %r3, %cluster_ctarank;
    shl.b32 %r4, %r2, 4;
    add.s32 %r5, %r4, %r3;
    mul.wide.u32 %rd3, %r1, 4;
    add.s64 %rd4, %rd2, %rd3;
    st.global.u32 [%rd4], %r5;
    ret;
}
)";

// Programs that run as clusters (the metadata's clusterDims): the launch
// starts grid * clusterDims CTAs in clusters of that shape, through
// cuLaunchKernelEx, bound or not; the device's limits hold for the CTAs.
TEST_F(GPU, ClusterLaunch) {
  if (computeCapability() < 90)
    GTEST_SKIP() << "thread-block clusters need sm_90";
  KernelMetadata md;
  md.kernel = "cluster_ids";
  md.arch = "sm_90";
  md.clusterDims = {2, 1, 1};
  md.params = {{"out_ptr", ParamType::pointer(DType::I32), 1}};
  Kernel kernel(Module::loadPTX(kClusterIdsPTX, md), md);
  std::vector<int32_t> expected;
  for (int32_t cta = 0; cta < 6; ++cta)
    expected.push_back(cta / 2 * 16 + cta % 2);
  expected.push_back(-1); // past the CTAs: untouched
  DeviceBuffer out = DeviceBuffer::fromHost(std::vector<int32_t>(7, -1));
  kernel.launch({3}, {out});
  synchronize();
  EXPECT_EQ(out.toHost<int32_t>(), expected);
  out.fill(0xFF);
  kernel.bind({3}, {out}).launch();
  synchronize();
  EXPECT_EQ(out.toHost<int32_t>(), expected);

  unsigned limit = deviceLimits().maxGrid[0];
  std::string x = std::to_string(limit / 2 + 1);
  try {
    kernel.launch({limit / 2 + 1}, {out});
    FAIL() << "expected an error";
  } catch (const Error &e) {
    std::string ctas = std::to_string(uint64_t(limit / 2 + 1) * 2);
    EXPECT_EQ(std::string(e.what()),
              "kernel cluster_ids: grid (" + x + ", 1, 1) in clusters of (2, "
              "1, 1) CTAs starts " + ctas + " CTAs along x, more than the "
              "limit of " + std::to_string(limit));
  }

  // Beyond the portable 8 CTAs without the function's opt-in the driver
  // refuses the cluster: the error names cuLaunchKernelEx and the kernel.
  md.clusterDims = {16, 1, 1};
  Kernel wide(Module::loadPTX(kClusterIdsPTX, md), md);
  try {
    wide.launch({1}, {out});
    FAIL() << "expected an error";
  } catch (const Error &e) {
    std::string message = e.what();
    EXPECT_EQ(message.rfind("cuLaunchKernelEx failed: ", 0), 0u) << message;
    EXPECT_NE(message.find("[kernel cluster_ids]"), std::string::npos)
        << message;
  }
}

// A launch the driver refuses (more threads than the entry's .maxntid)
// names the call, the CUDA error and the kernel.
TEST_F(GPU, LaunchFailureNamesTheKernel) {
  std::string ptx = kAddPTX;
  size_t body = ptx.find(")\n{");
  ASSERT_NE(body, std::string::npos);
  ptx.insert(body + 1, "\n.maxntid 64, 1, 1");
  Kernel kernel(Module::loadPTX(ptx, "add_kernel"), addMetadata());
  DeviceBuffer buffer = DeviceBuffer::fromHost(std::vector<float>(256));
  try {
    kernel.launch({1}, {buffer, buffer, buffer, 256});
    FAIL() << "expected an error";
  } catch (const Error &e) {
    EXPECT_STREQ(e.what(), "cuLaunchKernel failed: CUDA_ERROR_INVALID_VALUE "
                           "(invalid argument) [kernel add_kernel]");
  }
}

TEST_F(GPU, PTXVersionAgainstTheDriver) {
  // The metadata's PTX version loads where the driver has it.
  KernelMetadata md = addMetadata();
  md.ptxVersion = 80;
  runAdd(Kernel(Module::loadPTX(kAddPTX, md), md), 1000);
  // A version newer than any driver here is refused before the driver sees
  // it, naming the release it needs.
  std::string future = kAddPTX;
  future.replace(future.find(".version 8.0"), 12, ".version 9.9");
  md.ptxVersion = 99;
  if (driverVersion() >= 13090)
    GTEST_SKIP() << "the driver loads PTX ISA 9.9";
  try {
    Module::loadPTX(future, md);
    FAIL() << "expected an error";
  } catch (const Error &e) {
    EXPECT_EQ(std::string(e.what()).rfind(
                  "kernel add_kernel: its PTX is ISA 9.9, which needs a CUDA "
                  "13.9 or newer driver, and this driver is CUDA ",
                  0),
              0u)
        << e.what();
  }
}

TEST_F(GPU, MissingEntryNamesKernel) {
  auto module = Module::loadPTX(kAddPTX, "add_kernel");
  try {
    module->function("mul_kernel");
    FAIL() << "expected an error";
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("mul_kernel"), std::string::npos)
        << e.what();
  }
}

TEST_F(GPU, PTXErrorIncludesJITLog) {
  std::string bad = kAddPTX;
  bad.replace(bad.find("add.f32"), 7, "bogus.f32");
  try {
    Module::loadPTX(bad, "add_kernel");
    FAIL() << "expected an error";
  } catch (const Error &e) {
    std::string message = e.what();
    EXPECT_NE(message.find("cuModuleLoadDataEx failed"), std::string::npos)
        << message;
    EXPECT_NE(message.find("[kernel add_kernel]"), std::string::npos)
        << message;
    EXPECT_NE(message.find("bogus"), std::string::npos) << message;
  }
}

TEST_F(GPU, Timing) {
  Kernel kernel(Module::loadPTX(kAddPTX, "add_kernel"), addMetadata());
  int n = 1 << 20;
  DeviceBuffer x(n * 4), y(n * 4), out(n * 4);
  float ms = timeKernelMs(
      [&] { kernel.launch({unsigned(n / 128)}, {x, y, out, n}); }, 2, 5);
  EXPECT_GT(ms, 0.0f);
}

/// Launches oob_kernel at an unmapped address and exits with 3 after printing
/// the error synchronize() throws, or with 4 if none comes.
[[noreturn]] void runFaultingKernel() {
  try {
    KernelMetadata md;
    md.kernel = "oob_kernel";
    md.params = {{"p", ParamType::pointer(DType::I32), 4}};
    Kernel kernel(Module::loadPTX(kFaultPTX, "oob_kernel"), md);
    kernel.launch({1}, {KernelArg::pointer(0x10)});
    synchronize();
  } catch (const Error &e) {
    std::fprintf(stderr, "%s\n", e.what());
    std::fflush(stderr);
    _exit(3);
  }
  _exit(4);
}

// Named to sort last; it also runs in its own process ("threadsafe" re-runs
// the binary rather than forking a process that already holds a context).
TEST_F(GPU, ZZFaultSurfacesAtSynchronize) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(runFaultingKernel(), ::testing::ExitedWithCode(3),
              "cuCtxSynchronize failed: CUDA_ERROR_.* after launching kernel "
              "oob_kernel");
}

} // namespace
