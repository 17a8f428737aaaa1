//===- KernelArgTest.cpp - Launch argument validation (no GPU) ------------===//

#include "tile/DeviceBuffer.h"
#include "tile/Kernel.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace tile;

namespace {

KernelMetadata addKernel() {
  KernelMetadata md;
  md.kernel = "add_kernel";
  md.params = {{"x_ptr", ParamType::pointer(DType::FP32), 16},
               {"y_ptr", ParamType::pointer(DType::FP32), 16},
               {"out_ptr", ParamType::pointer(DType::FP32), 16},
               {"n", ParamType::scalar(DType::I32), 1}};
  return md;
}

constexpr uint64_t kAligned = 0x7f0000000100;

TEST(KernelArg, Kinds) {
  EXPECT_EQ(KernelArg(int32_t(3)).dtype(), DType::I32);
  EXPECT_EQ(KernelArg(int64_t(3)).dtype(), DType::I64);
  EXPECT_EQ(KernelArg(1.5f).dtype(), DType::FP32);
  EXPECT_EQ(KernelArg(1.5).dtype(), DType::FP64);
  EXPECT_EQ(KernelArg(true).dtype(), DType::I1);
  EXPECT_EQ(KernelArg(uint8_t(200)).intValue(), 200);
  EXPECT_EQ(KernelArg(int8_t(-3)).intValue(), -3);
  EXPECT_EQ(KernelArg(int16_t(-300)).bits(), 0xfed4u);
  EXPECT_EQ(KernelArg(bf16{0x3fc0}).floatValue(), 1.5);
  KernelArg p = KernelArg::pointer(0x1234);
  EXPECT_TRUE(p.isPointer());
  EXPECT_EQ(p.pointerValue(), 0x1234u);
  EXPECT_EQ(p.typeName(), "pointer");
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
  md.params = {{"n", ParamType::scalar(DType::I32), 16},
               {"m", ParamType::scalar(DType::I64), 8},
               {"s", ParamType::scalar(DType::FP32), 1}};
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

// Every dtype's scalars pass: floats convert to the parameter's precision,
// narrower integers widen, wider ones are refused.
TEST(KernelArg, ScalarsOfEveryDType) {
  KernelMetadata md;
  md.kernel = "k";
  md.params = {{"h", ParamType::scalar(DType::FP16), 1},
               {"b", ParamType::scalar(DType::BF16), 1},
               {"c", ParamType::scalar(DType::I8), 1},
               {"u", ParamType::scalar(DType::U16), 1},
               {"f", ParamType::scalar(DType::I1), 1},
               {"d", ParamType::scalar(DType::FP64), 1}};
  EXPECT_EQ(validateLaunch(md, {}, {1, fp16{0x3c00}, int8_t(-1), uint8_t(7),
                                    true, 2.5f}),
            "kernel k: argument 0 (h) expects fp16, got i32");
  EXPECT_EQ(validateLaunch(md, {}, {1.0f, bf16{0x3f80}, int8_t(-1), uint8_t(7),
                                    true, 2.5f}),
            "");
  EXPECT_EQ(validateLaunch(md, {}, {1.0f, 1.0f, int16_t(1), uint8_t(7), true,
                                    2.5}),
            "kernel k: argument 2 (c) expects i8, got i16");
  EXPECT_EQ(validateLaunch(md, {}, {1.0f, 1.0f, int8_t(1), uint8_t(7), 1, 2.5}),
            "kernel k: argument 4 (f) expects i1, got i32");
  // An unsigned argument for a signed parameter of its width must fit it.
  KernelMetadata n;
  n.kernel = "k";
  n.params = {{"n", ParamType::scalar(DType::I32), 1},
              {"m", ParamType::scalar(DType::U32), 3}};
  EXPECT_EQ(validateLaunch(n, {}, {uint32_t(7), int32_t(-3)}), "");
  EXPECT_EQ(validateLaunch(n, {}, {uint32_t(0xffffffffu), uint32_t(3)}),
            "kernel k: argument 0 (n) = 4294967295 does not fit in i32");
  EXPECT_EQ(validateLaunch(n, {}, {int32_t(1), uint32_t(0xfffffffeu)}),
            "kernel k: argument 1 (m) = 4294967294 is not divisible by 3, as "
            "this kernel was compiled to assume");
}

TEST(DType, FloatEncodings) {
  EXPECT_EQ(encodeFloat(DType::FP16, 1.0), 0x3c00u);
  EXPECT_EQ(encodeFloat(DType::FP16, 65504.0), 0x7bffu);
  EXPECT_EQ(encodeFloat(DType::FP16, 65520.0), 0x7c00u); // rounds to inf
  EXPECT_EQ(encodeFloat(DType::FP16, -std::ldexp(1.0, -24)), 0x8001u);
  EXPECT_EQ(encodeFloat(DType::FP16, std::ldexp(1.0, -25)), 0x0000u); // tie
  EXPECT_EQ(encodeFloat(DType::BF16, 1.0 + 1.0 / 256), 0x3f80u); // tie: even
  EXPECT_EQ(encodeFloat(DType::BF16, 1.0 + 3.0 / 256), 0x3f82u); // tie: even
  EXPECT_EQ(encodeFloat(DType::FP8E4NV, 448.0), 0x7eu);
  EXPECT_EQ(encodeFloat(DType::FP8E4NV, 480.0), 0x7fu); // no inf: NaN
  EXPECT_EQ(encodeFloat(DType::FP8E5, 57344.0), 0x7bu);
  for (DType dtype : {DType::FP16, DType::BF16, DType::FP8E5, DType::FP8E4NV})
    for (uint64_t bits = 0; bits < (info(dtype).bits == 8 ? 256u : 65536u);
         ++bits) {
      double value = decodeFloat(dtype, bits);
      if (!std::isnan(value))
        EXPECT_EQ(encodeFloat(dtype, value), bits) << name(dtype);
    }
}

TEST(DType, SignatureTypes) {
  auto parse = [](const char *text, std::string *error = nullptr) {
    return parseSignatureType(text, error);
  };
  ASSERT_TRUE(parse("*fp32:16"));
  EXPECT_EQ(parse("*fp32:16")->type, ParamType::pointer(DType::FP32));
  EXPECT_EQ(parse("*fp32:16")->hint, 16u);
  EXPECT_EQ(parse(" i32 : 1 ")->hint, 1u);
  EXPECT_EQ(parse("fp16")->hint, 0u);
  EXPECT_EQ(parse("*fp8e5")->type, ParamType::pointer(DType::FP8E5));
  // Not types, and no error: a constexpr's value, an unknown dtype.
  std::string error;
  EXPECT_FALSE(parse("128", &error));
  EXPECT_FALSE(parse("*fp33", &error));
  EXPECT_EQ(error, "");
  // Triton's hints are 16 and 1; tilec takes the powers of two between
  // too (a stride's real divisor); anything else is refused, saying why.
  EXPECT_EQ(parse("i32:8")->hint, 8u);
  EXPECT_EQ(parse("*fp16:4")->hint, 4u);
  EXPECT_EQ(parse("i64:2")->hint, 2u);
  for (const char *bad :
       {"*fp32:abc", "i32:7", "i32:0", "i32:", "i32:16x", "i32:32"}) {
    error.clear();
    EXPECT_FALSE(parse(bad, &error)) << bad;
    EXPECT_NE(error.find("the hint after ':' must be 16"), std::string::npos)
        << bad << ": " << error;
  }
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

// A kernel whose programs run as clusters starts grid * clusterDims CTAs:
// those meet the limits.
TEST(KernelArg, ClusterGridBeyondCudaLimits) {
  auto p = KernelArg::pointer(kAligned);
  KernelMetadata md = addKernel();
  md.clusterDims = {4, 1, 1};
  EXPECT_EQ(validateLaunch(md, {536870911u, 65535, 65535}, {p, p, p, 1}), "");
  EXPECT_EQ(validateLaunch(md, {536870912u, 1, 1}, {p, p, p, 1}),
            "kernel add_kernel: grid (536870912, 1, 1) in clusters of (4, 1, "
            "1) CTAs starts 2147483648 CTAs along x, more than the limit of "
            "2147483647");
}

// A pointer's dtype must be the parameter's, or integers that carry its
// bits (the other signedness, fp16/bf16 in 16 bits, fp8 in 8).
TEST(KernelArg, PointerDTypes) {
  EXPECT_TRUE(dtypeHolds(DType::FP32, DType::FP32));
  EXPECT_TRUE(dtypeHolds(std::nullopt, DType::FP32)); // unknown: not checked
  EXPECT_TRUE(dtypeHolds(DType::U32, DType::I32));
  EXPECT_TRUE(dtypeHolds(DType::I16, DType::BF16));
  EXPECT_TRUE(dtypeHolds(DType::U8, DType::FP8E4NV));
  EXPECT_FALSE(dtypeHolds(DType::I32, DType::FP32));
  EXPECT_FALSE(dtypeHolds(DType::FP32, DType::I32));
  EXPECT_FALSE(dtypeHolds(DType::FP16, DType::BF16));
  EXPECT_FALSE(dtypeHolds(DType::I64, DType::I32));
  EXPECT_FALSE(dtypeHolds(DType::I1, DType::I8));
  EXPECT_FALSE(dtypeHolds(DType::FP64, DType::FP32));

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
  md.params = {{"u", ParamType::scalar(DType::U32), 1}};
  EXPECT_EQ(validateLaunch(md, {}, {int64_t(-1)}),
            "kernel k: argument 0 (u) = -1 does not fit in u32");
  EXPECT_EQ(validateLaunch(md, {}, {int64_t(4000000000)}),
            "kernel k: argument 0 (u) expects u32, got i64");
}

// The interpreter's launches take its own buffers.
TEST(KernelArg, BackendOfBuffers) {
  DeviceBuffer host(64, Backend::Interpreter);
  host.setDType(tile::DType::FP32);
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
