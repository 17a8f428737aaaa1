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
    std::map<SmallVector<int64_t>, unsigned> hits;
    for (unsigned tid = 0; tid < numWarps * 32; ++tid)
      for (unsigned e = 0; e < l.getNumElems(); ++e) {
        SmallVector<int64_t> p = l.getPosition(e, tid % 32, tid / 32);
        for (unsigned d = 0; d < l.getRootRank(); ++d) {
          EXPECT_GE(p[d], 0);
          EXPECT_LT(p[d], l.getRootShape()[d]);
        }
        ++hits[p];
      }
    int64_t total = 1;
    for (int64_t s : l.getRootShape())
      total *= s;
    EXPECT_EQ(int64_t(hits.size()), total);
    for (auto &[index, count] : hits)
      EXPECT_EQ(count, copies);
  }

  /// A blocked layout puts element k (along d, in the thread's numbering)
  /// of the thread with lane and warp ids split over the dimensions in
  /// `order` at ((warp_d tpw_d + lane_d) spt_d + (k / spt_d) extent_d +
  /// k % spt_d) mod shape_d: the closed form the bases must agree with.
  static void expectBlockedFormula(const ThreadLayout &l,
                                   BlockedEncodingAttr b, unsigned numWarps) {
    unsigned rank = l.getRootRank();
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
        SmallVector<int64_t> local = l.getLocalIndex(e);
        SmallVector<int64_t> p = l.getPosition(e, tid % 32, tid / 32);
        for (unsigned d = 0; d < rank; ++d) {
          int64_t spt = b.getSizePerThread()[d];
          int64_t extent =
              spt * b.getThreadsPerWarp()[d] * b.getWarpsPerCTA()[d];
          int64_t expected = (base[d] + (local[d] / spt) * extent +
                              local[d] % spt) %
                             l.getRootShape()[d];
          EXPECT_EQ(p[d], expected) << "thread " << tid << " element " << e
                                    << " dim " << d;
        }
      }
    }
  }

  MLIRContext context;
};

TEST_F(ThreadLayoutTest, Blocked1D) {
  // 4 consecutive elements per thread, 128 threads: 512 per repetition,
  // two repetitions of 1024.
  ThreadLayout l = layout({1024}, blocked({4}, {32}, {4}, {0}));
  EXPECT_EQ(l.getRootRank(), 1u);
  EXPECT_TRUE(l.getSlicedDims().empty());
  EXPECT_EQ(l.getLocalCount(0), 8);
  EXPECT_EQ(l.getNumElems(), 8u);
  EXPECT_FALSE(l.isReplicated());
  EXPECT_EQ(l.getFastestDim(), 0u);
  EXPECT_EQ(l.getContiguity(), 4u);
  EXPECT_EQ(l.getElemOffset(0), SmallVector<int64_t>({0}));
  EXPECT_EQ(l.getElemOffset(3), SmallVector<int64_t>({3}));
  EXPECT_EQ(l.getElemOffset(4), SmallVector<int64_t>({512}));
  EXPECT_EQ(l.getElemOffset(7), SmallVector<int64_t>({515}));
  expectInverse(l);
  expectCoverage(l, 4, 1);
  expectBlockedFormula(l, blocked({4}, {32}, {4}, {0}), 4);
}

TEST_F(ThreadLayoutTest, Blocked2DRowMajor) {
  // order [1, 0]: dim 1 fastest, in lanes and in each thread's numbering.
  BlockedEncodingAttr b = blocked({1, 4}, {2, 16}, {4, 1}, {1, 0});
  ThreadLayout l = layout({64, 64}, b);
  EXPECT_EQ(l.getFastestDim(), 1u);
  EXPECT_EQ(l.getContiguity(), 4u);
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
  expectBlockedFormula(l, b, 4);
}

