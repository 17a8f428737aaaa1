//===- InterpreterTest.cpp - Semantics of the tile IR interpreter ---------===//
//
// Runs hand-written tile IR through tilec::interpret and checks Triton's
// semantics bit by bit: integer wrapping, fp16/bf16 rounding after every
// op, truncating division, masking, and the text of its errors.
//
//===----------------------------------------------------------------------===//

#include "tilec/Interpreter/Interpreter.h"
#include "tilec/Pipeline/Registration.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

using tilec::InterpreterArg;

namespace {

class InterpreterTest : public ::testing::Test {
protected:
  InterpreterTest() : context(registry()) {
    context.loadAllAvailableDialects();
    context.printOpOnDiagnostic(false);
  }

  static mlir::DialectRegistry registry() {
    mlir::DialectRegistry r;
    tilec::registerTileDialects(r);
    return r;
  }

  /// Parses `ir` (as the file "k.mlir") and runs @k; diagnostics go to
  /// `errors` as "line:col: message" lines.
  bool run(const std::string &ir, std::vector<InterpreterArg> args,
           unsigned gridX = 1, unsigned gridY = 1, unsigned gridZ = 1) {
    errors.clear();
    mlir::ScopedDiagnosticHandler handler(
        &context, [&](mlir::Diagnostic &diag) {
          if (auto loc =
                  mlir::dyn_cast<mlir::FileLineColLoc>(diag.getLocation()))
            errors += std::to_string(loc.getLine()) + ":" +
                      std::to_string(loc.getColumn()) + ": ";
          errors += diag.str() + "\n";
          return mlir::success();
        });
    mlir::ParserConfig config(&context);
    mlir::OwningOpRef<mlir::ModuleOp> module =
        mlir::parseSourceString<mlir::ModuleOp>(ir, config, "k.mlir");
    if (!module) {
      ADD_FAILURE() << "the test's IR does not parse:\n" << errors;
      return false;
    }
    return mlir::succeeded(
        tilec::interpret(*module, "k", gridX, gridY, gridZ, args));
  }

  template <typename T> static InterpreterArg buffer(std::vector<T> &data) {
    return InterpreterArg::buffer(data.data(), data.size() * sizeof(T));
  }

  mlir::MLIRContext context;
  std::string errors;
};

TEST_F(InterpreterTest, I8ArithmeticWraps) {
  const char *ir = R"(
func.func @k(%s: !tile.ptr<i8> {tile.name = "s"}, %p: !tile.ptr<i8> {tile.name = "p"}) {
  %r = tile.make_range {start = 0 : i32, end = 4 : i32} : tensor<4xi32>
  %a = arith.constant dense<[100, -100, 127, 16]> : tensor<4xi8>
  %b = arith.constant dense<[100, 100, 100, 16]> : tensor<4xi8>
  %sum = arith.addi %a, %b : tensor<4xi8>
  %prod = arith.muli %a, %b : tensor<4xi8>
  %ps = tile.splat %s : tensor<4x!tile.ptr<i8>>
  %qs = tile.addptr %ps, %r : tensor<4x!tile.ptr<i8>>, tensor<4xi32>
  tile.store %qs, %sum : tensor<4x!tile.ptr<i8>>
  %pp = tile.splat %p : tensor<4x!tile.ptr<i8>>
  %qp = tile.addptr %pp, %r : tensor<4x!tile.ptr<i8>>, tensor<4xi32>
  tile.store %qp, %prod : tensor<4x!tile.ptr<i8>>
  return
}
)";
  std::vector<int8_t> sum(4), prod(4);
  ASSERT_TRUE(run(ir, {buffer(sum), buffer(prod)})) << errors;
  int a[] = {100, -100, 127, 16}, b[] = {100, 100, 100, 16};
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(sum[i], int8_t(uint8_t(a[i] + b[i]))) << i;
    EXPECT_EQ(prod[i], int8_t(uint8_t(a[i] * b[i]))) << i;
  }
  EXPECT_EQ(sum[0], -56);
  EXPECT_EQ(prod[3], 0);
}

