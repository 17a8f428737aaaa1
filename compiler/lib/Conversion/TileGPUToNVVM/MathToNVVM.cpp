//===- MathToNVVM.cpp - exp and log on the GPU's special function unit ----===//
//
// Like Triton, tl.exp and tl.log use the fast approximate base-2 instructions
// (ex2.approx, lg2.approx) with a change of base; 16-bit floats compute in
// f32. LLVM's llvm.exp/llvm.log would become libm calls NVPTX cannot link.
//
//===----------------------------------------------------------------------===//

#include "Utility.h"

#include "tilec/Conversion/TileGPUToNVVM/TileGPUToNVVM.h"

#include "mlir/Dialect/Math/IR/Math.h"

#include <cmath>

using namespace mlir;
using namespace mlir::tilegpu;

namespace {

template <typename OpTy>
struct Base2ToPTX : OpRewritePattern<OpTy> {
  Base2ToPTX(MLIRContext *context, StringRef instruction, double preScale,
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

} // namespace

void mlir::tilegpu::populateMathToNVVMPatterns(RewritePatternSet &patterns) {
  MLIRContext *context = patterns.getContext();
  patterns.add<Base2ToPTX<math::ExpOp>>(context, "ex2.approx.f32", M_LOG2E, 1.0);
  patterns.add<Base2ToPTX<math::Exp2Op>>(context, "ex2.approx.f32", 1.0, 1.0);
  patterns.add<Base2ToPTX<math::LogOp>>(context, "lg2.approx.f32", 1.0, M_LN2);
  patterns.add<Base2ToPTX<math::Log2Op>>(context, "lg2.approx.f32", 1.0, 1.0);
}
