//===- ThreadLayoutTest.cpp - Which thread holds which element ------------===//

#include "tilec/Dialect/TileGPU/IR/ThreadLayout.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

#include <set>

using namespace mlir;
using namespace mlir::tilegpu;

namespace {

class ThreadLayoutTest : public ::testing::Test {
protected:
  ThreadLayoutTest() { context.loadDialect<TileGPUDialect>(); }

  BlockedEncodingAttr blocked(ArrayRef<unsigned> sizePerThread,
                              ArrayRef<unsigned> threadsPerWarp,
                              ArrayRef<unsigned> warpsPerCTA,
                              ArrayRef<unsigned> order) {
    return BlockedEncodingAttr::get(&context, sizePerThread, threadsPerWarp,
                                    warpsPerCTA, order);
  }
  SliceEncodingAttr slice(unsigned dim, Attribute parent) {
    return SliceEncodingAttr::get(&context, dim, parent);
  }
  ThreadLayout layout(ArrayRef<int64_t> shape, Attribute encoding) {
    auto type = RankedTensorType::get(shape, IntegerType::get(&context, 32),
                                      encoding);
    std::optional<ThreadLayout> result = ThreadLayout::get(type);
    EXPECT_TRUE(result.has_value());
    return *result;
  }

  /// Every element number maps to a distinct local index and back.
  static void expectInverse(const ThreadLayout &l) {
    std::set<SmallVector<int64_t>> seen;
    for (unsigned e = 0; e < l.getNumElems(); ++e) {
      SmallVector<int64_t> local = l.getLocalIndex(e);
      ASSERT_EQ(local.size(), l.getRootRank());
      for (unsigned d = 0; d < l.getRootRank(); ++d) {
        EXPECT_GE(local[d], 0);
        EXPECT_LT(local[d], l.getLocalCount(d));
      }
      EXPECT_EQ(l.linearize(local), e);
      EXPECT_TRUE(seen.insert(local).second);
    }
  }

  /// Over all threads of the CTA, the elements cover the root shape, each
  /// `copies` times.
  static void expectCoverage(const ThreadLayout &l, unsigned numWarps,
                             unsigned copies) {
    BlockedEncodingAttr b = l.getBlocked();
    unsigned rank = l.getRootRank();
    std::map<SmallVector<int64_t>, unsigned> hits;
    for (unsigned tid = 0; tid < numWarps * 32; ++tid) {
      unsigned lane = tid % 32, warp = tid / 32;
      SmallVector<int64_t> base(rank);
      for (unsigned d : b.getOrder()) {
        unsigned laneD = lane % b.getThreadsPerWarp()[d];
        unsigned warpD = warp % b.getWarpsPerCTA()[d];
        lane /= b.getThreadsPerWarp()[d];
        warp /= b.getWarpsPerCTA()[d];
        base[d] = int64_t(warpD * b.getThreadsPerWarp()[d] + laneD) *
                  b.getSizePerThread()[d];
      }
      for (unsigned e = 0; e < l.getNumElems(); ++e) {
        SmallVector<int64_t> offset = l.getElemOffset(e);
        SmallVector<int64_t> index(rank);
        for (unsigned d = 0; d < rank; ++d)
          index[d] = (base[d] + offset[d]) % l.getRootShape()[d];
        ++hits[index];
      }
    }
    int64_t total = 1;
    for (int64_t s : l.getRootShape())
      total *= s;
    EXPECT_EQ(int64_t(hits.size()), total);
    for (auto &[index, count] : hits)
      EXPECT_EQ(count, copies);
  }

