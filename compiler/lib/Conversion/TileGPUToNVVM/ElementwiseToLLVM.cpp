//===- ElementwiseToLLVM.cpp - Elementwise ops, one per element -----------===//
//
// A tensor op of `arith` or `math` becomes the same op on each of the
// thread's scalars (once per run of registers the axis analysis proves
// equal); ArithToLLVM and MathToLLVM finish the job. tile.addptr
// becomes a getelementptr per element, tile.extern_elementwise a libdevice
// call per element.
//
//===----------------------------------------------------------------------===//

#include "Utility.h"

#include "tilec/Conversion/TileGPUToNVVM/TileGPUToNVVM.h"

#include "tilec/Dialect/Tile/IR/Tile.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

using namespace mlir;
using namespace mlir::tilegpu;

namespace {

/// The number of values an operand or result took after conversion, all
/// equal for an elementwise op (scalars count 1).
unsigned getWidth(ArrayRef<ValueRange> operands) {
  unsigned width = 1;
  for (ValueRange values : operands)
    width = std::max<unsigned>(width, values.size());
  return width;
}

/// The i-th value of an operand, broadcasting scalars.
Value elementOf(ValueRange values, unsigned i) {
  return values.size() == 1 ? values.front() : values[i];
}

struct ScalarizeElementwise : ConversionPattern {
  ScalarizeElementwise(const TypeConverter &converter, const ConstantRuns &runs,
                       MLIRContext *context)
      : ConversionPattern(converter, MatchAnyOpTypeTag(), /*benefit=*/1,
                          context),
        runs(runs) {}

  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<ValueRange> operands,
                  ConversionPatternRewriter &rewriter) const override {
    if (!op->hasTrait<OpTrait::Elementwise>() || op->getNumResults() != 1 ||
        op->getNumRegions() != 0 || isa<tile::AddPtrOp>(op))
      return failure();
    Dialect *dialect = op->getDialect();
    if (!dialect || (dialect->getNamespace() != "arith" &&
                     dialect->getNamespace() != "math"))
      return failure();
    Type resultType = op->getResult(0).getType();
    // fp8 values are bits here: only moved (FP8ToLLVM converts them).
    if (!isa<arith::SelectOp, arith::BitcastOp>(op) &&
        (llvm::any_of(op->getOperandTypes(), tile::isFP8) ||
         tile::isFP8(resultType)))
      return failure();
    if (!isa<RankedTensorType>(resultType) &&
        llvm::all_of(op->getOperandTypes(), [&](Type t) {
          return getTypeConverter()->isLegal(t);
        }))
      return failure(); // scalar op on legal types: not ours
    Type scalarType =
        getTypeConverter()->convertType(getElementTypeOrSelf(resultType));
    if (!scalarType)
      return failure();

    auto it = runs.find(op);
    unsigned run = it == runs.end() ? 1 : it->second;
    SmallVector<Value> results;
    for (unsigned i = 0, e = getWidth(operands); i < e; ++i) {
      if (i % run) {
        results.push_back(results[i - i % run]);
        continue;
      }
      SmallVector<Value> scalars;
      for (ValueRange values : operands)
        scalars.push_back(elementOf(values, i));
      OperationState state(op->getLoc(), op->getName(), scalars, {scalarType},
                           op->getAttrs());
      results.push_back(rewriter.create(state)->getResult(0));
    }
    rewriter.replaceOpWithMultiple(op, {results});
    return success();
  }

  const ConstantRuns &runs;
};

struct AddPtrToGEP : OpConversionPattern<tile::AddPtrOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tile::AddPtrOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type pointee = cast<tile::PointerType>(getElementTypeOrSelf(op.getType()))
                       .getPointeeType();
    // i1 lives in memory as a byte, fp8 as its bits.
    pointee = getMemoryType(pointee);
    Type ptrType = getTypeConverter()->convertType(
        getElementTypeOrSelf(op.getType()));
    SmallVector<Value> results;
    ArrayRef<ValueRange> operands = adaptor.getOperands();
    for (unsigned i = 0, e = getWidth(operands); i < e; ++i)
      results.push_back(LLVM::GEPOp::create(
          rewriter, op.getLoc(), ptrType, pointee,
          elementOf(adaptor.getPtr(), i),
          ValueRange{elementOf(adaptor.getOffset(), i)}));
    rewriter.replaceOpWithMultiple(op, {results});
    return success();
  }
};

/// A libdevice function on each element: a call the PTX emitter resolves.
struct ExternElementwiseToCall : OpConversionPattern<tile::ExternElementwiseOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tile::ExternElementwiseOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type scalarType = getElementTypeOrSelf(op.getType());
    ArrayRef<ValueRange> operands = adaptor.getOperands();
    SmallVector<Value> results;
    for (unsigned i = 0, e = getWidth(operands); i < e; ++i) {
      SmallVector<Value> args;
      for (ValueRange values : operands)
        args.push_back(elementOf(values, i));
      results.push_back(callLibdevice(rewriter, op.getLoc(), op,
                                      op.getSymbol(), scalarType, args));
    }
    rewriter.replaceOpWithMultiple(op, {results});
    return success();
  }
};

/// tile.ptr_to_int and tile.int_to_ptr on each element: LLVM's casts
/// (a global address is the generic one in CUDA).
template <typename OpTy, typename LLVMOpTy>
struct AddressCastToLLVM : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OpTy op,
                  typename OpConversionPattern<OpTy>::OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type scalarType = this->getTypeConverter()->convertType(
        getElementTypeOrSelf(op.getType()));
    SmallVector<Value> results;
    for (Value v : adaptor.getOperands().front())
      results.push_back(LLVMOpTy::create(rewriter, op.getLoc(), scalarType, v));
    rewriter.replaceOpWithMultiple(op, {results});
    return success();
  }
};

} // namespace

void mlir::tilegpu::populateElementwiseToLLVMPatterns(
    const TileGPUTypeConverter &converter, const ConstantRuns &runs,
    RewritePatternSet &patterns) {
  patterns.add<ScalarizeElementwise>(converter, runs, patterns.getContext());
  patterns.add<AddPtrToGEP, ExternElementwiseToCall,
               AddressCastToLLVM<tile::PtrToIntOp, LLVM::PtrToIntOp>,
               AddressCastToLLVM<tile::IntToPtrOp, LLVM::IntToPtrOp>>(
      converter, patterns.getContext());
}
