//===- BadInputTest.cpp - Launches the JIT refuses, and why ---------------===//
//
// Wrong argument counts and types, grids of zero or beyond CUDA's limits and
// buffers smaller than what a kernel's accesses reach are refused before
// the kernel runs, with an error that names the kernel and the parameter.
// The JIT's checks run here on the interpreter, which keeps the GPU's
// limits; the bounds the compiler derives for accesses (tile::AccessInfo)
// are held against the interpreter, which checks every access it makes:
// with each buffer exactly as large as the bound says a kernel runs, with
// one element less it faults.
//
//===----------------------------------------------------------------------===//

#include "tile/DeviceBuffer.h"
#include "tile/Driver.h"
#include "tile/Error.h"
#include "tile/JIT.h"

#include <gtest/gtest.h>

#include <algorithm>

using namespace tile;

namespace {

const char *kCopy = R"(import triton
import triton.language as tl


@triton.jit
def copy(x_ptr: "*fp32", out_ptr, n: tl.int32, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)
)";

JITOptions interpreter() {
  JITOptions options;
  options.backend = Backend::Interpreter;
  return options;
}

DeviceBuffer floats(size_t n) {
  DeviceBuffer buffer(n * sizeof(float), Backend::Interpreter);
  buffer.fill(0);
  buffer.setDType(tile::DType::FP32);
  return buffer;
}

/// The error of a launch of `copy` on the interpreter, or "" when it runs.
std::string copyError(Grid grid, KernelArgs args) {
  JITFunction f(kCopy, "copy.tl");
  f.setCacheDirectory("");
  try {
    f.launch(grid, args, {{"BLOCK", 4}}, interpreter());
  } catch (const Error &e) {
    return e.what();
  }
  return "";
}

TEST(BadInput, ArgumentCount) {
  DeviceBuffer x = floats(8), out = floats(8);
  EXPECT_EQ(copyError({2}, {x, out, 8}), "");
  EXPECT_EQ(copyError({2}, {x, out, 8, 8}),
            "copy.tl: error: kernel copy: expects 3 arguments, got 4\n");
  EXPECT_EQ(copyError({2}, {x, out, 8, out}),
            "copy.tl: error: kernel copy: expects 3 arguments, got 4\n");
  EXPECT_EQ(copyError({2}, {x, out}),
            "copy.tl: error: kernel copy: expects 3 arguments, got 2\n");
  // out_ptr has no annotation: its type comes from its argument.
  EXPECT_EQ(copyError({2}, {x}),
            "copy.tl:6:26: error: parameter 'out_ptr' has no type: the launch "
            "gives 1 argument, none for it\n"
            "def copy(x_ptr: \"*fp32\", out_ptr, n: tl.int32, BLOCK: "
            "tl.constexpr):\n"
            "                         ^\n");
}

TEST(BadInput, ArgumentTypes) {
  DeviceBuffer x = floats(8), out = floats(8);
  DeviceBuffer ints(32, Backend::Interpreter);
  ints.setDType(tile::DType::I32);
  EXPECT_EQ(copyError({2}, {1.5f, out, 8}),
            "copy.tl: error: kernel copy: argument 0 (x_ptr) expects *fp32, "
            "got fp32\n");
  EXPECT_EQ(copyError({2}, {ints, out, 8}),
            "copy.tl: error: kernel copy: argument 0 (x_ptr) expects *fp32, "
            "got *i32\n");
  EXPECT_EQ(copyError({2}, {x, out, int64_t(1) << 40}),
            "copy.tl: error: kernel copy: argument 2 (n) = 1099511627776 does "
            "not fit in i32\n");
  EXPECT_EQ(copyError({2}, {x, out, int64_t(8)}),
            "copy.tl: error: kernel copy: argument 2 (n) expects i32, got "
            "i64\n");
  EXPECT_EQ(copyError({2}, {x, out, 8.0f}),
            "copy.tl: error: kernel copy: argument 2 (n) expects i32, got "
            "fp32\n");
  EXPECT_EQ(copyError({2}, {x, out, x}),
            "copy.tl: error: kernel copy: argument 2 (n) expects i32, got "
            "pointer\n");
}