TEST_F(InterpreterTest, F16RoundsToNearestEvenAfterEveryOp) {
  const char *ir = R"(
func.func @k(%out: !tile.ptr<f16> {tile.name = "out"}) {
  %one = arith.constant 1.0 : f16
  %tiny = arith.constant 4.8828125E-4 : f16
  %three = arith.constant 3.0 : f16
  %s = arith.addf %one, %tiny : f16
  %d = arith.subf %s, %one : f16
  %q = arith.divf %one, %three : f16
  %m = arith.mulf %q, %three : f16
  %c1 = arith.constant 1 : i32
  %p1 = tile.addptr %out, %c1 : !tile.ptr<f16>, i32
  %p2 = tile.addptr %p1, %c1 : !tile.ptr<f16>, i32
  %p3 = tile.addptr %p2, %c1 : !tile.ptr<f16>, i32
  tile.store %out, %s : !tile.ptr<f16>
  tile.store %p1, %d : !tile.ptr<f16>
  tile.store %p2, %q : !tile.ptr<f16>
  tile.store %p3, %m : !tile.ptr<f16>
  return
}
)";
  std::vector<uint16_t> out(4, 0xffff);
  ASSERT_TRUE(run(ir, {buffer(out)})) << errors;
  EXPECT_EQ(out[0], 0x3C00); // 1 + 2^-11 ties to even: 1.0
  EXPECT_EQ(out[1], 0x0000); // so (1 + 2^-11) - 1 is 0, not 2^-11
  EXPECT_EQ(out[2], 0x3555); // 1/3 in fp16
  EXPECT_EQ(out[3], 0x3C00); // 0x3555 * 3 = 1 - 2^-12: a tie, to 1.0
}

// 1 + 2^-11 is halfway between two tf32 values: tf32 rounds it away from
// zero (cvt.rna), tf32x3 and ieee keep it whole.
TEST_F(InterpreterTest, DotPrecisions) {
  const char *ir = R"(
func.func @k(%out: !tile.ptr<f32> {tile.name = "out"}) {
  %a = arith.constant dense<[[1.00048828125], [-1.00048828125]]> : tensor<2x1xf32>
  %b = arith.constant dense<[[1.0]]> : tensor<1x1xf32>
  %z = arith.constant dense<0.0> : tensor<2x1xf32>
  %t = tile.dot %a, %b, %z, tf32 : tensor<2x1xf32>, tensor<1x1xf32> -> tensor<2x1xf32>
  %x = tile.dot %a, %b, %z, tf32x3 : tensor<2x1xf32>, tensor<1x1xf32> -> tensor<2x1xf32>
  %i = tile.dot %a, %b, %z, ieee : tensor<2x1xf32>, tensor<1x1xf32> -> tensor<2x1xf32>
  %r = tile.make_range {start = 0 : i32, end = 2 : i32} : tensor<2xi32>
  %r2 = tile.expand_dims %r {axis = 1 : i32} : tensor<2xi32> -> tensor<2x1xi32>
  %s = tile.splat %out : tensor<2x1x!tile.ptr<f32>>
  %p0 = tile.addptr %s, %r2 : tensor<2x1x!tile.ptr<f32>>, tensor<2x1xi32>
  %two = arith.constant dense<2> : tensor<2x1xi32>
  %p1 = tile.addptr %p0, %two : tensor<2x1x!tile.ptr<f32>>, tensor<2x1xi32>
  %p2 = tile.addptr %p1, %two : tensor<2x1x!tile.ptr<f32>>, tensor<2x1xi32>
  tile.store %p0, %t : tensor<2x1x!tile.ptr<f32>>
  tile.store %p1, %x : tensor<2x1x!tile.ptr<f32>>
  tile.store %p2, %i : tensor<2x1x!tile.ptr<f32>>
  return
}
)";
  std::vector<float> out(6, -1.0f);
  ASSERT_TRUE(run(ir, {buffer(out)})) << errors;
  const float tie = 1.0f + 0x1p-11f, up = 1.0f + 0x1p-10f;
  EXPECT_EQ(out[0], up);   // tf32: away from zero, where even would give 1
  EXPECT_EQ(out[1], -up);  // symmetric for negatives
  EXPECT_EQ(out[2], tie);  // tf32x3: big 1 + 2^-10, small -2^-11
  EXPECT_EQ(out[3], -tie);
  EXPECT_EQ(out[4], tie);  // ieee
  EXPECT_EQ(out[5], -tie);
}

