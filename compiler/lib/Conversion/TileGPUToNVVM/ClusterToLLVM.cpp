//===- ClusterToLLVM.cpp - A program's CTAs summing through DSMEM ---------===//
//
// tilegpu.cluster_sum: each CTA of a program's cluster holds a partial
// accumulator in the same layout, so thread t of every CTA holds the same
// elements. The CTAs other than rank 0 store their registers into scratch
// shared memory, thread-major (16-byte chunk j of thread t at (j * T + t) *
// 16: each warp's stores are contiguous); after a cluster barrier, thread
// t of rank 0 reads its chunks from rank 1, 2, ... through distributed
// shared memory (mapa, ld.shared::cluster) and adds them in that order; a
// last cluster barrier keeps the others' shared memory alive until it has.
//
//===----------------------------------------------------------------------===//

#include "Utility.h"

#include "tilec/Conversion/TileGPUToNVVM/TileGPUToNVVM.h"
#include "tilec/Dialect/TileGPU/IR/TileGPU.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::tilegpu;

namespace {

/// Every thread of every CTA of the cluster arrives, and waits for all:
/// shared-memory writes before it are seen by reads after it in any CTA.
void emitClusterBarrier(OpBuilder &b, Location loc) {
  emitPTX(b, loc,
          "barrier.cluster.arrive.release;\n\tbarrier.cluster.wait.acquire;",
          "~{memory}", {}, {}, /*hasSideEffects=*/true);
}

Value isRank(OpBuilder &b, Location loc, Value rank, bool zero) {
  return LLVM::ICmpOp::create(b, loc,
                              zero ? LLVM::ICmpPredicate::eq
                                   : LLVM::ICmpPredicate::ne,
                              rank, i32Constant(b, loc, 0));
}

struct ClusterRankToLLVM : OpConversionPattern<ClusterRankOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ClusterRankOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, NVVM::ClusterId::create(rewriter, op.getLoc(),
                                                   rewriter.getI32Type()));
    return success();
  }
};

struct ClusterSumToLLVM : OpConversionPattern<ClusterSumOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ClusterSumOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    Type i32 = b.getI32Type(), i64 = b.getI64Type();
    Type element = getElementTypeOrSelf(op.getType());
    bool isFloat = isa<FloatType>(element);
    SmallVector<Value> values(adaptor.getInput().begin(),
                              adaptor.getInput().end());
    auto toBits = [&](Value v) {
      return isFloat ? LLVM::BitcastOp::create(b, loc, i32, v).getResult() : v;
    };
    auto fromBits = [&](Value v) {
      return isFloat ? LLVM::BitcastOp::create(b, loc, element, v).getResult()
                     : v;
    };

    // The layout's threads: a warp-specialized kernel's producer warps
    // come after them and only take part in the barriers.
    int64_t threads = 32 * getNumWarps(op);
    int64_t chunks = (int64_t(values.size()) + 3) / 4;
    Value base = getSharedMemoryBase(b, loc, op, chunks * 16 * threads);
    Value base64 = LLVM::PtrToIntOp::create(b, loc, i64, base);
    Value tid = NVVM::ThreadIdXOp::create(b, loc, i32);
    Value rank = NVVM::ClusterId::create(b, loc, i32);
    Value holds = LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::ult, tid,
                                       i32Constant(b, loc, threads));
    Value stores = LLVM::AndOp::create(b, loc, holds, isRank(b, loc, rank, false));
    Value loads = LLVM::AndOp::create(b, loc, holds, isRank(b, loc, rank, true));
    // Byte offset of this thread's chunk j: (j * T + tid) * 16.
    Value tid64 = LLVM::ZExtOp::create(b, loc, i64, tid);
    auto chunkOffset = [&](int64_t j) -> Value {
      Value slot = LLVM::AddOp::create(
          b, loc, tid64,
          LLVM::ConstantOp::create(b, loc, i64, b.getI64IntegerAttr(j * threads)));
      return LLVM::MulOp::create(
          b, loc, slot, LLVM::ConstantOp::create(b, loc, i64, b.getI64IntegerAttr(16)));
    };

    // The loop's shared buffers (the pipeline's rings) may lie under the
    // scratch: every warp of the CTA must be done with them.
    emitBarrier(b, loc);
    for (int64_t j = 0; j < chunks; ++j) {
      int64_t n = std::min<int64_t>(4, int64_t(values.size()) - 4 * j);
      SmallVector<Value> operands = {
          LLVM::AddOp::create(b, loc, base64, chunkOffset(j))};
      for (int64_t k = 0; k < n; ++k)
        operands.push_back(toBits(values[4 * j + k]));
      operands.push_back(stores);
      std::string vector = n == 1 ? "" : ".v" + std::to_string(n == 3 ? 4 : n);
      if (n == 3) // no .v3: pad with the first register, never read back
        operands.insert(operands.end() - 1, operands[1]);
      unsigned count = n == 3 ? 4 : unsigned(n);
      emitPTX(b, loc,
              llvm::formatv("@${0} st.shared{1}.b32 [ $0 + 0 ], {2};", count + 1,
                            vector, getPTXOperandList(1, count))
                  .str(),
              "l," + llvm::join(SmallVector<std::string>(count, "r"), ",") + ",b",
              operands, {}, /*hasSideEffects=*/true);
    }
    emitClusterBarrier(b, loc);
    unsigned ctas = unsigned(op.getCtas());
    SmallVector<Value> remotes;
    for (unsigned r = 1; r < ctas; ++r)
      remotes.push_back(emitPTX(b, loc, "mapa.shared::cluster.u64 $0, $1, $2;",
                                "=l,l,r",
                                ValueRange{base64, i32Constant(b, loc, r)},
                                {i64}, /*hasSideEffects=*/false)
                            .front());
    // Chunk by chunk, each rank's in order: few registers are live beyond
    // the accumulator.
    for (int64_t j = 0; j < chunks; ++j) {
      int64_t n = std::min<int64_t>(4, int64_t(values.size()) - 4 * j);
      unsigned count = n == 3 ? 4 : unsigned(n);
      std::string vector = count == 1 ? "" : ".v" + std::to_string(count);
      std::string constraints;
      for (unsigned k = 0; k < count; ++k)
        constraints += "=r,";
      constraints += "l,b";
      SmallVector<Type> types(count, i32);
      Value offset = chunkOffset(j);
      for (Value remote : remotes) {
        SmallVector<Value> loaded = emitPTX(
            b, loc,
            llvm::formatv("@${0} ld.shared::cluster{1}.b32 {2}, [ ${3} + 0 ];",
                          count + 1, vector, getPTXOperandList(0, count), count)
                .str(),
            constraints,
            ValueRange{LLVM::AddOp::create(b, loc, remote, offset), loads},
            types, /*hasSideEffects=*/true);
        for (int64_t k = 0; k < n; ++k) {
          Value &v = values[4 * j + k];
          Value other = fromBits(loaded[k]);
          v = isFloat ? LLVM::FAddOp::create(b, loc, v, other).getResult()
                      : LLVM::AddOp::create(b, loc, v, other).getResult();
        }
      }
    }
    emitClusterBarrier(b, loc);
    rewriter.replaceOpWithMultiple(op, {values});
    return success();
  }
};

} // namespace

void mlir::tilegpu::populateClusterToLLVMPatterns(
    const TileGPUTypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<ClusterRankToLLVM, ClusterSumToLLVM>(converter,
                                                    patterns.getContext());
}
