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

#include <algorithm>
#include <array>
#include <cmath>
#include <atomic>
#include <thread>

#include <unistd.h>

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
  EXPECT_EQ(Constexpr("'\"\\").text(), "'\\'\"\\\\'"); // Python's repr
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

// Constexprs reach the compiler typed, not as source text: a string may
// hold both kinds of quotes and backslashes.
TEST(JIT, AnyStringConstexpr) {
  const char *source = R"(import triton
import triton.language as tl

@triton.jit
def pick(out_ptr, MODE: tl.constexpr):
    if MODE == "it's \"odd\" \\ text":
        tl.store(out_ptr, 1)
    else:
        tl.store(out_ptr, 2)
)";
  JITFunction pick(source, "pick.tl");
  auto out = DeviceBuffer::fromHost(std::vector<int32_t>{0},
                                    Backend::Interpreter);
  JITOptions options;
  options.backend = Backend::Interpreter;
  pick.launch({1}, {out}, {{"MODE", "it's \"odd\" \\ text"}}, options);
  EXPECT_EQ(out.toHost<int32_t>(), std::vector<int32_t>{1});
  pick.launch({1}, {out}, {{"MODE", "it's \"odd\" \\ tex"}}, options);
  EXPECT_EQ(out.toHost<int32_t>(), std::vector<int32_t>{2});
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

// C = A @ B for an M x K and a K x N matrix of fp16, one BLOCK_M x BLOCK_N
// tile of C per program: a skinny GEMM's grid is a few programs.
const char *kMatmul = R"(import triton
import triton.language as tl

@triton.jit
def matmul(a_ptr, b_ptr, c_ptr, M, N, K, BLOCK_M: tl.constexpr,
           BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    ks = tl.arange(0, BLOCK_K)
    a = a_ptr + rows[:, None] * K + ks[None, :]
    b = b_ptr + ks[:, None] * N + cols[None, :]
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        left = K - k * BLOCK_K
        x = tl.load(a, mask=(rows[:, None] < M) & (ks[None, :] < left), other=0.0)
        y = tl.load(b, mask=(ks[:, None] < left) & (cols[None, :] < N), other=0.0)
        acc = tl.dot(x, y, acc)
        a += BLOCK_K
        b += BLOCK_K * N
    c = c_ptr + rows[:, None] * N + cols[None, :]
    tl.store(c, acc, mask=(rows[:, None] < M) & (cols[None, :] < N))
)";

const Constexprs kMatmulBlocks = {
    {"BLOCK_M", 64}, {"BLOCK_N", 64}, {"BLOCK_K", 64}};

// clusterSplitK reaches the compiler as given; 0 without a grid
// (compile(), specialize()) is 1. Needs no GPU.
TEST(JIT, ClusterSplitReachesTheCompiler) {
  JITFunction f(kMatmul, "matmul.tl");
  f.setCacheDirectory("");
  std::vector<KernelArg> args = {Ptr<fp16>(uint64_t(0x1000)),
                                 Ptr<fp16>(uint64_t(0x2000)),
                                 Ptr<float>(uint64_t(0x3000)), 64, 64, 4096};
  JITOptions options;
  options.arch = "sm_90a";
  options.clusterSplitK = 4;
  EXPECT_EQ(f.compile(args, kMatmulBlocks, options).metadata.clusterDims,
            (std::array<unsigned, 3>{4, 1, 1}));
  options.clusterSplitK = 0;
  JITFunction::Compiled single = f.compile(args, kMatmulBlocks, options);
  EXPECT_EQ(single.metadata.clusterDims, (std::array<unsigned, 3>{1, 1, 1}));
  // One CTA a program, and the metadata says the kernel would split.
  EXPECT_TRUE(single.metadata.clusterSplittable);
}

