//===- TileCombine.cpp - Simplifications of tile programs -----------------===//

#include "tilec/Dialect/Tile/Transforms/Passes.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/Support/DebugLog.h"

#define DEBUG_TYPE "tile-combine"

namespace mlir::tile {
#define GEN_PASS_DEF_TILECOMBINE
#include "tilec/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

/// addptr(addptr(p, a), b) -> addptr(p, a + b): one address computation.
struct FoldAddPtrChain : OpRewritePattern<AddPtrOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AddPtrOp op,
                                PatternRewriter &rewriter) const override {
    auto inner = op.getPtr().getDefiningOp<AddPtrOp>();
    if (!inner || inner.getOffset().getType() != op.getOffset().getType())
      return failure();
    LDBG() << "addptr chain at " << op.getLoc() << ": one addptr";
    Value sum = arith::AddIOp::create(rewriter, op.getLoc(), inner.getOffset(),
                                      op.getOffset());
    rewriter.replaceOpWithNewOp<AddPtrOp>(op, op.getType(), inner.getPtr(), sum);
    return success();
  }
};

/// `v`, an offset tile, without the splats it adds at its own rank (through
/// sums and broadcasts, not into an index `o + arange` of lower rank),
/// whose scalars other than zero go to `uniform`; null when nothing else
/// is left, `v` itself when there are none.
static Value peelUniformOffsets(Value v, SmallVectorImpl<Value> &uniform,
                                PatternRewriter &rewriter) {
  Operation *def = v.getDefiningOp();
  if (auto splat = dyn_cast_or_null<SplatOp>(def)) {
    if (!matchPattern(splat.getSrc(), m_Zero()))
      uniform.push_back(splat.getSrc());
    return Value();
  }
  if (auto add = dyn_cast_or_null<arith::AddIOp>(def)) {
    Value lhs = peelUniformOffsets(add.getLhs(), uniform, rewriter);
    Value rhs = peelUniformOffsets(add.getRhs(), uniform, rewriter);
    if (lhs == add.getLhs() && rhs == add.getRhs())
      return v;
    if (!lhs || !rhs)
      return lhs ? lhs : rhs;
    return arith::AddIOp::create(rewriter, add.getLoc(), lhs, rhs);
  }
  if (auto broadcast = dyn_cast_or_null<BroadcastOp>(def)) {
    Value src = peelUniformOffsets(broadcast.getSrc(), uniform, rewriter);
    if (src == broadcast.getSrc() || !src)
      return src == broadcast.getSrc() ? v : Value();
    return BroadcastOp::create(rewriter, broadcast.getLoc(), v.getType(), src);
  }
  return v;
}

/// Whether peelUniformOffsets would find a splat of other than zero in `v`,
/// counting down `limit` for each value it would walk through (a sum
/// reused on both sides of another is walked twice).
static bool addsUniformOffsets(Value v, int &limit) {
  if (--limit < 0)
    return false;
  Operation *def = v.getDefiningOp();
  if (auto splat = dyn_cast_or_null<SplatOp>(def))
    return !matchPattern(splat.getSrc(), m_Zero());
  if (auto add = dyn_cast_or_null<arith::AddIOp>(def)) {
    bool lhs = addsUniformOffsets(add.getLhs(), limit);
    bool rhs = addsUniformOffsets(add.getRhs(), limit);
    return lhs || rhs;
  }
  if (auto broadcast = dyn_cast_or_null<BroadcastOp>(def))
    return addsUniformOffsets(broadcast.getSrc(), limit);
  return false;
}

/// addptr(splat(p), splat(s) + t) -> addptr(splat(addptr(p, s)), t) for
/// tiles of two dimensions or more: the part of an offset that is the
/// same for every element (a head's origin added to a tile's indices,
/// `base + offs_n[None, :] * stride + offs_d[:, None]`) moves to the
/// scalar pointer, computed once, where a box of a tensor has its origin
/// (tilegpu's bulk copies, TensorBox.h). One-dimensional offsets stay:
/// there `s + arange(n)` is the index itself.
struct HoistUniformOffsets : OpRewritePattern<AddPtrOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AddPtrOp op,
                                PatternRewriter &rewriter) const override {
    auto type = dyn_cast<RankedTensorType>(op.getType());
    auto splat = op.getPtr().getDefiningOp<SplatOp>();
    // A tile's offset is a handful of terms: past 64 nodes (a sum whose
    // parts are reused), leave it as it is.
    int limit = 64;
    if (!type || type.getRank() < 2 || !splat ||
        !addsUniformOffsets(op.getOffset(), limit) || limit < 0)
      return failure();
    SmallVector<Value> uniform;
    Value rest = peelUniformOffsets(op.getOffset(), uniform, rewriter);
    LDBG() << "addptr at " << op.getLoc() << ": " << uniform.size()
           << " offset(s) the same for every element on the scalar pointer";
    Location loc = op.getLoc();
    Value base = splat.getSrc();
    for (Value offset : uniform)
      base = AddPtrOp::create(rewriter, loc, base.getType(), base, offset);
    Value ptrs = SplatOp::create(rewriter, loc, type, base);
    if (rest)
      ptrs = AddPtrOp::create(rewriter, loc, type, ptrs, rest);
    rewriter.replaceOp(op, ptrs);
    return success();
  }
};

