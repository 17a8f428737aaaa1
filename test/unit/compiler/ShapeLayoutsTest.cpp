//===- ShapeLayoutsTest.cpp - Shape ops as renamed registers --------------===//
//
// For layouts the layout pass would give them, the lowering's register map
// of tile.trans, reshape, join and split must send every element of every
// thread to the element the op's semantics name: checked here over all
// registers, lanes and warps against ThreadLayout's positions.
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/TileGPU/IR/ShapeLayouts.h"
#include "tilec/Dialect/TileGPU/IR/ThreadLayout.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace mlir::tilegpu;

namespace {

std::string debugString(Attribute a) {
  std::string text;
  llvm::raw_string_ostream os(text);
  a.print(os);
  return text;
}

class ShapeLayoutsTest : public ::testing::Test {
protected:
  ShapeLayoutsTest() : builder(&context) {
    context.loadDialect<tile::TileDialect, TileGPUDialect>();
    module = ModuleOp::create(builder.getUnknownLoc());
    builder.setInsertionPointToEnd(module->getBody());
  }

  BlockedEncodingAttr blocked(ArrayRef<unsigned> sizePerThread,
                              ArrayRef<unsigned> threadsPerWarp,
                              ArrayRef<unsigned> warpsPerCTA,
                              ArrayRef<unsigned> order) {
    return BlockedEncodingAttr::get(&context, sizePerThread, threadsPerWarp,
                                    warpsPerCTA, order);
  }
  RankedTensorType tensor(ArrayRef<int64_t> shape, Attribute encoding) {
    return RankedTensorType::get(shape, builder.getI32Type(), encoding);
  }
  /// A value of `type` to hang ops on (its producer does not matter).
  Value placeholder(RankedTensorType type) {
    Location loc = builder.getUnknownLoc();
    Value zero =
        arith::ConstantOp::create(builder, loc, builder.getI32IntegerAttr(0));
    return tile::SplatOp::create(builder, loc, type, zero);
  }
  static ThreadLayout layoutOf(Value v) {
    return *ThreadLayout::get(cast<RankedTensorType>(v.getType()));
  }

  /// Every result element of `op` in every thread is the operand element
  /// that `sourceOf(result, position)` names.
  void expectRenames(
      Operation *op, unsigned numWarps,
      function_ref<std::pair<unsigned, SmallVector<int64_t>>(
          unsigned, ArrayRef<int64_t>)>
          sourceOf) {
    auto sources = getRegisterSources(op);
    ASSERT_TRUE(sources.has_value());
    for (unsigned r = 0; r < op->getNumResults(); ++r) {
      ThreadLayout dst = layoutOf(op->getResult(r));
      ASSERT_EQ((*sources)[r].size(), dst.getNumElems());
      for (unsigned warp = 0; warp < numWarps; ++warp)
        for (unsigned lane = 0; lane < 32; ++lane)
          for (unsigned e = 0; e < dst.getNumElems(); ++e) {
            SourceRegister from = (*sources)[r][e];
            ThreadLayout src = layoutOf(op->getOperand(from.operand));
            auto [operand, want] = sourceOf(r, dst.getPosition(e, lane, warp));
            EXPECT_EQ(from.operand, operand);
            EXPECT_EQ(src.getPosition(from.reg, lane, warp), want)
                << "result " << r << " register " << e << " lane " << lane
                << " warp " << warp;
          }
    }
  }