// A launch decides clusterSplitK 0 by its grid (tile::chooseClusterSplitK)
// before the lookup: the kernel with one CTA a program first, whose
// metadata says it splits, then one program of a skinny GEMM runs as a
// cluster on sm_90 and computes what one CTA does; a grid of more programs
// than SMs runs the first.
TEST(JIT, ClusterSplitIsDecidedByTheGrid) {
  std::string why;
  if (!cudaAvailable(&why))
    GTEST_SKIP() << "no CUDA device: " << why;
  if (computeCapability() < 90)
    GTEST_SKIP() << "thread-block clusters need sm_90";
  const int32_t M = 64, N = 64, K = 4096;
  std::vector<fp16> a(size_t(M) * K), b(size_t(K) * N);
  std::vector<float> expected(size_t(M) * N, 0);
  for (int32_t i = 0; i < M; ++i)
    for (int32_t k = 0; k < K; ++k)
      a[size_t(i) * K + k] =
          fp16{uint16_t(encodeFloat(DType::FP16, (i + k) % 5 - 2))};
  for (int32_t k = 0; k < K; ++k)
    for (int32_t j = 0; j < N; ++j)
      b[size_t(k) * N + j] =
          fp16{uint16_t(encodeFloat(DType::FP16, (k * 3 + j) % 3 - 1))};
  for (int32_t i = 0; i < M; ++i)
    for (int32_t j = 0; j < N; ++j)
      for (int32_t k = 0; k < K; ++k)
        expected[size_t(i) * N + j] +=
            float((i + k) % 5 - 2) * float((k * 3 + j) % 3 - 1);
  auto da = DeviceBuffer::fromHost(a), db = DeviceBuffer::fromHost(b);
  auto dc = DeviceBuffer::fromHost(std::vector<float>(size_t(M) * N, -1));
  std::vector<KernelArg> args = {da, db, dc, M, N, K};

  JITFunction f(kMatmul, "matmul.tl");
  f.setCacheDirectory("");
  JITOptions byGrid;
  byGrid.clusterSplitK = 0;
  f.launch({1, 1}, args, kMatmulBlocks, byGrid);
  synchronize();
  EXPECT_EQ(dc.toHost<float>(), expected);
  EXPECT_EQ(f.compileCount(), 2u);
  // The launch's specializations, found rather than compiled again.
  JITOptions single;
  single.clusterSplitK = 1;
  EXPECT_TRUE(
      f.specialize(args, kMatmulBlocks, single).metadata().clusterSplittable);
  unsigned split = chooseClusterSplitK(1, unsigned(multiprocessorCount()),
                                       unsigned(computeCapability()));
  ASSERT_GT(split, 1u);
  JITOptions decided;
  decided.clusterSplitK = split;
  const Kernel &kernel = f.specialize(args, kMatmulBlocks, decided);
  EXPECT_EQ(f.compileCount(), 2u);
  EXPECT_EQ(kernel.metadata().clusterDims,
            (std::array<unsigned, 3>{split, 1, 1}));

  // More programs than SMs: no cluster split; the stream-K form where the
  // grid's last wave leaves SMs idle (tile::chooseStreamK).
  dc.fill(0xFF);
  unsigned programs = unsigned(multiprocessorCount()) + 1;
  f.launch({programs, 1}, args, kMatmulBlocks, byGrid);
  synchronize();
  EXPECT_EQ(dc.toHost<float>(), expected);
  unsigned compiles =
      f.specialize(args, kMatmulBlocks, single).streamKFor(programs) ? 3 : 2;
  EXPECT_EQ(f.compileCount(), compiles);
  // Bound, the same decision.
  dc.fill(0xFF);
  f.bind({1, 1}, args, kMatmulBlocks, byGrid).launch();
  synchronize();
  EXPECT_EQ(dc.toHost<float>(), expected);
  EXPECT_EQ(f.compileCount(), compiles);
}

/// Deterministic fp16 values in [-1, 1): the products round, so that the
/// order of a sum shows in its bits.
std::vector<fp16> noise(size_t n, uint32_t seed) {
  std::vector<fp16> values(n);
  for (fp16 &v : values) {
    seed = seed * 1664525u + 1013904223u;
    float x = float(seed >> 8) / float(1u << 24) * 2 - 1;
    v = fp16{uint16_t(encodeFloat(DType::FP16, x))};
  }
  return values;
}

/// A x B in doubles, A (m, k) and B (k, n) row-major.
std::vector<double> matmulOnCPU(const std::vector<fp16> &a,
                                const std::vector<fp16> &b, size_t m, size_t n,
                                size_t k) {
  std::vector<double> c(m * n, 0);
  for (size_t i = 0; i < m; ++i)
    for (size_t kk = 0; kk < k; ++kk) {
      double x = decodeFloat(DType::FP16, a[i * k + kk].bits);
      for (size_t j = 0; j < n; ++j)
        c[i * n + j] += x * decodeFloat(DType::FP16, b[kk * n + j].bits);
    }
  return c;
}