// An f16 accumulator sums in f32 and rounds once: 1 + 2^-11 + 2^-11 is
// 1 + 2^-10, where rounding after each product would stay at 1.
TEST_F(InterpreterTest, DotF16AccumulatorRoundsOnce) {
  const char *ir = R"(
func.func @k(%out: !tile.ptr<f16> {tile.name = "out"}) {
  %a = arith.constant dense<[[0.015625, 0.015625]]> : tensor<1x2xf16>
  %b = arith.constant dense<[[0.03125], [0.03125]]> : tensor<2x1xf16>
  %c = arith.constant dense<[[1.0]]> : tensor<1x1xf16>
  %d = tile.dot %a, %b, %c, tf32 : tensor<1x2xf16>, tensor<2x1xf16> -> tensor<1x1xf16>
  %p = tile.splat %out : tensor<1x1x!tile.ptr<f16>>
  tile.store %p, %d : tensor<1x1x!tile.ptr<f16>>
  return
}
)";
  std::vector<uint16_t> out(1, 0xffff);
  ASSERT_TRUE(run(ir, {buffer(out)})) << errors;
  EXPECT_EQ(out[0], 0x3C01);
}

// int8 products accumulate in i32 and wrap; batched dots multiply each
// batch on its own.
TEST_F(InterpreterTest, DotI8WrapsAndBatches) {
  const char *ir = R"(
func.func @k(%out: !tile.ptr<i32> {tile.name = "out"}) {
  %a = arith.constant dense<[[[127, 127]], [[-128, 1]]]> : tensor<2x1x2xi8>
  %b = arith.constant dense<[[[127], [127]], [[2], [3]]]> : tensor<2x2x1xi8>
  %c = arith.constant dense<[[[2147483647]], [[10]]]> : tensor<2x1x1xi32>
  %d = tile.dot %a, %b, %c, tf32 : tensor<2x1x2xi8>, tensor<2x2x1xi8> -> tensor<2x1x1xi32>
  %r = tile.make_range {start = 0 : i32, end = 2 : i32} : tensor<2xi32>
  %r1 = tile.expand_dims %r {axis = 1 : i32} : tensor<2xi32> -> tensor<2x1xi32>
  %r2 = tile.expand_dims %r1 {axis = 2 : i32} : tensor<2x1xi32> -> tensor<2x1x1xi32>
  %s = tile.splat %out : tensor<2x1x1x!tile.ptr<i32>>
  %p = tile.addptr %s, %r2 : tensor<2x1x1x!tile.ptr<i32>>, tensor<2x1x1xi32>
  tile.store %p, %d : tensor<2x1x1x!tile.ptr<i32>>
  return
}
)";
  std::vector<int32_t> out(2, 0);
  ASSERT_TRUE(run(ir, {buffer(out)})) << errors;
  EXPECT_EQ(out[0], int32_t(uint32_t(2147483647u) + 2u * 127u * 127u));
  EXPECT_EQ(out[1], 10 - 256 + 3);
}

