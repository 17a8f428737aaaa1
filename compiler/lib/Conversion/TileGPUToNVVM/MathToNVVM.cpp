//===- MathToNVVM.cpp - exp, log and '/' the way Triton computes them -----===//
//
// Like Triton, tl.exp and tl.log use the fast approximate base-2 instructions
// (ex2.approx, lg2.approx) with a change of base, and tl.rsqrt rsqrt.approx
// (libdevice's __nv_rsqrtf); 16-bit floats compute in f32. LLVM's
// llvm.exp/llvm.log would become libm calls NVPTX cannot link. sin, cos and
// erf call libdevice, linked by the PTX emitter.
// Triton's fp32 '/' (an arith.divf marked `arcp`) is div.full.f32, within
// 2 ulp and much cheaper than the correctly rounded div.rn.f32, which
// tl.div_rn keeps.
//
//===----------------------------------------------------------------------===//

#include "Utility.h"

#include "tilec/Conversion/TileGPUToNVVM/TileGPUToNVVM.h"
#include "tilec/Dialect/Tile/IR/Libdevice.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

#include <cmath>

using namespace mlir;
using namespace mlir::tilegpu;

namespace {

template <typename OpTy>
struct ApproxToPTX : OpRewritePattern<OpTy> {
  ApproxToPTX(MLIRContext *context, StringRef instruction, double preScale,
             double postScale)
      : OpRewritePattern<OpTy>(context, /*benefit=*/2),
        instruction(instruction), preScale(preScale), postScale(postScale) {}

  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type type = op.getType();
    if (!isa<FloatType>(type) || type.getIntOrFloatBitWidth() > 32)
      return failure();
    Type f32 = rewriter.getF32Type();
    Value x = op.getOperand();
    if (type != f32)
      x = LLVM::FPExtOp::create(rewriter, loc, f32, x);
    auto scale = [&](Value v, double factor) -> Value {
      if (factor == 1.0)
        return v;
      Value c = LLVM::ConstantOp::create(rewriter, loc, f32,
                                         rewriter.getF32FloatAttr(factor));
      return LLVM::FMulOp::create(rewriter, loc, v, c);
    };
    x = scale(x, preScale);
    Value y = emitPTX(rewriter, loc, instruction + " $0, $1;", "=f,f",
                      {x}, {f32}, /*hasSideEffects=*/false)[0];
    y = scale(y, postScale);
    if (type != f32)
      y = LLVM::FPTruncOp::create(rewriter, loc, type, y);
    rewriter.replaceOp(op, y);
    return success();
  }

  std::string instruction;
  double preScale, postScale;
};

/// sin, cos and erf as calls to libdevice's __nv_sinf & co., as Triton
/// computes them: NVPTX selects no llvm.erf, and llvm.sin only as the
/// coarse sin.approx.f32 under unsafe math.
template <typename OpTy>
struct LibdeviceCall : OpRewritePattern<OpTy> {
  LibdeviceCall(MLIRContext *context, StringRef name)
      : OpRewritePattern<OpTy>(context, /*benefit=*/2), name(name) {}

  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    Type type = op.getType();
    if (!type.isF32() && !type.isF64())
      return failure();
    std::string symbol =
        tile::getLibdeviceSymbol(*tile::lookupLibdevice(name), type);
    rewriter.replaceOp(op, callLibdevice(rewriter, op.getLoc(), op, symbol,
                                         type, op->getOperands()));
    return success();
  }

  StringRef name;
};

struct DivFullToNVVM : OpRewritePattern<arith::DivFOp> {
  DivFullToNVVM(MLIRContext *context)
      : OpRewritePattern<arith::DivFOp>(context, /*benefit=*/2) {}

  LogicalResult matchAndRewrite(arith::DivFOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.getType().isF32() ||
        !arith::bitEnumContainsAll(op.getFastmath(), arith::FastMathFlags::arcp))
      return failure();
    rewriter.replaceOpWithNewOp<LLVM::CallIntrinsicOp>(
        op, op.getType(), rewriter.getStringAttr("llvm.nvvm.div.full"),
        ValueRange{op.getLhs(), op.getRhs()});
    return success();
  }
};

} // namespace

void mlir::tilegpu::populateMathToNVVMPatterns(RewritePatternSet &patterns) {
  MLIRContext *context = patterns.getContext();
  patterns.add<ApproxToPTX<math::ExpOp>>(context, "ex2.approx.f32", M_LOG2E, 1.0);
  patterns.add<ApproxToPTX<math::Exp2Op>>(context, "ex2.approx.f32", 1.0, 1.0);
  patterns.add<ApproxToPTX<math::LogOp>>(context, "lg2.approx.f32", 1.0, M_LN2);
  patterns.add<ApproxToPTX<math::Log2Op>>(context, "lg2.approx.f32", 1.0, 1.0);
  patterns.add<ApproxToPTX<math::RsqrtOp>>(context, "rsqrt.approx.f32", 1.0, 1.0);
  patterns.add<LibdeviceCall<math::SinOp>>(context, "sin");
  patterns.add<LibdeviceCall<math::CosOp>>(context, "cos");
  patterns.add<LibdeviceCall<math::ErfOp>>(context, "erf");
  patterns.add<DivFullToNVVM>(context);
}
