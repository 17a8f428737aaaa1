//===- HistogramToLLVM.cpp - tile.histogram through shared memory ---------===//
//
// The bins live in shared memory while the CTA counts: cleared, then each
// element adds one to its bin with a shared-memory atomic (once per element:
// copies held by other threads, padding, masked-off elements and values
// outside the bins are left out), then every thread reads the bins its
// result elements hold.
//
//===----------------------------------------------------------------------===//

#include "Utility.h"

#include "tilec/Conversion/TileGPUToNVVM/TileGPUToNVVM.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

using namespace mlir;
using namespace mlir::tilegpu;

namespace {

struct HistogramToLLVM : OpConversionPattern<tile::HistogramOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(tile::HistogramOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    ThreadLayout srcLayout = getThreadLayout(op.getSrc().getType());
    ThreadLayout dstLayout = getThreadLayout(op.getResult().getType());
    int64_t bins = op.getResult().getType().getDimSize(0);
    int64_t threads = int64_t(getNumWarps(op)) * 32;
    Type i32 = rewriter.getI32Type(), i64 = rewriter.getI64Type();
    auto ptrType = LLVM::LLVMPointerType::get(rewriter.getContext(), 3);
    Value base = getSharedMemoryBase(rewriter, loc, op, bins * 4);
    auto binAddress = [&](Value index) -> Value {
      return LLVM::GEPOp::create(rewriter, loc, ptrType, i32, base,
                                 ValueRange{index});
    };
    Value tid = NVVM::ThreadIdXOp::create(rewriter, loc, i32);
    Value zero = i32Constant(rewriter, loc, 0);

    // Clear: thread t takes bins t, t + threads, ...
    emitBarrier(rewriter, loc);
    for (int64_t first = 0; first < bins; first += threads) {
      Value index =
          LLVM::AddOp::create(rewriter, loc, tid, i32Constant(rewriter, loc, first));
      Value inside = LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::ult,
                                          index, i32Constant(rewriter, loc, bins));
      emitPredicatedSharedStore(rewriter, loc, binAddress(index), zero, inside);
    }
    emitBarrier(rewriter, loc);

    // Count.
    ValueRange values = adaptor.getSrc();
    SmallVector<Value> owned = emitOwnership(rewriter, loc, srcLayout);
    ValueRange mask;
    if (op.getMask())
      mask = adaptor.getMask();
    for (auto [e, v] : llvm::enumerate(values)) {
      // As an unsigned number of at least 32 bits, a negative value is
      // past every bin too.
      unsigned bits = v.getType().getIntOrFloatBitWidth();
      Type wide = bits > 32 ? i64 : i32;
      if (bits < 32)
        v = LLVM::SExtOp::create(rewriter, loc, i32, v);
      Value inside = LLVM::ICmpOp::create(
          rewriter, loc, LLVM::ICmpPredicate::ult, v,
          LLVM::ConstantOp::create(rewriter, loc, wide,
                                   rewriter.getIntegerAttr(wide, bins)));
      if (!owned.empty())
        inside = LLVM::AndOp::create(rewriter, loc, inside, owned[e]);
      if (!mask.empty())
        inside = LLVM::AndOp::create(rewriter, loc, inside, mask[e]);
      Value index = bits > 32 ? LLVM::TruncOp::create(rewriter, loc, i32, v) : v;
      Value address = LLVM::PtrToIntOp::create(rewriter, loc, i64,
                                               binAddress(index));
      emitPTX(rewriter, loc, "@$1 red.shared.add.u32 [ $0 + 0 ], 1;", "l,b",
              ValueRange{address, inside}, {}, /*hasSideEffects=*/true);
    }
    emitBarrier(rewriter, loc);

    // Read: padding elements of the result read the last bin.
    SmallVector<Value> result;
    for (ArrayRef<Value> index : emitElementIndices(rewriter, loc, dstLayout)) {
      Value clamped = LLVM::UMinOp::create(rewriter, loc, index[0],
                                           i32Constant(rewriter, loc, bins - 1));
      result.push_back(LLVM::LoadOp::create(rewriter, loc, i32,
                                            binAddress(clamped)));
    }
    rewriter.replaceOpWithMultiple(op, {result});
    return success();
  }
};

} // namespace

void mlir::tilegpu::populateHistogramToLLVMPatterns(
    const TileGPUTypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<HistogramToLLVM>(converter, patterns.getContext());
}
