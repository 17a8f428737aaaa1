//===- MathToNVVM.cpp - tl's math and '/' the way Triton computes them ----===//
//
// Instruction for instruction what Triton emits (bench/math_ptx.py shows
// both side by side): tl.exp is ex2.approx of x log2(e); log, log2, sin,
// cos and erf are libdevice's (__nv_logf...), linked by the PTX emitter;
// exp2, rsqrt, floor, ceil and tl.sqrt are the one flush-to-zero
// instruction libdevice's versions come down to under Triton's
// nvvm-reflect-ftz. 16-bit floats compute in f32. LLVM's own llvm.log and
// llvm.sin would become libm calls NVPTX cannot link.
// Triton's fp32 '/' (an arith.divf marked `arcp`) is div.full.f32, within
// 2 ulp and much cheaper than the correctly rounded div.rn.f32, which
// tl.div_rn keeps.
// A conversion to a narrower float rounding toward zero (`x.to(tl.float16,
// fp_downcast_rounding="rtz")`, an arith.truncf of roundingmode toward_zero)
// is cvt.rz: ArithToLLVM's constrained fptrunc reaches NVPTX as cvt.rn.
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
             double postScale, bool onlyIfAfn = false)
      : OpRewritePattern<OpTy>(context, /*benefit=*/3),
        instruction(instruction), preScale(preScale), postScale(postScale),
        onlyIfAfn(onlyIfAfn) {}

  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type type = op.getType();
    if (!isa<FloatType>(type) || type.getIntOrFloatBitWidth() > 32)
      return failure();
    if (onlyIfAfn && !arith::bitEnumContainsAll(op.getFastmath(),
                                                arith::FastMathFlags::afn))
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
  bool onlyIfAfn;
};

/// A call to libdevice's __nv_<name>f (f32) or __nv_<name> (f64).
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

/// arith.truncf toward zero to f32, f16 or bf16. From f64 to a 16-bit float
/// it goes through f32: truncating twice is truncating once.
struct TruncFTowardZero : OpRewritePattern<arith::TruncFOp> {
  TruncFTowardZero(MLIRContext *context)
      : OpRewritePattern<arith::TruncFOp>(context, /*benefit=*/3) {}

  LogicalResult matchAndRewrite(arith::TruncFOp op,
                                PatternRewriter &rewriter) const override {
    Type out = op.getType();
    if (op.getRoundingmode() != arith::RoundingMode::toward_zero ||
        !(out.isF32() || out.isF16() || out.isBF16()))
      return failure();
    Location loc = op.getLoc();
    Type f32 = rewriter.getF32Type();
    Value x = op.getIn();
    if (x.getType().isF64())
      x = emitPTX(rewriter, loc, "cvt.rz.f32.f64 $0, $1;", "=f,d", {x}, {f32},
                  /*hasSideEffects=*/false)[0];
    if (!out.isF32()) {
      std::string cvt = std::string("cvt.rz.") +
                        (out.isF16() ? "f16" : "bf16") + ".f32 $0, $1;";
      Value bits =
          emitPTX(rewriter, loc, cvt, "=h,f", {x}, {rewriter.getI16Type()},
                  /*hasSideEffects=*/false)[0];
      x = LLVM::BitcastOp::create(rewriter, loc, out, bits);
    }
    rewriter.replaceOp(op, x);
    return success();
  }
};

} // namespace

void mlir::tilegpu::populateMathToNVVMPatterns(RewritePatternSet &patterns) {
  MLIRContext *context = patterns.getContext();
  // fp32 tl.exp: ex2.approx of x log2(e), without flushing, as Triton's.
  patterns.add<ApproxToPTX<math::ExpOp>>(context, "ex2.approx.f32", M_LOG2E, 1.0);
  // Triton takes the rest from libdevice, whose fp32 exp2, rsqrt, floor,
  // ceil and (approximate) sqrt are single instructions under its
  // flush-to-zero: those, emitted here, need no libdevice.
  patterns.add<ApproxToPTX<math::Exp2Op>>(context, "ex2.approx.ftz.f32", 1.0, 1.0);
  patterns.add<ApproxToPTX<math::RsqrtOp>>(context, "rsqrt.approx.ftz.f32", 1.0, 1.0);
  patterns.add<ApproxToPTX<math::FloorOp>>(context, "cvt.rmi.ftz.f32.f32", 1.0, 1.0);
  patterns.add<ApproxToPTX<math::CeilOp>>(context, "cvt.rpi.ftz.f32.f32", 1.0, 1.0);
  // tl.sqrt (afn); tl.sqrt_rn stays llvm.sqrt, the correctly rounded sqrt.rn.
  patterns.add<ApproxToPTX<math::SqrtOp>>(context, "sqrt.approx.ftz.f32", 1.0, 1.0,
                                          /*onlyIfAfn=*/true);
  // The others, and fp64, call libdevice.
  patterns.add<LibdeviceCall<math::ExpOp>>(context, "exp");
  patterns.add<LibdeviceCall<math::Exp2Op>>(context, "exp2");
  patterns.add<LibdeviceCall<math::LogOp>>(context, "log");
  patterns.add<LibdeviceCall<math::Log2Op>>(context, "log2");
  patterns.add<LibdeviceCall<math::RsqrtOp>>(context, "rsqrt");
  patterns.add<LibdeviceCall<math::SinOp>>(context, "sin");
  patterns.add<LibdeviceCall<math::CosOp>>(context, "cos");
  patterns.add<LibdeviceCall<math::ErfOp>>(context, "erf");
  patterns.add<DivFullToNVVM>(context);
  patterns.add<TruncFTowardZero>(context);
}
