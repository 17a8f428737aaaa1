//===- ReduceToLLVM.cpp - tile.reduce and tile.reduce_with across a CTA ---===//
//
// A reduction goes only as far as the layout spreads the axis: first over
// the elements each thread holds, then across the lanes of a warp with
// butterfly shuffles, then across warps through shared memory. Where the
// layout replicates elements (a tile smaller than the CTA), only distinct
// lanes and warps are combined, so no element counts twice. Padding (see
// ThreadLayout) enters a sum, max, min or xor as the identity of the
// combination, and a combine region (tl.reduce) as an empty group that it
// passes over. A region is assumed commutative, as Triton's tl.reduce
// does: lanes combine in butterfly order.
//
//===----------------------------------------------------------------------===//

#include "Combine.h"
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

/// `partials` (one per element of `src`) combined along root dimension
/// `axis`: one group per element of `result` (one for a scalar result).
SmallVector<Partial> reduceAlongAxis(ConversionPatternRewriter &rewriter,
                                     Location loc, Operation *op,
                                     const ThreadLayout &src,
                                     const std::optional<ThreadLayout> &result,
                                     unsigned axis, ArrayRef<Partial> partials,
                                     const CombineFn &combine) {
  auto combineTwo = [&](const Partial &x, const Partial &y) {
    return combinePartials(rewriter, loc, combine, x, y);
  };

  // 1. Within each thread: elements that differ only along the axis, in
  // their order along it, combined as a balanced tree: log2(n) dependent
  // steps rather than n - 1, which shortens the wait between a CTA's loads
  // and what follows its reduction.
  unsigned numOut = result ? result->getNumElems() : 1;
  SmallVector<SmallVector<unsigned>> perOutput(numOut);
  for (unsigned e = 0; e < src.getNumElems(); ++e) {
    SmallVector<int64_t> local = src.getLocalIndex(e);
    local[axis] = 0;
    perOutput[result ? result->linearize(local) : 0].push_back(e);
  }
  SmallVector<Partial> acc;
  for (SmallVector<unsigned> &group : perOutput) {
    // Ties by element number, the order the group was built in.
    llvm::sort(group, [&](unsigned a, unsigned b) {
      return std::make_pair(src.getElemOffset(a)[axis], a) <
             std::make_pair(src.getElemOffset(b)[axis], b);
    });
    SmallVector<Partial> level;
    for (unsigned e : group)
      level.push_back(partials[e]);
    while (level.size() > 1) {
      SmallVector<Partial> next;
      for (size_t i = 0; i + 1 < level.size(); i += 2)
        next.push_back(combineTwo(level[i], level[i + 1]));
      if (level.size() % 2)
        next.push_back(level.back());
      level = std::move(next);
    }
    acc.push_back(level.front());
  }

  // 2. Across the lanes whose bits move along the axis.
  for (Partial &p : acc)
    for (auto [i, basis] : llvm::enumerate(src.getLaneBases()))
      if (basis.dim == int(axis))
        p = combineTwo(p, shufflePartial(rewriter, loc, p, 1u << i));

  // 3. Across the warps whose bits move along the axis, in shared memory:
  // slot [those bits of the warp id][output element, row-major].
  SmallVector<unsigned> axisWarpBits;
  for (auto [i, basis] : llvm::enumerate(src.getWarpBases()))
    if (basis.dim == int(axis))
      axisWarpBits.push_back(i);
  int64_t distinctWarps = int64_t(1) << axisWarpBits.size();
  if (distinctWarps == 1)
    return acc;
  SmallVector<int64_t> outShape;
  if (result)
    outShape = result->getPaddedTensorShape();
  int64_t outputs = ShapedType::getNumElements(outShape);
  int64_t slots = distinctWarps * outputs;
  Value base = getSharedMemoryBase(rewriter, loc, op,
                                   getPartialArrayBytes(acc.front(), slots));
  SmallVector<Value> outIndex;
  if (result) {
    for (ArrayRef<Value> index : emitElementIndices(rewriter, loc, *result))
      outIndex.push_back(linearizeRowMajor(rewriter, loc, index, outShape));
  } else {
    outIndex.push_back(i32Constant(rewriter, loc, 0));
  }
  auto slot = [&](Value warp, Value index) -> Value {
    return LLVM::AddOp::create(
        rewriter, loc,
        LLVM::MulOp::create(rewriter, loc, warp,
                            i32Constant(rewriter, loc, outputs)),
        index);
  };
  // Replicated warps write the same totals to the same slots.
  Value tid = NVVM::ThreadIdXOp::create(rewriter, loc, rewriter.getI32Type());
  Value warp =
      LLVM::UDivOp::create(rewriter, loc, tid, i32Constant(rewriter, loc, 32));
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
  emitBarrier(rewriter, loc);
  for (auto [p, index] : llvm::zip(acc, outIndex))
    storePartial(rewriter, loc, base, slots, slot(warpAlongAxis, index), p);
  emitBarrier(rewriter, loc);
  for (auto [p, index] : llvm::zip(acc, outIndex)) {
    Partial total;
    for (int64_t w = 0; w < distinctWarps; ++w) {
      Partial x = loadPartial(rewriter, loc, base, slots,
                              slot(i32Constant(rewriter, loc, w), index), p);
      total = w == 0 ? x : combineTwo(total, x);
    }
    p = total;
  }
  return acc;
}

