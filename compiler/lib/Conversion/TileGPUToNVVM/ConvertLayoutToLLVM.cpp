//===- ConvertLayoutToLLVM.cpp - Layout conversions via shared memory -----===//
//
// Dot operands do not come this way: tilegpu-pipeline stores them into
// swizzled buffers that the dot reads with ldmatrix (SharedMemory.cpp).
// Layouts that put every element in the same thread (an mma accumulator
// and the A operand of a wgmma that reads it from registers) only reorder
// registers. 8-bit elements that move between lanes of a warp in pairs (an
// fp8 accumulator into wgmma's A: two columns a thread into four) go by
// warp shuffles of 32-bit words.
//
// Every thread writes its elements to shared memory at their row-major
// index, the CTA synchronizes, and every thread reads the elements the new
// layout gives it. Elements a thread holds contiguously along the last
// dimension may go as one vector of up to 16 bytes each way (an mma
// accumulator writes pairs, a blocked layout reads 4 f32 or 8 f16 at a
// time), and rows may be padded so that threads walking down a column (a
// transpose) or writing a few rows at once (an mma fragment) hit different
// banks: both are chosen at compile time by counting the bank conflicts
// of warp 0's accesses in each candidate (BankConflicts.h). Replicated elements
// are written more than once with the same value, which is harmless. A
// conversion's buffer is its op's scratch space (the barrier before the writes
// keeps earlier readers safe); the module attribute `tilegpu.shared_bytes`
// records the largest.
//
//===----------------------------------------------------------------------===//

#include "BankConflicts.h"
#include "SharedMemory.h"
#include "Utility.h"

#include "tilec/Conversion/TileGPUToNVVM/TileGPUToNVVM.h"
#include "tilec/Dialect/TileGPU/IR/Target.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

using namespace mlir;
using namespace mlir::tilegpu;

