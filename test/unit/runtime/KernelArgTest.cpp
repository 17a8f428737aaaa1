//===- KernelArgTest.cpp - Launch argument validation (no GPU) ------------===//

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

} // namespace
