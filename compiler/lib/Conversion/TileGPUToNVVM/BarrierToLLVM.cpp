//===- BarrierToLLVM.cpp - tl.debug_barrier -------------------------------===//
//
// A program is a CTA: its barrier is bar.sync 0, which also makes the
// memory accesses before it visible to the CTA after it.
//
//===----------------------------------------------------------------------===//

#include "tilec/Conversion/TileGPUToNVVM/TileGPUToNVVM.h"
#include "tilec/Dialect/Tile/IR/Tile.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

using namespace mlir;
using namespace mlir::tilegpu;

namespace {

struct DebugBarrierToNVVM : OpConversionPattern<tile::DebugBarrierOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tile::DebugBarrierOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::Barrier0Op>(op);
    return success();
  }
};

} // namespace

void mlir::tilegpu::populateBarrierToLLVMPatterns(
    const TileGPUTypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<DebugBarrierToNVVM>(converter, patterns.getContext());
}