TEST_F(ThreadLayoutTest, Blocked2DColumnMajor) {
  BlockedEncodingAttr b = blocked({4, 1}, {16, 2}, {1, 4}, {0, 1});
  ThreadLayout l = layout({64, 64}, b);
  EXPECT_EQ(l.getFastestDim(), 0u);
  EXPECT_EQ(l.getLocalCount(0), 4);
  EXPECT_EQ(l.getLocalCount(1), 8);
  EXPECT_EQ(l.getLocalIndex(1), SmallVector<int64_t>({1, 0}));
  EXPECT_EQ(l.getLocalIndex(4), SmallVector<int64_t>({0, 1}));
  EXPECT_EQ(l.getElemOffset(4), SmallVector<int64_t>({0, 8}));
  expectInverse(l);
  expectCoverage(l, 4, 1);
  expectBlockedFormula(l, b, 4);
}

TEST_F(ThreadLayoutTest, WrapsWhenShapeIsSmallerThanTheLayout) {
  // The layout covers 16 x 32; an 16 x 8 tensor repeats over 4 column
  // groups of threads.
  BlockedEncodingAttr b = blocked({2, 2}, {8, 4}, {1, 4}, {1, 0});
  ThreadLayout l = layout({16, 8}, b);
  EXPECT_TRUE(l.isReplicated());
  // Lanes cover the 8 columns; the warps would move past them, so all
  // four hold the same elements.
  EXPECT_EQ(l.getLaneBases()[1], (LayoutBasis{1, 4}));
  EXPECT_TRUE(l.getWarpBases()[0].isZero());
  EXPECT_TRUE(l.getWarpBases()[1].isZero());
  EXPECT_EQ(l.getLocalCount(0), 2);
  EXPECT_EQ(l.getLocalCount(1), 2);
  EXPECT_EQ(l.getNumElems(), 4u);
  expectInverse(l);
  expectCoverage(l, 4, 4);
  expectBlockedFormula(l, b, 4);

  // Fewer elements than one thread's block: each thread holds them all.
  ThreadLayout tiny = layout({2}, blocked({4}, {32}, {4}, {0}));
  EXPECT_TRUE(tiny.isReplicated());
  EXPECT_EQ(tiny.getNumElems(), 2u);
  expectCoverage(tiny, 4, 128);
}

