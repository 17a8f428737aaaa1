//===- ShapeToLLVM.cpp - Program ids, ranges and shape operations ---------===//
//
// Ops that make or reshape tiles without touching memory. Each thread
// computes its elements' indices from its thread id and the layout.
//
//===----------------------------------------------------------------------===//

#include "Utility.h"

#include "tilec/Dialect/TileGPU/IR/ShapeLayouts.h"

#include "tilec/Conversion/TileGPUToNVVM/TileGPUToNVVM.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

using namespace mlir;
using namespace mlir::tilegpu;

namespace {

/// tl.program_id and tl.num_programs: the CTA's, or the cluster's where
/// programs run as clusters.
template <typename OpTy>
struct GridQueryToNVVM : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    unsigned axis = unsigned(op.getAxis());
    rewriter.replaceOp(op, std::is_same_v<OpTy, tile::ProgramIdOp>
                               ? emitProgramId(rewriter, op.getLoc(), op, axis)
                               : emitNumPrograms(rewriter, op.getLoc(), op, axis));
    return success();
  }
};

struct MakeRangeToLLVM : OpConversionPattern<tile::MakeRangeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tile::MakeRangeOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ThreadLayout layout = getThreadLayout(op.getType());
    SmallVector<Value> values;
    for (ArrayRef<Value> index : emitElementIndices(rewriter, op.getLoc(), layout))
      values.push_back(LLVM::AddOp::create(
          rewriter, op.getLoc(), index[0],
          i32Constant(rewriter, op.getLoc(), op.getStart())));
    rewriter.replaceOpWithMultiple(op, {values});
    return success();
  }
};

struct SplatToLLVM : OpConversionPattern<tile::SplatOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tile::SplatOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    unsigned n = getThreadLayout(op.getType()).getNumElems();
    SmallVector<Value> values(n, adaptor.getSrc().front());
    rewriter.replaceOpWithMultiple(op, {values});
    return success();
  }
};

struct ConstantToLLVM : OpConversionPattern<arith::ConstantOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(arith::ConstantOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = dyn_cast<RankedTensorType>(op.getType());
    auto dense = dyn_cast<SplatElementsAttr>(op.getValue());
    if (!type || !dense)
      return failure();
    Value scalar = LLVM::ConstantOp::create(rewriter, op.getLoc(),
                                            type.getElementType(),
                                            dense.getSplatValue<TypedAttr>());
    SmallVector<Value> values(getThreadLayout(type).getNumElems(), scalar);
    rewriter.replaceOpWithMultiple(op, {values});
    return success();
  }
};

/// The source and result share a layout; each result element reads the
/// thread's own source element with the broadcast dimensions at 0.
struct BroadcastToLLVM : OpConversionPattern<tile::BroadcastOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tile::BroadcastOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ThreadLayout src = getThreadLayout(op.getSrc().getType());
    ThreadLayout dst = getThreadLayout(op.getType());
    if (src.getRootEncoding() != dst.getRootEncoding() ||
        src.getSlicedDims() != dst.getSlicedDims())
      return rewriter.notifyMatchFailure(op, "source and result layouts differ");
    ValueRange srcValues = adaptor.getSrc();
    SmallVector<Value> values;
    for (unsigned e = 0; e < dst.getNumElems(); ++e) {
      SmallVector<int64_t> local = dst.getLocalIndex(e);
      for (unsigned d = 0; d < local.size(); ++d)
        if (src.getLocalCount(d) == 1)
          local[d] = 0;
      values.push_back(srcValues[src.linearize(local)]);
    }
    rewriter.replaceOpWithMultiple(op, {values});
    return success();
  }
};

/// The source's layout is the slice of the result's: the same elements.
struct ExpandDimsToLLVM : OpConversionPattern<tile::ExpandDimsOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tile::ExpandDimsOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto slice = dyn_cast_or_null<SliceEncodingAttr>(
        op.getSrc().getType().getEncoding());
    if (!slice || slice.getParent() != op.getType().getEncoding() ||
        int64_t(slice.getDim()) != op.getAxis())
      return rewriter.notifyMatchFailure(op, "source is not a slice of result");
    rewriter.replaceOpWithMultiple(op, {adaptor.getSrc()});
    return success();
  }
};

/// tile.trans, reshape, join and split: the layout pass gave the results
/// layouts that hold each element in the same thread (ShapeLayouts.h), so
/// each result register is some operand register, renamed.
template <typename OpTy>
struct RenameToLLVM : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OpTy op, typename OpConversionPattern<OpTy>::OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto sources = getRegisterSources(op);
    if (!sources)
      return rewriter.notifyMatchFailure(
          op, "the layouts hold different elements in each thread");
    SmallVector<SmallVector<Value>> results;
    for (ArrayRef<SourceRegister> result : *sources) {
      SmallVector<Value> &values = results.emplace_back();
      for (SourceRegister from : result)
        values.push_back(adaptor.getOperands()[from.operand][from.reg]);
    }
    SmallVector<ValueRange> ranges(results.begin(), results.end());
    rewriter.replaceOpWithMultiple(op, ranges);
    return success();
  }
};

} // namespace

void mlir::tilegpu::populateShapeToLLVMPatterns(
    const TileGPUTypeConverter &converter, RewritePatternSet &patterns) {
  MLIRContext *context = patterns.getContext();
  patterns.add<GridQueryToNVVM<tile::ProgramIdOp>,
               GridQueryToNVVM<tile::NumProgramsOp>,
               MakeRangeToLLVM, SplatToLLVM, ConstantToLLVM, BroadcastToLLVM,
               ExpandDimsToLLVM, RenameToLLVM<tile::TransOp>,
               RenameToLLVM<tile::ReshapeOp>, RenameToLLVM<tile::JoinOp>,
               RenameToLLVM<tile::SplitOp>>(converter, context);
}