// The interpreter keeps CUDA's grid limits, so that what runs there runs on
// the GPU.
TEST(BadInput, Grid) {
  DeviceBuffer x = floats(8), out = floats(8);
  EXPECT_EQ(copyError({0}, {x, out, 8}),
            "copy.tl: error: kernel copy: grid (0, 1, 1) has a zero "
            "dimension\n");
  EXPECT_EQ(copyError({2, 1, 0}, {x, out, 8}),
            "copy.tl: error: kernel copy: grid (2, 1, 0) has a zero "
            "dimension\n");
  EXPECT_EQ(copyError({2147483648u}, {x, out, 0}),
            "copy.tl: error: kernel copy: grid (2147483648, 1, 1) has "
            "2147483648 programs along x, more than the limit of "
            "2147483647\n");
  EXPECT_EQ(copyError({1, 65536}, {x, out, 0}),
            "copy.tl: error: kernel copy: grid (1, 65536, 1) has 65536 "
            "programs along y, more than the limit of 65535\n");
  EXPECT_EQ(copyError({1, 1, 70000}, {x, out, 0}),
            "copy.tl: error: kernel copy: grid (1, 1, 70000) has 70000 "
            "programs along z, more than the limit of 65535\n");
  EXPECT_EQ(copyError({1, 65535, 1}, {x, out, 0}), "");
}

// The metadata the GPU launch checks buffers by, from the compiler.
TEST(BadInput, BufferTooSmallForTheMasks) {
  JITFunction f(kCopy, "copy.tl");
  f.setCacheDirectory("");
  DeviceBuffer x = floats(100), out = floats(99);
  JITFunction::Compiled compiled =
      f.compile({x, out, 100}, {{"BLOCK", 32}}, interpreter());
  const KernelMetadata &md = compiled.metadata;
  ASSERT_EQ(md.accesses.size(), 2u);
  EXPECT_EQ(validateBuffers(md, {4}, {x, out, 100}),
            "kernel copy: argument 1 (out_ptr) needs 400 bytes (100 fp32 "
            "elements) for this launch, but its buffer has 396 bytes");
  EXPECT_EQ(validateBuffers(md, {4}, {x, out, 99}), "");
  // Three programs of 32 reach 96 elements, however large n is.
  EXPECT_EQ(validateBuffers(md, {3}, {x, out, 1000}), "");
  EXPECT_EQ(validateBuffers(md, {4}, {out, x, 1000}),
            "kernel copy: argument 0 (x_ptr) needs 512 bytes (128 fp32 "
            "elements) for this launch, but its buffer has 396 bytes");
}

// On the GPU the launch checks the buffers, before anything runs: also
// where the JIT made a unit stride a constant (the kernel's parameters
// are then fewer than the launch's arguments).
TEST(BadInput, BufferTooSmallOnTheGPU) {
  std::string why;
  if (!cudaAvailable(&why))
    GTEST_SKIP() << "no CUDA device: " << why;
  const char *source = R"(import triton
import triton.language as tl


@triton.jit
def strided(x_ptr, out_ptr, stride, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs * stride, mask=offs < n)
    tl.store(out_ptr + offs, x, mask=offs < n)
)";
  JITFunction f(source, "strided.tl");
  f.setCacheDirectory("");
  auto x = DeviceBuffer::fromHost(std::vector<float>(200, 1.0f));
  auto out = DeviceBuffer::fromHost(std::vector<float>(99, 5.0f));
  for (int stride : {1, 2}) {
    try {
      f.launch({4}, {x, out, stride, 100}, {{"BLOCK", 32}});
      ADD_FAILURE() << "expected an error";
    } catch (const Error &e) {
      EXPECT_STREQ(e.what(), "kernel strided: argument 1 (out_ptr) needs 400 "
                             "bytes (100 fp32 elements) for this launch, but "
                             "its buffer has 396 bytes");
    }
  }
  try {
    f.launch({4}, {x, out, 3, 99}, {{"BLOCK", 32}});
    ADD_FAILURE() << "expected an error";
  } catch (const Error &e) {
    EXPECT_STREQ(e.what(), "kernel strided: argument 0 (x_ptr) needs 1180 "
                           "bytes (295 fp32 elements) for this launch, but "
                           "its buffer has 800 bytes");
  }
  synchronize();
  EXPECT_EQ(out.toHost<float>(), std::vector<float>(99, 5.0f));
  f.launch({4}, {x, out, 2, 99}, {{"BLOCK", 32}});
  synchronize();
  EXPECT_EQ(out.toHost<float>(), std::vector<float>(99, 1.0f));
}