TEST_F(ThreadLayoutTest, SliceAlongColumns) {
  BlockedEncodingAttr parent = blocked({1, 4}, {2, 16}, {4, 1}, {1, 0});
  // rows[:, None]: the tensor is dim 0 of the parent, dim 1 is sliced.
  ThreadLayout l = layout({64}, slice(1, parent));
  EXPECT_EQ(l.getRootEncoding(), parent);
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

/// mma.sync's fragments as the PTX ISA draws them (lane l, g = l / 4,
/// t = l % 4), against the layouts' registers in order.
class MmaLayoutTest : public ThreadLayoutTest {
protected:
  MmaEncodingAttr mma(ArrayRef<unsigned> warps) {
    SmallVector<unsigned> instr(warps.size(), 1);
    instr[warps.size() - 2] = 16;
    instr[warps.size() - 1] = 8;
    return MmaEncodingAttr::get(&context, 2, warps, instr);
  }
  DotOperandEncodingAttr operand(unsigned opIdx, Attribute parent,
                                 unsigned kWidth) {
    return DotOperandEncodingAttr::get(&context, opIdx, parent, kWidth);
  }
  /// Register i of every lane of warp 0 is at fragment(lane, i).
  static void expectFragment(
      const ThreadLayout &l, unsigned count,
      llvm::function_ref<std::pair<int64_t, int64_t>(unsigned, unsigned)>
          fragment) {
    ASSERT_EQ(l.getNumElems(), count);
    for (unsigned lane = 0; lane < 32; ++lane)
      for (unsigned i = 0; i < count; ++i) {
        auto [row, col] = fragment(lane, i);
        EXPECT_EQ(l.getPosition(i, lane, 0), SmallVector<int64_t>({row, col}))
            << "lane " << lane << " register " << i;
      }
  }
};

TEST_F(MmaLayoutTest, AccumulatorFragment) {
  ThreadLayout l = layout({16, 8}, mma({1, 1}));
  expectFragment(l, 4, [](unsigned lane, unsigned i) {
    return std::pair<int64_t, int64_t>(lane / 4 + 8 * (i / 2),
                                       2 * (lane % 4) + i % 2);
  });
  EXPECT_EQ(l.getFastestDim(), 1u);
  EXPECT_EQ(l.getContiguity(), 2u);
}

TEST_F(MmaLayoutTest, F16OperandFragments) {
  MmaEncodingAttr parent = mma({1, 1});
  expectFragment(layout({16, 16}, operand(0, parent, 2)), 8,
                 [](unsigned lane, unsigned i) {
                   return std::pair<int64_t, int64_t>(
                       lane / 4 + 8 * (i / 2 % 2),
                       2 * (lane % 4) + i % 2 + 8 * (i / 4));
                 });
  expectFragment(layout({16, 8}, operand(1, parent, 2)), 4,
                 [](unsigned lane, unsigned i) {
                   return std::pair<int64_t, int64_t>(
                       2 * (lane % 4) + i % 2 + 8 * (i / 2), lane / 4);
                 });
}

TEST_F(MmaLayoutTest, TF32OperandFragments) {
  MmaEncodingAttr parent = mma({1, 1});
  expectFragment(layout({16, 8}, operand(0, parent, 1)), 4,
                 [](unsigned lane, unsigned i) {
                   return std::pair<int64_t, int64_t>(lane / 4 + 8 * (i % 2),
                                                      lane % 4 + 4 * (i / 2));
                 });
  expectFragment(layout({8, 8}, operand(1, parent, 1)), 2,
                 [](unsigned lane, unsigned i) {
                   return std::pair<int64_t, int64_t>(lane % 4 + 4 * i,
                                                      lane / 4);
                 });
}

TEST_F(MmaLayoutTest, I8OperandFragments) {
  MmaEncodingAttr parent = mma({1, 1});
  expectFragment(layout({16, 32}, operand(0, parent, 4)), 16,
                 [](unsigned lane, unsigned i) {
                   return std::pair<int64_t, int64_t>(
                       lane / 4 + 8 * (i / 4 % 2),
                       4 * (lane % 4) + i % 4 + 16 * (i / 8));
                 });
  expectFragment(layout({32, 8}, operand(1, parent, 4)), 8,
                 [](unsigned lane, unsigned i) {
                   return std::pair<int64_t, int64_t>(
                       4 * (lane % 4) + i % 4 + 16 * (i / 4), lane / 4);
                 });
}

TEST_F(MmaLayoutTest, WarpsAndRepetitionsCoverTheTile) {
  // 2 x 2 warps over a 128 x 64 accumulator: each warp 4 x 4 instruction
  // tiles, each thread 64 registers.
  MmaEncodingAttr parent = mma({2, 2});
  ThreadLayout acc = layout({128, 64}, parent);
  EXPECT_EQ(acc.getNumElems(), 64u);
  expectInverse(acc);
  expectCoverage(acc, 4, 1);
  // A is shared by the two warps along N, B by the two along M.
  ThreadLayout a = layout({128, 32}, operand(0, parent, 2));
  expectInverse(a);
  expectCoverage(a, 4, 2);
  ThreadLayout b = layout({32, 64}, operand(1, parent, 2));
  expectCoverage(b, 4, 2);
  // Batched: warps over the batch too.
  ThreadLayout batched = layout({4, 32, 16}, mma({2, 2, 1}));
  expectCoverage(batched, 4, 1);
}

TEST_F(MmaLayoutTest, SmallTilesPadToTheInstruction) {
  // A 3 x 3 dot: the accumulator pads to 16 x 8, A to 16 x 16 (K of f16),
  // B to 16 x 8; extents stay 3.
  MmaEncodingAttr parent = mma({2, 2});
  ThreadLayout acc = layout({3, 3}, parent);
  EXPECT_EQ(acc.getRootShape(), ArrayRef<int64_t>({16, 8}));
  EXPECT_EQ(acc.getRootExtent(), ArrayRef<int64_t>({3, 3}));
  EXPECT_EQ(acc.getNumElems(), 4u);
  expectCoverage(acc, 4, 4);
  EXPECT_EQ(layout({3, 3}, operand(0, parent, 2)).getRootShape(),
            ArrayRef<int64_t>({16, 16}));
  EXPECT_EQ(layout({3, 3}, operand(1, parent, 1)).getRootShape(),
            ArrayRef<int64_t>({8, 8}));
  // A dimension of one element stays 1 (broadcasts, slices).
  EXPECT_EQ(layout({64, 1}, parent).getRootShape(), ArrayRef<int64_t>({64, 1}));
  ThreadLayout rows = layout({64}, slice(1, parent));
  EXPECT_EQ(rows.getRootShape(), ArrayRef<int64_t>({64, 1}));
  expectCoverage(rows, 4, 8);
}

TEST_F(MmaLayoutTest, WgmmaRegisterOperandIsTheAccumulatorsThreads) {
  // Two warpgroups along M of a 128 x 64 wgmma tile (warps M first): warp
  // w holds rows 16 w ... of A, as of the accumulator, so an accumulator
  // rounded to f16 is the next dot's A without moving (attention's P).
  auto wgmma = MmaEncodingAttr::get(&context, 3, {8, 1}, {64, 64});
  ThreadLayout acc = layout({128, 64}, wgmma);
  ThreadLayout a = layout({128, 64}, operand(0, wgmma, 2));
  expectInverse(a);
  expectCoverage(a, 8, 1);
  for (unsigned warp = 0; warp < 8; ++warp)
    EXPECT_EQ(a.getPosition(0, 0, warp), SmallVector<int64_t>({16 * warp, 0}));
  std::optional<SmallVector<unsigned>> permutation =
      getRegisterPermutation(acc, a);
  ASSERT_TRUE(permutation.has_value());
  for (unsigned tid = 0; tid < 256; ++tid)
    for (unsigned e = 0; e < a.getNumElems(); ++e)
      EXPECT_EQ(a.getPosition(e, tid % 32, tid / 32),
                acc.getPosition((*permutation)[e], tid % 32, tid / 32));
  // Layouts that put elements in other threads are no permutation: B's,
  // or mma.sync's A with warps along N.
  EXPECT_FALSE(getRegisterPermutation(acc, layout({128, 64}, operand(1, wgmma, 2))));
  EXPECT_FALSE(getRegisterPermutation(layout({64, 64}, mma({2, 2})),
                                      layout({64, 64}, operand(0, mma({2, 2}), 2))));
}

TEST_F(MmaLayoutTest, Fp8AccumulatorReachesWgmmaOperandByPairShuffles) {
  // fp8 P: the accumulator holds two consecutive columns a thread, wgmma's
  // 8-bit A four (kWidth 4). Run the shuffles as the lowering emits them,
  // every lane of every warp, and every element must land where A wants it.
  auto wgmma = MmaEncodingAttr::get(&context, 3, {8, 1}, {64, 128});
  ThreadLayout acc = layout({128, 128}, wgmma);
  ThreadLayout a = layout({128, 128}, operand(0, wgmma, 4));
  EXPECT_FALSE(getRegisterPermutation(acc, a));
  auto words = getPairShuffles(acc, a);
  ASSERT_TRUE(words.has_value());
  ASSERT_EQ(words->size() * 4, a.getNumElems());
  auto apply = [](unsigned base, ArrayRef<unsigned> moves, unsigned lane) {
    for (auto [bit, move] : llvm::enumerate(moves))
      if (lane >> bit & 1)
        base ^= move;
    return base;
  };
  for (unsigned warp = 0; warp < 8; ++warp)
    for (unsigned lane = 0; lane < 32; ++lane)
      for (auto [w, word] : llvm::enumerate(*words))
        for (auto [half, shuffle] : llvm::enumerate(word)) {
          unsigned from = apply(shuffle.laneBase, shuffle.laneMoves, lane);
          bool high =
              shuffle.highBase ^ (llvm::popcount(lane & shuffle.highMask) & 1);
          unsigned pair = high ? shuffle.highPair : shuffle.lowPair;
          for (unsigned i = 0; i < 2; ++i)
            EXPECT_EQ(a.getPosition(4 * w + 2 * half + i, lane, warp),
                      acc.getPosition(2 * pair + i, from, warp));
        }
  // B does not take its elements from the accumulator in pairs.
  EXPECT_FALSE(getPairShuffles(acc, layout({128, 128}, operand(1, wgmma, 4))));
}

TEST_F(MmaLayoutTest, SwappedWgmmaIsTheInstructionsTransposed) {
  // tf32's C^T = B^T A^T: a 256 x 128 tile is the instruction's 128 x 256,
  // two warpgroups along its M (the tile's N). Every register of every
  // thread holds the transposed element of the instruction's, and the
  // operands are the instruction's other ones, transposed: the tile's B is
  // its register A, the tile's A its B.
  auto instruction = MmaEncodingAttr::get(&context, 3, {8, 1}, {64, 256});
  auto swapped =
      MmaEncodingAttr::get(&context, 3, {8, 1}, {64, 256}, /*swapped=*/true);
  EXPECT_EQ(swapped.getInstructionLayout(), instruction);
  auto transposedPairs = [&](const ThreadLayout &tile, const ThreadLayout &hw) {
    ASSERT_EQ(tile.getNumElems(), hw.getNumElems());
    for (unsigned tid = 0; tid < 256; ++tid)
      for (unsigned e = 0; e < tile.getNumElems(); ++e) {
        SmallVector<int64_t> p = hw.getPosition(e, tid % 32, tid / 32);
        EXPECT_EQ(tile.getPosition(e, tid % 32, tid / 32),
                  SmallVector<int64_t>({p[1], p[0]}))
            << "thread " << tid << " register " << e;
      }
  };
  ThreadLayout acc = layout({256, 128}, swapped);
  expectInverse(acc);
  expectCoverage(acc, 8, 1);
  transposedPairs(acc, layout({128, 256}, instruction));
  transposedPairs(layout({32, 128}, operand(1, swapped, 1)),
                  layout({128, 32}, operand(0, instruction, 1)));
  transposedPairs(layout({256, 32}, operand(0, swapped, 1)),
                  layout({32, 256}, operand(1, instruction, 1)));
  // Small tiles pad to the instruction's extents, exchanged.
  EXPECT_EQ(layout({3, 3}, swapped).getRootShape(), ArrayRef<int64_t>({256, 64}));
  EXPECT_EQ(layout({3, 3}, operand(1, swapped, 1)).getRootShape(),
            ArrayRef<int64_t>({8, 64}));
}

TEST_F(ThreadLayoutTest, FMAOperands) {
  // The FMA dot: A holds the accumulator's rows and all of K, B its columns.
  BlockedEncodingAttr parent = blocked({2, 2}, {8, 4}, {2, 2}, {1, 0});
  ThreadLayout acc = layout({32, 16}, parent);
  ThreadLayout a = layout({32, 5}, DotOperandEncodingAttr::get(&context, 0, parent, 0));
  ThreadLayout b = layout({5, 16}, DotOperandEncodingAttr::get(&context, 1, parent, 0));
  EXPECT_EQ(a.getLocalCount(1), 8);
  EXPECT_EQ(a.getLocalCount(0), acc.getLocalCount(0));
  EXPECT_EQ(b.getLocalCount(0), 8);
  EXPECT_EQ(b.getLocalCount(1), acc.getLocalCount(1));
  for (unsigned tid = 0; tid < 128; ++tid)
    for (unsigned e = 0; e < acc.getNumElems(); ++e) {
      SmallVector<int64_t> local = acc.getLocalIndex(e);
      SmallVector<int64_t> p = acc.getPosition(e, tid % 32, tid / 32);
      for (int64_t k = 0; k < 8; ++k) {
        unsigned ea = a.linearize({local[0], k});
        unsigned eb = b.linearize({k, local[1]});
        EXPECT_EQ(a.getPosition(ea, tid % 32, tid / 32),
                  SmallVector<int64_t>({p[0], k}));
        EXPECT_EQ(b.getPosition(eb, tid % 32, tid / 32),
                  SmallVector<int64_t>({k, p[1]}));
      }
    }
}

} // namespace
