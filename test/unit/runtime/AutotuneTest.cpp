//===- AutotuneTest.cpp - The JIT's @triton.autotune and heuristics -------===//
//
// Autotuning picks the fastest config (one config is planted fast among
// slow ones, in the middle of the list), remembers it per key in memory and
// on disk, and leaves the buffers as the launch found them. The same tests
// run on the interpreter (timed by wall clock) everywhere and on the GPU
// where there is one.
//
//===----------------------------------------------------------------------===//

#include "tile/DeviceBuffer.h"
#include "tile/Driver.h"
#include "tile/Error.h"
#include "tile/JIT.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <numeric>
#include <unistd.h>

using namespace tile;

namespace {

// Every config adds one to x; the ones with SLOW > 1 read x SLOW times.
// EVEN (a heuristic) drops the mask where the blocks tile n exactly.
const char *kAddOne = R"(import triton
import triton.language as tl


def slow_configs(work):
    return [triton.Config({"BLOCK": b, "SLOW": work}, num_warps=w)
            for b, w in ((32, 1), (64, 2))]


@triton.autotune(configs=slow_configs(1024)[:1] +
                 [triton.Config({"BLOCK": 128, "SLOW": 1}, num_warps=4)] +
                 slow_configs(1024)[1:],
                 key=["n"], restore_value=["x_ptr"])
@triton.heuristics({"EVEN": lambda args: args["n"] % args["BLOCK"] == 0})
@triton.jit
def add_one(x_ptr, n, BLOCK: tl.constexpr, SLOW: tl.constexpr,
            EVEN: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for i in range(SLOW):
        if EVEN:
            acc += tl.load(x_ptr + offs)
        else:
            acc += tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.store(x_ptr + offs, acc / SLOW + 1, mask=offs < n)
)";

const char *kFastConfig = "BLOCK: 128, SLOW: 1, num_warps: 4, num_stages: 3";

/// A fresh, empty cache directory for one test.
std::string freshDirectory(const char *name) {
  std::string dir = ::testing::TempDir() + "tilec-tune-" + name + "-" +
                    std::to_string(getpid());
  std::string command = "rm -rf '" + dir + "'";
  EXPECT_EQ(std::system(command.c_str()), 0);
  return dir;
}

Grid blocksOf(int64_t n, const Meta &meta) { return {cdiv(n, meta["BLOCK"])}; }

std::vector<float> iota(int n) {
  std::vector<float> x(size_t(n), 0.f);
  std::iota(x.begin(), x.end(), 0.f);
  return x;
}

/// Launches add_one on x[0..n) and checks that it added one, once.
void addOneAndCheck(JITFunction &add, Backend backend, int n) {
  std::vector<float> x = iota(n);
  auto buffer = DeviceBuffer::fromHost(x, backend);
  JITOptions options;
  options.backend = backend;
  add.launch([n](const Meta &meta) { return blocksOf(n, meta); },
             {buffer, n}, {}, options);
  if (backend == Backend::CUDA)
    synchronize();
  std::vector<float> y = buffer.toHost<float>();
  for (int i = 0; i < n; ++i)
    ASSERT_EQ(y[i], x[i] + 1) << "element " << i;
}

Config tuned(JITFunction &add, Backend backend, int n) {
  auto buffer = DeviceBuffer::fromHost(iota(n), backend);
  JITOptions options;
  options.backend = backend;
  return add.tunedConfig([n](const Meta &meta) { return blocksOf(n, meta); },
                         {buffer, n}, {}, options);
}

void picksTheFastestAndRemembers(Backend backend, const char *name) {
  std::string cache = freshDirectory(name);
  JITFunction add(kAddOne, "add_one.tl");
  add.setCacheDirectory(cache);
  addOneAndCheck(add, backend, 1000);
  EXPECT_EQ(add.tuningCount(), 1u);
  EXPECT_EQ(tuned(add, backend, 1000).describe(), kFastConfig);
  // The same key again: no tuning. A new key: tuned again.
  addOneAndCheck(add, backend, 1000);
  EXPECT_EQ(add.tuningCount(), 1u);
  addOneAndCheck(add, backend, 1024); // EVEN for every config
  EXPECT_EQ(add.tuningCount(), 2u);
  EXPECT_EQ(tuned(add, backend, 1024).describe(), kFastConfig);

  // A restart: the choices come from the disk cache, untimed.
  JITFunction again(kAddOne, "add_one.tl");
  again.setCacheDirectory(cache);
  addOneAndCheck(again, backend, 1000);
  addOneAndCheck(again, backend, 1024);
  EXPECT_EQ(again.tuningCount(), 0u);
  EXPECT_EQ(tuned(again, backend, 1000).describe(), kFastConfig);
  // Without the cache it tunes.
  JITFunction uncached(kAddOne, "add_one.tl");
  uncached.setCacheDirectory("");
  addOneAndCheck(uncached, backend, 1000);
  EXPECT_EQ(uncached.tuningCount(), 1u);
}

TEST(Autotune, PicksTheFastestAndRemembersOnTheInterpreter) {
  picksTheFastestAndRemembers(Backend::Interpreter, "interp");
}

TEST(Autotune, PicksTheFastestAndRemembersOnTheGPU) {
  std::string why;
  if (!cudaAvailable(&why))
    GTEST_SKIP() << "no CUDA device: " << why;
  picksTheFastestAndRemembers(Backend::CUDA, "cuda");
}

// Configs given from C++ replace the file's; a launch may not give a
// constexpr that autotuning chooses.
const char *kScale = R"(import triton
import triton.language as tl


@triton.jit
def scale(x_ptr, out_ptr, n, BLOCK: tl.constexpr, REPEAT: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    for i in range(REPEAT - 1):
        x = tl.sqrt(x * x)
    tl.store(out_ptr + offs, x * 3, mask=offs < n)
)";

TEST(Autotune, ConfigsFromCpp) {
  JITFunction scale(kScale, "scale.tl");
  scale.setCacheDirectory("");
  Autotune tuning;
  tuning.configs = {{{{"BLOCK", 16}, {"REPEAT", 2000}}, 1, 1},
                    {{{"BLOCK", 256}, {"REPEAT", 1}}, 4, 2},
                    {{{"BLOCK", 64}, {"REPEAT", 2000}}, 2, 3}};
  tuning.key = {"n"};
  scale.autotune(tuning);
  int n = 500;
  auto x = DeviceBuffer::fromHost(iota(n), Backend::Interpreter);
  DeviceBuffer out(n * sizeof(float), Backend::Interpreter);
  out.setDType(tile::DType::FP32);
  JITOptions options;
  options.backend = Backend::Interpreter;
  auto grid = [n](const Meta &meta) { return Grid{cdiv(n, meta["BLOCK"])}; };
  scale.launch(grid, {x, out, n}, {}, options);
  std::vector<float> y = out.toHost<float>();
  for (int i = 0; i < n; ++i)
    ASSERT_EQ(y[i], 3.f * float(i));
  EXPECT_EQ(scale.tunedConfig(grid, {x, out, n}, {}, options).describe(),
            "BLOCK: 256, REPEAT: 1, num_warps: 4, num_stages: 2");
  EXPECT_THROW(scale.launch(grid, {x, out, n}, {{"BLOCK", 32}}, options),
               Error);
  EXPECT_THROW(scale.autotune(tuning), Error); // after the first launch
}

// reset_to_zero: a kernel that accumulates with atomics sees a zeroed
// buffer at each timed run, and the launch's result is one run's.
const char *kSum = R"(import triton
import triton.language as tl


@triton.autotune(configs=[triton.Config({"BLOCK": 8}),
                          triton.Config({"BLOCK": 32})],
                 key=["n"], reset_to_zero=["total"])
@triton.jit
def sum_kernel(x_ptr, total, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.atomic_add(total, tl.sum(tl.load(x_ptr + offs, mask=offs < n, other=0.0)))
)";

void resetsToZero(Backend backend) {
  JITFunction sum(kSum, "sum.tl");
  sum.setCacheDirectory("");
  int n = 100;
  auto x = DeviceBuffer::fromHost(std::vector<float>(size_t(n), 1.f), backend);
  auto total = DeviceBuffer::fromHost(std::vector<float>{0.f}, backend);
  JITOptions options;
  options.backend = backend;
  sum.launch([n](const Meta &meta) { return Grid{cdiv(n, meta["BLOCK"])}; },
             {x, total, n}, {}, options);
  if (backend == Backend::CUDA)
    synchronize();
  EXPECT_EQ(total.toHost<float>(), std::vector<float>{100.f});
  EXPECT_EQ(sum.tuningCount(), 1u);
}

TEST(Autotune, ResetsToZeroOnTheInterpreter) {
  resetsToZero(Backend::Interpreter);
}

TEST(Autotune, ResetsToZeroOnTheGPU) {
  std::string why;
  if (!cudaAvailable(&why))
    GTEST_SKIP() << "no CUDA device: " << why;
  resetsToZero(Backend::CUDA);
}

// A raw pointer's buffer is restored whole: its size comes from the
// allocation that holds it.
TEST(Autotune, RestoresARawPointersAllocation) {
  std::string why;
  if (!cudaAvailable(&why))
    GTEST_SKIP() << "no CUDA device: " << why;
  JITFunction add(kAddOne, "add_one.tl");
  add.setCacheDirectory("");
  int n = 3000;
  std::vector<float> x = iota(n);
  auto buffer = DeviceBuffer::fromHost(x);
  add.launch([n](const Meta &meta) { return blocksOf(n, meta); },
             {Ptr<float>(buffer.address()), n});
  synchronize();
  std::vector<float> y = buffer.toHost<float>();
  for (int i = 0; i < n; ++i)
    ASSERT_EQ(y[i], x[i] + 1) << "element " << i;
}

// Heuristics alone: computed at every launch from the arguments.
TEST(Autotune, HeuristicsWithoutConfigs) {
  JITFunction copy(R"(import triton
import triton.language as tl


@triton.heuristics({"BLOCK": lambda args: triton.next_power_of_2(args["n"]),
                    "SHIFT": lambda args: args["BLOCK"] // 4})
@triton.jit
def copy(x_ptr, y_ptr, n, BLOCK: tl.constexpr, SHIFT: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) + SHIFT,
             mask=offs < n)
)",
                   "copy.tl");
  copy.setCacheDirectory("");
  JITOptions options;
  options.backend = Backend::Interpreter;
  for (int n : {5, 17}) {
    auto x = DeviceBuffer::fromHost(iota(n), Backend::Interpreter);
    DeviceBuffer y(n * sizeof(float), Backend::Interpreter);
    y.setDType(tile::DType::FP32);
    copy.launch({1}, {x, y, n}, {}, options);
    float shift = n == 5 ? 2.f : 8.f; // next_power_of_2(n) / 4
    std::vector<float> out = y.toHost<float>();
    for (int i = 0; i < n; ++i)
      ASSERT_EQ(out[i], float(i) + shift) << "n " << n << " element " << i;
  }
  EXPECT_EQ(copy.tuningCount(), 0u);
}

} // namespace
