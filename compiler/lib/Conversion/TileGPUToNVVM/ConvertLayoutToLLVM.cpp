//===- ConvertLayoutToLLVM.cpp - Layout conversions via shared memory -----===//
//
// Dot operands do not come this way: tilegpu-pipeline stores them into
// swizzled buffers that the dot reads with ldmatrix (SharedMemory.cpp).
//
// Every thread writes its elements to shared memory at their row-major
// index, the CTA synchronizes, and every thread reads the elements the new
// layout gives it. Rows are padded by one element, so that threads walking
// down a column (a transpose) hit different banks. Replicated elements are
// written more than once with the same value, which is harmless. All
// conversions share one buffer at the start of the scratch space (the
// barrier before the writes keeps earlier readers safe); the module
// attribute `tilegpu.shared_bytes` records the largest.
//
//===----------------------------------------------------------------------===//

#include "Utility.h"

#include "tilec/Conversion/TileGPUToNVVM/TileGPUToNVVM.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

using namespace mlir;
using namespace mlir::tilegpu;

namespace {

struct ConvertLayoutToLLVM : OpConversionPattern<ConvertLayoutOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ConvertLayoutOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getType();
    ThreadLayout src = getThreadLayout(op.getSrc().getType());
    ThreadLayout dst = getThreadLayout(type);
    ValueRange srcValues = adaptor.getSrc();
    Type element = srcValues.front().getType();
    Type slotType = getMemoryType(element);
    unsigned slotBytes = getMemoryBits(slotType) / 8;

    // Row-major slots of the padded shape (the larger of the two where
    // tensor-core layouts pad further), each innermost row padded by one
    // slot (rank >= 2).
    SmallVector<int64_t> shape = dst.getPaddedTensorShape();
    for (auto [s, other] : llvm::zip(shape, src.getPaddedTensorShape()))
      s = std::max(s, other);
    int64_t rows = ShapedType::getNumElements(ArrayRef(shape).drop_back());
    int64_t rowLength = shape.back();
    int64_t rowStride = type.getRank() > 1 ? rowLength + 1 : rowLength;
    int64_t bytes = rows * rowStride * slotBytes;
    Value base = getSharedMemoryBase(rewriter, loc, op, bytes);
    auto slotAddress = [&](ArrayRef<Value> index) {
      Value row = linearizeRowMajor(rewriter, loc, index.drop_back(),
                                    ArrayRef(shape).drop_back());
      Value linear = LLVM::AddOp::create(
          rewriter, loc,
          LLVM::MulOp::create(rewriter, loc, row,
                              i32Constant(rewriter, loc, rowStride)),
          index.back());
      return LLVM::GEPOp::create(rewriter, loc, base.getType(), slotType, base,
                                 ValueRange{linear});
    };

    NVVM::Barrier0Op::create(rewriter, loc);
    for (auto [e, index] :
         llvm::enumerate(emitElementIndices(rewriter, loc, src))) {
      LLVM::StoreOp::create(rewriter, loc,
                            toMemoryForm(rewriter, loc, srcValues[e]),
                            slotAddress(index));
    }
    NVVM::Barrier0Op::create(rewriter, loc);
    SmallVector<Value> values;
    for (ArrayRef<Value> index : emitElementIndices(rewriter, loc, dst)) {
      Value v = LLVM::LoadOp::create(rewriter, loc, slotType, slotAddress(index));
      values.push_back(fromMemoryForm(rewriter, loc, v, element));
    }
    rewriter.replaceOpWithMultiple(op, {values});
    return success();
  }
};

} // namespace

void mlir::tilegpu::populateConvertLayoutToLLVMPatterns(
    const TileGPUTypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<ConvertLayoutToLLVM>(converter, patterns.getContext());
}
