//===- ClusterSplitK.cpp - A program's K loop over a cluster's CTAs -------===//
//
// A matmul whose grid has fewer programs than the GPU has multiprocessors
// leaves most of them idle while each program walks its whole K loop (an
// LLM layer at M = 128: 32 to 64 programs on 132 SMs). Users split K by
// hand, with atomics, a zeroed output and run-to-run noise. Here each
// program runs as a thread-block cluster of S CTAs instead, and the
// compiler splits the loop:
//
//   %rank = tilegpu.cluster_rank
//   %lo, %hi = this rank's contiguous chunk of the iterations
//   %r:N = scf.for %k = %lo to %hi ... iter_args(%p = %p0 + %dp * first,
//                                                 %acc = rank == 0 ? %acc0 : 0)
//   %sum = tilegpu.cluster_sum %r#1 {ctas = S}   // rank order, on rank 0
//   scf.if %rank == 0 { the epilogue, reading %sum }
//
// The loop's carried values other than its accumulators must advance by a
// loop-invariant step (pointers, offsets), so that a chunk's first values
// are computed rather than walked to. Nothing before the epilogue may write
// memory: every CTA runs it. The sum's order is fixed, so the bits do not
// change from run to run; no output needs zeroing and no atomics are used.
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/TileGPU/Transforms/Passes.h"

#include "KLoop.h"

#include "tilec/Dialect/Tile/IR/Tile.h"
#include "tilec/Dialect/TileGPU/IR/Target.h"
#include "tilec/Dialect/TileGPU/IR/TileGPU.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/Support/DebugLog.h"

#define DEBUG_TYPE "tilegpu-cluster-split-k"

namespace mlir::tilegpu {
#define GEN_PASS_DEF_TILEGPUCLUSTERSPLITK
#include "tilec/Dialect/TileGPU/Transforms/Passes.h.inc"
} // namespace mlir::tilegpu

using namespace mlir;
using namespace mlir::tilegpu;

namespace {

/// Splits `kloop` over `ctas` ranks and runs the epilogue on rank 0.
void split(const KLoop &kloop, unsigned ctas) {
  scf::ForOp loop = kloop.loop;
  Location loc = loop.getLoc();
  OpBuilder b(loop);
  Type type = loop.getInductionVar().getType();
  auto constant = [&](int64_t v) -> Value {
    if (type.isIndex())
      return arith::ConstantIndexOp::create(b, loc, v);
    return arith::ConstantIntOp::create(b, loc, type, v);
  };
  Value rank32 = ClusterRankOp::create(b, loc, b.getI32Type());
  Value rank = castSplat(b, loc, rank32, type);
  // This rank's iterations: a contiguous chunk of ceil(n / S), the last ones
  // shorter or empty.
  Value trips = buildTripCount(b, loc, loop.getLowerBound(),
                               loop.getUpperBound(), loop.getStep());
  Value chunk = arith::DivSIOp::create(
      b, loc, arith::AddIOp::create(b, loc, trips, constant(ctas - 1)),
      constant(ctas));
  Value first = arith::MinSIOp::create(
      b, loc, arith::MulIOp::create(b, loc, rank, chunk), trips);
  Value last = arith::MinSIOp::create(
      b, loc, arith::AddIOp::create(b, loc, first, chunk), trips);
  Value isFirst = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                        rank32, arith::ConstantIntOp::create(
                                                    b, loc, b.getI32Type(), 0));
  restrictKLoop(kloop, first, last, isFirst);

  b.setInsertionPointAfter(loop);
  for (auto [i, carried] : llvm::enumerate(kloop.carried)) {
    Value result = loop.getResult(i);
    if (carried.kind != Carried::Kind::Accumulator || result.use_empty())
      continue;
    Value sum = ClusterSumOp::create(b, loc, result.getType(), result,
                                     b.getI32IntegerAttr(ctas));
    result.replaceAllUsesExcept(sum, sum.getDefiningOp());
  }
  // The epilogue, on rank 0.
  Block *body = loop->getBlock();
  auto epilogue = scf::IfOp::create(b, loc, TypeRange{}, isFirst,
                                    /*withElseRegion=*/false);
  Operation *yield = epilogue.thenBlock()->getTerminator();
  for (Operation &op : llvm::make_early_inc_range(llvm::make_range(
           std::next(epilogue->getIterator()), body->getTerminator()->getIterator())))
    op.moveBefore(yield);
}

struct ClusterSplitK
    : tilegpu::impl::TileGPUClusterSplitKBase<ClusterSplitK> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    StringRef name = TileGPUDialect::getClusterSplitAttrName();
    auto attr = module->getAttrOfType<IntegerAttr>(name);
    if (!attr)
      return;
    unsigned ctas = unsigned(attr.getInt());
    std::string why;
    SmallVector<func::FuncOp> kernels;
    module.walk([&](func::FuncOp func) {
      if (!func.isExternal())
        kernels.push_back(func);
    });
    FailureOr<KLoop> plan = failure();
    if (getComputeCapability(module) < 90)
      why = "clusters need sm_90 or newer";
    else if (module->hasAttr(TileGPUDialect::getDeviceTensorMapsAttrName()))
      why = "the kernel builds its own tensor maps";
    else if (kernels.size() != 1)
      why = "the module has more than one function";
    else
      plan = findKLoop(kernels.front(), why, /*hoist=*/ctas > 1);
    if (failed(plan)) {
      LDBG() << "not split: " << why;
      module->removeAttr(name);
      return;
    }
    module->setAttr(TileGPUDialect::getClusterSplittableAttrName(),
                    UnitAttr::get(module.getContext()));
    if (ctas < 2) {
      LDBG() << "splittable, one CTA per program asked for";
      module->removeAttr(name);
      return;
    }
    LDBG() << "K loop at " << plan->loop.getLoc() << " split over " << ctas
           << " CTAs";
    split(*plan, ctas);
  }
};

} // namespace
