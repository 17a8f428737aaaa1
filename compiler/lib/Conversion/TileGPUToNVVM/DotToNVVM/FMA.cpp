//===- FMA.cpp - tl.dot on the CUDA cores ---------------------------------===//
//
// The dot for what no tensor-core instruction takes (f64, exact f32, tiles
// with M or N of 1): the accumulator keeps its blocked layout, and each
// thread holds the rows of A and columns of B its accumulator elements need
// (the dot-operand layouts of a blocked parent), so every product is a
// register-to-register FMA. K runs over the real extent only: padding
// never enters a sum. Narrow floats accumulate in f32 and round once at the
// end, integers in i32; tf32 rounds its inputs first, as the tensor cores
// would (tf32x3 is exact here, which is what it approximates).
//
//===----------------------------------------------------------------------===//

#include "Utility.h"

#include "tilec/Conversion/TileGPUToNVVM/TileGPUToNVVM.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

using namespace mlir;
using namespace mlir::tilegpu;

namespace {

/// `v` rounded to tf32 (nearest, ties away), still an f32.
Value roundToTF32(OpBuilder &b, Location loc, Value v) {
  Value bits = NVVM::ConvertFloatToTF32Op::create(
      b, loc, b.getI32Type(), v, NVVM::FPRoundingMode::RNA,
      NVVM::SaturationMode::NONE, /*relu=*/false);
  return LLVM::BitcastOp::create(b, loc, b.getF32Type(), bits);
}

/// `v` in the type products are summed in.
Value widen(OpBuilder &b, Location loc, Value v, Type compute) {
  Type type = v.getType();
  if (type == compute)
    return v;
  if (isa<FloatType>(type))
    return LLVM::FPExtOp::create(b, loc, compute, v);
  return LLVM::SExtOp::create(b, loc, compute, v);
}

Value narrow(OpBuilder &b, Location loc, Value v, Type type) {
  if (v.getType() == type)
    return v;
  if (isa<FloatType>(type))
    return LLVM::FPTruncOp::create(b, loc, type, v);
  return LLVM::TruncOp::create(b, loc, type, v);
}

struct FMADotToLLVM : OpConversionPattern<tile::DotOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(tile::DotOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!isa<BlockedEncodingAttr>(op.getType().getEncoding()))
      return rewriter.notifyMatchFailure(op, "not an FMA dot");
    Location loc = op.getLoc();
    ThreadLayout acc = getThreadLayout(op.getType());
    ThreadLayout a = getThreadLayout(op.getA().getType());
    ThreadLayout b = getThreadLayout(op.getB().getType());
    unsigned rank = acc.getRootRank();
    int64_t k = op.getA().getType().getShape()[rank - 1];

    Type accType = adaptor.getAcc().front().getType();
    Type compute = accType;
    if (isa<FloatType>(accType) && accType.getIntOrFloatBitWidth() < 32)
      compute = rewriter.getF32Type();
    bool tf32 = op.getPrecision() == tile::InputPrecision::TF32 &&
                op.getA().getType().getElementType().isF32();
    auto prepare = [&](ValueRange values) {
      SmallVector<Value> result;
      for (Value v : values) {
        if (tf32)
          v = roundToTF32(rewriter, loc, v);
        result.push_back(widen(rewriter, loc, v, compute));
      }
      return result;
    };
    SmallVector<Value> aValues = prepare(adaptor.getA());
    SmallVector<Value> bValues = prepare(adaptor.getB());

    SmallVector<Value> results;
    ValueRange accValues = adaptor.getAcc();
    for (unsigned e = 0; e < acc.getNumElems(); ++e) {
      SmallVector<int64_t> local = acc.getLocalIndex(e);
      Value sum = widen(rewriter, loc, accValues[e], compute);
      for (int64_t i = 0; i < k; ++i) {
        SmallVector<int64_t> aLocal(local), bLocal(local);
        aLocal[rank - 1] = i;
        bLocal[rank - 2] = i;
        Value x = aValues[a.linearize(aLocal)];
        Value y = bValues[b.linearize(bLocal)];
        sum = isa<FloatType>(compute)
                  ? (Value)LLVM::FMAOp::create(rewriter, loc, x, y, sum)
                  : (Value)LLVM::AddOp::create(
                        rewriter, loc, sum,
                        LLVM::MulOp::create(rewriter, loc, x, y));
      }
      results.push_back(narrow(rewriter, loc, sum, accType));
    }
    rewriter.replaceOpWithMultiple(op, {results});
    return success();
  }
};

} // namespace

void mlir::tilegpu::populateFMADotToLLVMPatterns(
    const TileGPUTypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<FMADotToLLVM>(converter, patterns.getContext());
}
