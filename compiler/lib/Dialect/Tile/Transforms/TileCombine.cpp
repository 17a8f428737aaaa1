//===- TileCombine.cpp - Simplifications of tile programs -----------------===//

#include "tilec/Dialect/Tile/Transforms/Passes.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

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
    Value sum = arith::AddIOp::create(rewriter, op.getLoc(), inner.getOffset(),
                                      op.getOffset());
    rewriter.replaceOpWithNewOp<AddPtrOp>(op, op.getType(), inner.getPtr(), sum);
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
    OperationState state(op->getLoc(), op->getName(), scalars,
                         {resultType.getElementType()}, op->getAttrs());
    Operation *scalarOp = rewriter.create(state);
    rewriter.replaceOpWithNewOp<SplatOp>(op, resultType, scalarOp->getResult(0));
    return success();
  }
};

struct TileCombine : tile::impl::TileCombineBase<TileCombine> {
  using TileCombineBase::TileCombineBase;
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FoldAddPtrChain, FoldShapeOfSplat<BroadcastOp>,
                 FoldShapeOfSplat<ExpandDimsOp>, HoistElementwiseOfSplats>(
        &getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