// Raw device addresses (tile::Ptr) are checked against their driver
// allocations (cuMemGetAddressRange) and the allocations mapped right
// after them; a null pointer that a program touches is refused, one that
// none does (n = 0) is not.
TEST(BadInput, RawPointersAndNullOnTheGPU) {
  std::string why;
  if (!cudaAvailable(&why))
    GTEST_SKIP() << "no CUDA device: " << why;
  const char *source = R"(import triton
import triton.language as tl


@triton.jit
def copy(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)
)";
  JITFunction f(source, "copy.tl");
  f.setCacheDirectory("");
  auto x = DeviceBuffer::fromHost(std::vector<float>(1000, 1.0f));
  auto out = DeviceBuffer::fromHost(std::vector<float>(1000, 5.0f));
  Ptr<float> rawX(x.address()), rawOut(out.address());
  // Far past both buffers and whatever the driver maps after them.
  int32_t huge = 1 << 26;
  try {
    f.launch({unsigned(huge / 1024)}, {rawX, rawOut, huge}, {{"BLOCK", 1024}});
    ADD_FAILURE() << "expected an error";
  } catch (const Error &e) {
    std::string expected = "kernel copy: argument 0 (x_ptr) needs 268435456 "
                           "bytes (67108864 fp32 elements) for this launch, "
                           "but its buffer has ";
    EXPECT_EQ(std::string(e.what()).substr(0, expected.size()), expected)
        << e.what();
  }
  try {
    f.launch({1}, {rawX, Ptr<float>(uint64_t(0)), 1000}, {{"BLOCK", 1024}});
    ADD_FAILURE() << "expected an error";
  } catch (const Error &e) {
    EXPECT_STREQ(e.what(), "kernel copy: argument 1 (out_ptr) is null, and "
                           "the kernel accesses it at this launch");
  }
  f.launch({1}, {rawX, Ptr<float>(uint64_t(0)), 0}, {{"BLOCK", 1024}});
  f.launch({1}, {rawX, rawOut, 1000}, {{"BLOCK", 1024}});
  synchronize();
  EXPECT_EQ(out.toHost<float>(), std::vector<float>(1000, 1.0f));
}

/// One argument of expectExactBounds: a float buffer (sized by the bounds) or an
/// integer.
struct Arg {
  bool buffer;
  int64_t value = 0;
};
Arg buffer() { return {true}; }
Arg integer(int64_t value) { return {false, value}; }

/// Runs `source` on the interpreter with every buffer as large as the
/// compiler's bounds say the launch reaches: it must run. Then, one buffer
/// at a time, with one element less: the interpreter must find the access
/// out of bounds. Every buffer must have a bound.
void expectExactBounds(const char *source, Grid grid,
                       const std::vector<Arg> &spec, const Constexprs &constexprs,
                       const std::string &what) {
  SCOPED_TRACE(what);
  JITFunction f(source, "bounds.tl");
  f.setCacheDirectory("");
  auto launchWith = [&](const std::vector<size_t> &elements) {
    std::vector<DeviceBuffer> buffers;
    buffers.reserve(spec.size());
    std::vector<KernelArg> args;
    for (size_t i = 0; i < spec.size(); ++i) {
      if (spec[i].buffer) {
        buffers.push_back(floats(elements[i]));
        args.emplace_back(buffers.back());
      } else {
        args.emplace_back(int32_t(spec[i].value));
      }
    }
    f.launch(grid, args, constexprs, interpreter());
  };
  // The bounds, from a compile for these arguments.
  std::vector<size_t> placeholder(spec.size(), 1);
  std::vector<DeviceBuffer> buffers;
  buffers.reserve(spec.size());
  std::vector<KernelArg> args;
  std::vector<int64_t> values;
  for (const Arg &arg : spec) {
    if (arg.buffer) {
      buffers.push_back(floats(1));
      args.emplace_back(buffers.back());
    } else {
      args.emplace_back(int32_t(arg.value));
    }
    values.push_back(arg.value);
  }
  KernelMetadata md = f.compile(args, constexprs, interpreter()).metadata;
  std::vector<size_t> reached(spec.size(), 0);
  std::vector<bool> bounded(spec.size(), false);
  for (const AccessInfo &access : md.accesses) {
    reached[access.param] = std::max<size_t>(
        reached[access.param],
        access.reachedElements(values.data(), values.size(),
                               {grid.x, grid.y, grid.z}));
    bounded[access.param] = true;
  }
  for (size_t i = 0; i < spec.size(); ++i)
    if (spec[i].buffer)
      ASSERT_TRUE(bounded[i]) << "no bound for argument " << i;
  EXPECT_NO_THROW(launchWith(reached));
  for (size_t i = 0; i < spec.size(); ++i) {
    if (!spec[i].buffer || reached[i] == 0)
      continue;
    std::vector<size_t> smaller = reached;
    --smaller[i];
    try {
      launchWith(smaller);
      ADD_FAILURE() << "argument " << i << " with " << smaller[i]
                    << " elements: no access out of bounds";
    } catch (const Error &e) {
      EXPECT_NE(std::string(e.what()).find("out of bounds"), std::string::npos)
          << e.what();
    }
  }
}

