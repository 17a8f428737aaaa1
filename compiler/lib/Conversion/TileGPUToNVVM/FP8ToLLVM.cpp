//===- FP8ToLLVM.cpp - fp8 conversions through PTX's cvt ------------------===//
//
// LLVM has no fp8 types: fp8 elements travel as their bits in an i8 (the
// type converter's), and conversions to and from fp16 and fp32 (the
// frontend sends every other through fp32) are PTX's cvt on sm_89 and
// newer, two elements at a time as the instructions pack them:
//
//   fp8x2 -> f16x2      cvt.rn.f16x2.{e4m3,e5m2}x2 (f32: then exactly from f16)
//   f32, f32 -> fp8x2   cvt.rn.satfinite.{e4m3,e5m2}x2.f32
//   f16x2 -> fp8x2      cvt.rn.satfinite.{e4m3,e5m2}x2.f16x2
//
// as Triton's lowering does, so that both round (to nearest even,
// saturating to the largest finite value) the same. fp8 constants become
// their bits.
//
//===----------------------------------------------------------------------===//

#include "Utility.h"

#include "tilec/Conversion/TileGPUToNVVM/TileGPUToNVVM.h"
#include "tilec/Dialect/TileGPU/IR/Target.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

using namespace mlir;
using namespace mlir::tilegpu;
using mlir::tile::isFP8;

namespace {

/// "e4m3" or "e5m2": PTX's name of an fp8 type.
StringRef getPTXName(Type type) {
  return isa<Float8E5M2Type>(getElementTypeOrSelf(type)) ? "e5m2" : "e4m3";
}

/// Fails with an error where the target has no fp8 conversions.
LogicalResult checkTarget(Operation *op) {
  if (getComputeCapability(op) >= 89)
    return success();
  return op->emitError("fp8 conversions need sm_89 or newer (Ada, Hopper); "
                       "compile for --arch sm_89 or sm_90");
}

Value i16Constant(OpBuilder &b, Location loc, int64_t v) {
  return LLVM::ConstantOp::create(b, loc, b.getI16Type(), b.getI16IntegerAttr(v));
}

/// fp8 elements (i8 bits) extended to f16 or f32.
struct ExtFFromFP8 : OpConversionPattern<arith::ExtFOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(arith::ExtFOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!isFP8(op.getIn().getType()))
      return failure();
    if (failed(checkTarget(op)))
      return failure();
    Location loc = op.getLoc();
    Type i16 = rewriter.getI16Type(), i32 = rewriter.getI32Type();
    Type f16 = rewriter.getF16Type();
    bool toF32 = getElementTypeOrSelf(op.getType()).isF32();
    std::string asmText =
        ("cvt.rn.f16x2." + getPTXName(op.getIn().getType()) + "x2 $0, $1;").str();
    ValueRange in = adaptor.getIn();
    SmallVector<Value> results;
    for (unsigned i = 0; i < in.size(); i += 2) {
      Value low = LLVM::ZExtOp::create(rewriter, loc, i16, in[i]);
      Value pair = low;
      if (i + 1 < in.size()) {
        Value high = LLVM::ZExtOp::create(rewriter, loc, i16, in[i + 1]);
        pair = LLVM::OrOp::create(
            rewriter, loc, low,
            LLVM::ShlOp::create(rewriter, loc, high, i16Constant(rewriter, loc, 8)));
      }
      Value halves = emitPTX(rewriter, loc, asmText, "=r,h", {pair}, {i32},
                             /*hasSideEffects=*/false)
                         .front();
      for (unsigned j = 0; j < 2 && i + j < in.size(); ++j) {
        Value bits = LLVM::TruncOp::create(
            rewriter, loc, i16,
            j ? (Value)LLVM::LShrOp::create(rewriter, loc, halves,
                                            i32Constant(rewriter, loc, 16))
              : halves);
        Value half = LLVM::BitcastOp::create(rewriter, loc, f16, bits);
        results.push_back(
            toF32 ? (Value)LLVM::FPExtOp::create(rewriter, loc,
                                                 rewriter.getF32Type(), half)
                  : half);
      }
    }
    rewriter.replaceOpWithMultiple(op, {results});
    return success();
  }
};