/// Launches `f`, which writes an fp32 product of K = `k` into `dc`, `runs`
/// times: the first result near `expected`, every other one its bits.
void expectMatmulRepeats(JITFunction &f, Grid grid,
                         const std::vector<KernelArg> &args,
                         const Constexprs &constexprs,
                         const JITOptions &options, DeviceBuffer &dc,
                         const std::vector<double> &expected, size_t k,
                         int runs) {
  f.launch(grid, args, constexprs, options);
  synchronize();
  std::vector<float> first = dc.toHost<float>();
  for (size_t e = 0; e < expected.size(); ++e)
    ASSERT_NEAR(first[e], expected[e], 1e-4 * (1 + std::sqrt(double(k))))
        << "element " << e;
  for (int run = 1; run < runs; ++run) {
    dc.fill(0xFF);
    f.launch(grid, args, constexprs, options);
    synchronize();
    ASSERT_EQ(dc.toHost<float>(), first) << "run " << run;
  }
}

// The stream-K form (JITOptions::streamK): grids of whole and split
// programs, ragged M and N, K loops from none to long, against a CPU sum
// in doubles; the same bits in 100 runs; and the grid decides it where
// clusterSplitK is 0 (Kernel::streamKFor). Rows whose loads go in vectors
// under 16 bytes (N = 70: 4-byte rows) keep a CTA a program, asked or not.
TEST(JIT, StreamKMatchesTheCPUAndRepeatsItsBits) {
  std::string why;
  if (!cudaAvailable(&why))
    GTEST_SKIP() << "no CUDA device: " << why;
  JITFunction f(kMatmul, "matmul.tl");
  f.setCacheDirectory("");
  JITOptions streamK;
  streamK.clusterSplitK = 1;
  streamK.streamK = true;
  unsigned sms = unsigned(multiprocessorCount());
  struct Shape {
    int32_t m, n, k;
    bool streamK;
  };
  // 64 x 64 tiles, few enough programs to split (tile::chooseStreamK):
  // 13 x 5 programs, 3 x 21, 2 x 2 and one (no K loop); rows of 8 halves'
  // multiples but for N = 70.
  const Shape shapes[] = {{64 * 13, 64 * 5, 1000, true},
                          {190, 64 * 20 + 40, 296, true},
                          {100, 72, 4096, true},
                          {100, 70, 4096, false},
                          {64, 64, 0, true}};
  for (const Shape &shape : shapes) {
    SCOPED_TRACE("M=" + std::to_string(shape.m) + " N=" +
                 std::to_string(shape.n) + " K=" + std::to_string(shape.k));
    size_t m = size_t(shape.m), n = size_t(shape.n), k = size_t(shape.k);
    std::vector<fp16> a = noise(m * k, 1), b = noise(k * n, 2);
    auto da = DeviceBuffer::fromHost(a), db = DeviceBuffer::fromHost(b);
    auto dc = DeviceBuffer::fromHost(std::vector<float>(m * n, -7));
    std::vector<KernelArg> args = {da, db, dc, shape.m, shape.n, shape.k};
    Grid grid{unsigned((m + 63) / 64), unsigned((n + 63) / 64)};
    const Kernel &kernel = f.specialize(args, kMatmulBlocks, streamK);
    ASSERT_EQ(kernel.metadata().streamKPartialBytes > 0, shape.streamK);
    expectMatmulRepeats(f, grid, args, kMatmulBlocks, streamK, dc,
                        matmulOnCPU(a, b, m, n, k), k, 100);
  }
  // Decided by the grid: the first shape's leaves SMs idle.
  JITOptions byGrid;
  byGrid.clusterSplitK = 0;
  JITOptions single;
  single.clusterSplitK = 1;
  auto a = DeviceBuffer::fromHost(noise(64 * 64, 3));
  auto b = DeviceBuffer::fromHost(noise(64 * 64, 4));
  auto c = DeviceBuffer::fromHost(std::vector<float>(64 * 64));
  std::vector<KernelArg> args = {a, b, c, 64, 64, 64};
  const Kernel &one = f.specialize(args, kMatmulBlocks, single);
  EXPECT_TRUE(one.metadata().streamKSplittable);
  EXPECT_EQ(one.metadata().streamKPartialBytes, 0u);
  bool splits = one.streamKFor(sms + 5);
  f.launch({1, sms + 5}, args, kMatmulBlocks, byGrid);
  synchronize();
  // The stream-K form is found, not compiled, where the launch chose it.
  unsigned after = f.compileCount();
  f.specialize(args, kMatmulBlocks, streamK);
  EXPECT_EQ(f.compileCount(), after + (splits ? 0 : 1));
}

