//===- StreamKToLLVM.cpp - Stream-K partials through global memory --------===//
//
// A stream-K kernel's workspace (tilegpu-stream-k): `slots` 32-bit flags,
// zeroed by the launch, padded to 128 bytes, then one partial accumulator
// per slot. Thread t of every CTA holds the same elements of an
// accumulator, so a partial needs no layout: 16-byte chunk j of thread t
// lies at (j * T + t) * 16, each warp's accesses contiguous. The flag is
// the turnstile's handshake (TurnstileToLLVM.cpp): a CTA barrier, then
// thread 0's release store; thread 0's acquire load, then a CTA barrier.
//
//===----------------------------------------------------------------------===//

#include "Utility.h"

#include "tilec/Conversion/TileGPUToNVVM/TileGPUToNVVM.h"
#include "tilec/Dialect/TileGPU/IR/ThreadLayout.h"
#include "tilec/Dialect/TileGPU/IR/TileGPU.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::tilegpu;

namespace {

/// Where a slot's flag and this thread's first chunk of its partial lie,
/// and the bytes from one chunk to the next.
struct SlotAddresses {
  Value flag;
  Value firstChunk;
  int64_t chunkStride;
};

/// The addresses of `slot` of `workspace` (holding `slots`) for a partial
/// of `values` registers a thread; records the partial's bytes on the
/// module for the metadata.
SlotAddresses getSlotAddresses(OpBuilder &b, Location loc, Operation *op,
                               Value workspace, Value slot, Value slots,
                               size_t values) {
  Type i32 = b.getI32Type(), i64 = b.getI64Type();
  auto i64Constant = [&](int64_t v) -> Value {
    return LLVM::ConstantOp::create(b, loc, i64, b.getI64IntegerAttr(v));
  };
  int64_t threads = 32 * getNumWarps(op);
  int64_t chunks = (int64_t(values) + 3) / 4;
  int64_t partialBytes = chunks * threads * 16;
  auto module = op->getParentOfType<ModuleOp>();
  StringRef name = TileGPUDialect::getStreamKPartialBytesAttrName();
  auto known = module->getAttrOfType<IntegerAttr>(name);
  if (!known || known.getInt() < partialBytes)
    module->setAttr(name, b.getI32IntegerAttr(int32_t(partialBytes)));

  Value base = LLVM::PtrToIntOp::create(b, loc, i64, workspace);
  auto wide = [&](Value v) { return LLVM::ZExtOp::create(b, loc, i64, v); };
  Value flag = LLVM::AddOp::create(
      b, loc, base, LLVM::MulOp::create(b, loc, wide(slot), i64Constant(4)));
  // The flags' bytes rounded up to 128.
  Value flagBytes = LLVM::AndOp::create(
      b, loc,
      LLVM::AddOp::create(
          b, loc, LLVM::MulOp::create(b, loc, wide(slots), i64Constant(4)),
          i64Constant(127)),
      i64Constant(~int64_t(127)));
  Value tid = NVVM::ThreadIdXOp::create(b, loc, i32);
  Value first = LLVM::AddOp::create(
      b, loc,
      LLVM::AddOp::create(
          b, loc, LLVM::AddOp::create(b, loc, base, flagBytes),
          LLVM::MulOp::create(b, loc, wide(slot), i64Constant(partialBytes))),
      LLVM::MulOp::create(b, loc, wide(tid), i64Constant(16)));
  return {flag, first, threads * 16};
}

struct StreamKStoreToLLVM : OpConversionPattern<StreamKStoreOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(StreamKStoreOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    Type i32 = b.getI32Type();
    bool isFloat =
        isa<FloatType>(getElementTypeOrSelf(op.getPartial().getType()));
    ValueRange values = adaptor.getPartial();
    SlotAddresses at = getSlotAddresses(
        b, loc, op, adaptor.getWorkspace().front(), adaptor.getSlot().front(),
        adaptor.getSlots().front(), values.size());
    for (int64_t j = 0; 4 * j < int64_t(values.size()); ++j) {
      RegisterChunk chunk(j, int64_t(values.size()));
      SmallVector<Value> operands = {at.firstChunk};
      for (unsigned k = 0; k < chunk.count; ++k) {
        Value v = values[4 * j + std::min<int64_t>(k, chunk.n - 1)];
        operands.push_back(isFloat ? LLVM::BitcastOp::create(b, loc, i32, v)
                                   : v);
      }
      emitPTX(
          b, loc,
          llvm::formatv("st.global{0}.b32 [ $0 + {1} ], {2};", chunk.vector,
                        j * at.chunkStride, getPTXOperandList(1, chunk.count))
              .str(),
          "l," + llvm::join(SmallVector<std::string>(chunk.count, "r"), ","),
          operands, {}, /*hasSideEffects=*/true);
    }
    emitBarrier(b, loc);
    emitPTX(b, loc, "@$1 st.release.gpu.global.b32 [ $0 + 0 ], 1;",
            "l,b,~{memory}", ValueRange{at.flag, emitIsFirstThread(b, loc)}, {},
            /*hasSideEffects=*/true);
    rewriter.eraseOp(op);
    return success();
  }
};