TEST(AccessBounds, Masked1D) {
  for (auto [programs, n] : {std::pair<unsigned, int64_t>{4, 100},
                             {4, 128},
                             {3, 1000},
                             {1, 1},
                             {5, 0}})
    expectExactBounds(kCopy, {programs},
                      {buffer(), buffer(), integer(n)}, {{"BLOCK", 32}},
                      "programs " + std::to_string(programs) + ", n " +
                          std::to_string(n));
}

// Rows of a row-major matrix: the program id times a stride, unmasked, and
// the columns masked.
const char *kRows = R"(import triton
import triton.language as tl


@triton.jit
def rows(x_ptr, y_ptr, stride_x, stride_y, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * stride_x + cols, mask=cols < n_cols, other=0.0)
    tl.store(y_ptr + row * stride_y + cols, x - tl.max(x, axis=0),
             mask=cols < n_cols)
)";

TEST(AccessBounds, RowsOfAMatrix) {
  expectExactBounds(kRows, {5},
                    {buffer(), buffer(), integer(20), integer(13),
                     integer(11)},
                    {{"BLOCK", 16}}, "n_cols 11");
  expectExactBounds(kRows, {3},
                    {buffer(), buffer(), integer(20), integer(40),
                     integer(100)},
                    {{"BLOCK", 16}}, "n_cols beyond the block");
}

// Tiles of a matrix, masked on both axes, the output transposed.
const char *kTranspose = R"(import triton
import triton.language as tl


@triton.jit
def transpose(in_ptr, out_ptr, M, N, stride_in, stride_out,
              BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    tile = tl.load(in_ptr + rows[:, None] * stride_in + cols[None, :],
                   mask=mask, other=0.0)
    tl.store(out_ptr + cols[None, :] * stride_out + rows[:, None], tile,
             mask=mask)
)";

TEST(AccessBounds, MaskedTiles) {
  expectExactBounds(kTranspose, {3, 2},
                    {buffer(), buffer(), integer(10), integer(7), integer(9),
                     integer(12)},
                    {{"BLOCK_M", 4}, {"BLOCK_N", 4}}, "10 x 7");
  // The grid covers 8 x 4 of the 10 x 7: the bounds say so.
  expectExactBounds(kTranspose, {2, 1},
                    {buffer(), buffer(), integer(10), integer(7), integer(7),
                     integer(10)},
                    {{"BLOCK_M", 4}, {"BLOCK_N", 4}}, "a grid too small");
}

// A K loop whose pointers advance at every iteration, the mask shrinking
// with it (dsl-examples/matmul.tl's shape).
const char *kMatmul = R"(import triton
import triton.language as tl


