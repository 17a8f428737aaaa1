//===- BarrierToLLVM.cpp - Barriers and proxy fences ----------------------===//
//
// A program is a CTA: its barrier is bar.sync 0, which also makes the
// memory accesses before it visible to the CTA after it (in a
// warp-specialized kernel's consumers, a named barrier of theirs; see
// emitBarrier). The proxy fence extends that to the async proxy (wgmma's
// operand reads).
//
//===----------------------------------------------------------------------===//

#include "Utility.h"

#include "tilec/Conversion/TileGPUToNVVM/TileGPUToNVVM.h"
#include "tilec/Dialect/Tile/IR/Tile.h"
#include "tilec/Dialect/TileGPU/IR/Target.h"
#include "tilec/Dialect/TileGPU/IR/TileGPU.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

using namespace mlir;
using namespace mlir::tilegpu;

namespace {

struct DebugBarrierToNVVM : OpConversionPattern<tile::DebugBarrierOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tile::DebugBarrierOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    emitBarrier(rewriter, op.getLoc());
    rewriter.eraseOp(op);
    return success();
  }
};

/// griddepcontrol, from sm_90; before it no grid starts early, and there
/// is nothing to wait for or to allow.
struct GridDependencyToNVVM : OpConversionPattern<tile::GridDependencyOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tile::GridDependencyOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (getComputeCapability(op) >= 90)
      NVVM::GriddepcontrolOp::create(
          rewriter, op.getLoc(),
          op.getKind() == tile::GridDependencyKind::Wait
              ? NVVM::GridDepActionKind::wait
              : NVVM::GridDepActionKind::launch_dependents);
    rewriter.eraseOp(op);
    return success();
  }
};

struct FenceAsyncSharedToNVVM : OpConversionPattern<FenceAsyncSharedOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(FenceAsyncSharedOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    MLIRContext *context = rewriter.getContext();
    rewriter.replaceOpWithNewOp<NVVM::FenceProxyOp>(
        op, NVVM::ProxyKindAttr::get(context, NVVM::ProxyKind::async_shared),
        NVVM::SharedSpaceAttr::get(context, NVVM::SharedSpace::shared_cta));
    return success();
  }
};

} // namespace

void mlir::tilegpu::populateBarrierToLLVMPatterns(
    const TileGPUTypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<DebugBarrierToNVVM, GridDependencyToNVVM,
               FenceAsyncSharedToNVVM>(converter, patterns.getContext());
}
