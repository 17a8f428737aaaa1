//===- SoftwarePipeline.cpp - Dot operands through shared memory, ahead ---===//
//
// Stage 0 of iteration i + S - 1 (its copies into buffer (i + S - 1) % S
// and one commit group) runs in the same loop body as the last stage of
// iteration i, placed after it. So when iteration i waits, the groups of
// iterations up to i + S - 2 have been issued and at most S - 2 may still
// be in flight; and the buffer the copies overwrite, (i - 1) % S, was read
// by iteration i - 1, which every thread finished before passing the wait's
// barrier in iteration i.
//
// A Hopper dot that reads both operands from the rings and carries its
// accumulator from iteration to iteration stays in flight: iteration i
// waits only for dot i - 1 (tilegpu.warpgroup_dot_wait 1) before its
// copies overwrite dot i - 1's buffers, and the loop's result waits for
// the last. With several warpgroups a barrier follows that wait, since
// each warpgroup's wait covers its own dots only. (A ring of S + 1
// buffers, overwriting dot i - 2's, needs no barrier; on the H100 the
// barrier cost less than the extra buffer's share of shared memory, which
// at 128 x 256 x 64 leaves one stage less: 638 against 561 TFLOP/s.)
//

#include "tilec/Dialect/TileGPU/IR/SharedLayout.h"
#include "tilec/Dialect/TileGPU/IR/Target.h"
#include "tilec/Dialect/TileGPU/IR/ThreadLayout.h"
#include "tilec/Dialect/TileGPU/Transforms/Passes.h"

#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/MathExtras.h"

namespace mlir::tilegpu {
#define GEN_PASS_DEF_TILEGPUPIPELINE
#include "tilec/Dialect/TileGPU/Transforms/Passes.h.inc"
} // namespace mlir::tilegpu

using namespace mlir;
using namespace mlir::tilegpu;