namespace {

/// Elements of `layout` a thread holds contiguously along the last
/// dimension, up to 16 bytes of `slotBytes` each and dividing the row.
unsigned getRowVectorWidth(const ThreadLayout &layout, int64_t rowLength,
                           unsigned slotBytes) {
  int rank = layout.getPaddedTensorShape().size();
  if (layout.getTensorDim(layout.getFastestDim()) != rank - 1)
    return 1;
  int64_t vec = std::min<int64_t>(layout.getContiguity(), 16 / slotBytes);
  while (vec > 1 && rowLength % vec)
    vec /= 2;
  return std::max<int64_t>(1, vec);
}

/// How a conversion uses its scratch rows: vectors of `srcVec` elements
/// written (or, with `matrices`, stmatrix's 8 x 8 matrices, four at a
/// time), `dstVec` read, each row `pad` slots longer than the tile's.
struct ScratchPlan {
  unsigned srcVec = 1, dstVec = 1;
  bool matrices = false;
  int64_t pad = 0;
};

/// The slot of a tensor position in rows of `rowStride`.
int64_t getSlot(const ThreadLayout &layout, ArrayRef<int64_t> rootPosition,
                ArrayRef<int64_t> shape, int64_t rowStride) {
  int64_t slot = 0;
  for (unsigned d = 0; d < rootPosition.size(); ++d) {
    int t = layout.getTensorDim(d);
    if (t < 0)
      continue;
    int64_t size = t + 1 == int(shape.size()) ? rowStride : shape[t];
    slot = slot * size + rootPosition[d];
  }
  return slot;
}

/// Shared-memory wavefronts of warp 0 accessing all its elements of
/// `layout` in vectors of `vec`. Positions are linear in the register and
/// lane bits without carries, and so are slots (a row-major index), so
/// every vector's lanes sit at the first vector's slots plus one shift:
/// counting the first vector's wavefronts is enough.
int64_t countAccessWavefronts(const ThreadLayout &layout, unsigned vec,
                              unsigned slotBytes, ArrayRef<int64_t> shape,
                              int64_t rowStride) {
  SmallVector<int64_t> addresses;
  for (unsigned lane = 0; lane < 32; ++lane)
    addresses.push_back(
        getSlot(layout, layout.getPosition(0, lane, 0), shape, rowStride) *
        slotBytes);
  return countWavefronts(addresses, vec * slotBytes) *
         (layout.getNumElems() / vec);
}

/// Shared-memory wavefronts of warp 0 storing all its elements of `layout`
/// with stmatrix, its lanes pointing as `lanes` says: 8 rows of 16 bytes
/// per matrix.
int64_t countMatrixStoreWavefronts(const ThreadLayout &layout,
                                   ArrayRef<LayoutBasis> lanes,
                                   ArrayRef<int64_t> shape, int64_t rowStride) {
  SmallVector<int64_t> addresses;
  for (unsigned l = 0; l < 32; ++l) {
    SmallVector<int64_t> position(layout.getRootRank(), 0);
    for (auto [bit, basis] : llvm::enumerate(lanes))
      if (l >> bit & 1)
        position[basis.dim] += basis.offset;
    addresses.push_back(getSlot(layout, position, shape, rowStride) * 2);
  }
  return countWavefronts(addresses, 16) * (layout.getNumElems() / 8);
}

/// The plan whose writes and reads take the fewest shared-memory
/// wavefronts by the bank model (then the fewest instructions, then the
/// least memory): full vectors or single elements each way, rows padded by
/// a multiple of the wider vector (which keeps vectors aligned). An mma
/// accumulator's fragments write 8 rows at once and want rows staggered
/// across banks; a transpose's reads walk down columns and want them
/// staggered otherwise; row-to-row conversions want no padding at all.
ScratchPlan chooseScratchPlan(const ThreadLayout &src, const ThreadLayout &dst,
                              ArrayRef<int64_t> shape, unsigned slotBytes,
                              ArrayRef<LayoutBasis> matrixLanes) {
  int64_t rowLength = shape.back();
  // Writes: vectors, single elements, or (0) stmatrix's 16-byte rows.
  SmallVector<unsigned> srcVecs = {getRowVectorWidth(src, rowLength, slotBytes)};
  SmallVector<unsigned> dstVecs = {getRowVectorWidth(dst, rowLength, slotBytes)};
  if (srcVecs.front() > 1)
    srcVecs.push_back(1);
  if (!matrixLanes.empty())
    srcVecs.push_back(0);
  if (dstVecs.front() > 1)
    dstVecs.push_back(1);
  ScratchPlan best;
  std::tuple<int64_t, int64_t, int64_t> bestCost = {INT64_MAX, 0, 0};
  for (unsigned srcVec : srcVecs)
    for (unsigned dstVec : dstVecs) {
      bool matrices = srcVec == 0;
      int64_t align = std::max(matrices ? 8 : srcVec, dstVec);
      for (int64_t k = 0; k <= (shape.size() > 1 ? 8 : 0); ++k) {
        int64_t pad = k * align, rowStride = rowLength + pad;
        int64_t writes =
            matrices ? countMatrixStoreWavefronts(src, matrixLanes, shape,
                                                  rowStride)
                     : countAccessWavefronts(src, srcVec, slotBytes, shape,
                                             rowStride);
        int64_t wavefronts =
            writes +
            countAccessWavefronts(dst, dstVec, slotBytes, shape, rowStride);
        int64_t instructions = src.getNumElems() / (matrices ? 8 : srcVec) +
                               dst.getNumElems() / dstVec;
        std::tuple<int64_t, int64_t, int64_t> cost = {wavefronts, instructions,
                                                      pad};
        if (cost < bestCost) {
          bestCost = cost;
          best = {matrices ? 1 : srcVec, dstVec, matrices, pad};
        }
      }
    }
  return best;
}

/// An affine function of the lane id's bits at run time: `base` ^ the
/// moves of the set bits (LLVM hoists it out of loops: the lane is fixed).
Value emitLaneFunction(OpBuilder &b, Location loc, Value lane, unsigned base,
                       ArrayRef<unsigned> moves) {
  Value result = i32Constant(b, loc, base);
  for (auto [bit, move] : llvm::enumerate(moves)) {
    if (!move)
      continue;
    Value set = LLVM::AndOp::create(
        b, loc, LLVM::LShrOp::create(b, loc, lane, i32Constant(b, loc, bit)),
        i32Constant(b, loc, 1));
    result = LLVM::XOrOp::create(
        b, loc, result,
        LLVM::MulOp::create(b, loc, set, i32Constant(b, loc, move)));
  }
  return result;
}

/// `dst`'s 8-bit elements from `src`'s by warp shuffles (getPairShuffles):
/// no shared memory and no barrier, which would make the two consumer
/// warpgroups of attention's ping-pong wait for each other every iteration.
SmallVector<Value> shufflePairs(OpBuilder &b, Location loc,
                                ArrayRef<std::array<PairShuffle, 2>> words,
                                ValueRange srcValues) {
  Type element = srcValues.front().getType();
  Type i8 = b.getI8Type(), i32 = b.getI32Type();
  auto asByte = [&](Value v) -> Value {
    return v.getType() == i8 ? v : LLVM::BitcastOp::create(b, loc, i8, v);
  };
  auto shl = [&](Value v, unsigned bits) -> Value {
    return LLVM::ShlOp::create(b, loc, v, i32Constant(b, loc, bits));
  };
  // Source pair p (registers 2p, 2p + 1) as the low 16 bits of a word.
  auto pair = [&](unsigned p) -> Value {
    Value lo = LLVM::ZExtOp::create(b, loc, i32, asByte(srcValues[2 * p]));
    Value hi = LLVM::ZExtOp::create(b, loc, i32, asByte(srcValues[2 * p + 1]));
    return LLVM::OrOp::create(b, loc, lo, shl(hi, 8));
  };
  Value lane = NVVM::LaneIdOp::create(b, loc, i32);
  SmallVector<Value> values;
  for (const std::array<PairShuffle, 2> &word : words) {
    Value halves[2];
    for (auto [half, shuffle] : llvm::enumerate(word)) {
      Value sent = pair(shuffle.lowPair);
      if (shuffle.highPair != shuffle.lowPair)
        sent =
            LLVM::OrOp::create(b, loc, sent, shl(pair(shuffle.highPair), 16));
      Value from =
          emitLaneFunction(b, loc, lane, shuffle.laneBase, shuffle.laneMoves);
      Value got = NVVM::ShflOp::create(b, loc, i32, i32Constant(b, loc, -1),
                                       sent, from, i32Constant(b, loc, 0x1f),
                                       NVVM::ShflKind::idx, UnitAttr());
      Value kept = got;
      if (shuffle.highPair != shuffle.lowPair) {
        // high(l): the parity of l's bits in the mask, flipped by the base.
        Value parity = LLVM::AndOp::create(
            b, loc,
            LLVM::CtPopOp::create(
                b, loc, i32,
                LLVM::AndOp::create(b, loc, lane,
                                    i32Constant(b, loc, shuffle.highMask))),
            i32Constant(b, loc, 1));
        Value high =
            LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::ne, parity,
                                 i32Constant(b, loc, shuffle.highBase));
        kept = LLVM::SelectOp::create(
            b, loc, high,
            LLVM::LShrOp::create(b, loc, got, i32Constant(b, loc, 16)), got);
      }
      halves[half] =
          LLVM::AndOp::create(b, loc, kept, i32Constant(b, loc, 0xffff));
    }
    Value packed = LLVM::OrOp::create(b, loc, halves[0], shl(halves[1], 16));
    for (unsigned byte = 0; byte < 4; ++byte) {
      Value v = LLVM::TruncOp::create(
          b, loc, i8,
          LLVM::LShrOp::create(b, loc, packed, i32Constant(b, loc, 8 * byte)));
      values.push_back(
          element == i8 ? v : LLVM::BitcastOp::create(b, loc, element, v));
    }
  }
  return values;
}

