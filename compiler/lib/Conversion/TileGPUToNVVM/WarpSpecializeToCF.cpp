//===- WarpSpecializeToCF.cpp - Producer and consumer warps as branches ---===//
//
//   ^entry:     cond_br tid < consumers, ^consumers, ^producers
//   ^producers: setmaxnreg.dec; cond_br tid == consumers, ^producer, ^end
//   ^producer:  (the producer region, on its first thread) br ^end
//   ^consumers: setmaxnreg.inc; (the consumer region) br ^end
//   ^end:       what followed the op
//
// setmaxnreg needs every warp of a warpgroup, so it comes before the
// producer's one thread is picked.
//
//===----------------------------------------------------------------------===//

#include "Utility.h"

#include "tilec/Conversion/TileGPUToNVVM/TileGPUToNVVM.h"
#include "tilec/Dialect/TileGPU/IR/TileGPU.h"
#include "tilec/Dialect/TileGPU/IR/ThreadLayout.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlir::tilegpu;

namespace {

struct WarpSpecializeToCF : OpRewritePattern<WarpSpecializeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(WarpSpecializeOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    int64_t consumers = 32 * getNumWarps(op);
    Block *entry = op->getBlock();
    Block *end = rewriter.splitBlock(entry, std::next(op->getIterator()));
    Block *producer = &op.getProducer().front();
    Block *consumer = &op.getConsumer().front();
    for (Block *side : {producer, consumer}) {
      Operation *yield = side->getTerminator();
      rewriter.setInsertionPoint(yield);
      cf::BranchOp::create(rewriter, loc, end);
      rewriter.eraseOp(yield);
    }
    rewriter.inlineRegionBefore(op.getProducer(), end);
    rewriter.inlineRegionBefore(op.getConsumer(), end);
    rewriter.setInsertionPointToEnd(entry);
    Value tid = NVVM::ThreadIdXOp::create(rewriter, loc, rewriter.getI32Type());
    Value firstProducer = i32Constant(rewriter, loc, consumers);

    // Each side's registers: the producer's warps give theirs up before
    // the consumers' take them.
    auto setRegisters = [&](int32_t count, NVVM::SetMaxRegisterAction action) {
      if (op.getConsumerRegisters())
        NVVM::SetMaxRegisterOp::create(rewriter, loc, uint32_t(count), action);
    };
    rewriter.setInsertionPointToStart(consumer);
    setRegisters(op.getConsumerRegisters(), NVVM::SetMaxRegisterAction::increase);
    Block *producers = rewriter.createBlock(producer);
    setRegisters(op.getProducerRegisters(), NVVM::SetMaxRegisterAction::decrease);
    Value first = LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::eq,
                                       tid, firstProducer);
    cf::CondBranchOp::create(rewriter, loc, first, producer, end);

    rewriter.setInsertionPointToEnd(entry);
    Value isConsumer = LLVM::ICmpOp::create(
        rewriter, loc, LLVM::ICmpPredicate::ult, tid, firstProducer);
    cf::CondBranchOp::create(rewriter, loc, isConsumer, consumer, producers);
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void mlir::tilegpu::populateWarpSpecializeToCFPatterns(
    RewritePatternSet &patterns) {
  patterns.add<WarpSpecializeToCF>(patterns.getContext());
}