/// f16 or f32 elements rounded to fp8 (i8 bits).
struct TruncFToFP8 : OpConversionPattern<arith::TruncFOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(arith::TruncFOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!isFP8(op.getType()))
      return failure();
    if (failed(checkTarget(op)))
      return failure();
    Location loc = op.getLoc();
    Type i8 = rewriter.getI8Type(), i16 = rewriter.getI16Type();
    Type i32 = rewriter.getI32Type();
    bool fromF32 = getElementTypeOrSelf(op.getIn().getType()).isF32();
    std::string asmText = ("cvt.rn.satfinite." + getPTXName(op.getType()) +
                           (fromF32 ? "x2.f32 $0, $1, $2;" : "x2.f16x2 $0, $1;"))
                              .str();
    ValueRange in = adaptor.getIn();
    SmallVector<Value> results;
    for (unsigned i = 0; i < in.size(); i += 2) {
      Value first = in[i];
      Value second = i + 1 < in.size() ? in[i + 1] : in[i];
      Value pair;
      if (fromF32) {
        // The first operand becomes the upper byte.
        pair = emitPTX(rewriter, loc, asmText, "=h,f,f", {second, first}, {i16},
                       /*hasSideEffects=*/false)
                   .front();
      } else {
        auto bits = [&](Value half) {
          return LLVM::ZExtOp::create(
              rewriter, loc, i32, LLVM::BitcastOp::create(rewriter, loc, i16, half));
        };
        Value packed = LLVM::OrOp::create(
            rewriter, loc, bits(first),
            LLVM::ShlOp::create(rewriter, loc, bits(second),
                                i32Constant(rewriter, loc, 16)));
        pair = emitPTX(rewriter, loc, asmText, "=h,r", {packed}, {i16},
                       /*hasSideEffects=*/false)
                   .front();
      }
      results.push_back(LLVM::TruncOp::create(rewriter, loc, i8, pair));
      if (i + 1 < in.size())
        results.push_back(LLVM::TruncOp::create(
            rewriter, loc, i8,
            LLVM::LShrOp::create(rewriter, loc, pair, i16Constant(rewriter, loc, 8))));
    }
    rewriter.replaceOpWithMultiple(op, {results});
    return success();
  }
};

/// An fp8 constant (a scalar or a splat tile): its bits.
struct FP8Constant : OpConversionPattern<arith::ConstantOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(arith::ConstantOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!isFP8(op.getType()))
      return failure();
    APFloat value(0.0);
    if (auto scalar = dyn_cast<FloatAttr>(op.getValue()))
      value = scalar.getValue();
    else if (auto dense = dyn_cast<DenseFPElementsAttr>(op.getValue());
             dense && dense.isSplat())
      value = dense.getSplatValue<APFloat>();
    else
      return rewriter.notifyMatchFailure(op, "an fp8 constant that is not a splat");
    Value bits = LLVM::ConstantOp::create(
        rewriter, op.getLoc(), rewriter.getI8Type(),
        rewriter.getIntegerAttr(rewriter.getI8Type(), value.bitcastToAPInt()));
    SmallVector<Type> types;
    if (failed(getTypeConverter()->convertType(op.getType(), types)))
      return failure();
    rewriter.replaceOpWithMultiple(op, {SmallVector<Value>(types.size(), bits)});
    return success();
  }
};

} // namespace

void mlir::tilegpu::populateFP8ToLLVMPatterns(
    const TileGPUTypeConverter &converter, RewritePatternSet &patterns) {
  // Before the elementwise scalarization, which would keep fp8 ops.
  patterns.add<ExtFFromFP8, TruncFToFP8, FP8Constant>(
      converter, patterns.getContext(), /*benefit=*/2);
}
