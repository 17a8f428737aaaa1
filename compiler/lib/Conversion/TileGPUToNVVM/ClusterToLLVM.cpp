//===- ClusterToLLVM.cpp - A program's CTAs summing through DSMEM ---------===//
//
// tilegpu.cluster_sum: each CTA of a program's cluster holds a partial
// accumulator in the same layout, so thread t of every CTA holds the same
// elements. A reduce-scatter, then a gather, in distributed shared memory
// (mapa, ld.shared::cluster), few registers live at a time:
//   1. every CTA stores its registers into scratch shared memory, 16-byte
//      chunk j of thread t at (j * T + t) * 16 (each warp's stores
//      contiguous);
//   2. rank r sums chunks r, r + S, ... of all S CTAs in rank order and
//      stores the sums over its own;
//   3. rank 0 loads chunk j from rank j % S.
// Cluster barriers separate the phases, and a last one keeps the others'
// shared memory alive until rank 0 has read it.
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

/// The most 16-byte vectors one batch of the reduce-scatter loads before
/// it adds (the batch's chunks times the cluster's CTAs): 64 registers.
constexpr int64_t kSumBatchVectors = 16;

/// Every thread of every CTA of the cluster arrives, and waits for all:
/// shared-memory writes before it are seen by reads after it in any CTA.
void emitClusterBarrier(OpBuilder &b, Location loc) {
  emitPTX(b, loc,
          "barrier.cluster.arrive.release;\n\tbarrier.cluster.wait.acquire;",
          "~{memory}", {}, {}, /*hasSideEffects=*/true);
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
    int64_t ctas = op.getCtas();

    // The layout's threads. (A warp-specialized kernel's producer warps
    // have exited by now: the sum follows the loop in the consumers'
    // region, and barrier.cluster waits for threads that have not.)
    int64_t threads = 32 * getNumWarps(op);
    int64_t chunks = (int64_t(values.size()) + 3) / 4;
    int64_t chunkStride = threads * 16; // bytes from chunk j to j + 1
    Value base = getSharedMemoryBase(b, loc, op, chunks * chunkStride);
    Value tid = NVVM::ThreadIdXOp::create(b, loc, i32);
    Value rank = NVVM::ClusterId::create(b, loc, i32);
    Value holds = LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::ult, tid,
                                       i32Constant(b, loc, threads));
    auto i64Constant = [&](int64_t v) -> Value {
      return LLVM::ConstantOp::create(b, loc, i64, b.getI64IntegerAttr(v));
    };
    // This thread's chunk j lies at j * chunkStride + tid * 16: the first
    // one's address in a register, the others' immediate offsets from it.
    Value mine = LLVM::AddOp::create(
        b, loc, LLVM::PtrToIntOp::create(b, loc, i64, base),
        LLVM::MulOp::create(b, loc, LLVM::ZExtOp::create(b, loc, i64, tid),
                            i64Constant(16)));
    auto at = [&](int64_t bytes) { return std::to_string(bytes); };
    StringRef add = isFloat ? "add.f32" : "add.s32";

    // 1. Every CTA's partial into its scratch, four elements a chunk. The
    // loop's shared buffers (the pipeline's rings) may lie under it: every
    // warp of the CTA must be done with them.
    emitBarrier(b, loc);
    for (int64_t j = 0; j < chunks; ++j) {
      RegisterChunk chunk(j, int64_t(values.size()));
      SmallVector<Value> operands = {mine};
      for (unsigned k = 0; k < chunk.count; ++k)
        operands.push_back(
            toBits(values[4 * j + std::min<int64_t>(k, chunk.n - 1)]));
      operands.push_back(holds);
      emitPTX(b, loc,
              llvm::formatv("@${0} st.shared{1}.b32 [ $0 + {2} ], {3};",
                            chunk.count + 1, chunk.vector, at(j * chunkStride),
                            getPTXOperandList(1, chunk.count))
                  .str(),
              "l," + llvm::join(SmallVector<std::string>(chunk.count, "r"), ",") +
                  ",b",
              operands, {}, /*hasSideEffects=*/true);
    }
    emitClusterBarrier(b, loc);

    // 2. Rank r sums chunks r, r + S, ... of every CTA, in rank order, and
    // stores the sums over its own partial: each element is summed once,
    // by one CTA, the CTAs in parallel. The loads of a batch of chunks go
    // out together before any add: ptxas keeps a load after a store it
    // cannot tell apart (distributed against local shared memory), so a
    // chunk at a time paid the cluster's round trip once per chunk (one
    // K block of 128 x 4096 at 64 x 128: 8.70 against 8.26 us at S = 2,
    // 14.94 against 13.54 at S = 4, H200). A batch holds up to
    // kSumBatchVectors vectors, registers the partial freed when stored.
    Value firstOwned = LLVM::AddOp::create(
        b, loc, mine,
        LLVM::MulOp::create(b, loc, LLVM::ZExtOp::create(b, loc, i64, rank),
                            i64Constant(chunkStride)));
    SmallVector<Value> sources;
    for (int64_t r = 0; r < ctas; ++r)
      sources.push_back(
          emitClusterAddress(b, loc, firstOwned, i32Constant(b, loc, r)));
    int64_t rounds = (chunks + ctas - 1) / ctas;
    int64_t batch = std::max<int64_t>(1, kSumBatchVectors / ctas);
    for (int64_t first = 0; first < rounds; first += batch) {
      int64_t count = std::min(batch, rounds - first);
      // Operands: the S sources, this CTA's first owned chunk, then a
      // predicate per round i of the batch: chunk rank + i * S exists.
      SmallVector<Value> operands(sources);
      operands.push_back(firstOwned);
      for (int64_t i = first; i < first + count; ++i)
        operands.push_back(LLVM::AndOp::create(
            b, loc, holds,
            LLVM::ICmpOp::create(
                b, loc, LLVM::ICmpPredicate::slt,
                LLVM::AddOp::create(b, loc, rank,
                                    i32Constant(b, loc, i * ctas)),
                i32Constant(b, loc, chunks))));
      auto vector = [&](int64_t i, int64_t r) {
        return llvm::formatv("%cs{0}_{1}_", i - first, r).str();
      };
      auto registers = [&](int64_t i, int64_t r) {
        return llvm::formatv("{{ {0}0, {0}1, {0}2, {0}3 }", vector(i, r)).str();
      };
      auto predicate = [&](int64_t i) { return ctas + 1 + i - first; };
      std::string body = "{\n\t";
      for (int64_t i = first; i < first + count; ++i)
        for (int64_t r = 0; r < ctas; ++r)
          body += llvm::formatv(".reg .b32 {0}<4>;\n\t", vector(i, r)).str();
      for (int64_t i = first; i < first + count; ++i)
        for (int64_t r = 0; r < ctas; ++r)
          body += llvm::formatv("@${0} ld.shared::cluster.v4.b32 {1}, "
                                "[ ${2} + {3} ];\n\t",
                                predicate(i), registers(i, r), r,
                                at(i * ctas * chunkStride))
                      .str();
      for (int64_t i = first; i < first + count; ++i)
        for (int64_t r = 1; r < ctas; ++r)
          for (int k = 0; k < 4; ++k)
            body += llvm::formatv("{0} {1}{2}, {1}{2}, {3}{2};\n\t", add,
                                  vector(i, 0), k, vector(i, r))
                        .str();
      for (int64_t i = first; i < first + count; ++i)
        body += llvm::formatv("@${0} st.shared.v4.b32 [ ${1} + {2} ], {3};\n\t",
                              predicate(i), ctas, at(i * ctas * chunkStride),
                              registers(i, 0))
                    .str();
      body += "}";
      emitPTX(b, loc, body,
              llvm::join(SmallVector<std::string>(ctas + 1, "l"), ",") + "," +
                  llvm::join(SmallVector<std::string>(count, "b"), ","),
              operands, {}, /*hasSideEffects=*/true);
    }
    emitClusterBarrier(b, loc);

    // 3. Rank 0 reads each chunk's sum from the CTA that made it.
    Value gathers = LLVM::AndOp::create(
        b, loc, holds,
        LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq, rank,
                             i32Constant(b, loc, 0)));
    SmallVector<Value> owners;
    for (int64_t r = 0; r < ctas; ++r)
      owners.push_back(
          emitClusterAddress(b, loc, mine, i32Constant(b, loc, r)));
    std::string reg = isFloat ? "=f" : "=r";
    for (int64_t j = 0; j < chunks; ++j) {
      RegisterChunk chunk(j, int64_t(values.size()));
      SmallVector<Value> sums = emitPTX(
          b, loc,
          llvm::formatv("@${0} ld.shared::cluster{1}.b32 {2}, [ ${3} + {4} ];",
                        chunk.count + 1, chunk.vector,
                        getPTXOperandList(0, chunk.count), chunk.count,
                        at(j * chunkStride))
              .str(),
          llvm::join(SmallVector<std::string>(chunk.count, reg), ",") + ",l,b",
          ValueRange{owners[j % ctas], gathers},
          SmallVector<Type>(chunk.count, element), /*hasSideEffects=*/true);
      for (int64_t k = 0; k < chunk.n; ++k)
        values[4 * j + k] = sums[k];
    }
    // The others' shared memory stays until rank 0 has read it.
    emitClusterBarrier(b, loc);
    rewriter.replaceOpWithMultiple(op, {values});
    return success();
  }
};

