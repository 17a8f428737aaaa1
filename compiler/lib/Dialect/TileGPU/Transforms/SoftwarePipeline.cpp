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

#include "BulkCopy.h"
#include "PointerRebase.h"
#include "RingSlots.h"
#include "TensorBox.h"
#include "WarpSpecialize.h"

#include "tilec/Dialect/Tile/Analysis/AxisInfo.h"
#include "tilec/Dialect/TileGPU/IR/SharedLayout.h"
#include "tilec/Dialect/TileGPU/IR/Target.h"
#include "tilec/Dialect/TileGPU/IR/ThreadLayout.h"
#include "tilec/Dialect/TileGPU/Transforms/Passes.h"

#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/LoopInvariantCodeMotionUtils.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/DebugLog.h"
#include "llvm/Support/InterleavedRange.h"
#include "llvm/Support/MathExtras.h"

#define DEBUG_TYPE "tilegpu-pipeline"

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

/// The buffers dot operands were stored to, by value and row dimension
/// (-1: as the value's layout has it), so that a value several dots read
/// is stored once.
using StagedBuffers = llvm::DenseMap<std::pair<Value, int>, LocalAllocOp>;

/// A dot operand converted into registers is stored to a buffer instead,
/// once: a tile defined outside a loop (attention's queries) is not stored
/// again in every iteration, and a tile two dots read (the backward's q
/// and do, as they are and transposed) is stored once for both. wgmma
/// reads tf32 and fp8 operands from shared memory K-major only (no
/// transpose flag but for 16-bit types): their rows run along K whatever
/// the loads' layout, copied element by element into transposed rows where
/// they are not. A B operand `tl.trans(x)` of wgmma is x's buffer seen
/// transposed (tilegpu.memdesc_trans): for tf32 and fp8, x's rows run
/// along its K, as an fp8 attention's V^T comes. Other transposed operands
/// (A, mma.sync) are stored transposed. wgmma's
/// register operand (A, or B where the operands are swapped) stays in
/// registers unless it was loaded: a tile computed in registers
/// (attention's probabilities, whose accumulator layout is already A's)
/// would only make a round trip; a loaded one is read from its buffer into
/// registers, in whatever order it was stored.
void stageDotOperands(tile::DotOp dot, StagedBuffers &staged) {
  auto mma = dyn_cast<MmaEncodingAttr>(dot.getType().getEncoding());
  bool wgmma = mma && mma.getVersion() == 3;
  bool kMajorOnly =
      wgmma && isWgmmaKMajorOnly(dot.getA().getType().getElementType());
  unsigned registerOperand = wgmma && mma.getSwapped() ? 1 : 0;
  // The buffer holding `value`: stored right before its first dot where
  // the value is defined in the dot's block (the pipeliner waits for a
  // ring's copies where its buffer was stored, and attention's schedule
  // wants that wait between its dots), else right after the definition.
  // A later dot it does not dominate moves it to the definition.
  auto stage = [&](Value value, std::optional<unsigned> rowDim) {
    auto placeAtDefinition = [&](OpBuilder &builder) {
      if (Operation *def = value.getDefiningOp())
        builder.setInsertionPointAfter(def);
      else
        builder.setInsertionPointToStart(cast<BlockArgument>(value).getOwner());
    };
    LocalAllocOp &alloc = staged[{value, rowDim ? int(*rowDim) : -1}];
    if (alloc) {
      Operation *ancestor = alloc->getBlock()->findAncestorOpInBlock(*dot);
      if (!ancestor || ancestor->isBeforeInBlock(alloc)) {
        OpBuilder builder(alloc);
        placeAtDefinition(builder);
        alloc->moveBefore(builder.getInsertionBlock(),
                          builder.getInsertionPoint());
      }
      return alloc;
    }
    OpBuilder builder(dot);
    if (value.getParentBlock() != dot->getBlock())
      placeAtDefinition(builder);
    alloc = LocalAllocOp::create(
        builder, value.getLoc(),
        getBufferType(cast<RankedTensorType>(value.getType()), rowDim), value);
    return alloc;
  };
  for (OpOperand &operand : dot->getOpOperands()) {
    unsigned opIdx = operand.getOperandNumber();
    if (opIdx > 1)
      continue;
    auto convert = operand.get().getDefiningOp<ConvertLayoutOp>();
    if (!convert ||
        !isa<DotOperandEncodingAttr>(convert.getType().getEncoding()))
      continue;
    Value src = convert.getSrc();
    if (wgmma && opIdx == registerOperand && !src.getDefiningOp<tile::LoadOp>())
      continue;
    auto type = cast<RankedTensorType>(src.getType());
    std::optional<unsigned> rowDim;
    if (kMajorOnly && !(mma.getSwapped() && opIdx == registerOperand))
      rowDim = opIdx == 0 ? type.getRank() - 1 : type.getRank() - 2;
    // B alone: wgmma's A from shared memory is read K-major here.
    auto trans = src.getDefiningOp<tile::TransOp>();
    if (wgmma && trans && type.getRank() == 2 && opIdx == 1 &&
        registerOperand == 0) {
      // x's rows run along its dimension 1 where B must be K-major: its
      // transpose's along K.
      LocalAllocOp buffer =
          stage(trans.getSrc(), rowDim ? std::optional<unsigned>(1)
                                       : std::optional<unsigned>());
      OpBuilder builder(dot);
      operand.set(MemDescTransOp::create(builder, trans.getLoc(),
                                         getTransposedType(buffer.getType()),
                                         buffer));
    } else {
      operand.set(stage(src, rowDim));
    }
    LDBG() << "dot at " << dot.getLoc() << ": operand " << opIdx
           << " read from shared memory, " << operand.get().getType();
    if (convert->use_empty())
      convert->erase();
    if (trans && trans->use_empty())
      trans->erase();
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
  if (auto attr = loop->getAttrOfType<IntegerAttr>(
          tile::TileDialect::getNumStagesAttrName()))
    return attr.getInt();
  if (auto module = loop->getParentOfType<ModuleOp>())
    if (auto attr = module->getAttrOfType<IntegerAttr>(
            tile::TileDialect::getNumStagesAttrName()))
      return attr.getInt();
  return 3;
}

/// The load that fills `alloc` where copies could do it instead: a plain
/// load of a tile in the alloc's block, read by nothing else, whose masked
/// elements are zeros (as copies fill them).
tile::LoadOp getCopyableLoad(LocalAllocOp alloc) {
  auto load =
      alloc.getSrc() ? alloc.getSrc().getDefiningOp<tile::LoadOp>() : nullptr;
  if (load && load->getBlock() == alloc->getBlock() && load->hasOneUse() &&
      isa<RankedTensorType>(load.getPtr().getType()) &&
      isZeroOrAbsent(load.getOther()) && !load.getIsVolatile() &&
      load.getCache() == tile::CacheModifier::None)
    return load;
  return {};
}

/// The loop's buffers filled by loads of its own iterations.
SmallVector<LocalAllocOp> findPipelinable(scf::ForOp loop) {
  SmallVector<LocalAllocOp> allocs;
  for (auto alloc : loop.getBody()->getOps<LocalAllocOp>())
    if (getCopyableLoad(alloc))
      allocs.push_back(alloc);
  return allocs;
}

/// The tiles loaded before `loop`, in its block, that the copy engine can
/// bring (attention's queries): a producer warpgroup may copy them too,
/// where only the loop's dots read them (specializeWarps).
SmallVector<OperandCopy, 1> findOperandCopies(scf::ForOp loop,
                                              tile::AxisInfoAnalysis &axis) {
  SmallVector<OperandCopy, 1> found;
  for (auto alloc : loop->getBlock()->getOps<LocalAllocOp>()) {
    if (!alloc->isBeforeInBlock(loop))
      break;
    tile::LoadOp load = getCopyableLoad(alloc);
    if (!load)
      continue;
    if (std::optional<BulkCopy> plan = planBulkCopy(alloc, load, loop, axis))
      found.push_back({alloc, *plan});
  }
  return found;
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

/// The bulk copy of `loop` (one of `plans`, nullopt where a buffer is not
/// bulk-copied) that two neighbouring programs should share, if any: on
/// rows off 32-byte sectors each of its panels costs a quarter more of
/// L2's bandwidth, which loading it once for both CTAs of a cluster wins
/// back. Measured on the H100, the grouped kernel's 128 x 256 x 64 tiles
/// at 8 warps (B (K, N), 96 programs): N = 3000, rows 16 bytes off, 68.0
/// against 55.3 us at N = 3072; B shared, 1000 x 3000 x 5000 ran 58.6
/// against 77.4 us (bench/HISTORY.md). Where rows are aligned, sharing
/// lost 3 to 6% (the CTAs wait for each other), so it is not done there,
/// nor for tiles smaller than that (hasLargeTiles), nor where the loop
/// forbids the producer warps sharing needs (tl.range's warp_specialize=
/// False). The largest such copy, of an even number of panels (each CTA
/// copies half of them).
std::optional<unsigned>
chooseSharedCopy(scf::ForOp loop, ArrayRef<LocalAllocOp> allocs,
                 ArrayRef<std::optional<BulkCopy>> plans) {
  ModuleOp module = loop->getParentOfType<ModuleOp>();
  auto split = module->getAttrOfType<IntegerAttr>(
      TileGPUDialect::getClusterSplitAttrName());
  std::optional<bool> asked = askedWarpSpecialization(loop);
  if (!isa<func::FuncOp>(loop->getParentOp()) || !hasLargeTiles(loop) ||
      (asked && !*asked) || (split && split.getInt() > 1) ||
      module->hasAttr(TileGPUDialect::getStreamKAttrName()) ||
      // Turnstiles take the consumers' turns, which producer warps upset.
      module->hasAttr(TileGPUDialect::getDeterministicAttrName()) ||
      module->hasAttr(TileGPUDialect::getDeviceTensorMapsAttrName()))
    return std::nullopt;
  std::optional<unsigned> best;
  int64_t bestBytes = 0;
  for (auto [i, plan] : llvm::enumerate(plans)) {
    // A hint says 32 bytes only of elements of 2 bytes or more (16 elements
    // at most): rows of 1-byte elements are never known to be whole sectors.
    if (!plan || plan->elementBytes < 2)
      continue;
    MemDescType type = LocalAllocOp(allocs[i]).getType();
    SharedPanels panels = getSharedPanels(
        cast<SharedEncodingAttr>(type.getEncoding()), type.getShape());
    if ((panels.rowLength / panels.width) % 2 != 0)
      continue;
    // Whether rows are whole sectors decides here, whichever way it goes:
    // the JIT must key the kernel by it (tile/Specialization.h).
    module->setAttr(TileGPUDialect::getRowSectorsMatterAttrName(),
                    UnitAttr::get(module.getContext()));
    int64_t bytes = getSharedAllocBytes(type);
    if (plan->rowsOffSectors && bytes > bestBytes)
      best = i, bestBytes = bytes;
  }
  return best;
}

/// Stops `loop` carrying values that nothing reads but their own next
/// value (the pointers of loads that bulk copies replaced, still advanced
/// each iteration): the ops that advanced them go, and each yields its
/// initial value, which canonicalization folds away. (Not the argument
/// itself: scf's pipeliner takes only values of ops as yields.)
void dropUnreadIterArgs(scf::ForOp loop) {
  auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
  for (auto [arg, next, result] :
       llvm::zip(loop.getRegionIterArgs(), yield->getOpOperands(),
                 loop.getResults())) {
    if (!result.use_empty() || arg == next.get())
      continue;
    // Every op that reads the argument, transitively, must be pure and
    // feed nothing but this operand of the yield.
    SmallVector<Value> worklist = {arg};
    llvm::SmallPtrSet<Operation *, 8> seen;
    bool unread = true;
    while (unread && !worklist.empty()) {
      Value value = worklist.pop_back_val();
      for (OpOperand &use : value.getUses()) {
        Operation *user = use.getOwner();
        if (user == yield.getOperation()) {
          unread &= &use == &next;
          continue;
        }
        if (user->getBlock() != loop.getBody() || !isMemoryEffectFree(user) ||
            user->getNumRegions()) {
          unread = false;
          break;
        }
        if (seen.insert(user).second)
          llvm::append_range(worklist, user->getResults());
      }
    }
    if (!unread)
      continue;
    next.set(loop.getInitArgs()[arg.getArgNumber() - 1]);
    for (Operation *op : seen)
      op->dropAllUses();
    for (Operation *op : seen)
      op->erase();
  }
}

/// Moves the scalar computations of `loop` that do not change from
/// iteration to iteration (a batch's base pointer, written in the loop
/// body) before it, where a tensor map can be built from them. Tiles stay:
/// hoisted, they would hold registers through the loop.
void hoistInvariantScalars(scf::ForOp loop) {
  moveLoopInvariantCode(
      {&loop.getRegion()},
      [&](Value value, Region *) { return loop.isDefinedOutsideOfLoop(value); },
      [&](Operation *op, Region *) {
        return op->getNumRegions() == 0 && isMemoryEffectFree(op) &&
               isSpeculatable(op) &&
               llvm::none_of(op->getResultTypes(), llvm::IsaPred<ShapedType>);
      },
      [&](Operation *op, Region *) { loop.moveOutOfLoop(op); });
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
  // Thread 0's bulk-copy ops: their own predicate.
  auto andPred = [&](auto thread0Op) -> Operation * {
    Value old = thread0Op.getPred();
    Value both =
        old ? arith::AndIOp::create(rewriter, op->getLoc(), old, pred) : pred;
    rewriter.modifyOpInPlace(thread0Op,
                             [&] { thread0Op.getPredMutable().assign(both); });
    return op;
  };
  if (auto copy = dyn_cast<AsyncTMACopyOp>(op))
    return andPred(copy);
  if (auto expect = dyn_cast<BarrierExpectOp>(op))
    return andPred(expect);
  // A CTA barrier may run in iterations past the end: every thread does.
  if (isa<AsyncCommitGroupOp, AsyncWaitOp, MemDescIndexOp,
          tile::DebugBarrierOp>(op) ||
      isMemoryEffectFree(op))
    return op;
  return nullptr;
}

/// The last op before `op` in its block that touches memory, or null.
Operation *getPreviousMemoryOp(Operation *op) {
  for (Operation *prev = op->getPrevNode(); prev; prev = prev->getPrevNode())
    if (!isMemoryEffectFree(prev))
      return prev;
  return nullptr;
}

/// Erases the CTA barriers of `block` that follow another one with only
/// pure ops between: the wait of an 8-warp dot in flight ends with one, and
/// the bulk copies' thread passes one right after.
void eraseRepeatedBarriers(Block &block) {
  for (auto barrier : llvm::make_early_inc_range(block.getOps<tile::DebugBarrierOp>()))
    if (isa_and_nonnull<tile::DebugBarrierOp>(getPreviousMemoryOp(barrier)))
      barrier.erase();
}

/// Rewrites `loop` so that its pipelinable buffers fill `stages - 1`
/// iterations ahead; false (and the loop untouched) when there are none.
/// A buffer whose load reads a box of a tensor (planBulkCopy) is filled by
/// the copy engine, completing on a ring of mbarriers; the others by
/// cp.async, completing in commit groups. With `copyOperands`, a producer
/// warpgroup may copy the tiles loaded before the loop that its dots read
/// too (findOperandCopies). A loop over tiles around `loop` that warp
/// specialization replaces goes into `replaced`.
LogicalResult pipeline(scf::ForOp loop, int64_t stages, bool copyOperands,
                       SmallPtrSetImpl<Operation *> &replaced) {
  SmallVector<LocalAllocOp> allocs = findPipelinable(loop);
  if (allocs.empty() || stages < 2) {
    LDBG() << "loop at " << loop.getLoc() << " not pipelined: " << stages
           << " stage(s) asked for or fit";
    return failure();
  }
  OpBuilder builder(loop);
  Location loc = loop.getLoc();
  SmallVector<tile::DotOp> inFlight = findChainedWgmmaDots(loop, allocs);
  for (tile::DotOp dot : inFlight) {
    LDBG() << "dot at " << dot.getLoc()
           << " stays in flight while the next iteration's copies run";
    keepInFlight(dot, loop);
  }

  SmallVector<std::optional<BulkCopy>, 2> bulk;
  std::optional<tile::AxisInfoAnalysis> axis;
  if (hasBulkTensorCopies(loop)) {
    hoistInvariantScalars(loop);
    axis.emplace(loop->getParentOfType<func::FuncOp>());
  }
  bool anyBulk = false, anyAsync = false;
  for (LocalAllocOp alloc : allocs) {
    auto load = alloc.getSrc().getDefiningOp<tile::LoadOp>();
    bulk.push_back(axis ? planBulkCopy(alloc, load, loop, *axis) : std::nullopt);
    anyBulk |= bulk.back().has_value();
    anyAsync |= !bulk.back().has_value();
    if (bulk.back())
      LDBG() << "load at " << load.getLoc() << ": bulk tensor copies of "
             << llvm::interleaved(bulk.back()->boxShape, "x") << " boxes, "
             << bulk.back()->swizzle << "-byte swizzle";
    else
      LDBG() << "load at " << load.getLoc() << ": cp.async"
             << (axis ? " (not a box of a tensor fixed for the loop, with "
                        "16-byte aligned rows, in a buffer the engine fills)"
                      : "");
  }

  // A wait for this iteration's cp.async buffers before the first of them
  // is read.
  LocalAllocOp first = allocs.front();
  for (LocalAllocOp alloc : allocs)
    if (alloc->isBeforeInBlock(first))
      first = alloc;
  builder.setInsertionPoint(first);
  if (anyAsync)
    AsyncWaitOp::create(builder, loc, builder.getI32IntegerAttr(stages - 2));

  // Each bulk-copied buffer has a ring of mbarriers, one per stage: the
  // copies' thread arrives on this iteration's, expecting the buffer's
  // bytes, and every thread waits on it where the tile was stored. (One
  // barrier per load, not per iteration: an iteration that reads one
  // buffer before loading the next, as attention does, needs to wait for
  // the first only.)
  MLIRContext *context = loop.getContext();
  MemDescType barrierType = getBarrierType(context);
  MemDescType ringOfBarriers = getBarrierType(context, stages);
  SmallVector<LocalAllocOp> barrierRings;

  // Rings of buffers, one per stage, before the loop; in the loop, copies
  // into this iteration's buffer where the loads were, and reads of it
  // where the tiles were stored.
  SmallVector<Operation *> copies;
  Operation *ctaBarrier = nullptr;
  std::optional<unsigned> sharedIndex = chooseSharedCopy(loop, allocs, bulk);
  AsyncTMACopyOp sharedCopy;
  for (auto [index, alloc, plan] : llvm::enumerate(allocs, bulk)) {
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
    Location at = load.getLoc();
    Value slot = emitSlot(builder, at, loop, stages);
    Value buffer = MemDescIndexOp::create(builder, at, type, ring, slot);
    if (plan) {
      SmallVector<Value> outerCoords;
      Value map = createTensorMap(*plan, outerCoords);
      builder.setInsertionPoint(loop);
      auto barriers = LocalAllocOp::create(builder, at, ringOfBarriers, Value());
      barrierRings.push_back(barriers);
      builder.setInsertionPoint(load);
      Value barrier = MemDescIndexOp::create(builder, at, barrierType, barriers, slot);
      if (!ctaBarrier) {
        // Every thread is done with the buffers this iteration overwrites
        // (read in the iteration before) when the copies' thread passes a
        // CTA barrier.
        ctaBarrier = tile::DebugBarrierOp::create(builder, at);
        copies.push_back(ctaBarrier);
      }
      copies.push_back(BarrierExpectOp::create(
          builder, at, barrier,
          builder.getI32IntegerAttr(getSharedAllocBytes(type)), Value()));
      SmallVector<Value> coords;
      for (unsigned d : plan->dims)
        coords.push_back(emitCoordinate(builder, at, plan->box, d, loop));
      llvm::append_range(coords, outerCoords);
      auto copy = AsyncTMACopyOp::create(builder, at, map, coords, buffer,
                                         barrier, Value(), Value());
      // Only a map the launcher built is the same in both CTAs of a pair;
      // one a program builds may start where its program's data does.
      if (sharedIndex == index && isa<BlockArgument>(map))
        sharedCopy = copy;
      copies.push_back(copy);
    } else {
      // Copied element by element, a tile the loop carries would hold a
      // pointer per element through it.
      if (loadsSingleElements(load))
        rebaseCarriedPointers(loop, load);
      copies.push_back(AsyncCopyOp::create(builder, at, load.getPtr(), buffer,
                                           load.getMask()));
    }
    builder.setInsertionPoint(alloc);
    Value readSlot = emitSlot(builder, alloc.getLoc(), loop, stages);
    if (plan) {
      Value readBarrier = MemDescIndexOp::create(
          builder, alloc.getLoc(), barrierType, barrierRings.back(), readSlot);
      BarrierWaitOp::create(builder, alloc.getLoc(), readBarrier,
                            emitPhase(builder, alloc.getLoc(), loop, stages));
    }
    auto read = MemDescIndexOp::create(builder, alloc.getLoc(), type, ring,
                                       readSlot);
    alloc.getResult().replaceAllUsesWith(read.getResult());
    alloc.erase();
    load.erase();
  }
  dropUnreadIterArgs(loop);
  // Copies the engine alone makes may rather come from warps of their own.
  if (anyBulk && !anyAsync) {
    // A copy two programs share needs a producer that may wait for the
    // other CTA's consumers without holding up its own.
    bool wanted = wantsWarpSpecialization(loop) || sharedCopy;
    LDBG() << "loop at " << loop.getLoc()
           << (wanted ? ": warp specialization wanted"
                      : ": no warp specialization (tl.range's "
                        "warp_specialize, else the cost model)")
           << (sharedCopy ? ", a copy shared by two programs" : "");
    SmallVector<OperandCopy, 1> operandCopies;
    if (copyOperands)
      operandCopies = findOperandCopies(loop, *axis);
    if (wanted &&
        succeeded(specializeWarps(loop, copies, barrierRings, stages,
                                  operandCopies, replaced, sharedCopy)))
      return success();
  }
  if (anyAsync) {
    Operation *lastCopy = nullptr;
    for (Operation *copy : copies)
      if (isa<AsyncCopyOp>(copy) && (!lastCopy || lastCopy->isBeforeInBlock(copy)))
        lastCopy = copy;
    builder.setInsertionPointAfter(lastCopy);
    copies.push_back(AsyncCommitGroupOp::create(builder, loc));
  }

  // Stage 0: the copies, their commit and everything they need from this
  // iteration or, through iteration arguments, from the previous one (the
  // advancing pointers); the last stage: the rest.
  llvm::SetVector<Operation *> early;
  SmallVector<Operation *> worklist(copies);
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
  for (LocalAllocOp barriers : barrierRings)
    BarrierInitOp::create(builder, loc, barriers);
  if (anyBulk)
    tile::DebugBarrierOp::create(builder, loc);

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
  // What tl.range said of the loop (warp_specialize=, num_stages=), which
  // the pipeliner's new loop would drop: later passes read it too.
  DictionaryAttr asked = loop->getDiscardableAttrDictionary();
  FailureOr<scf::ForOp> pipelined =
      scf::pipelineForLoop(rewriter, loop, options, &modified);
  if (succeeded(pipelined))
    (*pipelined)->setDiscardableAttrs(asked);
  if (failed(pipelined)) {
    LDBG() << "loop at " << loc << ": scf::pipelineForLoop failed; each "
           << "iteration waits for its own copies";
    // Unpipelined, each iteration must wait for its own copies (a bulk
    // copy's wait follows it anyway).
    assert(!modified && "the pipeliner gave up halfway");
    loop.walk([](AsyncWaitOp wait) {
      wait.setPending(0);
    });
    loop.walk([](WarpgroupDotWaitOp wait) { wait.setPending(0); });
    if (!anyBulk)
      barrier.erase();
  } else {
    LDBG() << "loop at " << loc << ": pipelined, " << stages << " stages";
  }
  // Copies predicated off still write zeros: let them land before the
  // buffers' bytes could serve anything else. Bulk copies predicated off
  // never start; those that did were waited for. The mbarriers are
  // invalidated once every thread is done waiting on them, so that their
  // bytes may serve other buffers.
  scf::ForOp result = succeeded(pipelined) ? *pipelined : loop;
  eraseRepeatedBarriers(*result.getBody());
  builder.setInsertionPointAfter(result);
  if (anyAsync && succeeded(pipelined))
    AsyncWaitOp::create(builder, loc, builder.getI32IntegerAttr(0));
  if (anyBulk)
    tile::DebugBarrierOp::create(builder, loc);
  for (LocalAllocOp barriers : barrierRings)
    BarrierInvalOp::create(builder, loc, barriers);
  return success(succeeded(pipelined));
}

/// True when only cp.async or bulk copies write `buffer`: it is a buffer of
/// a ring that tilegpu.async_copy or tilegpu.async_tma_copy fills and dots
/// read. wgmma reads such buffers without a proxy fence once the copies'
/// wait has passed, as Triton's fence insertion also assumes (the dot
/// differential test checks it on the GPU); bulk copies write through the
/// async proxy anyway.
bool isFilledByAsyncCopies(Value buffer) {
  auto slot = MemDescTransOp::getViewed(buffer).getDefiningOp<MemDescIndexOp>();
  auto ring = slot ? slot.getSrc().getDefiningOp<LocalAllocOp>() : nullptr;
  if (!ring || ring.getSrc())
    return false;
  auto isDot = llvm::IsaPred<tile::DotOp>;
  for (Operation *user : ring->getUsers()) {
    auto index = dyn_cast<MemDescIndexOp>(user);
    if (!index)
      return false;
    for (Operation *use : index->getUsers()) {
      if (auto view = dyn_cast<MemDescTransOp>(use);
          view && llvm::all_of(view->getUsers(), isDot))
        continue;
      if (!isa<AsyncCopyOp, AsyncTMACopyOp, tile::DotOp>(use))
        return false;
    }
  }
  return true;
}

/// True when the last op before `op` that touches memory is a barrier:
/// tile.debug_barrier, or a tilegpu.async_wait, which ends with one; or the
/// wait for a bulk copy, after which its bytes are visible to the waiting
/// threads, all of them.
bool followsBarrier(Operation *op) {
  return isa_and_nonnull<AsyncWaitOp, tile::DebugBarrierOp, BarrierWaitOp>(
      getPreviousMemoryOp(op));
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
      Operation *store = MemDescTransOp::getViewed(operand).getDefiningOp();
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

/// Bounds on the scratch space the lowering takes around the rings of
/// `loop`: the largest layout conversion (rows padded by up to 128 bytes;
/// see ConvertLayoutToLLVM.cpp; a bulk store's buffer, which replaces one,
/// is no larger) that may run while they are live (`during`), and after
/// the loop in its block (`after`), where the rings' memory is free (see
/// assignSharedOffsets) unless they outlive the loop.
struct ScratchBytes {
  int64_t during = 0, after = 0;
};
ScratchBytes estimateScratchBytes(scf::ForOp loop) {
  ScratchBytes bytes;
  loop->getParentOfType<ModuleOp>().walk([&](ConvertLayoutOp convert) {
    Operation *ancestor = loop->getBlock()->findAncestorOpInBlock(*convert);
    bool after = ancestor && loop->isBeforeInBlock(ancestor);
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
    int64_t &bound = after ? bytes.after : bytes.during;
    bound = std::max(bound, convertBytes);
  });
  return bytes;
}

struct TileGPUPipeline : tilegpu::impl::TileGPUPipelineBase<TileGPUPipeline> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    StagedBuffers staged;
    module.walk([&](tile::DotOp dot) { stageDotOperands(dot, staged); });
    int64_t limit = getSharedMemoryLimit(module);
    // Inner loops first (the walk's post-order): pipelining an outer one
    // clones what it contains.
    SmallVector<scf::ForOp> loops;
    module.walk([&](scf::ForOp loop) { loops.push_back(loop); });
    llvm::SmallPtrSet<Operation *, 2> replaced;
    for (scf::ForOp loop : loops) {
      if (replaced.contains(loop))
        continue;
      SmallVector<LocalAllocOp> allocs = findPipelinable(loop);
      if (allocs.empty()) {
        LDBG() << "loop at " << loop.getLoc()
               << " not pipelined: no buffer filled by its own loads";
        continue;
      }
      // As many stages as asked for and as fit: every buffer of the kernel
      // and the scratch space share the CTA's shared memory.
      ScratchBytes scratch = estimateScratchBytes(loop);
      int64_t used = scratch.during, perStage = 0;
      module.walk([&](LocalAllocOp alloc) { used += getSharedAllocBytes(alloc.getType()); });
      for (LocalAllocOp alloc : allocs)
        perStage += getSharedAllocBytes(alloc.getType());
      // A ring of mbarriers and a tensor map's staging buffer per
      // bulk-copied buffer, each aligned to 128 bytes, and the rings of
      // mbarriers on which consumer warps release slots (one a buffer at
      // most), with the full and empty mbarriers of each tile loaded
      // before the loop (which the producer may copy). (A copy two
      // programs share, on large tiles, asks for them too.)
      int64_t tilesBefore = llvm::count_if(
          loop->getBlock()->getOps<LocalAllocOp>(), [&](LocalAllocOp alloc) {
            return alloc.getSrc() && alloc->isBeforeInBlock(loop);
          });
      if (hasBulkTensorCopies(module))
        used += 256 * int64_t(allocs.size()) +
                (wantsWarpSpecialization(loop) || hasLargeTiles(loop)
                     ? 128 * int64_t(allocs.size() + 2 * tilesBefore)
                     : 0);
      used -= perStage; // the loop's buffers become its rings
      int64_t asked = getNumStages(loop), stages = asked;
      while (stages >= 2 && used + stages * perStage > limit)
        --stages;
      // A warp-specialized loop run once a tile of a persistent program
      // keeps its rings through every tile's epilogue, whose scratch takes
      // the bytes of the tile's own buffers (attention's Q tile) unless the
      // producer copies those a tile ahead: it does where that costs no
      // stage.
      bool copyOperands = !isa<scf::ForOp>(loop->getParentOp()) ||
                          used + scratch.after + stages * perStage <= limit;
      LDBG() << "loop at " << loop.getLoc() << ": " << allocs.size()
             << " buffer(s) of " << perStage << " bytes a stage, " << used
             << " bytes beside them, limit " << limit << ": " << stages
             << " of " << asked << " stages fit"
             << (copyOperands ? "" : "; no room for tiles copied ahead");
      (void)pipeline(loop, stages, copyOperands, replaced);
    }
    fenceWgmmaOperands(module);
  }
};

} // namespace