TEST_F(InterpreterTest, SignedDivisionTruncatesTowardZero) {
  const char *ir = R"(
func.func @k(%q: !tile.ptr<i32> {tile.name = "q"}, %m: !tile.ptr<i32> {tile.name = "m"}) {
  %r = tile.make_range {start = 0 : i32, end = 5 : i32} : tensor<5xi32>
  %a = arith.constant dense<[-7, 7, -7, 7, -2147483648]> : tensor<5xi32>
  %b = arith.constant dense<[2, 2, -2, -2, -1]> : tensor<5xi32>
  %div = arith.divsi %a, %b : tensor<5xi32>
  %rem = arith.remsi %a, %b : tensor<5xi32>
  %pq = tile.splat %q : tensor<5x!tile.ptr<i32>>
  %aq = tile.addptr %pq, %r : tensor<5x!tile.ptr<i32>>, tensor<5xi32>
  tile.store %aq, %div : tensor<5x!tile.ptr<i32>>
  %pm = tile.splat %m : tensor<5x!tile.ptr<i32>>
  %am = tile.addptr %pm, %r : tensor<5x!tile.ptr<i32>>, tensor<5xi32>
  tile.store %am, %rem : tensor<5x!tile.ptr<i32>>
  return
}
)";
  std::vector<int32_t> q(5), m(5);
  ASSERT_TRUE(run(ir, {buffer(q), buffer(m)})) << errors;
  EXPECT_EQ(q, (std::vector<int32_t>{-3, 3, 3, -3, INT32_MIN}));
  EXPECT_EQ(m, (std::vector<int32_t>{-1, 1, -1, 1, 0}));
}

// x / 0 and x % 0 give what the GPU gives (measured on the H100, Triton's
// the same): all ones and the dividend, a 64-bit dividend that fits in 32
// bits 0xFFFFFFFF (LLVM divides it in 32 bits).
TEST_F(InterpreterTest, DivisionByZeroGivesTheGpusValues) {
  const char *ir = R"(
func.func @k(%q: !tile.ptr<i32> {tile.name = "q"}, %r: !tile.ptr<i32> {tile.name = "r"}, %ql: !tile.ptr<i64> {tile.name = "ql"}, %u: !tile.ptr<i8> {tile.name = "u"}) {
  %i = tile.make_range {start = 0 : i32, end = 4 : i32} : tensor<4xi32>
  %c = arith.constant dense<[-7, 0, 7, 2147483647]> : tensor<4xi32>
  %cl = arith.constant dense<[-7, 7, 4294967296, 9223372036854775807]> : tensor<4xi64>
  %cu = arith.constant dense<[0, 1, 100, -1]> : tensor<4xi8>
  %z = arith.constant dense<0> : tensor<4xi32>
  %zl = arith.constant dense<0> : tensor<4xi64>
  %zu = arith.constant dense<0> : tensor<4xi8>
  %d = arith.divsi %c, %z : tensor<4xi32>
  %m = arith.remsi %c, %z : tensor<4xi32>
  %dl = arith.divsi %cl, %zl : tensor<4xi64>
  %du = arith.divui %cu, %zu : tensor<4xi8>
  %pq = tile.splat %q : tensor<4x!tile.ptr<i32>>
  %aq = tile.addptr %pq, %i : tensor<4x!tile.ptr<i32>>, tensor<4xi32>
  tile.store %aq, %d : tensor<4x!tile.ptr<i32>>
  %pr = tile.splat %r : tensor<4x!tile.ptr<i32>>
  %ar = tile.addptr %pr, %i : tensor<4x!tile.ptr<i32>>, tensor<4xi32>
  tile.store %ar, %m : tensor<4x!tile.ptr<i32>>
  %pl = tile.splat %ql : tensor<4x!tile.ptr<i64>>
  %al = tile.addptr %pl, %i : tensor<4x!tile.ptr<i64>>, tensor<4xi32>
  tile.store %al, %dl : tensor<4x!tile.ptr<i64>>
  %pu = tile.splat %u : tensor<4x!tile.ptr<i8>>
  %au = tile.addptr %pu, %i : tensor<4x!tile.ptr<i8>>, tensor<4xi32>
  tile.store %au, %du : tensor<4x!tile.ptr<i8>>
  return
}
)";
  std::vector<int32_t> q(4), r(4);
  std::vector<int64_t> ql(4);
  std::vector<int8_t> u(4);
  ASSERT_TRUE(run(ir, {buffer(q), buffer(r), buffer(ql), buffer(u)})) << errors;
  EXPECT_EQ(q, (std::vector<int32_t>{-1, -1, -1, -1}));
  EXPECT_EQ(r, (std::vector<int32_t>{-7, 0, 7, 2147483647}));
  EXPECT_EQ(ql, (std::vector<int64_t>{-1, 0xFFFFFFFF, -1, -1}));
  EXPECT_EQ(u, (std::vector<int8_t>{-1, -1, -1, -1}));
}