namespace {

/// The buffer type for a tile of `type`: rows along `fast` if given, else
/// along its layout's fastest dimension, swizzled for ldmatrix and wgmma.
MemDescType getBufferType(RankedTensorType type,
                          std::optional<unsigned> rowDim = std::nullopt) {
  unsigned rank = type.getRank();
  unsigned fast = rank - 1;
  if (std::optional<ThreadLayout> layout = ThreadLayout::get(type)) {
    // Rows run along one of the matrix's dimensions, never the batch's.
    int dim = layout->getTensorDim(layout->getFastestDim());
    if (dim >= int(rank) - 2)
      fast = dim;
  }
  if (rowDim)
    fast = *rowDim;
  SmallVector<unsigned> order = {fast};
  for (int d = rank - 1; d >= 0; --d)
    if (unsigned(d) != fast)
      order.push_back(d);
  MLIRContext *context = type.getContext();
  auto unswizzled = MemDescType::get(context, type.getShape(),
                                     type.getElementType(), Attribute());
  auto encoding = chooseSharedEncoding(
      context, getSharedAllocShape(unswizzled), order,
      type.getElementType().getIntOrFloatBitWidth());
  return MemDescType::get(context, type.getShape(), type.getElementType(),
                          encoding);
}

/// A dot operand converted into registers is stored to a buffer instead,
/// once, where its value is defined: a tile defined outside a loop (attention's
/// queries) is not stored again in every iteration. wgmma reads tf32 and
/// fp8 operands K-major only (no transpose flag but for 16-bit types):
/// their rows run along K whatever the loads' layout, B's copied element
/// by element into its transposed rows. wgmma's A stays in registers unless it was
/// loaded: a tile computed in registers (attention's probabilities, whose
/// accumulator layout is already A's) would only make a round trip.
void stageDotOperands(tile::DotOp dot) {
  auto mma = dyn_cast<MmaEncodingAttr>(dot.getType().getEncoding());
  bool wgmma = mma && mma.getVersion() == 3;
  bool kMajorOnly =
      wgmma && isWgmmaKMajorOnly(dot.getA().getType().getElementType());
  for (OpOperand &operand : dot->getOpOperands()) {
    unsigned opIdx = operand.getOperandNumber();
    if (opIdx > 1)
      continue;
    auto convert = operand.get().getDefiningOp<ConvertLayoutOp>();
    if (!convert ||
        !isa<DotOperandEncodingAttr>(convert.getType().getEncoding()))
      continue;
    Value src = convert.getSrc();
    if (wgmma && opIdx == 0 && !src.getDefiningOp<tile::LoadOp>())
      continue;
    auto type = cast<RankedTensorType>(src.getType());
    std::optional<unsigned> rowDim;
    if (kMajorOnly)
      rowDim = opIdx == 0 ? type.getRank() - 1 : type.getRank() - 2;
    // Defined in another block, it is an enclosing one's.
    OpBuilder builder(dot);
    if (Operation *def = src.getDefiningOp();
        def && def->getBlock() != dot->getBlock())
      builder.setInsertionPointAfter(def);
    auto alloc = LocalAllocOp::create(builder, convert.getLoc(),
                                      getBufferType(type, rowDim), src);
    operand.set(alloc);
    if (convert->use_empty())
      convert->erase();
  }
}

/// True when `v` is absent or a zero splat, which cp.async's zero-fill gives.
bool isZeroOrAbsent(Value v) {
  if (!v)
    return true;
  if (auto splat = v.getDefiningOp<tile::SplatOp>())
    v = splat.getSrc();
  return matchPattern(v, m_Zero()) || matchPattern(v, m_AnyZeroFloat());
}

/// The stages the loop asks for.
int64_t getNumStages(scf::ForOp loop) {
  if (auto attr = loop->getAttrOfType<IntegerAttr>(tile::kNumStagesAttrName))
    return attr.getInt();
  if (auto module = loop->getParentOfType<ModuleOp>())
    if (auto attr = module->getAttrOfType<IntegerAttr>(tile::kNumStagesAttrName))
      return attr.getInt();
  return 3;
}

/// `i`-th iteration's number modulo `stages`, from the induction variable.
Value emitSlot(OpBuilder &b, Location loc, scf::ForOp loop, int64_t stages) {
  Value iv = loop.getInductionVar();
  Value iteration = arith::DivSIOp::create(
      b, loc, arith::SubIOp::create(b, loc, iv, loop.getLowerBound()),
      loop.getStep());
  Value slot = arith::RemSIOp::create(
      b, loc, iteration,
      arith::ConstantOp::create(b, loc, b.getIntegerAttr(iv.getType(), stages)));
  if (!slot.getType().isInteger(32))
    slot = arith::TruncIOp::create(b, loc, b.getI32Type(), slot);
  return slot;
}

/// The loop's buffers filled by loads of its own iterations.
SmallVector<LocalAllocOp> findPipelinable(scf::ForOp loop) {
  SmallVector<LocalAllocOp> allocs;
  for (auto alloc : loop.getBody()->getOps<LocalAllocOp>()) {
    auto load = alloc.getSrc() ? alloc.getSrc().getDefiningOp<tile::LoadOp>()
                               : nullptr;
    if (load && load->getBlock() == loop.getBody() && load->hasOneUse() &&
        isa<RankedTensorType>(load.getPtr().getType()) &&
        isZeroOrAbsent(load.getOther()) && !load.getIsVolatile() &&
        load.getCache() == tile::CacheModifier::None)
      allocs.push_back(alloc);
  }
  return allocs;
}

/// The loop's Hopper dots that can stay in flight across iterations: both
/// operands in buffers of `allocs` (which become rings) and the
/// accumulator carried by the loop and read by nothing else.
SmallVector<tile::DotOp> findChainedWgmmaDots(scf::ForOp loop,
                                              ArrayRef<LocalAllocOp> allocs) {
  SmallVector<tile::DotOp> dots;
  auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
  auto isRingBuffer = [&](Value v) {
    auto alloc = v.getDefiningOp<LocalAllocOp>();
    return alloc && llvm::is_contained(allocs, alloc);
  };
  for (auto dot : loop.getBody()->getOps<tile::DotOp>()) {
    auto mma = dyn_cast<MmaEncodingAttr>(dot.getType().getEncoding());
    auto acc = dyn_cast<BlockArgument>(dot.getAcc());
    if (!mma || mma.getVersion() != 3 || !acc ||
        acc.getOwner() != loop.getBody() || acc.getArgNumber() == 0 ||
        !acc.hasOneUse() || !dot->hasOneUse() ||
        *dot->user_begin() != yield.getOperation() ||
        yield.getOperand(acc.getArgNumber() - 1) != dot.getResult() ||
        !isRingBuffer(dot.getA()) || !isRingBuffer(dot.getB()))
      continue;
    dots.push_back(dot);
  }
  return dots;
}

/// Keeps `dot` (of findChainedWgmmaDots) one wgmma group deep in flight:
/// a wait for the previous iteration's group (and, with several
/// warpgroups, a barrier) before the yield, and one for the last after the
/// loop.
void keepInFlight(tile::DotOp dot, scf::ForOp loop) {
  OpBuilder builder(dot->getNextNode());
  auto acc = cast<BlockArgument>(dot.getAcc());
  unsigned index = acc.getArgNumber() - 1;
  auto previous = WarpgroupDotWaitOp::create(
      builder, dot.getLoc(), dot.getType(), dot.getResult(),
      builder.getI32IntegerAttr(1));
  dot.getResult().replaceAllUsesExcept(previous, previous);
  if (getNumWarps(dot) > 4)
    tile::DebugBarrierOp::create(builder, dot.getLoc());
  builder.setInsertionPointAfter(loop);
  Value result = loop.getResult(index);
  auto last = WarpgroupDotWaitOp::create(builder, dot.getLoc(),
                                         result.getType(), result,
                                         builder.getI32IntegerAttr(0));
  result.replaceAllUsesExcept(last, last);
}

/// `op` (of stage 0 in the loop's last iterations) predicated by `pred`:
/// memory reads and copies get it in their masks; pure ops need nothing.
Operation *predicate(RewriterBase &rewriter, Operation *op, Value pred) {
  auto andMask = [&](Value ptrs, Value mask) -> Value {
    auto type = cast<RankedTensorType>(ptrs.getType());
    auto maskType = RankedTensorType::get(type.getShape(), rewriter.getI1Type(),
                                          type.getEncoding());
    Value splat = tile::SplatOp::create(rewriter, op->getLoc(), maskType, pred);
    return mask ? arith::AndIOp::create(rewriter, op->getLoc(), mask, splat)
                : splat;
  };
  rewriter.setInsertionPoint(op);
  if (auto copy = dyn_cast<AsyncCopyOp>(op)) {
    Value mask = andMask(copy.getPtrs(), copy.getMask());
    rewriter.modifyOpInPlace(copy, [&] { copy.getMaskMutable().assign(mask); });
    return op;
  }
  if (auto load = dyn_cast<tile::LoadOp>(op)) {
    if (!isa<RankedTensorType>(load.getPtr().getType()))
      return nullptr;
    Value mask = andMask(load.getPtr(), load.getMask());
    rewriter.modifyOpInPlace(load, [&] { load.getMaskMutable().assign(mask); });
    return op;
  }
  if (isa<AsyncCommitGroupOp, AsyncWaitOp, MemDescIndexOp>(op) ||
      isMemoryEffectFree(op))
    return op;
  return nullptr;
}

/// Rewrites `loop` so that its pipelinable buffers fill `stages - 1`
/// iterations ahead; false (and the loop untouched) when there are none.
LogicalResult pipeline(scf::ForOp loop, int64_t stages) {
  SmallVector<LocalAllocOp> allocs = findPipelinable(loop);
  if (allocs.empty() || stages < 2)
    return failure();
  OpBuilder builder(loop);
  Location loc = loop.getLoc();
  SmallVector<tile::DotOp> inFlight = findChainedWgmmaDots(loop, allocs);
  for (tile::DotOp dot : inFlight)
    keepInFlight(dot, loop);

  // A wait for this iteration's buffers before the first of them is read.
  LocalAllocOp first = allocs.front();
  for (LocalAllocOp alloc : allocs)
    if (alloc->isBeforeInBlock(first))
      first = alloc;
  builder.setInsertionPoint(first);
  AsyncWaitOp::create(builder, loc, builder.getI32IntegerAttr(stages - 2));

  // Rings of buffers, one per stage, before the loop; in the loop, copies
  // into this iteration's buffer where the loads were, and reads of it
  // where the tiles were stored.
  SmallVector<Operation *> copies;
  for (LocalAllocOp alloc : allocs) {
    MemDescType type = alloc.getType();
    SmallVector<int64_t> ringShape = {stages};
    llvm::append_range(ringShape, type.getShape());
    builder.setInsertionPoint(loop);
    auto ring = LocalAllocOp::create(
        builder, alloc.getLoc(),
        MemDescType::get(type.getContext(), ringShape, type.getElementType(),
                         type.getEncoding()),
        Value());
    auto load = alloc.getSrc().getDefiningOp<tile::LoadOp>();
    builder.setInsertionPoint(load);
    Value slot = emitSlot(builder, load.getLoc(), loop, stages);
    Value buffer = MemDescIndexOp::create(builder, load.getLoc(), type, ring, slot);
    copies.push_back(AsyncCopyOp::create(builder, load.getLoc(), load.getPtr(),
                                         buffer, load.getMask()));
    builder.setInsertionPoint(alloc);
    Value readSlot = emitSlot(builder, alloc.getLoc(), loop, stages);
    auto read = MemDescIndexOp::create(builder, alloc.getLoc(), type, ring,
                                       readSlot);
    alloc.getResult().replaceAllUsesWith(read.getResult());
    alloc.erase();
    load.erase();
  }
  Operation *lastCopy = copies.front();
  for (Operation *copy : copies)
    if (lastCopy->isBeforeInBlock(copy))
      lastCopy = copy;
  builder.setInsertionPointAfter(lastCopy);
  Operation *commit = AsyncCommitGroupOp::create(builder, loc);

  // Stage 0: the copies, their commit and everything they need from this
  // iteration or, through iteration arguments, from the previous one (the
  // advancing pointers); the last stage: the rest.
  llvm::SetVector<Operation *> early;
  SmallVector<Operation *> worklist(copies);
  worklist.push_back(commit);
  auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
  while (!worklist.empty()) {
    Operation *op = worklist.pop_back_val();
    if (!early.insert(op))
      continue;
    for (Value operand : op->getOperands()) {
      if (auto arg = dyn_cast<BlockArgument>(operand)) {
        if (arg.getOwner() == loop.getBody() && arg.getArgNumber() > 0)
          operand = yield.getOperand(arg.getArgNumber() - 1);
        else
          continue;
      }
      if (Operation *def = operand.getDefiningOp())
        if (def->getBlock() == loop.getBody())
          worklist.push_back(def);
    }
  }
  std::vector<std::pair<Operation *, unsigned>> schedule;
  for (Operation &op : loop.getBody()->without_terminator())
    if (!early.contains(&op))
      schedule.push_back({&op, unsigned(stages - 1)});
  for (Operation &op : loop.getBody()->without_terminator())
    if (early.contains(&op))
      schedule.push_back({&op, 0u});

  // The prologue's copies write the rings before the loop, and the rings'
  // bytes may have served another op's scratch space, or this ring in the
  // previous iteration of an enclosing loop: every thread must be done
  // reading them first.
  builder.setInsertionPoint(loop);
  auto barrier = tile::DebugBarrierOp::create(builder, loc);

  scf::PipeliningOption options;
  options.getScheduleFn = [schedule](scf::ForOp,
                                     std::vector<std::pair<Operation *, unsigned>> &s) {
    s = schedule;
  };
  options.supportDynamicLoops = true;
  options.peelEpilogue = false;
  options.predicateFn = predicate;
  IRRewriter rewriter(loop);
  bool modified = false;
  FailureOr<scf::ForOp> pipelined =
      scf::pipelineForLoop(rewriter, loop, options, &modified);
  if (failed(pipelined)) {
    // Unpipelined, each iteration must wait for its own copies.
    assert(!modified && "the pipeliner gave up halfway");
    loop.walk([](AsyncWaitOp wait) {
      wait.setPending(0);
    });
    loop.walk([](WarpgroupDotWaitOp wait) { wait.setPending(0); });
    barrier.erase();
    return failure();
  }
  // Copies predicated off still write zeros: let them land before the
  // buffers' bytes could serve anything else.
  builder.setInsertionPointAfter(*pipelined);
  AsyncWaitOp::create(builder, loc, builder.getI32IntegerAttr(0));
  return success();
}

/// True when only cp.async writes `buffer`: it is a buffer of a ring that
/// tilegpu.async_copy fills and dots read. wgmma reads such buffers without
/// a proxy fence once the copies' wait has passed, as Triton's fence
/// insertion also assumes (the dot differential test checks it on the GPU).
bool isFilledByAsyncCopies(Value buffer) {
  auto slot = buffer.getDefiningOp<MemDescIndexOp>();
  auto ring = slot ? slot.getSrc().getDefiningOp<LocalAllocOp>() : nullptr;
  if (!ring || ring.getSrc())
    return false;
  for (Operation *user : ring->getUsers()) {
    auto index = dyn_cast<MemDescIndexOp>(user);
    if (!index)
      return false;
    for (Operation *use : index->getUsers())
      if (!isa<AsyncCopyOp, tile::DotOp>(use))
        return false;
  }
  return true;
}

/// True when the last op before `op` that touches memory is a barrier:
/// tile.debug_barrier, or a tilegpu.async_wait, which ends with one.
bool followsBarrier(Operation *op) {
  for (Operation *prev = op->getPrevNode(); prev; prev = prev->getPrevNode()) {
    if (isa<AsyncWaitOp, tile::DebugBarrierOp>(prev))
      return true;
    if (!isMemoryEffectFree(prev))
      return false;
  }
  return false;
}

/// wgmma reads its operands through the async proxy, and each warpgroup
/// reads what all threads wrote: a proxy fence and a barrier after an
/// operand was stored from registers (once, after the store, for one
/// stored outside the dot's loop; before the dot otherwise), and before
/// the dot a barrier unless one has just passed (the copies' wait).
void fenceWgmmaOperands(ModuleOp module) {
  llvm::SmallPtrSet<Operation *, 4> fencedStores;
  module.walk([&](tile::DotOp dot) {
    auto mma = dyn_cast<MmaEncodingAttr>(dot.getType().getEncoding());
    if (!mma || mma.getVersion() != 3)
      return;
    bool storedHere = false;
    for (Value operand : {dot.getA(), dot.getB()}) {
      if (!isa<MemDescType>(operand.getType()) ||
          isFilledByAsyncCopies(operand))
        continue;
      Operation *store = operand.getDefiningOp();
      if (!store || store->getBlock() == dot->getBlock()) {
        storedHere = true;
        continue;
      }
      if (!fencedStores.insert(store).second)
        continue;
      OpBuilder builder = OpBuilder::atBlockEnd(store->getBlock());
      builder.setInsertionPointAfter(store);
      FenceAsyncSharedOp::create(builder, dot.getLoc());
      tile::DebugBarrierOp::create(builder, dot.getLoc());
    }
    OpBuilder builder(dot);
    if (storedHere)
      FenceAsyncSharedOp::create(builder, dot.getLoc());
    if (storedHere || !followsBarrier(dot))
      tile::DebugBarrierOp::create(builder, dot.getLoc());
  });
}

/// A bound on the scratch space the lowering takes beside the rings of
/// `loop`: the largest layout conversion (rows padded by up to 128 bytes;
/// see ConvertLayoutToLLVM.cpp) that may run while they are live. Those after the loop reuse the rings'
/// memory (see assignSharedOffsets).
int64_t estimateScratchBytes(scf::ForOp loop) {
  int64_t bytes = 0;
  loop->getParentOfType<ModuleOp>().walk([&](ConvertLayoutOp convert) {
    Operation *ancestor = loop->getBlock()->findAncestorOpInBlock(*convert);
    if (ancestor && loop->isBeforeInBlock(ancestor))
      return;
    std::optional<ThreadLayout> src = ThreadLayout::get(convert.getSrc().getType());
    std::optional<ThreadLayout> dst = ThreadLayout::get(convert.getType());
    if (src && dst && getRegisterPermutation(*src, *dst))
      return;
    int64_t elements = 1;
    for (auto [src, dst] : llvm::zip(convert.getSrc().getType().getShape(),
                                     convert.getType().getShape()))
      elements *= llvm::PowerOf2Ceil(std::max(src, dst));
    Type element = convert.getType().getElementType();
    int64_t convertBytes =
        elements * std::max(1u, element.getIntOrFloatBitWidth() / 8);
    ArrayRef<int64_t> shape = convert.getType().getShape();
    if (shape.size() > 1)
      convertBytes += elements / llvm::PowerOf2Ceil(shape.back()) * 128;
    bytes = std::max(bytes, convertBytes);
  });
  return bytes;
}

struct TileGPUPipeline : tilegpu::impl::TileGPUPipelineBase<TileGPUPipeline> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    module.walk([](tile::DotOp dot) { stageDotOperands(dot); });
    int64_t limit = getSharedMemoryLimit(module);
    SmallVector<scf::ForOp> loops;
    module.walk([&](scf::ForOp loop) { loops.push_back(loop); });
    for (scf::ForOp loop : loops) {
      SmallVector<LocalAllocOp> allocs = findPipelinable(loop);
      if (allocs.empty())
        continue;
      // As many stages as asked for and as fit: every buffer of the kernel
      // and the scratch space share the CTA's shared memory.
      int64_t used = estimateScratchBytes(loop), perStage = 0;
      module.walk([&](LocalAllocOp alloc) { used += getSharedAllocBytes(alloc.getType()); });
      for (LocalAllocOp alloc : allocs)
        perStage += getSharedAllocBytes(alloc.getType());
      used -= perStage; // the loop's buffers become its rings
      int64_t stages = getNumStages(loop);
      while (stages >= 2 && used + stages * perStage > limit)
        --stages;
      (void)pipeline(loop, stages);
    }
    fenceWgmmaOperands(module);
  }
};

} // namespace