/// tilegpu.cluster_pair_equal: thread 0 of each CTA writes its values,
/// widened to 64 bits, into the other CTA's scratch (its own in a CTA
/// launched alone, which agrees with nobody), between two cluster
/// barriers; then every thread compares them with its own.
struct ClusterPairEqualToLLVM : OpConversionPattern<ClusterPairEqualOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ClusterPairEqualOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    Type i32 = b.getI32Type(), i64 = b.getI64Type();
    SmallVector<Value> values;
    for (Value v : adaptor.getValues())
      values.push_back(v.getType() == i64
                           ? v
                           : LLVM::SExtOp::create(b, loc, i64, v).getResult());
    Value base = getSharedMemoryBase(
        b, loc, op, std::max<int64_t>(8, 8 * int64_t(values.size())));
    Value pair = LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq,
                                      NVVM::ClusterDim::create(b, loc, i32),
                                      i32Constant(b, loc, 2));
    // The mbarriers this CTA initialized before, for the other's copies and
    // arrivals; and both CTAs here, done with what their scratch held.
    emitPTX(b, loc, "fence.mbarrier_init.release.cluster;", "~{memory}", {}, {},
            /*hasSideEffects=*/true);
    emitClusterBarrier(b, loc);
    Value first = emitIsFirstThread(b, loc);
    Value theirScratch =
        emitClusterAddress(b, loc, LLVM::PtrToIntOp::create(b, loc, i64, base),
                           emitPairedRank(b, loc, pair));
    for (auto [i, v] : llvm::enumerate(values))
      emitPTX(
          b, loc,
          llvm::formatv("@$2 st.shared::cluster.b64 [ $0 + {0} ], $1;", 8 * i)
              .str(),
          "l,l,b", {theirScratch, v, first}, {}, /*hasSideEffects=*/true);
    emitClusterBarrier(b, loc);
    Value equal = pair;
    for (auto [i, v] : llvm::enumerate(values)) {
      Value theirs = LLVM::LoadOp::create(
          b, loc, i64,
          LLVM::GEPOp::create(b, loc, base.getType(), b.getI8Type(), base,
                              ArrayRef<LLVM::GEPArg>{int32_t(8 * i)}));
      equal = LLVM::AndOp::create(
          b, loc, equal,
          LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq, theirs, v));
    }
    rewriter.replaceOp(op, equal);
    return success();
  }
};

struct ClusterBarrierToLLVM : OpConversionPattern<ClusterBarrierOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ClusterBarrierOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    emitClusterBarrier(rewriter, op.getLoc());
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void mlir::tilegpu::populateClusterToLLVMPatterns(
    const TileGPUTypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<ClusterRankToLLVM, ClusterSumToLLVM, ClusterPairEqualToLLVM,
               ClusterBarrierToLLVM>(converter, patterns.getContext());
}