TEST_F(InterpreterTest, MaskedLoadReturnsOtherWithoutReading) {
  const char *ir = R"(
func.func @k(%x: !tile.ptr<f32> {tile.name = "x"}, %out: !tile.ptr<f32> {tile.name = "out"}) {
  %r = tile.make_range {start = 0 : i32, end = 4 : i32} : tensor<4xi32>
  %c2 = arith.constant dense<2> : tensor<4xi32>
  %mask = arith.cmpi slt, %r, %c2 : tensor<4xi32>
  %px = tile.splat %x : tensor<4x!tile.ptr<f32>>
  %ax = tile.addptr %px, %r : tensor<4x!tile.ptr<f32>>, tensor<4xi32>
  %other = arith.constant dense<9.0> : tensor<4xf32>
  %v = tile.load %ax, %mask, %other : tensor<4x!tile.ptr<f32>>
  %w = tile.load %ax, %mask : tensor<4x!tile.ptr<f32>>
  %sum = arith.addf %v, %w : tensor<4xf32>
  %po = tile.splat %out : tensor<4x!tile.ptr<f32>>
  %ao = tile.addptr %po, %r : tensor<4x!tile.ptr<f32>>, tensor<4xi32>
  %c3 = arith.constant dense<3> : tensor<4xi32>
  %store = arith.cmpi slt, %r, %c3 : tensor<4xi32>
  tile.store %ao, %sum, %store : tensor<4x!tile.ptr<f32>>
  return
}
)";
  // x has 2 elements: lanes 2 and 3 would read out of bounds.
  std::vector<float> x = {1.5f, 2.5f}, out(4, -1.0f);
  ASSERT_TRUE(run(ir, {buffer(x), buffer(out)})) << errors;
  EXPECT_EQ(out, (std::vector<float>{3.0f, 5.0f, 9.0f, -1.0f}));
}

TEST_F(InterpreterTest, OutOfBoundsLoadNamesProgramElementAndBuffer) {
  const char *ir = R"(
func.func @k(%x: !tile.ptr<f32> {tile.name = "x_ptr"}) {
  %r = tile.make_range {start = 0 : i32, end = 4 : i32} : tensor<4xi32>
  %pid = tile.program_id 1 : i32
  %c4 = arith.constant 4 : i32
  %start = arith.muli %pid, %c4 : i32
  %s = tile.splat %start : tensor<4xi32>
  %offs = arith.addi %s, %r : tensor<4xi32>
  %p = tile.splat %x : tensor<4x!tile.ptr<f32>>
  %a = tile.addptr %p, %offs : tensor<4x!tile.ptr<f32>>, tensor<4xi32>
  %v = tile.load %a : tensor<4x!tile.ptr<f32>>
  return
}
)";
  std::vector<float> x(6);
  EXPECT_FALSE(run(ir, {buffer(x)}, 1, 2));
  EXPECT_EQ(errors, "11:8: tl.load out of bounds: element [2] of the tile at "
                    "program (0, 1, 0) reads byte offset 24 of 'x_ptr' (24 "
                    "bytes)\n");
}