struct ReduceToLLVM : OpConversionPattern<tile::ReduceOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(tile::ReduceOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    tile::ReduceKind kind = op.getKind();
    ThreadLayout src = getThreadLayout(op.getSrc().getType());
    std::optional<ThreadLayout> result;
    if (auto resultType = dyn_cast<RankedTensorType>(op.getType()))
      result = getThreadLayout(resultType);
    // Padding enters as the identity: no flags needed.
    ValueRange srcValues = adaptor.getSrc();
    SmallVector<Partial> partials;
    for (Value v : replacePadding(
             rewriter, loc, src, srcValues,
             identity(rewriter, loc, kind, srcValues.front().getType())))
      partials.push_back({{v}, Value()});
    CombineFn combineFn = [&](ValueRange x, ValueRange y) {
      return SmallVector<Value>{combine(rewriter, loc, kind, x[0], y[0])};
    };
    SmallVector<Value> values;
    for (const Partial &p :
         reduceAlongAxis(rewriter, loc, op, src, result,
                         getRootDim(src, op.getAxis()), partials, combineFn))
      values.push_back(p.values.front());
    rewriter.replaceOpWithMultiple(op, {values});
    return success();
  }
};

struct ReduceWithToLLVM : OpConversionPattern<tile::ReduceWithOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(tile::ReduceWithOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    ThreadLayout src = getThreadLayout(op.getSrcs().front().getType());
    std::optional<ThreadLayout> result;
    if (auto resultType = dyn_cast<RankedTensorType>(op.getType(0)))
      result = getThreadLayout(resultType);
    unsigned axis = getRootDim(src, op.getAxis());
    // Padding along the axis enters as empty groups.
    SmallVector<Partial> partials =
        getSourcePartials(rewriter, loc, src, axis, adaptor.getSrcs());
    CombineFn combineFn = [&](ValueRange x, ValueRange y) {
      return emitCombineRegion(rewriter, op.getCombine(), x, y);
    };
    SmallVector<SmallVector<Value>> values = getResultValues(
        reduceAlongAxis(rewriter, loc, op, src, result, axis, partials,
                        combineFn),
        op.getNumResults());
    rewriter.replaceOpWithMultiple(op, values);
    return success();
  }
};

} // namespace

void mlir::tilegpu::populateReduceToLLVMPatterns(
    const TileGPUTypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<ReduceToLLVM, ReduceWithToLLVM>(converter,
                                              patterns.getContext());
}
