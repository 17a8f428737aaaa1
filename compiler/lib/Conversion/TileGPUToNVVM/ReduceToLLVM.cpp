//===- ReduceToLLVM.cpp - Sums, maxima, minima and xors across a CTA ------===//
//
// A reduction goes only as far as the layout spreads the axis: first over
// the elements each thread holds, then across the lanes of a warp with
// butterfly shuffles, then across warps through shared memory. Where the
// layout replicates elements (a tile smaller than the CTA), only distinct
// lanes and warps are combined, so no element counts twice. Padding (see
// ThreadLayout) enters as the identity of the combination.
//
//===----------------------------------------------------------------------===//

#include "Utility.h"

#include "tilec/Conversion/TileGPUToNVVM/TileGPUToNVVM.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

using namespace mlir;
using namespace mlir::tilegpu;

namespace {

Value combine(OpBuilder &b, Location loc, tile::ReduceKind kind, Value x,
              Value y) {
  bool fp = isa<FloatType>(x.getType());
  switch (kind) {
  case tile::ReduceKind::Sum:
    return fp ? (Value)LLVM::FAddOp::create(b, loc, x, y)
              : (Value)LLVM::AddOp::create(b, loc, x, y);
  case tile::ReduceKind::Max:
    return fp ? (Value)LLVM::MaxNumOp::create(b, loc, x, y)
              : (Value)LLVM::SMaxOp::create(b, loc, x, y);
  case tile::ReduceKind::Min:
    return fp ? (Value)LLVM::MinNumOp::create(b, loc, x, y)
              : (Value)LLVM::SMinOp::create(b, loc, x, y);
  case tile::ReduceKind::Xor:
    return LLVM::XOrOp::create(b, loc, x, y);
  }
  llvm_unreachable("unknown reduce kind");
}

/// Combines `values` pairwise, a balanced tree: log2(n) dependent steps
/// rather than n - 1, which shortens the wait between a CTA's loads and what
/// follows its reduction.
Value combineTree(OpBuilder &b, Location loc, tile::ReduceKind kind,
                  ArrayRef<Value> values) {
  SmallVector<Value> level(values);
  while (level.size() > 1) {
    SmallVector<Value> next;
    for (size_t i = 0; i + 1 < level.size(); i += 2)
      next.push_back(combine(b, loc, kind, level[i], level[i + 1]));
    if (level.size() % 2)
      next.push_back(level.back());
    level = std::move(next);
  }
  return level.front();
}

/// The value that leaves any other unchanged when combined with it.
Value identity(OpBuilder &b, Location loc, tile::ReduceKind kind, Type type) {
  auto constant = [&](TypedAttr attr) {
    return LLVM::ConstantOp::create(b, loc, type, attr);
  };
  if (auto fp = dyn_cast<FloatType>(type)) {
    const llvm::fltSemantics &sem = fp.getFloatSemantics();
    switch (kind) {
    case tile::ReduceKind::Sum: // -0 + x is x, also for x = -0
      return constant(b.getFloatAttr(type, APFloat::getZero(sem, true)));
    case tile::ReduceKind::Max:
      return constant(b.getFloatAttr(type, APFloat::getInf(sem, true)));
    case tile::ReduceKind::Min:
      return constant(b.getFloatAttr(type, APFloat::getInf(sem, false)));
    case tile::ReduceKind::Xor:
      break; // integers only (the verifier's rule)
    }
  }
  unsigned bits = type.getIntOrFloatBitWidth();
  switch (kind) {
  case tile::ReduceKind::Sum:
  case tile::ReduceKind::Xor:
    return constant(b.getIntegerAttr(type, 0));
  case tile::ReduceKind::Max:
    return constant(b.getIntegerAttr(type, APInt::getSignedMinValue(bits)));
  case tile::ReduceKind::Min:
    return constant(b.getIntegerAttr(type, APInt::getSignedMaxValue(bits)));
  }
  llvm_unreachable("unknown reduce kind");
}

/// `v` from the lane whose id differs from ours by xor `laneMask`; values
/// of other widths than 32 bits travel as one or two i32.
Value shuffleXor(OpBuilder &b, Location loc, Value v, unsigned laneMask) {
  Type i32 = b.getI32Type();
  auto shuffle = [&](Value word) -> Value {
    return NVVM::ShflOp::create(b, loc, word.getType(), i32Constant(b, loc, -1),
                                word, i32Constant(b, loc, laneMask),
                                i32Constant(b, loc, 0x1f), NVVM::ShflKind::bfly,
                                UnitAttr());
  };
  Type type = v.getType();
  if (type.isF32() || type.isInteger(32))
    return shuffle(v);
  unsigned bits = type.getIntOrFloatBitWidth();
  Type intType = b.getIntegerType(bits);
  Value asInt = isa<FloatType>(type)
                    ? (Value)LLVM::BitcastOp::create(b, loc, intType, v)
                    : v;
  Value result;
  if (bits < 32) {
    Value word = LLVM::ZExtOp::create(b, loc, i32, asInt);
    result = LLVM::TruncOp::create(b, loc, intType, shuffle(word));
  } else {
    Value shift = LLVM::ConstantOp::create(b, loc, intType,
                                           b.getIntegerAttr(intType, 32));
    Value lo = LLVM::TruncOp::create(b, loc, i32, asInt);
    Value hi = LLVM::TruncOp::create(
        b, loc, i32, LLVM::LShrOp::create(b, loc, asInt, shift));
    Value newLo = LLVM::ZExtOp::create(b, loc, intType, shuffle(lo));
    Value newHi = LLVM::ZExtOp::create(b, loc, intType, shuffle(hi));
    result = LLVM::OrOp::create(b, loc, newLo,
                                LLVM::ShlOp::create(b, loc, newHi, shift));
  }
  return isa<FloatType>(type)
             ? (Value)LLVM::BitcastOp::create(b, loc, type, result)
             : result;
}

struct ReduceToLLVM : OpConversionPattern<tile::ReduceOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(tile::ReduceOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    tile::ReduceKind kind = op.getKind();
    ThreadLayout src = getThreadLayout(op.getSrc().getType());
    auto resultType = dyn_cast<RankedTensorType>(op.getType());
    std::optional<ThreadLayout> result;
    if (resultType)
      result = getThreadLayout(resultType);

    // The root dimension being reduced.
    unsigned axis = 0;
    for (unsigned d = 0; d < src.getRootRank(); ++d)
      if (src.getTensorDim(d) == int(op.getAxis()))
        axis = d;

    // 1. Within each thread: elements that differ only along the axis.
    ValueRange srcValues = adaptor.getSrc();
    SmallVector<Value> values = replacePadding(
        rewriter, loc, src, srcValues,
        identity(rewriter, loc, kind, srcValues.front().getType()));
    unsigned numOut = result ? result->getNumElems() : 1;
    SmallVector<SmallVector<Value>> perOutput(numOut);
    for (unsigned e = 0; e < src.getNumElems(); ++e) {
      SmallVector<int64_t> local = src.getLocalIndex(e);
      local[axis] = 0;
      perOutput[result ? result->linearize(local) : 0].push_back(values[e]);
    }
    SmallVector<Value> acc;
    for (ArrayRef<Value> group : perOutput)
      acc.push_back(combineTree(rewriter, loc, kind, group));

    // 2. Across the lanes whose bits move along the axis.
    for (Value &v : acc)
      for (auto [i, basis] : llvm::enumerate(src.getLaneBases()))
        if (basis.dim == int(axis))
          v = combine(rewriter, loc, kind, v,
                      shuffleXor(rewriter, loc, v, 1u << i));

    // 3. Across the warps whose bits move along the axis, in shared memory:
    // slot [those bits of the warp id][output element, row-major].
    SmallVector<unsigned> axisWarpBits;
    for (auto [i, basis] : llvm::enumerate(src.getWarpBases()))
      if (basis.dim == int(axis))
        axisWarpBits.push_back(i);
    int64_t distinctWarps = int64_t(1) << axisWarpBits.size();
    if (distinctWarps > 1) {
      Type element = acc.front().getType();
      Type slotType = getMemoryType(element);
      SmallVector<int64_t> outShape;
      if (result)
        outShape = result->getPaddedTensorShape();
      int64_t outputs = ShapedType::getNumElements(outShape);
      int64_t bytes =
          distinctWarps * outputs * (getMemoryBits(slotType) / 8);
      Value base = getSharedMemoryBase(rewriter, loc, op, bytes);
      SmallVector<Value> outIndex;
      if (result) {
        for (ArrayRef<Value> index : emitElementIndices(rewriter, loc, *result))
          outIndex.push_back(
              linearizeRowMajor(rewriter, loc, index, outShape));
      } else {
        outIndex.push_back(i32Constant(rewriter, loc, 0));
      }
      auto slot = [&](Value warp, Value index) {
        Value linear = LLVM::AddOp::create(
            rewriter, loc,
            LLVM::MulOp::create(rewriter, loc, warp,
                                i32Constant(rewriter, loc, outputs)),
            index);
        return LLVM::GEPOp::create(rewriter, loc, base.getType(), slotType,
                                   base, ValueRange{linear});
      };
      // Replicated warps write the same totals to the same slots.
      Value tid = NVVM::ThreadIdXOp::create(rewriter, loc, rewriter.getI32Type());
      Value warp = LLVM::UDivOp::create(rewriter, loc, tid,
                                        i32Constant(rewriter, loc, 32));
      Value warpAlongAxis = i32Constant(rewriter, loc, 0);
      for (auto [j, bit] : llvm::enumerate(axisWarpBits)) {
        Value b = LLVM::AndOp::create(
            rewriter, loc,
            LLVM::LShrOp::create(rewriter, loc, warp,
                                 i32Constant(rewriter, loc, bit)),
            i32Constant(rewriter, loc, 1));
        warpAlongAxis = LLVM::OrOp::create(
            rewriter, loc, warpAlongAxis,
            LLVM::ShlOp::create(rewriter, loc, b, i32Constant(rewriter, loc, j)));
      }
      NVVM::Barrier0Op::create(rewriter, loc);
      for (auto [v, index] : llvm::zip(acc, outIndex))
        LLVM::StoreOp::create(rewriter, loc, toMemoryForm(rewriter, loc, v),
                              slot(warpAlongAxis, index));
      NVVM::Barrier0Op::create(rewriter, loc);
      for (auto [v, index] : llvm::zip(acc, outIndex)) {
        SmallVector<Value> partials;
        for (int64_t w = 0; w < distinctWarps; ++w) {
          Value x = LLVM::LoadOp::create(
              rewriter, loc, slotType, slot(i32Constant(rewriter, loc, w), index));
          partials.push_back(fromMemoryForm(rewriter, loc, x, element));
        }
        v = combineTree(rewriter, loc, kind, partials);
      }
    }
    rewriter.replaceOpWithMultiple(op, {acc});
    return success();
  }
};

} // namespace

void mlir::tilegpu::populateReduceToLLVMPatterns(
    const TileGPUTypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<ReduceToLLVM>(converter, patterns.getContext());
}