struct ConvertLayoutToLLVM : OpConversionPattern<ConvertLayoutOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ConvertLayoutOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getType();
    ThreadLayout src = getThreadLayout(op.getSrc().getType());
    ThreadLayout dst = getThreadLayout(type);
    ValueRange srcValues = adaptor.getSrc();
    if (std::optional<SmallVector<unsigned>> permutation =
            getRegisterPermutation(src, dst)) {
      SmallVector<Value> values;
      for (unsigned from : *permutation)
        values.push_back(srcValues[from]);
      rewriter.replaceOpWithMultiple(op, {values});
      return success();
    }
    Type element = srcValues.front().getType();
    Type slotType = getMemoryType(element);
    unsigned slotBytes = getMemoryBits(slotType) / 8;
    if (slotBytes == 1 && !element.isInteger(1))
      if (auto words = getPairShuffles(src, dst)) {
        rewriter.replaceOpWithMultiple(
            op, {shufflePairs(rewriter, loc, *words, srcValues)});
        return success();
      }

    // Row-major slots of the padded shape (the larger of the two where
    // tensor-core layouts pad further), each innermost row padded as the
    // plan says.
    SmallVector<int64_t> shape = dst.getPaddedTensorShape();
    for (auto [s, other] : llvm::zip(shape, src.getPaddedTensorShape()))
      s = std::max(s, other);
    int64_t rows = ShapedType::getNumElements(ArrayRef(shape).drop_back());
    int64_t rowLength = shape.back();
    // stmatrix (sm_90 on) where the source holds mma fragments.
    std::optional<SmallVector<LayoutBasis>> matrixLanes;
    if (getComputeCapability(op) >= 90)
      matrixLanes = getMatrixStoreLanes(src, slotBytes);
    ScratchPlan plan = chooseScratchPlan(
        src, dst, shape, slotBytes,
        matrixLanes ? ArrayRef<LayoutBasis>(*matrixLanes) : ArrayRef<LayoutBasis>());
    unsigned srcVec = plan.srcVec, dstVec = plan.dstVec;
    int64_t rowStride = rowLength + plan.pad;
    int64_t bytes = rows * rowStride * slotBytes;
    Value base = getSharedMemoryBase(rewriter, loc, op, bytes);
    auto slotAddress = [&](ArrayRef<Value> index) {
      Value row = linearizeRowMajor(rewriter, loc, index.drop_back(),
                                    ArrayRef(shape).drop_back());
      Value linear = LLVM::AddOp::create(
          rewriter, loc,
          LLVM::MulOp::create(rewriter, loc, row,
                              i32Constant(rewriter, loc, rowStride)),
          index.back());
      return LLVM::GEPOp::create(rewriter, loc, base.getType(), slotType, base,
                                 ValueRange{linear});
    };

    emitBarrier(rewriter, loc);
    if (plan.matrices)
      storeMatrices(rewriter, loc, src, *matrixLanes, srcValues, slotAddress);
    SmallVector<SmallVector<Value>> srcIndices;
    if (!plan.matrices)
      srcIndices = emitElementIndices(rewriter, loc, src);
    for (unsigned g = 0; g < srcIndices.size(); g += srcVec) {
      SmallVector<Value> slots;
      for (unsigned i = 0; i < srcVec; ++i)
        slots.push_back(toMemoryForm(rewriter, loc, srcValues[g + i]));
      // Scalars keep their natural alignment; vectors have the plan's.
      LLVM::StoreOp::create(rewriter, loc, packVector(rewriter, loc, slots),
                            slotAddress(srcIndices[g]),
                            srcVec > 1 ? srcVec * slotBytes : 0);
    }
    emitBarrier(rewriter, loc);
    SmallVector<Value> values;
    SmallVector<SmallVector<Value>> dstIndices =
        emitElementIndices(rewriter, loc, dst);
    Type loadType = dstVec == 1 ? slotType : VectorType::get(dstVec, slotType);
    for (unsigned g = 0; g < dstIndices.size(); g += dstVec) {
      Value loaded = LLVM::LoadOp::create(rewriter, loc, loadType,
                                          slotAddress(dstIndices[g]),
                                          dstVec > 1 ? dstVec * slotBytes : 0);
      for (unsigned i = 0; i < dstVec; ++i) {
        Value v = dstVec == 1
                      ? loaded
                      : LLVM::ExtractElementOp::create(
                            rewriter, loc, loaded, i32Constant(rewriter, loc, i));
        values.push_back(fromMemoryForm(rewriter, loc, v, element));
      }
    }
    rewriter.replaceOpWithMultiple(op, {values});
    return success();
  }
};

} // namespace

void mlir::tilegpu::populateConvertLayoutToLLVMPatterns(
    const TileGPUTypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<ConvertLayoutToLLVM>(converter, patterns.getContext());
}