/// The tutorial's grouped matmul, row-major A (M, K) and B (K, N), fp32 C.
const char *kGroupedMatmul = R"(import triton
import triton.language as tl

@triton.jit
def grouped(a_ptr, b_ptr, c_ptr, M, N, K, BLOCK_M: tl.constexpr,
            BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    tiles_m = tl.cdiv(M, BLOCK_M)
    per_group = GROUP_M * tl.cdiv(N, BLOCK_N)
    first_m = (pid // per_group) * GROUP_M
    rows_in_group = min(tiles_m - first_m, GROUP_M)
    tile_m = first_m + (pid % per_group) % rows_in_group
    tile_n = (pid % per_group) // rows_in_group
    rows = (tile_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
    cols = (tile_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    ks = tl.arange(0, BLOCK_K)
    a_tile = a_ptr + rows[:, None] * K + ks[None, :]
    b_tile = b_ptr + ks[:, None] * N + cols[None, :]
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for step in range(0, tl.cdiv(K, BLOCK_K)):
        left = K - step * BLOCK_K
        a = tl.load(a_tile, mask=ks[None, :] < left, other=0.0)
        b = tl.load(b_tile, mask=ks[:, None] < left, other=0.0)
        acc = tl.dot(a, b, acc)
        a_tile += BLOCK_K
        b_tile += BLOCK_K * N
    out_rows = tile_m * BLOCK_M + tl.arange(0, BLOCK_M)
    out_cols = tile_n * BLOCK_N + tl.arange(0, BLOCK_N)
    tl.store(c_ptr + out_rows[:, None] * N + out_cols[None, :], acc,
             mask=(out_rows[:, None] < M) & (out_cols[None, :] < N))
)";

const Constexprs kLargeTiles = {
    {"BLOCK_M", 128}, {"BLOCK_N", 256}, {"BLOCK_K", 64}, {"GROUP_M", 8}};

JITOptions largeTileOptions() {
  JITOptions options;
  options.numWarps = 8;
  options.numStages = 4;
  options.clusterSplitK = 1;
  return options;
}

// Rows of B 16 bytes but not 32 bytes aligned (N = 3000 halves, which the
// JIT specializes as divisible by 8): with 128 x 256 tiles neighbouring
// programs share B's copies, as clusters of two ("cluster_programs");
// N = 3072 rows are whole sectors and copy alone. Needs no GPU.
const char *kProgramIds = R"(import triton
import triton.language as tl

@triton.jit
def ids_kernel(out_ptr):
    x = tl.program_id(0)
    y = tl.program_id(1)
    z = tl.program_id(2)
    nx = tl.num_programs(0)
    ny = tl.num_programs(1)
    programs = nx * ny * tl.num_programs(2)
    offs = tl.arange(0, 4)
    ids = tl.where(offs == 0, x, tl.where(offs == 1, y, tl.where(offs == 2, z, programs)))
    tl.store(out_ptr + ((z * ny + y) * nx + x) * 4 + offs, ids)
)";

// Persistent programs (JITOptions::persistent on): a grid of far more
// programs than the GPU holds runs every one, each seeing its own ids and
// the grid's extents, launched directly and bound; a matmul, its K loop
// inside the loop over programs, matches the CPU.
TEST(JIT, PersistentProgramsRunEveryProgram) {
  std::string why;
  if (!cudaAvailable(&why))
    GTEST_SKIP() << "no CUDA device: " << why;
  JITOptions persistent;
  persistent.persistent = Persistent::On;
  JITFunction ids(kProgramIds, "ids.tl");
  ids.setCacheDirectory("");
  const Grid grid{300, 7, 5};
  const size_t programs = 300 * 7 * 5;
  auto out = DeviceBuffer::fromHost(std::vector<int32_t>(4 * programs, -1));
  const Kernel &kernel = ids.specialize({out}, {}, persistent);
  EXPECT_TRUE(kernel.metadata().persistent);
  std::vector<int32_t> expected(4 * programs);
  for (unsigned z = 0; z < grid.z; ++z)
    for (unsigned y = 0; y < grid.y; ++y)
      for (unsigned x = 0; x < grid.x; ++x) {
        size_t p = (size_t(z) * grid.y + y) * grid.x + x;
        expected[4 * p] = int32_t(x);
        expected[4 * p + 1] = int32_t(y);
        expected[4 * p + 2] = int32_t(z);
        expected[4 * p + 3] = int32_t(programs);
      }
  ids.launch(grid, {out}, {}, persistent);
  EXPECT_EQ(out.toHost<int32_t>(), expected);
  out = DeviceBuffer::fromHost(std::vector<int32_t>(4 * programs, -1));
  ids.bind(grid, {out}, {}, persistent).launch();
  EXPECT_EQ(out.toHost<int32_t>(), expected);
  // Past a persistent kernel's programs: refused, naming the option.
  try {
    ids.launch({1u << 16, 1u << 15, 1}, {out}, {}, persistent);
    ADD_FAILURE() << "2^31 programs launched";
  } catch (const Error &error) {
    EXPECT_NE(std::string(error.what()).find("--persistent off"),
              std::string::npos)
        << error.what();
  }

  JITFunction f(kMatmul, "matmul.tl");
  f.setCacheDirectory("");
  JITOptions matmul = persistent;
  matmul.clusterSplitK = 1;
  size_t m = 64 * 40 + 17, n = 64 * 30, k = 200;
  std::vector<fp16> a = noise(m * k, 5), b = noise(k * n, 6);
  auto da = DeviceBuffer::fromHost(a), db = DeviceBuffer::fromHost(b);
  auto dc = DeviceBuffer::fromHost(std::vector<float>(m * n, -7));
  std::vector<KernelArg> args = {da,         db,         dc,
                                 int32_t(m), int32_t(n), int32_t(k)};
  EXPECT_TRUE(f.specialize(args, kMatmulBlocks, matmul).metadata().persistent);
  expectMatmulRepeats(f, {unsigned((m + 63) / 64), unsigned(n / 64)}, args,
                      kMatmulBlocks, matmul, dc, matmulOnCPU(a, b, m, n, k), k,
                      3);
}

TEST(JIT, MisalignedRowsShareCopies) {
  JITFunction f(kGroupedMatmul, "grouped.tl");
  f.setCacheDirectory("");
  JITOptions options = largeTileOptions();
  options.arch = "sm_90a";
  auto args = [](int32_t n) {
    return std::vector<KernelArg>{Ptr<fp16>(uint64_t(0x1000)),
                                  Ptr<fp16>(uint64_t(0x2000)),
                                  Ptr<float>(uint64_t(0x3000)),
                                  1000,
                                  n,
                                  512};
  };
  EXPECT_EQ(
      f.compile(args(3000), kLargeTiles, options).metadata.clusterPrograms, 2u);
  EXPECT_EQ(
      f.compile(args(3072), kLargeTiles, options).metadata.clusterPrograms, 1u);
  // The code depends on whole sectors: the disk cache keys it by them, so
  // 3072 does not find 3000's kernel (a kernel whose code does not depend
  // on them is keyed without: DiskCache.KeyChangesWithEveryInput).
  std::string dir =
      ::testing::TempDir() + "tilec-sectors-" + std::to_string(::getpid());
  ASSERT_EQ(std::system(("rm -rf '" + dir + "'").c_str()), 0);
  JITFunction cached(kGroupedMatmul, "grouped.tl");
  cached.setCacheDirectory(dir);
  EXPECT_TRUE(cached.compile(args(3000), kLargeTiles, options)
                  .metadata.rowSectorsMatter);
  JITFunction::Compiled aligned =
      cached.compile(args(3072), kLargeTiles, options);
  EXPECT_FALSE(aligned.fromDiskCache);
  EXPECT_EQ(aligned.metadata.clusterPrograms, 1u);
  EXPECT_TRUE(cached.compile(args(3072), kLargeTiles, options).fromDiskCache);
  EXPECT_TRUE(cached.compile(args(3000), kLargeTiles, options).fromDiskCache);
  // Compiled with 3072's whole sectors (N divisible by 16 halves) where they
  // matter; where they do not (64 x 128 tiles), with hints up to 16 bytes
  // (8 halves), so that one kernel serves 3000 and 3072 alike.
  EXPECT_EQ(aligned.metadata.params[4].divisibility, 16u);
  JITOptions small = options;
  small.numWarps = 4;
  const Constexprs smallTiles = {
      {"BLOCK_M", 64}, {"BLOCK_N", 128}, {"BLOCK_K", 64}, {"GROUP_M", 8}};
  JITFunction::Compiled plain = cached.compile(args(3072), smallTiles, small);
  EXPECT_FALSE(plain.metadata.rowSectorsMatter);
  EXPECT_EQ(plain.metadata.params[4].divisibility, 8u);
  EXPECT_TRUE(cached.compile(args(3000), smallTiles, small).fromDiskCache);
}

// Launched as clusters of two programs that copy B once for both: pairs
// that share B's columns (96 programs), pairs that do not (7 rows of
// tiles: each CTA copies alone), an odd grid (no clusters) and no K loop,
// against a CPU sum in doubles, the same bits in 20 runs.
TEST(JIT, SharedCopiesMatchTheCPU) {
  std::string why;
  if (!cudaAvailable(&why))
    GTEST_SKIP() << "no CUDA device: " << why;
  if (computeCapability() < 90)
    GTEST_SKIP() << "bulk tensor copies and clusters need sm_90";
  JITFunction f(kGroupedMatmul, "grouped.tl");
  f.setCacheDirectory("");
  JITOptions options = largeTileOptions();
  struct Shape {
    int32_t m, n, k;
  };
  const Shape shapes[] = {
      {1000, 3000, 264}, {872, 3000, 200}, {384, 520, 136}, {256, 520, 0}};
  for (const Shape &shape : shapes) {
    SCOPED_TRACE("M=" + std::to_string(shape.m) + " N=" +
                 std::to_string(shape.n) + " K=" + std::to_string(shape.k));
    size_t m = size_t(shape.m), n = size_t(shape.n), k = size_t(shape.k);
    std::vector<fp16> a = noise(m * k, 5), b = noise(k * n, 6);
    auto da = DeviceBuffer::fromHost(a), db = DeviceBuffer::fromHost(b);
    auto dc = DeviceBuffer::fromHost(std::vector<float>(m * n, -7));
    std::vector<KernelArg> args = {da, db, dc, shape.m, shape.n, shape.k};
    Grid grid{cdiv(shape.m, 128) * cdiv(shape.n, 256)};
    ASSERT_EQ(
        f.specialize(args, kLargeTiles, options).metadata().clusterPrograms,
        2u);
    expectMatmulRepeats(f, grid, args, kLargeTiles, options, dc,
                        matmulOnCPU(a, b, m, n, k), k, 20);
  }
}

// Raw device addresses name their dtype by their type: the JIT
// specializes them as it does buffers (alignment included).
TEST(JIT, TypedRawPointers) {
  auto types = JITFunction::argTypes(
      {Ptr<float>(uint64_t(0x1000)), Ptr<bf16>(uint64_t(0x1008)),
       Ptr<fp16>(uint64_t(0x2000)), Ptr<int32_t>(uint64_t(0x2004)),
       Ptr<uint8_t>(uint64_t(0x2010)), Ptr<fp8e4nv>(uint64_t(0x2010))});
  EXPECT_EQ(types, (std::vector<std::string>{"*fp32:16", "*bf16:8", "*fp16:16",
                                             "*i32", "*u8:16", "*fp8e4nv:16"}));
  KernelArg arg = Ptr<double>(reinterpret_cast<const void *>(0x3000));
  EXPECT_TRUE(arg.isPointer());
  EXPECT_EQ(arg.pointerValue(), 0x3000u);
  EXPECT_EQ(arg.dtype(), DType::FP64);
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

const char *kStrided = R"(import triton
import triton.language as tl

@triton.jit
def strided(x_ptr, y_ptr, stride, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs * stride, mask=m) + 1.0, mask=m)
)";

JITOptions sm90() {
  JITOptions options;
  options.arch = "sm_90";
  options.numWarps = 4;
  return options;
}

TEST(JIT, ConstexprsCompareByValue) {
  EXPECT_EQ(Constexpr(1024).text(), "1024");
  EXPECT_EQ(Constexpr(0.5).text(), "0.5");
  EXPECT_EQ(Constexpr(2.0).text(), "2.0");
  EXPECT_EQ(Constexpr(false).text(), "False");
  EXPECT_EQ(Constexpr(16), Constexpr(int64_t(16)));
  EXPECT_NE(Constexpr(1), Constexpr(true));
  EXPECT_NE(Constexpr(1), Constexpr(1.0));
  EXPECT_NE(Constexpr("ieee"), Constexpr("tf32"));
}

// Triton's integer specializations: divisible by 16, and (on the GPU)
// equal to 1, which the kernel takes as a constant rather than a parameter.
TEST(JIT, IntegersEqualToOneBecomeConstants) {
  using Types = std::vector<std::string>;
  EXPECT_EQ(JITFunction::argTypes({int32_t(1)}, true), Types{"i32:1"});
  EXPECT_EQ(JITFunction::argTypes({int32_t(1)}), Types{"i32"});
  EXPECT_EQ(JITFunction::argTypes({int64_t(32)}, true), Types{"i64:16"});
  EXPECT_EQ(JITFunction::argTypes({int32_t(7)}, true), Types{"i32"});

  JITFunction f(kStrided, "strided.tl");
  f.setCacheDirectory("");
  JITFunction::Compiled one = f.compile(
      {Ptr<float>(uint64_t(0x1000)), Ptr<float>(uint64_t(0x2000)), 1, 100},
      {{"BLOCK", 256}}, sm90());
  ASSERT_EQ(one.metadata.params.size(), 3u);
  EXPECT_EQ(one.metadata.params[2].name, "n");
  EXPECT_NE(std::find(one.metadata.constexprs.begin(),
                      one.metadata.constexprs.end(),
                      std::pair<std::string, std::string>("stride", "1")),
            one.metadata.constexprs.end());
  JITFunction::Compiled two = f.compile(
      {Ptr<float>(uint64_t(0x1000)), Ptr<float>(uint64_t(0x2000)), 2, 100},
      {{"BLOCK", 256}}, sm90());
  EXPECT_EQ(two.metadata.params.size(), 4u);
  EXPECT_EQ(f.compileCount(), 2u);
}

// Beyond Triton's 16: an integer's largest power-of-two divisor, as far as
// 16 bytes of the launch's narrowest pointer elements, and a pointer's
// alignment above its element's. A row of 5000 fp16 elements is 16-byte
// aligned; a stride of 4096 says no more than 8 beside fp16 pointers.
TEST(JIT, AlignmentAsItIs) {
  using Types = std::vector<std::string>;
  Ptr<fp16> a(uint64_t(0x1000)), b(uint64_t(0x1008));
  EXPECT_EQ(JITFunction::argTypes({a, b, int32_t(5000), int32_t(4096),
                                   int32_t(3002), int32_t(1004), int32_t(7)}),
            (Types{"*fp16:16", "*fp16:8", "i32:8", "i32:16", "i32:2", "i32:4",
                   "i32"}));
  // fp32 pointers: 8 elements are a 32-byte sector (rows of whole sectors
  // need not share their bulk copies: tilegpu-pipeline).
  EXPECT_EQ(JITFunction::argTypes({Ptr<float>(uint64_t(0x1004)), int32_t(4096),
                                   int64_t(-24), int32_t(20)}),
            (Types{"*fp32", "i32:8", "i64:8", "i32:4"}));
  // The narrowest pointer decides: an int8 row takes 16 elements.
  EXPECT_EQ(JITFunction::argTypes({Ptr<float>(uint64_t(0x1000)),
                                   Ptr<int8_t>(uint64_t(0x1002)), int32_t(4096)}),
            (Types{"*fp32:16", "*i8:2", "i32:16"}));
  // No pointers: integers as Triton keeps them, up to 16.
  EXPECT_EQ(JITFunction::argTypes({int32_t(48), int32_t(0)}),
            (Types{"i32:16", "i32:16"}));
}

/// Runs `strided` on the GPU with `stride` and checks y against the CPU.
void expectStrided(JITFunction &f, int stride, const JITOptions &options = {},
                   int n = 1000) {
  std::vector<float> x(size_t(n) * stride);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = float(i % 97);
  auto dx = DeviceBuffer::fromHost(x);
  auto dy = DeviceBuffer::fromHost(std::vector<float>(n));
  f.launch({cdiv(n, 256)}, {dx, dy, stride, n}, {{"BLOCK", 256}}, options);
  std::vector<float> y = dy.toHost<float>();
  for (int i = 0; i < n; ++i)
    ASSERT_EQ(y[i], x[size_t(i) * stride] + 1.0f) << "stride " << stride << " at " << i;
}

// A kernel with no K loop to split is one specialization whatever its
// grid: the launch that could run clusters finds it does not split.
TEST(JIT, KernelsThatDoNotSplitCompileOnce) {
  std::string why;
  if (!cudaAvailable(&why))
    GTEST_SKIP() << "no CUDA device: " << why;
  JITFunction f(kStrided, "strided.tl");
  f.setCacheDirectory("");
  expectStrided(f, 1); // 4 programs: the GPU has room for clusters
  expectStrided(f, 1, {}, multiprocessorCount() * 300);
  EXPECT_EQ(f.compileCount(), 1u);
}

// An unaligned raw pointer compiles a kernel that does not assume
// alignment (the default of 16 is for pointers whose launch says nothing).
TEST(JIT, UnalignedPointersAreNotAssumedAligned) {
  JITFunction f(kStrided, "strided.tl");
  f.setCacheDirectory("");
  JITFunction::Compiled compiled = f.compile(
      {Ptr<float>(uint64_t(0x1004)), Ptr<float>(uint64_t(0x2000)), 2, 100},
      {{"BLOCK", 256}}, sm90());
  EXPECT_EQ(compiled.metadata.params[0].divisibility, 1u);
  EXPECT_EQ(compiled.metadata.params[1].divisibility, 16u);
}

TEST(JIT, LaunchesWithOnesAndOthers) {
  std::string why;
  if (!cudaAvailable(&why))
    GTEST_SKIP() << "no CUDA device: " << why;
  JITFunction f(kStrided, "strided.tl");
  f.setCacheDirectory("");
  expectStrided(f, 1);
  expectStrided(f, 3);
  expectStrided(f, 1);
  EXPECT_EQ(f.compileCount(), 2u);
}

// A bound launch packs its arguments once; relaunching it repeats the
// kernel's effect.
TEST(JIT, BoundLaunchRepeats) {
  std::string why;
  if (!cudaAvailable(&why))
    GTEST_SKIP() << "no CUDA device: " << why;
  JITFunction scale(kScale, "scale.tl");
  auto buffer = DeviceBuffer::fromHost(std::vector<float>{1, 2, 3});
  BoundLaunch twice = scale.bind({1}, {buffer, 3},
                                 {{"MODE", "double"}, {"BLOCK", 4}});
  BoundLaunch copy = twice;
  for (int i = 0; i < 3; ++i)
    twice.launch();
  copy.launch();
  EXPECT_EQ(buffer.toHost<float>(), (std::vector<float>{16, 32, 48}));
  EXPECT_THROW(scale.bind({0}, {buffer, 3}, {{"MODE", "double"}, {"BLOCK", 4}}),
               Error);
  JITOptions interpreter;
  interpreter.backend = Backend::Interpreter;
  EXPECT_THROW(scale.bind({1}, {buffer, 3}, {{"MODE", "double"}, {"BLOCK", 4}},
                          interpreter),
               Error);
}

// Eight threads launch one JITFunction at once, each with a specialization
// of its own and the shared ones: every result is right and each
// specialization compiled once.
TEST(JIT, ConcurrentLaunchesFromEightThreads) {
  std::string why;
  if (!cudaAvailable(&why))
    GTEST_SKIP() << "no CUDA device: " << why;
  JITFunction f(kStrided, "strided.tl");
  f.setCacheDirectory("");
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&, t] {
      try {
        for (int round = 0; round < 20; ++round)
          expectStrided(f, round % 2 ? 1 : 2 + t % 4);
      } catch (const std::exception &e) {
        ADD_FAILURE() << e.what();
        ++failures;
      }
    });
  for (std::thread &thread : threads)
    thread.join();
  EXPECT_EQ(failures.load(), 0);
  // Stride 1; 2 and 4, whose rows of fp32 are 8 and 16 bytes apart
  // (i32:2, i32:4); 3 and 5 share one (no hint).
  EXPECT_EQ(f.compileCount(), 4u);
}

// A launch names its device; one this machine lacks is an error that says
// how many there are.
TEST(JIT, DeviceChoice) {
  std::string why;
  if (!cudaAvailable(&why))
    GTEST_SKIP() << "no CUDA device: " << why;
  JITFunction f(kStrided, "strided.tl");
  f.setCacheDirectory("");
  for (int device = 0; device < deviceCount(); ++device) {
    JITOptions options;
    options.device = device;
    setDevice(device);
    expectStrided(f, 2, options);
  }
  setDevice(0);
  JITOptions missing;
  missing.device = deviceCount();
  try {
    expectStrided(f, 2, missing);
    ADD_FAILURE() << "launched on a device that is not there";
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("this machine has"), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(currentDevice(), 0);
}

} // namespace