  MLIRContext context;
};

TEST_F(ThreadLayoutTest, Blocked1D) {
  // 4 consecutive elements per thread, 128 threads: 512 per repetition,
  // two repetitions of 1024.
  ThreadLayout l = layout({1024}, blocked({4}, {32}, {4}, {0}));
  EXPECT_EQ(l.getRootRank(), 1u);
  EXPECT_TRUE(l.getSlicedDims().empty());
  EXPECT_EQ(l.getTileExtent(0), 512);
  EXPECT_EQ(l.getLocalCount(0), 8);
  EXPECT_EQ(l.getNumElems(), 8u);
  EXPECT_FALSE(l.wraps(0));
  EXPECT_EQ(l.getElemOffset(0), SmallVector<int64_t>({0}));
  EXPECT_EQ(l.getElemOffset(3), SmallVector<int64_t>({3}));
  EXPECT_EQ(l.getElemOffset(4), SmallVector<int64_t>({512}));
  EXPECT_EQ(l.getElemOffset(7), SmallVector<int64_t>({515}));
  expectInverse(l);
  expectCoverage(l, 4, 1);
}

TEST_F(ThreadLayoutTest, Blocked2DRowMajor) {
  // order [1, 0]: dim 1 fastest, in lanes and in each thread's numbering.
  ThreadLayout l = layout({64, 64}, blocked({1, 4}, {2, 16}, {4, 1}, {1, 0}));
  EXPECT_EQ(l.getTileExtent(0), 8);
  EXPECT_EQ(l.getTileExtent(1), 64);
  EXPECT_EQ(l.getLocalCount(0), 8);
  EXPECT_EQ(l.getLocalCount(1), 4);
  EXPECT_EQ(l.getNumElems(), 32u);
  EXPECT_EQ(l.getLocalIndex(1), SmallVector<int64_t>({0, 1}));
  EXPECT_EQ(l.getLocalIndex(5), SmallVector<int64_t>({1, 1}));
  EXPECT_EQ(l.linearize({7, 3}), 31u);
  // Element 5: second row repetition (8 rows down), second of the 4.
  EXPECT_EQ(l.getElemOffset(5), SmallVector<int64_t>({8, 1}));
  EXPECT_EQ(l.getElemOffset(31), SmallVector<int64_t>({56, 3}));
  expectInverse(l);
  expectCoverage(l, 4, 1);
}

TEST_F(ThreadLayoutTest, Blocked2DColumnMajor) {
  ThreadLayout l = layout({64, 64}, blocked({4, 1}, {16, 2}, {1, 4}, {0, 1}));
  EXPECT_EQ(l.getLocalCount(0), 4);
  EXPECT_EQ(l.getLocalCount(1), 8);
  EXPECT_EQ(l.getLocalIndex(1), SmallVector<int64_t>({1, 0}));
  EXPECT_EQ(l.getLocalIndex(4), SmallVector<int64_t>({0, 1}));
  EXPECT_EQ(l.getElemOffset(4), SmallVector<int64_t>({0, 8}));
  expectInverse(l);
  expectCoverage(l, 4, 1);
}

TEST_F(ThreadLayoutTest, WrapsWhenShapeIsSmallerThanTheLayout) {
  // The layout covers 16 x 32; an 16 x 8 tensor repeats over 4 column
  // groups of threads.
  ThreadLayout l = layout({16, 8}, blocked({2, 2}, {8, 4}, {1, 4}, {1, 0}));
  EXPECT_FALSE(l.wraps(0));
  EXPECT_TRUE(l.wraps(1));
  EXPECT_EQ(l.getLocalCount(0), 2);
  EXPECT_EQ(l.getLocalCount(1), 2);
  EXPECT_EQ(l.getNumElems(), 4u);
  expectInverse(l);
  expectCoverage(l, 4, 4);

  // Fewer elements than one thread's block: each thread holds them all.
  ThreadLayout tiny = layout({2}, blocked({4}, {32}, {4}, {0}));
  EXPECT_TRUE(tiny.wraps(0));
  EXPECT_EQ(tiny.getNumElems(), 2u);
  expectCoverage(tiny, 4, 128);
}

TEST_F(ThreadLayoutTest, SliceAlongColumns) {
  BlockedEncodingAttr parent = blocked({1, 4}, {2, 16}, {4, 1}, {1, 0});
  // rows[:, None]: the tensor is dim 0 of the parent, dim 1 is sliced.
  ThreadLayout l = layout({64}, slice(1, parent));
  EXPECT_EQ(l.getBlocked(), parent);
  EXPECT_EQ(l.getRootRank(), 2u);
  EXPECT_EQ(l.getRootShape(), ArrayRef<int64_t>({64, 1}));
  EXPECT_EQ(l.getSlicedDims(), ArrayRef<unsigned>({1}));
  EXPECT_EQ(l.getTensorDim(0), 0);
  EXPECT_EQ(l.getTensorDim(1), -1);
  EXPECT_EQ(l.getLocalCount(1), 1);
  EXPECT_EQ(l.getNumElems(), 8u);
  expectInverse(l);
  // The 16 lanes along dim 1 all hold the same rows.
  expectCoverage(l, 4, 16);
}

TEST_F(ThreadLayoutTest, SliceAlongRows) {
  BlockedEncodingAttr parent = blocked({1, 4}, {2, 16}, {4, 1}, {1, 0});
  // cols[None, :]: the tensor is dim 1 of the parent.
  ThreadLayout l = layout({64}, slice(0, parent));
  EXPECT_EQ(l.getRootShape(), ArrayRef<int64_t>({1, 64}));
  EXPECT_EQ(l.getSlicedDims(), ArrayRef<unsigned>({0}));
  EXPECT_EQ(l.getTensorDim(0), -1);
  EXPECT_EQ(l.getTensorDim(1), 0);
  EXPECT_EQ(l.getNumElems(), 4u);
  EXPECT_EQ(l.getElemOffset(3), SmallVector<int64_t>({0, 3}));
  expectInverse(l);
  expectCoverage(l, 4, 8);
}

TEST_F(ThreadLayoutTest, NestedSliceOfTheSameDimension) {
  // x[None, None, :] of a 3-D layout: dims 0 and 1 sliced.
  BlockedEncodingAttr parent = blocked({1, 1, 4}, {2, 4, 4}, {4, 1, 1}, {2, 1, 0});
  ThreadLayout l = layout({16}, slice(0, slice(0, parent)));
  EXPECT_EQ(l.getRootRank(), 3u);
  EXPECT_EQ(l.getRootShape(), ArrayRef<int64_t>({1, 1, 16}));
  EXPECT_EQ(l.getSlicedDims(), ArrayRef<unsigned>({0, 1}));
  EXPECT_EQ(l.getTensorDim(0), -1);
  EXPECT_EQ(l.getTensorDim(1), -1);
  EXPECT_EQ(l.getTensorDim(2), 0);
  EXPECT_EQ(l.getNumElems(), 4u);
  expectInverse(l);
}

TEST_F(ThreadLayoutTest, NotADistributedLayout) {
  auto i32 = IntegerType::get(&context, 32);
  EXPECT_FALSE(ThreadLayout::get(RankedTensorType::get({64}, i32)));
  // A 2-D blocked layout on a 1-D tensor.
  EXPECT_FALSE(ThreadLayout::get(RankedTensorType::get(
      {64}, i32, blocked({1, 4}, {2, 16}, {4, 1}, {1, 0}))));
}

TEST_F(ThreadLayoutTest, NumWarpsFromTheModule) {
  OwningOpRef<ModuleOp> module = ModuleOp::create(UnknownLoc::get(&context));
  EXPECT_EQ(getNumWarps(*module), 4u);
  (*module)->setAttr(TileGPUDialect::getNumWarpsAttrName(),
                     IntegerAttr::get(IntegerType::get(&context, 32), 8));
  EXPECT_EQ(getNumWarps(*module), 8u);
}

TEST(ThreadLayout, NestedSlicesOfDifferentDims) {
  MLIRContext context;
  context.loadDialect<TileGPUDialect>();
  auto b3 = BlockedEncodingAttr::get(&context, {1, 1, 4}, {2, 4, 4}, {4, 1, 1},
                                     {2, 1, 0});
  auto i32 = IntegerType::get(&context, 32);
  auto inner2 = SliceEncodingAttr::get(&context, 2, b3);
  auto type = RankedTensorType::get({16}, i32,
                                    SliceEncodingAttr::get(&context, 0, inner2));
  std::optional<ThreadLayout> l = ThreadLayout::get(type);
  EXPECT_TRUE(l.has_value());
  if (l) {
    EXPECT_EQ(l->getRootShape(), ArrayRef<int64_t>({1, 16, 1}));
    EXPECT_EQ(l->getSlicedDims(), ArrayRef<unsigned>({0, 2}));
    EXPECT_EQ(l->getTensorDim(1), 0);
  }

  // slice<dim=1> of slice<dim=0> of a 3-D layout: [a, b, c] -> [b, c] -> [b],
  // root shape [1, 8, 1], sliced {0, 2}.
  auto inner0 = SliceEncodingAttr::get(&context, 0, b3);
  auto type2 = RankedTensorType::get({8}, i32,
                                     SliceEncodingAttr::get(&context, 1, inner0));
  std::optional<ThreadLayout> l2 = ThreadLayout::get(type2);
  ASSERT_TRUE(l2.has_value());
  EXPECT_EQ(l2->getRootShape(), ArrayRef<int64_t>({1, 8, 1}));
  EXPECT_EQ(l2->getSlicedDims(), ArrayRef<unsigned>({0, 2}));
}

} // namespace