/// A broadcast or expand_dims of a splat is a splat of the new shape.
template <typename OpTy>
struct FoldShapeOfSplat : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    auto splat = op.getSrc().template getDefiningOp<SplatOp>();
    if (!splat)
      return failure();
    LDBG() << op->getName() << " of a splat at " << op.getLoc()
           << ": a splat";
    rewriter.replaceOpWithNewOp<SplatOp>(op, op.getType(), splat.getSrc());
    return success();
  }
};

/// An elementwise op whose tensor operands are all splats computes on the
/// scalars once and splats the result.
struct HoistElementwiseOfSplats : RewritePattern {
  explicit HoistElementwiseOfSplats(MLIRContext *context)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, context) {}
  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    if (!op->hasTrait<OpTrait::Elementwise>() || op->getNumResults() != 1 ||
        op->getNumOperands() == 0 || op->getNumRegions() != 0)
      return failure();
    auto resultType = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    if (!resultType || !isMemoryEffectFree(op))
      return failure();
    SmallVector<Value> scalars;
    for (Value operand : op->getOperands()) {
      auto splat = operand.getDefiningOp<SplatOp>();
      if (!splat)
        return failure();
      scalars.push_back(splat.getSrc());
    }
    LDBG() << op->getName() << " of splats at " << op->getLoc()
           << ": on the scalars";
    OperationState state(op->getLoc(), op->getName(), scalars,
                         {resultType.getElementType()}, op->getAttrs());
    Operation *scalarOp = rewriter.create(state);
    rewriter.replaceOpWithNewOp<SplatOp>(op, resultType, scalarOp->getResult(0));
    return success();
  }
};

/// True when `v` is a constant splat of zero (+0.0 or -0.0 for floats).
static bool isZeroSplat(Value v) {
  DenseElementsAttr attr;
  if (!matchPattern(v, m_Constant(&attr)) || !attr.isSplat())
    return false;
  if (auto f = dyn_cast<FloatAttr>(attr.getSplatValue<Attribute>()))
    return f.getValue().isZero();
  if (auto i = dyn_cast<IntegerAttr>(attr.getSplatValue<Attribute>()))
    return i.getValue().isZero();
  return false;
}

/// add(dot(a, b, 0), x) -> dot(a, b, x), either operand order: what
/// `acc += tl.dot(a, b)` becomes, so that the GPU accumulates in the dot's
/// registers instead of adding a second tile. The sum is reassociated (x
/// is added first, not last), as Triton's own combine does. Only a dot of
/// one use is folded, or the product would be computed twice.
template <typename AddOp>
struct FoldAddIntoDot : OpRewritePattern<AddOp> {
  using OpRewritePattern<AddOp>::OpRewritePattern;
  LogicalResult matchAndRewrite(AddOp add,
                                PatternRewriter &rewriter) const override {
    for (unsigned i = 0; i < 2; ++i) {
      auto dot = add->getOperand(i).template getDefiningOp<DotOp>();
      Value other = add->getOperand(1 - i);
      if (!dot || !dot->hasOneUse() || !isZeroSplat(dot.getAcc()) ||
          other.getType() != dot.getType())
        continue;
      LDBG() << "add of a dot at " << add.getLoc()
             << ": the dot accumulates into the other operand";
      rewriter.replaceOpWithNewOp<DotOp>(
          add, dot.getType(), dot.getA(), dot.getB(), other,
          dot.getPrecisionAttr(), dot.getMaxNumImpreciseAccAttr());
      rewriter.eraseOp(dot);
      return success();
    }
    return failure();
  }
};

struct TileCombine : tile::impl::TileCombineBase<TileCombine> {
  using TileCombineBase::TileCombineBase;
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FoldAddPtrChain, HoistUniformOffsets,
                 FoldShapeOfSplat<BroadcastOp>, FoldShapeOfSplat<ExpandDimsOp>,
                 HoistElementwiseOfSplats, FoldAddIntoDot<arith::AddFOp>,
                 FoldAddIntoDot<arith::AddIOp>>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
