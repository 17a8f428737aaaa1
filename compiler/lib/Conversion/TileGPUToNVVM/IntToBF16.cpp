//===- IntToBF16.cpp - Integers to bf16, correctly rounded, before sm_90 --===//
//
// PTX converts integers to bf16 directly (cvt.rn.bf16.s32) from sm_90 on.
// Before it, LLVM goes through f32 and rounds twice: a 32- or 64-bit
// integer that f32 rounds onto a midpoint between two bf16 values then
// rounds to even, one bf16 step from the nearest (found by tile-difftest:
// an i32 product near 1.6e9 on the A100 path). Here the first rounding is
// to odd instead: toward zero, with the last bit set where that dropped
// anything. f32 keeps 16 bits more than bf16, so the second rounding (to
// nearest even) then lands where one rounding would have.
//
//===----------------------------------------------------------------------===//

#include "tilec/Conversion/TileGPUToNVVM/TileGPUToNVVM.h"
#include "tilec/Dialect/TileGPU/IR/Target.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

using namespace mlir;
using namespace mlir::tilegpu;

namespace {

/// An i32 or i64 `x` to bf16 through f32 rounded to odd.
template <typename OpTy, bool isSigned>
struct IntToBF16RoundingOnce : OpRewritePattern<OpTy> {
  IntToBF16RoundingOnce(MLIRContext *context)
      : OpRewritePattern<OpTy>(context, /*benefit=*/2) {}

  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    Value x = op.getIn();
    auto intType = dyn_cast<IntegerType>(x.getType());
    // Up to 24 bits f32 holds every value: one rounding already.
    if (!op.getType().isBF16() || !intType || intType.getWidth() <= 24 ||
        getComputeCapability(op) >= 90)
      return failure();
    Location loc = op.getLoc();
    Type f32 = rewriter.getF32Type(), i32 = rewriter.getI32Type();
    // Toward zero: |f| <= |x|, so f converts back without overflow.
    StringRef toZero = intType.getWidth() == 32
                           ? (isSigned ? "llvm.nvvm.i2f.rz" : "llvm.nvvm.ui2f.rz")
                           : (isSigned ? "llvm.nvvm.ll2f.rz" : "llvm.nvvm.ull2f.rz");
    Value f = LLVM::CallIntrinsicOp::create(
                  rewriter, loc, f32, rewriter.getStringAttr(toZero), ValueRange{x})
                  .getResult(0);
    Value back = isSigned ? (Value)LLVM::FPToSIOp::create(rewriter, loc, intType, f)
                          : (Value)LLVM::FPToUIOp::create(rewriter, loc, intType, f);
    Value inexact = LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::ne,
                                         back, x);
    Value bits = LLVM::BitcastOp::create(rewriter, loc, i32, f);
    bits = LLVM::OrOp::create(rewriter, loc, bits,
                              LLVM::ZExtOp::create(rewriter, loc, i32, inexact));
    Value odd = LLVM::BitcastOp::create(rewriter, loc, f32, bits);
    rewriter.replaceOpWithNewOp<LLVM::FPTruncOp>(op, op.getType(), odd);
    return success();
  }
};

} // namespace

void mlir::tilegpu::populateIntToBF16Patterns(RewritePatternSet &patterns) {
  patterns.add<IntToBF16RoundingOnce<arith::SIToFPOp, true>,
               IntToBF16RoundingOnce<arith::UIToFPOp, false>>(
      patterns.getContext());
}