struct StreamKAddToLLVM : OpConversionPattern<StreamKAddOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(StreamKAddOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    Type element = getElementTypeOrSelf(op.getType());
    bool isFloat = isa<FloatType>(element);
    SmallVector<Value> values(adaptor.getInput().begin(),
                              adaptor.getInput().end());
    SlotAddresses at = getSlotAddresses(
        b, loc, op, adaptor.getWorkspace().front(), adaptor.getSlot().front(),
        adaptor.getSlots().front(), values.size());
    // Built by hand, not with formatv: it would read ${:uid}'s braces.
    emitPTX(b, loc,
            "{\n\t"
            ".reg .pred %partial_wait;\n\t"
            ".reg .b32 %partial_flag;\n\t"
            "@!$1 bra partial_done_${:uid};\n"
            "partial_poll_${:uid}:\n\t"
            "ld.acquire.gpu.global.b32 %partial_flag, [ $0 + 0 ];\n\t"
            "setp.eq.b32 %partial_wait, %partial_flag, 0;\n\t"
            "@%partial_wait nanosleep.u32 32;\n\t"
            "@%partial_wait bra partial_poll_${:uid};\n"
            "partial_done_${:uid}:\n\t"
            "}",
            "l,b,~{memory}", ValueRange{at.flag, emitIsFirstThread(b, loc)}, {},
            /*hasSideEffects=*/true);
    emitBarrier(b, loc);
    std::string reg = isFloat ? "=f" : "=r";
    for (int64_t j = 0; 4 * j < int64_t(values.size()); ++j) {
      RegisterChunk chunk(j, int64_t(values.size()));
      // .cg: from L2, where the other CTA's stores are; never a line this
      // SM's L1 kept from before.
      SmallVector<Value> partial = emitPTX(
          b, loc,
          llvm::formatv("ld.global.cg{0}.b32 {1}, [ ${2} + {3} ];",
                        chunk.vector, getPTXOperandList(0, chunk.count),
                        chunk.count, j * at.chunkStride)
              .str(),
          llvm::join(SmallVector<std::string>(chunk.count, reg), ",") + ",l",
          ValueRange{at.firstChunk}, SmallVector<Type>(chunk.count, element),
          /*hasSideEffects=*/true);
      for (int64_t k = 0; k < chunk.n; ++k) {
        Value &v = values[4 * j + k];
        v = isFloat ? LLVM::FAddOp::create(b, loc, v, partial[k]).getResult()
                    : LLVM::AddOp::create(b, loc, v, partial[k]).getResult();
      }
    }
    rewriter.replaceOpWithMultiple(op, {values});
    return success();
  }
};

} // namespace

void mlir::tilegpu::populateStreamKToLLVMPatterns(
    const TileGPUTypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<StreamKStoreToLLVM, StreamKAddToLLVM>(converter,
                                                     patterns.getContext());
}