TEST_F(InterpreterTest, OutOfBoundsStoreOfA2DTile) {
  const char *ir = R"(
func.func @k(%x: !tile.ptr<i32> {tile.name = "out"}) {
  %r = tile.make_range {start = 0 : i32, end = 2 : i32} : tensor<2xi32>
  %c = tile.make_range {start = 0 : i32, end = 3 : i32} : tensor<3xi32>
  %re = tile.expand_dims %r {axis = 1 : i32} : tensor<2xi32> -> tensor<2x1xi32>
  %ce = tile.expand_dims %c {axis = 0 : i32} : tensor<3xi32> -> tensor<1x3xi32>
  %rb = tile.broadcast %re : tensor<2x1xi32> -> tensor<2x3xi32>
  %cb = tile.broadcast %ce : tensor<1x3xi32> -> tensor<2x3xi32>
  %c3 = arith.constant dense<3> : tensor<2x3xi32>
  %rs = arith.muli %rb, %c3 : tensor<2x3xi32>
  %offs = arith.addi %rs, %cb : tensor<2x3xi32>
  %p = tile.splat %x : tensor<2x3x!tile.ptr<i32>>
  %a = tile.addptr %p, %offs : tensor<2x3x!tile.ptr<i32>>, tensor<2x3xi32>
  tile.store %a, %offs : tensor<2x3x!tile.ptr<i32>>
  return
}
)";
  std::vector<int32_t> big(6, -1), small(5, -1);
  ASSERT_TRUE(run(ir, {buffer(big)})) << errors;
  EXPECT_EQ(big, (std::vector<int32_t>{0, 1, 2, 3, 4, 5}));
  EXPECT_FALSE(run(ir, {buffer(small)}));
  EXPECT_EQ(errors, "14:3: tl.store out of bounds: element [1, 2] of the tile "
                    "at program (0, 0, 0) writes byte offset 20 of 'out' (20 "
                    "bytes)\n");
}

TEST_F(InterpreterTest, LoopCarriesValuesAndIfPicksARegion) {
  const char *ir = R"(
func.func @k(%out: !tile.ptr<i64> {tile.name = "out"}, %n: i32 {tile.name = "n"}) {
  %c0 = arith.constant 0 : i32
  %c3 = arith.constant 3 : i32
  %init = arith.constant dense<0> : tensor<2xi64>
  %res = scf.for %i = %c0 to %n step %c3 iter_args(%acc = %init) -> (tensor<2xi64>) : i32 {
    %c5 = arith.constant 5 : i32
    %small = arith.cmpi slt, %i, %c5 : i32
    %v = scf.if %small -> (i32) {
      %c2 = arith.constant 2 : i32
      %d = arith.muli %i, %c2 : i32
      scf.yield %d : i32
    } else {
      scf.yield %i : i32
    }
    %e = arith.extsi %v : i32 to i64
    %s = tile.splat %e : tensor<2xi64>
    %next = arith.addi %acc, %s : tensor<2xi64>
    scf.yield %next : tensor<2xi64>
  }
  %r = tile.make_range {start = 0 : i32, end = 2 : i32} : tensor<2xi32>
  %p = tile.splat %out : tensor<2x!tile.ptr<i64>>
  %a = tile.addptr %p, %r : tensor<2x!tile.ptr<i64>>, tensor<2xi32>
  tile.store %a, %res : tensor<2x!tile.ptr<i64>>
  return
}
)";
  std::vector<int64_t> out(2);
  // i = 0, 3, 6, 9 -> 0 + 6 + 6 + 9.
  ASSERT_TRUE(run(ir, {buffer(out), InterpreterArg::integer(10)})) << errors;
  EXPECT_EQ(out, (std::vector<int64_t>{21, 21}));
  // No iteration: the initial values.
  ASSERT_TRUE(run(ir, {buffer(out), InterpreterArg::integer(0)})) << errors;
  EXPECT_EQ(out, (std::vector<int64_t>{0, 0}));
}

