//===- HintToLLVM.cpp - tl.multiple_of & co. and tl.assume ----------------===//
//
// The axis analysis has read the hints before lowering (the vector widths
// of loads and stores); the values pass through. An assumption becomes
// LLVM's, which its optimizations may use.
//
//===----------------------------------------------------------------------===//

#include "tilec/Conversion/TileGPUToNVVM/TileGPUToNVVM.h"
#include "tilec/Dialect/Tile/IR/Tile.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

using namespace mlir;
using namespace mlir::tilegpu;

namespace {

struct HintToLLVM : OpConversionPattern<tile::HintOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tile::HintOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithMultiple(op, {adaptor.getSrc()});
    return success();
  }
};

struct AssumeToLLVM : OpConversionPattern<tile::AssumeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tile::AssumeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<LLVM::AssumeOp>(op, adaptor.getCond());
    return success();
  }
};

} // namespace

void mlir::tilegpu::populateHintToLLVMPatterns(
    const TileGPUTypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<HintToLLVM, AssumeToLLVM>(converter, patterns.getContext());
}
