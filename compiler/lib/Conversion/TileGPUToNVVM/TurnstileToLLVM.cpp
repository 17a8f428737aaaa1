//===- TurnstileToLLVM.cpp - Programs taking turns (deterministic atomics) ===//
//
// A turnstile is one 32-bit counter in global memory per position on the
// grid's axes other than the ordering one (OrderAtomics.cpp): the grid's
// last axis with more than one program, chosen at run time from %nctaid, so
// that a split-K grid of (tiles, 1, splits) and one of (tiles, splits)
// alike order their splits. Thread 0 spins on an acquire load until the
// counter reaches its program's id on that axis, backing off with
// nanosleep; the CTA barrier after it releases the other threads. To pass
// the turn, a barrier (every thread's atomics issued before it) and then
// thread 0's release store of id + 1: PTX's release pattern, whose
// cumulativity covers what the barrier ordered before it, as in CUTLASS's
// semaphore.
//
//===----------------------------------------------------------------------===//

#include "Utility.h"

#include "tilec/Conversion/TileGPUToNVVM/TileGPUToNVVM.h"
#include "tilec/Dialect/TileGPU/IR/TileGPU.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

using namespace mlir;
using namespace mlir::tilegpu;

namespace {

/// The address of this program's turnstile and its turn (its id on the
/// ordering axis).
std::pair<Value, Value> emitTurnstile(OpBuilder &b, Location loc,
                                      Value turnstiles) {
  Type i32 = b.getI32Type();
  Value x = NVVM::BlockIdXOp::create(b, loc, i32);
  Value y = NVVM::BlockIdYOp::create(b, loc, i32);
  Value z = NVVM::BlockIdZOp::create(b, loc, i32);
  Value nx = NVVM::GridDimXOp::create(b, loc, i32);
  Value ny = NVVM::GridDimYOp::create(b, loc, i32);
  Value nz = NVVM::GridDimZOp::create(b, loc, i32);
  Value one = i32Constant(b, loc, 1);
  Value zero = i32Constant(b, loc, 0);
  auto above1 = [&](Value n) {
    return LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::ugt, n, one);
  };
  auto select = [&](Value c, Value t, Value f) {
    return LLVM::SelectOp::create(b, loc, c, t, f);
  };
  // z orders where it has several programs (turnstile per x + nx * y), else
  // y (per x), else x (one turnstile).
  Value zOrders = above1(nz), yOrders = above1(ny);
  Value xy = LLVM::AddOp::create(b, loc, x, LLVM::MulOp::create(b, loc, nx, y));
  Value turn = select(zOrders, z, select(yOrders, y, x));
  Value position = select(zOrders, xy, select(yOrders, x, zero));
  Value address = LLVM::GEPOp::create(b, loc, turnstiles.getType(), i32,
                                      turnstiles, ValueRange{position});
  return {address, turn};
}

struct TurnstileWaitToLLVM : OpConversionPattern<TurnstileWaitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(TurnstileWaitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto [address, turn] = emitTurnstile(rewriter, loc, adaptor.getTurnstiles());
    Value first = emitIsFirstThread(rewriter, loc);
    // Built by hand, not with formatv: it would read ${:uid}'s braces.
    emitPTX(rewriter, loc,
            "{\n\t"
            ".reg .pred %turn_wait;\n\t"
            ".reg .b32 %turn_now;\n\t"
            "@!$2 bra turn_done_${:uid};\n"
            "turn_poll_${:uid}:\n\t"
            "ld.acquire.gpu.global.b32 %turn_now, [ $0 + 0 ];\n\t"
            "setp.ne.b32 %turn_wait, %turn_now, $1;\n\t"
            "@%turn_wait nanosleep.u32 64;\n\t"
            "@%turn_wait bra turn_poll_${:uid};\n"
            "turn_done_${:uid}:\n\t"
            "}",
            "l,r,b,~{memory}", ValueRange{address, turn, first}, {},
            /*hasSideEffects=*/true);
    emitBarrier(rewriter, loc);
    rewriter.eraseOp(op);
    return success();
  }
};

struct TurnstileSignalToLLVM : OpConversionPattern<TurnstileSignalOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(TurnstileSignalOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    emitBarrier(rewriter, loc);
    auto [address, turn] = emitTurnstile(rewriter, loc, adaptor.getTurnstiles());
    Value next = LLVM::AddOp::create(rewriter, loc, turn,
                                     i32Constant(rewriter, loc, 1));
    Value first = emitIsFirstThread(rewriter, loc);
    emitPTX(rewriter, loc, "@$2 st.release.gpu.global.b32 [ $0 + 0 ], $1;",
            "l,r,b,~{memory}", ValueRange{address, next, first}, {},
            /*hasSideEffects=*/true);
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void mlir::tilegpu::populateTurnstileToLLVMPatterns(
    const TileGPUTypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<TurnstileWaitToLLVM, TurnstileSignalToLLVM>(
      converter, patterns.getContext());
}