TEST_F(InterpreterTest, CastsAreCsWithSaturation) {
  const char *ir = R"(
func.func @k(%i: !tile.ptr<i32> {tile.name = "i"}, %h: !tile.ptr<bf16> {tile.name = "h"}) {
  %r = tile.make_range {start = 0 : i32, end = 5 : i32} : tensor<5xi32>
  %f = arith.constant dense<[2.7, -2.7, 0x7FC00000, 1.0e10, -1.0e10]> : tensor<5xf32>
  %t = arith.fptosi %f : tensor<5xf32> to tensor<5xi32>
  %p = tile.splat %i : tensor<5x!tile.ptr<i32>>
  %a = tile.addptr %p, %r : tensor<5x!tile.ptr<i32>>, tensor<5xi32>
  tile.store %a, %t : tensor<5x!tile.ptr<i32>>
  %g = arith.constant dense<[1.00390625, 1.01171875, -3.0, 1.0e30, 0.0]> : tensor<5xf32>
  %b = arith.truncf %g : tensor<5xf32> to tensor<5xbf16>
  %ph = tile.splat %h : tensor<5x!tile.ptr<bf16>>
  %ah = tile.addptr %ph, %r : tensor<5x!tile.ptr<bf16>>, tensor<5xi32>
  tile.store %ah, %b : tensor<5x!tile.ptr<bf16>>
  return
}
)";
  std::vector<int32_t> ints(5);
  std::vector<uint16_t> bf16(5);
  ASSERT_TRUE(run(ir, {buffer(ints), buffer(bf16)})) << errors;
  EXPECT_EQ(ints, (std::vector<int32_t>{2, -2, 0, INT32_MAX, INT32_MIN}));
  // 1 + 2^-8 ties to 1.0; 1 + 3 * 2^-8 ties up to 1 + 2^-6.
  EXPECT_EQ(bf16[0], 0x3F80);
  EXPECT_EQ(bf16[1], 0x3F82);
  EXPECT_EQ(bf16[2], 0xC040);
  EXPECT_EQ(bf16[3], 0x714A); // 1e30 (0x7149F2CA as f32) rounds up
}

TEST_F(InterpreterTest, BoolsExtendAsArithSays) {
  const char *ir = R"(
func.func @k(%out: !tile.ptr<i32> {tile.name = "out"}) {
  %t = arith.constant true
  %u = arith.extui %t : i1 to i32
  %s = arith.extsi %t : i1 to i32
  %c1 = arith.constant 1 : i32
  %p1 = tile.addptr %out, %c1 : !tile.ptr<i32>, i32
  tile.store %out, %u : !tile.ptr<i32>
  tile.store %p1, %s : !tile.ptr<i32>
  return
}
)";
  std::vector<int32_t> out(2);
  ASSERT_TRUE(run(ir, {buffer(out)})) << errors;
  EXPECT_EQ(out, (std::vector<int32_t>{1, -1}));
}

TEST_F(InterpreterTest, UnsupportedOpsAndBadArgumentsAreErrors) {
  const char *ir = R"(
func.func @k(%x: f32 {tile.name = "x"}) {
  %y = math.atan %x : f32
  return
}
)";
  EXPECT_FALSE(run(ir, {InterpreterArg::real(1.0)}));
  EXPECT_EQ(errors, "3:8: the interpreter does not support 'math.atan'\n");

  const char *add = R"(
func.func @k(%x: !tile.ptr<f32> {tile.name = "x"}, %n: i32 {tile.name = "n"}) {
  return
}
)";
  std::vector<float> x(1);
  EXPECT_FALSE(run(add, {buffer(x)}));
  EXPECT_EQ(errors, "2:1: the kernel 'k' takes 2 arguments, 1 was given\n");
  EXPECT_FALSE(
      run(add, {InterpreterArg::integer(1), InterpreterArg::integer(1)}));
  EXPECT_EQ(errors, "2:1: argument 0 ('x') must be a buffer for a parameter "
                    "of type ptr\n");
  EXPECT_FALSE(
      run(add, {buffer(x), InterpreterArg::integer(int64_t(1) << 40)}));
  EXPECT_EQ(errors, "2:1: argument 1 ('n') = 1099511627776 does not fit in "
                    "i32\n");
  EXPECT_FALSE(run(add, {buffer(x), InterpreterArg::integer(1)}, 0));
  EXPECT_EQ(errors, "2:1: the grid (0, 1, 1) has no programs\n");
}

} // namespace
