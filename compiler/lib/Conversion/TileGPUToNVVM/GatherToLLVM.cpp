//===- GatherToLLVM.cpp - tile.gather through shared memory ---------------===//
//
// The source goes to shared memory in row-major order (each element once,
// by its owner), then every thread reads its result elements there, at the
// source coordinates of the element with the one along the axis taken from
// its index. Indices outside the axis are clamped to it: Triton leaves them
// undefined, and a clamp keeps the read inside the buffer.
//
//===----------------------------------------------------------------------===//

#include "Utility.h"

#include "tilec/Conversion/TileGPUToNVVM/TileGPUToNVVM.h"

using namespace mlir;
using namespace mlir::tilegpu;

namespace {

struct GatherToLLVM : OpConversionPattern<tile::GatherOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(tile::GatherOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType srcType = op.getSrc().getType();
    ArrayRef<int64_t> shape = srcType.getShape();
    ThreadLayout srcLayout = getThreadLayout(srcType);
    ThreadLayout dstLayout = getThreadLayout(op.getResult().getType());
    unsigned axis = op.getAxis();
    ValueRange values = adaptor.getSrc();
    if (values.empty())
      return failure();
    // Shared memory holds the elements as integers of their width (i1 as
    // a byte, pointers as 64 bits).
    Type element = values.front().getType();
    Type i32 = rewriter.getI32Type();
    unsigned bits = isa<LLVM::LLVMPointerType>(element)
                        ? 64
                        : std::max(8u, element.getIntOrFloatBitWidth());
    Type word = rewriter.getIntegerType(bits);
    int64_t count = srcType.getNumElements();
    Value base = getSharedMemoryBase(rewriter, loc, op, count * bits / 8);
    auto ptrType = LLVM::LLVMPointerType::get(rewriter.getContext(), 3);
    auto address = [&](Value linear) -> Value {
      return LLVM::GEPOp::create(rewriter, loc, ptrType, word, base,
                                 ValueRange{linear});
    };
    auto toWord = [&](Value v) -> Value {
      if (isa<LLVM::LLVMPointerType>(element))
        return LLVM::PtrToIntOp::create(rewriter, loc, word, v);
      if (element.isInteger(1))
        return LLVM::ZExtOp::create(rewriter, loc, word, v);
      if (!element.isInteger())
        return LLVM::BitcastOp::create(rewriter, loc, word, v);
      return v;
    };
    auto fromWord = [&](Value w) -> Value {
      if (isa<LLVM::LLVMPointerType>(element))
        return LLVM::IntToPtrOp::create(rewriter, loc, element, w);
      if (element.isInteger(1))
        return LLVM::TruncOp::create(rewriter, loc, element, w);
      if (!element.isInteger())
        return LLVM::BitcastOp::create(rewriter, loc, element, w);
      return w;
    };

    // Store: the previous user of the scratch space is done first.
    emitBarrier(rewriter, loc);
    SmallVector<Value> owned = emitOwnership(rewriter, loc, srcLayout);
    Value always = LLVM::ConstantOp::create(rewriter, loc, rewriter.getI1Type(),
                                            rewriter.getBoolAttr(true));
    for (auto [e, index] :
         llvm::enumerate(emitElementIndices(rewriter, loc, srcLayout))) {
      Value linear = linearizeRowMajor(rewriter, loc, index, shape);
      emitPredicatedSharedStore(rewriter, loc, address(linear),
                                toWord(values[e]), owned.empty() ? always : owned[e],
                                bits);
    }
    emitBarrier(rewriter, loc);

    // Read. Padding elements of the result read some element: their
    // coordinates are clamped like the indices.
    ValueRange indices = adaptor.getIndices();
    SmallVector<Value> result;
    for (auto [e, index] :
         llvm::enumerate(emitElementIndices(rewriter, loc, dstLayout))) {
      SmallVector<Value> at(index.begin(), index.end());
      Value picked = indices[e];
      unsigned width = picked.getType().getIntOrFloatBitWidth();
      if (width > 32)
        picked = LLVM::TruncOp::create(rewriter, loc, i32, picked);
      else if (width < 32)
        picked = LLVM::SExtOp::create(rewriter, loc, i32, picked);
      // As unsigned, a negative index is past the end too.
      at[axis] = picked;
      for (unsigned d = 0; d < at.size(); ++d)
        at[d] = LLVM::UMinOp::create(rewriter, loc, at[d],
                                     i32Constant(rewriter, loc, shape[d] - 1));
      Value linear = linearizeRowMajor(rewriter, loc, at, shape);
      result.push_back(
          fromWord(LLVM::LoadOp::create(rewriter, loc, word, address(linear))));
    }
    rewriter.replaceOpWithMultiple(op, {result});
    return success();
  }
};

} // namespace

void mlir::tilegpu::populateGatherToLLVMPatterns(
    const TileGPUTypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<GatherToLLVM>(converter, patterns.getContext());
}