  MLIRContext context;
  OpBuilder builder;
  OwningOpRef<ModuleOp> module;
};

TEST_F(ShapeLayoutsTest, TransOfBlockedIsBlockedAndFree) {
  {
    SmallVector<int32_t> order = {1, 0};
    auto srcType = tensor({32, 64}, blocked({1, 4}, {4, 8}, {4, 1}, {1, 0}));
    Value x = placeholder(srcType);
    auto trans = tile::TransOp::create(builder, builder.getUnknownLoc(), tensor({64, 32}, Attribute()), x,
        builder.getDenseI32ArrayAttr(order));
    Attribute result = inferResultEncoding(trans, srcType.getEncoding());
    ASSERT_TRUE(isa_and_nonnull<BlockedEncodingAttr>(result));
    EXPECT_EQ(result, blocked({4, 1}, {8, 4}, {1, 4}, {0, 1})) << debugString(result);
    trans.getResult().setType(tensor({64, 32}, result));
    expectRenames(trans, 4, [](unsigned, ArrayRef<int64_t> p) {
      return std::pair(0u, SmallVector<int64_t>{p[1], p[0]});
    });
  }
}

TEST_F(ShapeLayoutsTest, PermuteOfMmaIsLinearAndFree) {
  // A 3-D permutation of a tensor-core accumulator: no blocked layout
  // holds it, a linear one does.
  auto mma = MmaEncodingAttr::get(&context, 2, {1, 2, 2}, {1, 16, 8});
  auto srcType = tensor({2, 32, 32}, mma);
  Value x = placeholder(srcType);
  auto trans = tile::TransOp::create(builder, builder.getUnknownLoc(), tensor({32, 2, 32}, Attribute()), x,
      builder.getDenseI32ArrayAttr({2, 0, 1}));
  Attribute result = inferResultEncoding(trans, mma);
  ASSERT_TRUE(isa_and_nonnull<LinearEncodingAttr>(result));
  trans.getResult().setType(tensor({32, 2, 32}, result));
  expectRenames(trans, 4, [](unsigned, ArrayRef<int64_t> p) {
    return std::pair(0u, SmallVector<int64_t>{p[1], p[2], p[0]});
  });
  // And back: the source layout inferred from the result is the mma one's
  // moves.
  Attribute back = inferSourceEncoding(trans, result);
  EXPECT_EQ(ThreadLayout::get(tensor({2, 32, 32}, back))->getRegBases(),
            ThreadLayout::get(srcType)->getRegBases());
}

TEST_F(ShapeLayoutsTest, ReshapeRenamesRowMajorOffsets) {
  auto srcType = tensor({16, 32}, blocked({2, 4}, {8, 4}, {2, 2}, {1, 0}));
  SmallVector<SmallVector<int64_t>> shapes = {
      {512}, {4, 4, 32}, {32, 16}, {2, 256}};
  for (ArrayRef<int64_t> shape : shapes) {
    Value x = placeholder(srcType);
    auto reshape = tile::ReshapeOp::create(builder, builder.getUnknownLoc(), tensor(shape, Attribute()), x);
    Attribute result = inferResultEncoding(reshape, srcType.getEncoding());
    ASSERT_TRUE(result);
    reshape.getResult().setType(tensor(shape, result));
    expectRenames(reshape, 4, [&](unsigned, ArrayRef<int64_t> p) {
      int64_t flat = 0;
      for (auto [d, i] : llvm::enumerate(p))
        flat = flat * shape[d] + i;
      return std::pair(0u, SmallVector<int64_t>{flat / 32, flat % 32});
    });
  }
}

TEST_F(ShapeLayoutsTest, JoinAndSplitPickTheOperandByARegisterBit) {
  for (Attribute encoding :
       {Attribute(blocked({1, 4}, {8, 4}, {4, 1}, {1, 0})),
        Attribute(MmaEncodingAttr::get(&context, 2, {2, 2}, {16, 8}))}) {
    auto halfType = tensor({32, 16}, encoding);
    Value a = placeholder(halfType), b = placeholder(halfType);
    auto join = tile::JoinOp::create(builder, builder.getUnknownLoc(), tensor({32, 16, 2}, Attribute()), a, b);
    Attribute joined = inferResultEncoding(join, encoding);
    ASSERT_TRUE(joined);
    join.getResult().setType(tensor({32, 16, 2}, joined));
    expectRenames(join, 4, [](unsigned, ArrayRef<int64_t> p) {
      return std::pair(unsigned(p[2]), SmallVector<int64_t>{p[0], p[1]});
    });

    auto split = tile::SplitOp::create(builder, builder.getUnknownLoc(), tensor({32, 16}, Attribute()),
        tensor({32, 16}, Attribute()), join.getResult());
    Attribute halves = inferResultEncoding(split, joined);
    ASSERT_TRUE(halves);
    split.getLhs().setType(tensor({32, 16}, halves));
    split.getRhs().setType(tensor({32, 16}, halves));
    expectRenames(split, 4, [](unsigned r, ArrayRef<int64_t> p) {
      return std::pair(0u, SmallVector<int64_t>{p[0], p[1], int64_t(r)});
    });
  }
}

TEST_F(ShapeLayoutsTest, SplitNeedsBothHalvesInOneThread) {
  // The pair dimension spread over lanes: no layout of the halves is free.
  auto type = tensor({64, 2}, blocked({1, 1}, {16, 2}, {4, 1}, {1, 0}));
  Value x = placeholder(type);
  auto split = tile::SplitOp::create(builder, builder.getUnknownLoc(), tensor({64}, Attribute()),
      tensor({64}, Attribute()), x);
  EXPECT_FALSE(inferResultEncoding(split, type.getEncoding()));
  // What the halves' layout asks of the source puts the pair in registers.
  Attribute want = inferSourceEncoding(
      split, blocked({1}, {32}, {4}, {0}));
  EXPECT_EQ(want, blocked({1, 2}, {32, 1}, {4, 1}, {1, 0}));
}

TEST_F(ShapeLayoutsTest, LinearEncodingRoundTripsThroughText) {
  auto linear = LinearEncodingAttr::get(
      &context, 2, {LayoutBasis{1, 1}, LayoutBasis{0, 8}},
      {LayoutBasis{1, 2}, LayoutBasis{1, 4}, LayoutBasis{0, 1},
       LayoutBasis{0, 2}, LayoutBasis{0, 4}},
      {LayoutBasis{}, LayoutBasis{0, 16}});
  std::string text;
  llvm::raw_string_ostream os(text);
  Attribute(linear).print(os);
  EXPECT_EQ(text, "#tilegpu.linear<{reg = [[0, 1], [8, 0]], lane = [[0, 2], "
                  "[0, 4], [1, 0], [2, 0], [4, 0]], warp = [[0, 0], [16, 0]]}>");
  EXPECT_EQ(parseAttribute(text, &context), linear);
}

} // namespace