@triton.jit
def matmul(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk,
           stride_bn, stride_cm, stride_cn, BLOCK_M: tl.constexpr,
           BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    ks = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + rows[:, None] * stride_am + ks[None, :] * stride_ak
    b_ptrs = b_ptr + ks[:, None] * stride_bk + cols[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        k_left = K - k * BLOCK_K
        a = tl.load(a_ptrs, mask=(rows[:, None] < M) & (ks[None, :] < k_left),
                    other=0.0)
        b = tl.load(b_ptrs, mask=(ks[:, None] < k_left) & (cols[None, :] < N),
                    other=0.0)
        acc += tl.dot(a, b, input_precision="ieee")
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    c_ptrs = c_ptr + rows[:, None] * stride_cm + cols[None, :] * stride_cn
    tl.store(c_ptrs, acc, mask=(rows[:, None] < M) & (cols[None, :] < N))
)";

TEST(AccessBounds, LoopWithAdvancingPointers) {
  // 9 x 11 times 11 x 10, row-major, and A column-major.
  expectExactBounds(kMatmul, {3, 3},
                    {buffer(), buffer(), buffer(), integer(9), integer(10),
                     integer(11), integer(11), integer(1), integer(10),
                     integer(1), integer(10), integer(1)},
                    {{"BLOCK_M", 4}, {"BLOCK_N", 4}, {"BLOCK_K", 8}},
                    "row-major");
  expectExactBounds(kMatmul, {3, 3},
                    {buffer(), buffer(), buffer(), integer(9), integer(10),
                     integer(11), integer(1), integer(9), integer(10),
                     integer(1), integer(10), integer(1)},
                    {{"BLOCK_M", 4}, {"BLOCK_N", 4}, {"BLOCK_K", 8}},
                    "A column-major");
}

// A loop over the columns in blocks (layer norm's), and an access read
// backwards.
const char *kLoops = R"(import triton
import triton.language as tl


@triton.jit
def loops(x_ptr, y_ptr, stride, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for off in range(0, N, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + row * stride + cols, mask=cols < N, other=0.0)
    offs = tl.arange(0, BLOCK)
    tl.store(y_ptr + (N - 1 - offs), acc, mask=offs < N)
)";

TEST(AccessBounds, LoopsAndReversal) {
  expectExactBounds(kLoops, {3},
                    {buffer(), buffer(), integer(30), integer(21)},
                    {{"BLOCK", 8}}, "N 21");
  expectExactBounds(kLoops, {2},
                    {buffer(), buffer(), integer(5), integer(5)},
                    {{"BLOCK", 8}}, "N 5");
}

// Other spellings of the bounds: <=, > and >= with the index on either
// side, programs whose tiles overlap, a store through a scalar pointer.
const char *kSpellings = R"(import triton
import triton.language as tl


@triton.jit
def spellings(x_ptr, y_ptr, z_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * 48 + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs <= n - 1, other=0.0)
    tl.store(y_ptr + 2 * offs + 1, x, mask=n > offs)
    tl.store(z_ptr + tl.program_id(0), tl.sum(x, axis=0))
    tl.store(x_ptr + offs, x + 1, mask=(n - 1 >= offs) & (offs >= 0))
)";

TEST(AccessBounds, OtherSpellings) {
  for (auto [programs, n] : {std::pair<unsigned, int64_t>{3, 100},
                             {3, 130},
                             {2, 70}})
    expectExactBounds(kSpellings, {programs},
                      {buffer(), buffer(), buffer(), integer(n)},
                      {{"BLOCK", 64}},
                      "programs " + std::to_string(programs) + ", n " +
                          std::to_string(n));
}

// What the analysis cannot follow is left unchecked: an index loaded from
// memory, an access under a condition.
TEST(AccessBounds, UnboundedAccessesAreNotChecked) {
  const char *source = R"(import triton
import triton.language as tl


@triton.jit
def gather(x_ptr, idx_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    idx = tl.load(idx_ptr + offs, mask=offs < n, other=0)
    x = tl.load(x_ptr + idx, mask=offs < n)
    if tl.program_id(0) > 0:
        tl.store(out_ptr + offs, x, mask=offs < n)
)";
  JITFunction f(source, "gather.tl");
  f.setCacheDirectory("");
  DeviceBuffer x = floats(4), out = floats(4);
  DeviceBuffer idx(64, Backend::Interpreter);
  idx.setDType(tile::DType::I32);
  KernelMetadata md =
      f.compile({x, idx, out, 16}, {{"BLOCK", 16}}, interpreter()).metadata;
  ASSERT_EQ(md.accesses.size(), 1u);
  EXPECT_EQ(md.accesses[0].param, 1u);
  EXPECT_EQ(validateBuffers(md, {2}, {x, idx, out, 32}),
            "kernel gather: argument 1 (idx_ptr) needs 128 bytes (32 i32 "
            "elements) for this launch, but its buffer has 64 bytes");
}

} // namespace
