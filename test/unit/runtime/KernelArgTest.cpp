//===- KernelArgTest.cpp - Launch argument validation (no GPU) ------------===//

#include "tile/DeviceBuffer.h"
#include "tile/Kernel.h"

#include <gtest/gtest.h>

using namespace tile;

namespace {

KernelMetadata addKernel() {
  KernelMetadata md;
  md.kernel = "add_kernel";
  md.params = {{"x_ptr", "*fp32", 16},
               {"y_ptr", "*fp32", 16},
               {"out_ptr", "*fp32", 16},
               {"n", "i32", 1}};
  return md;
}

constexpr uint64_t kAligned = 0x7f0000000100;

TEST(KernelArg, Kinds) {
  EXPECT_EQ(KernelArg(int32_t(3)).kind(), KernelArg::Kind::I32);
  EXPECT_EQ(KernelArg(int64_t(3)).kind(), KernelArg::Kind::I64);
  EXPECT_EQ(KernelArg(1.5f).kind(), KernelArg::Kind::F32);
  KernelArg p = KernelArg::pointer(0x1234);
  EXPECT_EQ(p.kind(), KernelArg::Kind::Pointer);
  EXPECT_EQ(p.pointerValue(), 0x1234u);
  EXPECT_STREQ(p.kindName(), "pointer");
}

TEST(KernelArg, ValidLaunch) {
  auto p = KernelArg::pointer(kAligned);
  EXPECT_EQ(validateLaunch(addKernel(), {4, 1, 1}, {p, p, p, 1000}), "");
}

TEST(KernelArg, WrongKind) {
  auto p = KernelArg::pointer(kAligned);
  EXPECT_EQ(validateLaunch(addKernel(), {}, {p, p, 7, 1000}),
            "kernel add_kernel: argument 2 (out_ptr) expects *fp32, got i32");
  EXPECT_EQ(validateLaunch(addKernel(), {}, {p, p, p, p}),
            "kernel add_kernel: argument 3 (n) expects i32, got pointer");
  EXPECT_EQ(validateLaunch(addKernel(), {}, {p, p, p, int64_t(5)}),
            "kernel add_kernel: argument 3 (n) expects i32, got i64");
  EXPECT_EQ(validateLaunch(addKernel(), {}, {p, p, p, 5.0f}),
            "kernel add_kernel: argument 3 (n) expects i32, got fp32");
}

TEST(KernelArg, Count) {
  auto p = KernelArg::pointer(kAligned);
  EXPECT_EQ(validateLaunch(addKernel(), {}, {p, p, p}),
            "kernel add_kernel: expects 4 arguments, got 3");
}

TEST(KernelArg, Alignment) {
  auto p = KernelArg::pointer(kAligned);
  EXPECT_EQ(validateLaunch(addKernel(), {},
                           {KernelArg::pointer(0x7f0000000104), p, p, 1}),
            "kernel add_kernel: argument 0 (x_ptr) = 0x7f0000000104 is not "
            "16-byte aligned, as this kernel was compiled to assume");
}

TEST(KernelArg, IntegerDivisibilityAndWidening) {
  KernelMetadata md;
  md.kernel = "k";
  md.params = {{"n", "i32", 16}, {"m", "i64", 8}, {"s", "fp32", 1}};
  EXPECT_EQ(validateLaunch(md, {}, {32, 64, 1.0f}), "");
  EXPECT_EQ(validateLaunch(md, {}, {32, int64_t(1) << 40, 1.0f}), "");
  EXPECT_EQ(validateLaunch(md, {}, {-1024, 64, 1.0f}), "");
  EXPECT_EQ(validateLaunch(md, {}, {1001, 64, 1.0f}),
            "kernel k: argument 0 (n) = 1001 is not divisible by 16, as this "
            "kernel was compiled to assume");
  EXPECT_EQ(validateLaunch(md, {}, {32, int64_t(-12), 1.0f}),
            "kernel k: argument 1 (m) = -12 is not divisible by 8, as this "
            "kernel was compiled to assume");
  EXPECT_EQ(validateLaunch(md, {}, {32, 64, 1}),
            "kernel k: argument 2 (s) expects fp32, got i32");
}

TEST(KernelArg, UnsupportedScalarType) {
  KernelMetadata md;
  md.kernel = "k";
  md.params = {{"h", "fp16", 1}};
  EXPECT_EQ(validateLaunch(md, {}, {1.0f}),
            "kernel k: argument 0 (h) has type fp16, which launch() does not "
            "support");
}

TEST(KernelArg, ZeroGrid) {
  auto p = KernelArg::pointer(kAligned);
  EXPECT_EQ(validateLaunch(addKernel(), {8, 0, 1}, {p, p, p, 1}),
            "kernel add_kernel: grid (8, 0, 1) has a zero dimension");
}

// CUDA's limits: 2^31 - 1 programs along x, 65535 along y and z.
TEST(KernelArg, GridBeyondCudaLimits) {
  auto p = KernelArg::pointer(kAligned);
  EXPECT_EQ(validateLaunch(addKernel(), {2147483647u, 65535, 65535},
                           {p, p, p, 1}),
            "");
  EXPECT_EQ(validateLaunch(addKernel(), {2147483648u, 1, 1}, {p, p, p, 1}),
            "kernel add_kernel: grid (2147483648, 1, 1) has 2147483648 "
            "programs along x, more than the limit of 2147483647");
  EXPECT_EQ(validateLaunch(addKernel(), {1, 65536, 1}, {p, p, p, 1}),
            "kernel add_kernel: grid (1, 65536, 1) has 65536 programs along "
            "y, more than the limit of 65535");
  EXPECT_EQ(validateGrid("k", {1, 1, 70000}),
            "kernel k: grid (1, 1, 70000) has 70000 programs along z, more "
            "than the limit of 65535");
  // A device's own limits, where they are lower.
  EXPECT_EQ(validateGrid("k", {5, 1, 1}, {4, 4, 4}),
            "kernel k: grid (5, 1, 1) has 5 programs along x, more than the "
            "limit of 4");
}

// A pointer's dtype must be the parameter's, or integers that carry its
// bits (the other signedness, fp16/bf16 in 16 bits, fp8 in 8).
TEST(KernelArg, PointerDTypes) {
  EXPECT_TRUE(dtypeHolds("fp32", "fp32"));
  EXPECT_TRUE(dtypeHolds("", "fp32")); // unknown: not checked
  EXPECT_TRUE(dtypeHolds("u32", "i32"));
  EXPECT_TRUE(dtypeHolds("i16", "bf16"));
  EXPECT_TRUE(dtypeHolds("u8", "fp8e4nv"));
  EXPECT_FALSE(dtypeHolds("i32", "fp32"));
  EXPECT_FALSE(dtypeHolds("fp32", "i32"));
  EXPECT_FALSE(dtypeHolds("fp16", "bf16"));
  EXPECT_FALSE(dtypeHolds("i64", "i32"));
  EXPECT_FALSE(dtypeHolds("i1", "i8"));
  EXPECT_FALSE(dtypeHolds("fp64", "fp32"));

  auto p = KernelArg::pointer(kAligned);
  EXPECT_EQ(validateLaunch(addKernel(), {},
                           {Ptr<int32_t>(kAligned), p, p, 1}),
            "kernel add_kernel: argument 0 (x_ptr) expects *fp32, got *i32");
  EXPECT_EQ(validateLaunch(addKernel(), {},
                           {p, p, Ptr<double>(kAligned), 1}),
            "kernel add_kernel: argument 2 (out_ptr) expects *fp32, got *fp64");
  EXPECT_EQ(validateLaunch(addKernel(), {}, {Ptr<float>(kAligned), p, p, 1}),
            "");
}

// An int64_t for an i32 parameter: out of range is said so.
TEST(KernelArg, IntegerOutOfRange) {
  auto p = KernelArg::pointer(kAligned);
  EXPECT_EQ(validateLaunch(addKernel(), {}, {p, p, p, int64_t(1) << 40}),
            "kernel add_kernel: argument 3 (n) = 1099511627776 does not fit "
            "in i32");
  EXPECT_EQ(validateLaunch(addKernel(), {}, {p, p, p, int64_t(-3000000000)}),
            "kernel add_kernel: argument 3 (n) = -3000000000 does not fit in "
            "i32");
  KernelMetadata md;
  md.kernel = "k";
  md.params = {{"u", "u32", 1}};
  EXPECT_EQ(validateLaunch(md, {}, {int64_t(-1)}),
            "kernel k: argument 0 (u) = -1 does not fit in u32");
  EXPECT_EQ(validateLaunch(md, {}, {int64_t(4000000000)}),
            "kernel k: argument 0 (u) expects u32, got i64");
}

// The interpreter's launches take its own buffers.
TEST(KernelArg, BackendOfBuffers) {
  DeviceBuffer host(64, Backend::Interpreter);
  host.setDType("fp32");
  auto p = KernelArg::pointer(kAligned);
  EXPECT_EQ(validateLaunch(addKernel(), {}, {host, p, p, 1}),
            "kernel add_kernel: argument 0 (x_ptr) is a host buffer of the "
            "interpreter, not device memory");
  EXPECT_EQ(validateLaunch(addKernel(), {}, {p, host, host, 1},
                           Backend::Interpreter),
            "kernel add_kernel: argument 0 (x_ptr) is device memory, but the "
            "kernel runs on the interpreter");
}

// What a kernel's masked accesses reach (KernelMetadata::accesses, as the
// compiler writes them): out[pid * 4 + q] for q < 4 where < n.
KernelMetadata boundedAdd() {
  KernelMetadata md = addKernel();
  md.params[0].divisibility = md.params[1].divisibility =
      md.params[2].divisibility = 1;
  AccessInfo access;
  access.param = 2;
  AccessInfo::Term term;
  term.stride.value = 1;
  term.count.op = HostExpr::Op::Grid;
  term.count.value = 0;
  term.scale = 4;
  term.extent = 4;
  term.bounded = true;
  term.bound.op = HostExpr::Op::Arg;
  term.bound.value = 3;
  access.terms.push_back(term);
  md.accesses.push_back(access);
  return md;
}

TEST(KernelArg, BufferTooSmallForTheMasks) {
  DeviceBuffer out(40, Backend::Interpreter); // 10 floats
  auto p = KernelArg::pointer(kAligned);
  KernelMetadata md = boundedAdd();
  // n = 10 in 3 programs of 4: the last element is 9.
  EXPECT_EQ(validateBuffers(md, {3}, {p, p, out, 10}), "");
  EXPECT_EQ(validateBuffers(md, {3}, {p, p, out, 11}),
            "kernel add_kernel: argument 2 (out_ptr) needs 44 bytes (11 fp32 "
            "elements) for this launch, but its buffer has 40 bytes");
  // The grid covers 8 of n = 11: the launch reaches no further.
  EXPECT_EQ(validateBuffers(md, {2}, {p, p, out, 11}), "");
  // Raw addresses are not checked.
  EXPECT_EQ(validateBuffers(md, {3}, {p, p, p, 1000}), "");
  // n <= 0 masks everything off.
  EXPECT_EQ(validateBuffers(md, {3}, {p, p, out, -5}), "");
}

} // namespace
