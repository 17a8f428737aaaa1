//===- ButterflyToLLVM.cpp - tile.butterfly across a CTA ------------------===//
//
// The layout places the axis's bit `bit` on one bit of (register, lane,
// warp), as it places every bit of a position (see ThreadLayout). The
// partner of each element is then in the same thread (registers swap, no
// data moves), in the lane whose id differs in that bit (a shuffle), or in
// the warp whose id does (an exchange through shared memory).
//
//===----------------------------------------------------------------------===//

#include "Combine.h"
#include "Utility.h"

#include "tilec/Conversion/TileGPUToNVVM/TileGPUToNVVM.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

using namespace mlir;
using namespace mlir::tilegpu;

namespace {

struct ButterflyToLLVM : OpConversionPattern<tile::ButterflyOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(tile::ButterflyOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    ThreadLayout layout = getThreadLayout(op.getSrc().getType());
    unsigned axis = getRootDim(layout, op.getAxis());
    int64_t move = int64_t(1) << op.getBit();
    auto find = [&](ArrayRef<LayoutBasis> bases) -> int {
      for (auto [i, basis] : llvm::enumerate(bases))
        if (basis.dim == int(axis) && basis.offset == move)
          return int(i);
      return -1;
    };
    ValueRange src = adaptor.getSrc();
    unsigned numElems = layout.getNumElems();
    SmallVector<Value> result(src.begin(), src.end());

    if (int reg = find(layout.getRegBases()); reg >= 0) {
      for (unsigned e = 0; e < numElems; ++e)
        result[e] = src[e ^ (1u << reg)];
    } else if (int lane = find(layout.getLaneBases()); lane >= 0) {
      for (unsigned e = 0; e < numElems; ++e) {
        Type type = src[e].getType();
        Value word = toMemoryForm(rewriter, loc, src[e]);
        result[e] = fromMemoryForm(
            rewriter, loc, shuffleXor(rewriter, loc, word, 1u << lane), type);
      }
    } else if (int warp = find(layout.getWarpBases()); warp >= 0) {
      // Slot [element][thread]: consecutive threads, consecutive words.
      int64_t threads = int64_t(getNumWarps(op)) * 32;
      int64_t slots = threads * numElems;
      auto group = [&](Value v) { return Partial{{v}, Value()}; };
      Value base = getSharedMemoryBase(
          rewriter, loc, op, getPartialArrayBytes(group(src[0]), slots));
      Value tid = NVVM::ThreadIdXOp::create(rewriter, loc, rewriter.getI32Type());
      Value partner = LLVM::XOrOp::create(
          rewriter, loc, tid, i32Constant(rewriter, loc, 32 << warp));
      auto slot = [&](Value thread, unsigned e) -> Value {
        return LLVM::AddOp::create(rewriter, loc, thread,
                                   i32Constant(rewriter, loc, e * threads));
      };
      emitBarrier(rewriter, loc);
      for (unsigned e = 0; e < numElems; ++e)
        storePartial(rewriter, loc, base, slots, slot(tid, e), group(src[e]));
      emitBarrier(rewriter, loc);
      for (unsigned e = 0; e < numElems; ++e)
        result[e] = loadPartial(rewriter, loc, base, slots,
                                slot(partner, e), group(src[e]))
                        .values.front();
    } else {
      return rewriter.notifyMatchFailure(op, "no bit of the layout moves by "
                                             "the butterfly's distance");
    }
    rewriter.replaceOpWithMultiple(op, {result});
    return success();
  }
};

} // namespace

void mlir::tilegpu::populateButterflyToLLVMPatterns(
    const TileGPUTypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<ButterflyToLLVM>(converter, patterns.getContext());
}
