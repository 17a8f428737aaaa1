//===- ConvertLayoutToLLVM.cpp - Layout conversions via shared memory -----===//
//
// Conversions into an mma operand go through a swizzled tile (see
// SharedLayout.h): 16-byte vector stores, then ldmatrix, which hands each
// lane its fragment registers directly (SharedMemory.cpp).
//
// Any other conversion: every thread writes its elements to shared memory
// at their row-major index, the CTA synchronizes, and every thread reads
// the elements the new layout gives it. Rows are padded by one element, so that threads walking
// down a column (a transpose) hit different banks. Replicated elements are written more than once with the
// same value, which is harmless. All conversions share one buffer at offset
// 0 (the barrier before the writes keeps earlier readers safe); the
// module attribute `tilegpu.shared_bytes` records the largest.
//
//===----------------------------------------------------------------------===//

#include "SharedMemory.h"

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

/// Into an mma operand: through a swizzled tile whose rows run along the
/// source's fastest dimension, so both the stores and ldmatrix's reads are
/// 16 bytes wide and free of bank conflicts.
struct ConvertToMmaOperand : OpConversionPattern<ConvertLayoutOp> {
  ConvertToMmaOperand(const TypeConverter &converter, MLIRContext *context)
      : OpConversionPattern(converter, context, /*benefit=*/2) {}

  LogicalResult
  matchAndRewrite(ConvertLayoutOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto operand = dyn_cast<DotOperandEncodingAttr>(op.getType().getEncoding());
    if (!operand || !isa<MmaEncodingAttr>(operand.getParent()))
      return rewriter.notifyMatchFailure(op, "not into an mma operand");
    Location loc = op.getLoc();
    ThreadLayout src = getThreadLayout(op.getSrc().getType());
    ThreadLayout dst = getThreadLayout(op.getType());
    ValueRange srcValues = adaptor.getSrc();
    Type element = srcValues.front().getType();

    SharedTile tile;
    tile.slotType = getMemoryType(element);
    tile.shape = dst.getPaddedTensorShape();
    for (auto [s, other] : llvm::zip(tile.shape, src.getPaddedTensorShape()))
      s = std::max(s, other);
    unsigned rank = tile.shape.size();
    int fast = src.getTensorDim(src.getFastestDim());
    SmallVector<unsigned> order = {unsigned(fast < 0 ? rank - 1 : fast)};
    for (int d = rank - 1; d >= 0; --d)
      if (d != int(order.front()))
        order.push_back(d);
    tile.encoding = chooseSharedEncoding(getContext(), tile.shape, order,
                                         getMemoryBits(tile.slotType));
    tile.base = getSharedMemoryBase(rewriter, loc, op, tile.getBytes());

    NVVM::Barrier0Op::create(rewriter, loc);
    storeToShared(rewriter, loc, tile, src, srcValues);
    NVVM::Barrier0Op::create(rewriter, loc);
    MmaFragmentLoader loader(rewriter, loc, tile, dst, element);
    unsigned kDim = operand.getOpIdx() == 0 ? rank - 1 : rank - 2;
    unsigned mnDim = operand.getOpIdx() == 0 ? rank - 2 : rank - 1;
    unsigned kWidth = operand.getKWidth();
    int64_t batches = rank == 3 ? dst.getLocalCount(0) : 1;
    int64_t reps = dst.getLocalCount(mnDim) / (operand.getOpIdx() == 0 ? 2 : 1);
    int64_t kSteps = dst.getLocalCount(kDim) / (2 * kWidth);
    SmallVector<Value> values(dst.getNumElems());
    for (int64_t batch = 0; batch < batches; ++batch)
      for (int64_t rep = 0; rep < reps; ++rep)
        for (int64_t k = 0; k < kSteps; ++k)
          for (auto [r, reg] :
               llvm::enumerate(loader.load(rewriter, loc, batch, rep, k))) {
            auto vecType = VectorType::get({int64_t(kWidth)}, element);
            Value vec = LLVM::BitcastOp::create(rewriter, loc, vecType, reg);
            for (unsigned i = 0; i < kWidth; ++i)
              values[dst.linearize(loader.fragmentLocal(batch, rep, k,
                                                        r * kWidth + i))] =
                  LLVM::ExtractElementOp::create(rewriter, loc, vec,
                                                 i32Constant(rewriter, loc, i));
          }
    rewriter.replaceOpWithMultiple(op, {values});
    return success();
  }
};

} // namespace

void mlir::tilegpu::populateConvertLayoutToLLVMPatterns(
    const TileGPUTypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<ConvertLayoutToLLVM, ConvertToMmaOperand>(converter,
                                                         patterns.getContext());
}
