//===- OverlapDots.cpp - A loop's second dot issued an iteration late -----===//
//
// Attention's loop runs two dots an iteration with an online softmax
// between them: S = Q K_j^T, then P and alpha from S, then
// O = O * alpha + P V_j. In that order the tensor cores idle while the
// softmax's exponentials run, and the other way round. FlashAttention-3
// overlaps them within a warpgroup: iteration j issues S_j's wgmma, then
// the P V of iteration j - 1, and computes S_j's softmax while the second
// runs. This pass derives that schedule from the loop as written:
//
//   if (lb < ub) {
//     early(lb)                          // S_lb = Q K^T, its softmax
//     for j = lb + step .. ub:
//       S_j = Q K_j^T                    // in flight
//       O = late(j - step, O)            // O * alpha + P V, in flight
//       wait until S_j is done (one group, late's, may still run)
//       the rest of early(j)             // the softmax of S_j
//       wait until O is done
//       P_j in f16, the ring's refill    // what must wait for O
//     O = late(last, O)
//   }
//
// `late` is the second dot, the ops between the loop-carried accumulator
// and it (the rescale), and the waits for the copies of its B. What late
// reads of the first stage is carried by the loop, or recomputed where it
// is a cheap function of the induction variable (a ring slot, a phase, a
// broadcast). Every value is computed from the same operands by the same
// ops as before: the results are the same bits.
//
// The second dot's A is in registers (P), which its wgmma reads until the
// wait: the next P is made after the wait, as FlashAttention-3 makes it.
// The wait comes before the refill too, which must not overwrite the slot
// of B the late dot still reads; in a warp-specialized loop, whose
// producer refills the slots, before the consumers release them.
//
// In a warp-specialized program of two consumer warpgroups or more, the
// warpgroups also take turns (FlashAttention-3's ping-pong): each issues
// S_j and the late P V between a wait for its turn and the pass to the
// next warpgroup, so that one's dots run on the tensor cores while the
// others compute their softmax.
//
// What ptxas makes of it (bench/HISTORY.md): the next P is carried in the
// registers the late wgmma reads it from, so its conversions (F2FP) must
// follow the wait; ptxas interleaves them with the exponentials and so
// hoists the wait above them, and within a warpgroup the softmax does not
// run under the late dot. What pays is the two dots issued back to back,
// where the late dot is wide (paysToIssueLate), and the turns, under which
// one warpgroup's softmax runs during the other's dots. Converting P only
// in the next iteration, before the late dot (carrying it in f32), ran 0
// to 4% slower.
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/TileGPU/Transforms/Passes.h"

#include "WarpSpecialize.h"

#include "tilec/Dialect/Tile/IR/Tile.h"
#include "tilec/Dialect/TileGPU/IR/ThreadLayout.h"
#include "tilec/Dialect/TileGPU/IR/TileGPU.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/DebugLog.h"

#define DEBUG_TYPE "tilegpu-overlap-dots"

namespace mlir::tilegpu {
#define GEN_PASS_DEF_TILEGPUOVERLAPDOTS
#include "tilec/Dialect/TileGPU/Transforms/Passes.h.inc"
} // namespace mlir::tilegpu

using namespace mlir;
using namespace mlir::tilegpu;

namespace {

/// A loop's two stages: `late` runs an iteration behind the rest.
struct Stages {
  tile::DotOp first, second;
  unsigned accIndex = 0; ///< the iter_arg the second dot accumulates into
  /// The late stage's ops and the cheap ops it recomputes, in block order.
  SmallVector<Operation *> lateOrder;
  /// The releases of the ring slots the second dot read (a warp-specialized
  /// loop's arrivals on its empty barriers), which run once it is done.
  SmallVector<Operation *> releases;
  llvm::SmallPtrSet<Operation *, 16> late;
  /// What the late stage reads of an iteration's early stage, carried.
  SmallVector<Value> carried;
};

/// The ring of shared buffers `slot` is one of, if it is one.
Value getRing(Value slot) {
  auto index = slot.getDefiningOp<MemDescIndexOp>();
  return index ? index.getSrc() : Value();
}

/// Ops the late stage recomputes rather than carries: pure, cheap, and
/// free of regions (a ring's slot and phase, a view of it, a splat or
/// broadcast).
bool isRecomputable(Operation *op) {
  if (op->getNumRegions() != 0 || !isMemoryEffectFree(op))
    return false;
  if (isa<MemDescIndexOp, MemDescTransOp, tile::SplatOp, tile::BroadcastOp,
          tile::ExpandDimsOp>(op))
    return true;
  return isa_and_nonnull<arith::ArithDialect>(op->getDialect()) &&
         llvm::none_of(op->getResultTypes(),
                       [](Type type) { return isa<ShapedType>(type); });
}

/// The barrier rings whose phases say that `ring`'s copies landed, where
/// every copy into `ring` is a bulk copy and those barriers count no other
/// copies; empty otherwise.
llvm::SmallPtrSet<Value, 2> getCopyBarriers(Operation *root, Value ring) {
  llvm::SmallPtrSet<Value, 2> barriers;
  bool sound = true;
  root->walk([&](AsyncTMACopyOp copy) {
    if (getRing(copy.getDst()) == ring) {
      Value barrier = getRing(copy.getBarrier());
      sound &= bool(barrier);
      barriers.insert(barrier);
    }
  });
  root->walk([&](AsyncTMACopyOp copy) {
    if (barriers.contains(getRing(copy.getBarrier())))
      sound &= getRing(copy.getDst()) == ring;
  });
  if (!sound)
    barriers.clear();
  return barriers;
}

bool takesTurns(scf::ForOp loop, const Stages &stages);

/// The stages of `loop`, where it has two wgmma dots that chain as
/// attention's do; std::nullopt (and why, in the debug output) otherwise.
std::optional<Stages> matchStages(scf::ForOp loop) {
  Block *body = loop.getBody();
  auto fail = [&](StringRef why) -> std::optional<Stages> {
    LDBG() << "loop at " << loop.getLoc() << " stays: " << why;
    return std::nullopt;
  };
  auto dots = llvm::to_vector(body->getOps<tile::DotOp>());
  if (dots.size() != 2 || !isWgmma(dots[0]) || !isWgmma(dots[1]))
    return fail("not two wgmma dots");
  Stages stages;
  stages.first = dots[0];
  stages.second = dots[1];
  tile::DotOp second = stages.second;
  for (Operation &op : *body) {
    if (isa<AsyncCopyOp, AsyncWaitOp, WarpgroupDotWaitOp>(op))
      return fail("its copies are not bulk copies waited for by barriers");
    // A warp-specialized loop releases the slots the second dot reads
    // after it (those the first alone reads before it, in the early stage).
    if (isa<BarrierArriveOp>(op) && !op.isBeforeInBlock(second))
      stages.releases.push_back(&op);
  }
  if (!isa<RankedTensorType>(second.getA().getType()))
    return fail("the second dot's A is not in registers");
  // tl.range(..., warp_specialize=) or tilec --warp-specialize forces
  // FlashAttention-3's schedule on or off; else it runs where it was
  // measured to pay.
  std::optional<bool> asked = askedWarpSpecialization(loop);
  if (asked && !*asked)
    return fail("warp_specialize=False asked");
  // A narrower one pays where the cost model put the loop on a producer's
  // consumers for its warpgroups to take turns (wantsWarpSpecialization),
  // checked once the stages are known (takesTurns).
  bool narrow = !asked && !paysToIssueLate(second);
  if (narrow && !loop->getParentOfType<WarpSpecializeOp>())
    return fail("the second dot's tile is too narrow to pay");
  // Its A is made from the first dot: that is what there is to overlap.
  // (The ops of the body that read the first dot, through nested regions
  // too: a versioned mask's scf.if yields it.)
  llvm::SmallPtrSet<Operation *, 32> fromFirst;
  fromFirst.insert(stages.first);
  for (Operation &op : *body) {
    WalkResult reads = op.walk([&](Operation *nested) {
      for (Value operand : nested->getOperands())
        if (Operation *def = operand.getDefiningOp();
            def && fromFirst.contains(def))
          return WalkResult::interrupt();
      return WalkResult::advance();
    });
    if (reads.wasInterrupted())
      fromFirst.insert(&op);
  }
  if (!fromFirst.contains(second))
    return fail("the second dot does not depend on the first");

  // The accumulator: a loop-carried value that reaches the second dot
  // through ops nothing else reads, and that the loop yields.
  auto yield = cast<scf::YieldOp>(body->getTerminator());
  SmallVector<Operation *> chain;
  Value acc = second.getAcc();
  while (Operation *def = acc.getDefiningOp()) {
    if (def->getBlock() != body || def->getNumResults() != 1 ||
        !acc.hasOneUse() || !isMemoryEffectFree(def) ||
        def->getNumRegions() != 0)
      return fail("the accumulator's rescale is not elementwise ops alone");
    chain.push_back(def);
    // The operand the accumulator flows through: the one from the loop.
    Value next;
    for (Value operand : def->getOperands()) {
      Operation *operandDef = operand.getDefiningOp();
      auto arg = dyn_cast<BlockArgument>(operand);
      bool carried = arg && arg.getOwner() == body && arg.getArgNumber() > 0;
      if (carried ||
          (operandDef && operandDef->getBlock() == body &&
           !fromFirst.contains(operandDef) && !isRecomputable(operandDef))) {
        if (next)
          return fail("the rescale reads two loop values");
        next = operand;
      }
    }
    if (!next)
      return fail("the accumulator does not come from the loop");
    acc = next;
  }
  auto accArg = dyn_cast<BlockArgument>(acc);
  if (!accArg || accArg.getOwner() != body || accArg.getArgNumber() == 0 ||
      !accArg.hasOneUse())
    return fail("the second dot's accumulator is not carried by the loop");
  stages.accIndex = accArg.getArgNumber() - 1;
  if (!second->hasOneUse() || *second->user_begin() != yield.getOperation() ||
      yield.getOperand(stages.accIndex) != second.getResult())
    return fail("the loop does not yield the second dot");

  // The waits for B's copies, which move with it.
  Value bRing = getRing(MemDescTransOp::getViewed(second.getB()));
  llvm::SmallPtrSet<Value, 2> barriers =
      bRing ? getCopyBarriers(loop->getParentOfType<ModuleOp>(), bRing)
            : llvm::SmallPtrSet<Value, 2>();
  if (barriers.empty())
    return fail("the second dot's B is not a ring filled by bulk copies");
  for (Operation &op : *body) {
    if (auto wait = dyn_cast<BarrierWaitOp>(op);
        wait && barriers.contains(getRing(wait.getBarrier()))) {
      if (!stages.first->isBeforeInBlock(wait) ||
          !wait->isBeforeInBlock(second))
        return fail("a wait for B's copies is not between the dots");
      stages.late.insert(wait);
    }
  }
  if (stages.late.empty())
    return fail("nothing waits for B's copies");
  stages.late.insert(chain.begin(), chain.end());
  stages.late.insert(second);
  stages.late.insert(stages.releases.begin(), stages.releases.end());

  // What the late ops read of the early stage: recomputed or carried.
  SetVector<Value> carried;
  SmallVector<Operation *> worklist; // in the body's order: so are the carried
  for (Operation &op : llvm::reverse(*body))
    if (stages.late.contains(&op))
      worklist.push_back(&op);
  llvm::SmallPtrSet<Operation *, 16> recomputed;
  while (!worklist.empty()) {
    Operation *op = worklist.pop_back_val();
    op->walk([&](Operation *nested) {
      for (Value operand : nested->getOperands()) {
        if (operand == loop.getInductionVar() || operand == accArg)
          continue;
        if (auto arg = dyn_cast<BlockArgument>(operand)) {
          if (arg.getOwner() == body)
            carried.insert(arg);
          continue;
        }
        Operation *def = operand.getDefiningOp();
        if (def->getBlock() != body || stages.late.contains(def) ||
            recomputed.contains(def))
          continue;
        if (isRecomputable(def)) {
          recomputed.insert(def);
          worklist.push_back(def);
        } else {
          carried.insert(operand);
        }
      }
    });
  }
  // The early stage must not read the late one: the late ops' results go
  // to late ops alone, and the second dot's to the yield.
  for (Operation *op : stages.late)
    for (Operation *user : op->getUsers())
      if (!stages.late.contains(user) && user != yield.getOperation())
        return fail("the early stage reads the late one");
  for (Operation &op : *body)
    if ((stages.late.contains(&op) || recomputed.contains(&op)) &&
        !llvm::is_contained(stages.releases, &op))
      stages.lateOrder.push_back(&op);
  stages.carried = carried.takeVector();
  if (narrow && !takesTurns(loop, stages))
    return fail("the second dot's tile is too narrow to pay without turns");
  return stages;
}

/// The early ops that turn a value into the late dot's next A (P from the
/// softmax's f32: a truncation, a change of layout). They run after the
/// late dot is done, as FlashAttention-3 runs them: the next A may then
/// take the registers of the one in flight.
llvm::SmallPtrSet<Operation *, 4> getAConversions(const Stages &stages,
                                                  Block *body) {
  llvm::SmallPtrSet<Operation *, 4> conversions;
  tile::DotOp second = stages.second;
  SmallVector<Value> worklist{second.getA()};
  while (!worklist.empty()) {
    Operation *def = worklist.pop_back_val().getDefiningOp();
    if (!def || def->getBlock() != body)
      continue;
    if (stages.late.contains(def) || isRecomputable(def)) {
      llvm::append_range(worklist, def->getOperands());
      continue;
    }
    if (isa<ConvertLayoutOp, arith::TruncFOp, arith::ExtFOp, arith::BitcastOp>(
            def)) {
      conversions.insert(def);
      worklist.push_back(def->getOperand(0));
    }
  }
  return conversions;
}

/// Where the early stage must have the late dot finished: before it
/// writes or synchronizes anything (the ring's refill), before it makes
/// the late dot's next A; before the yield else. Not for the early stage's
/// releases (of the slots the first dot alone read: its K), which then
/// run under the late dot, so that the producer refills K early.
bool needsLateDone(Operation *op,
                   const llvm::SmallPtrSet<Operation *, 4> &conversions) {
  if (isa<BarrierArriveOp>(op))
    return false;
  return !isMemoryEffectFree(op) || conversions.contains(op) ||
         isa<scf::YieldOp>(op);
}

/// Whether the consumer warpgroups running `loop` take turns issuing its
/// dots (FlashAttention-3's ping-pong): it runs on the consumers of a
/// warp-specialized program of two warpgroups or more, and nothing in it
/// meets at a CTA barrier of the consumers: one between a warpgroup's wait
/// for its turn and its pass (a layout conversion through shared memory
/// among the late ops) would deadlock, and elsewhere it holds them together
/// anyway.
bool takesTurns(scf::ForOp loop, const Stages &stages) {
  auto split = loop->getParentOfType<WarpSpecializeOp>();
  if (!split || !split.getConsumer().isAncestor(loop->getParentRegion()) ||
      getNumWarps(loop) < 8)
    return false;
  if (llvm::any_of(stages.lateOrder, llvm::IsaPred<ConvertLayoutOp>))
    return false;
  return !loop.getBody()
              ->walk(
                  [](tile::DebugBarrierOp) { return WalkResult::interrupt(); })
              .wasInterrupted();
}

void overlap(scf::ForOp loop, Stages &stages) {
  Location loc = loop.getLoc();
  Block *body = loop.getBody();
  Value iv = loop.getInductionVar();
  auto yield = cast<scf::YieldOp>(body->getTerminator());
  BlockArgument accArg = body->getArgument(stages.accIndex + 1);
  SmallVector<Operation *> early;
  for (Operation &op : body->without_terminator())
    if (!stages.late.contains(&op))
      early.push_back(&op);
  Operation *firstDot = stages.first.getOperation();
  unsigned numIterArgs = loop.getNumRegionIterArgs();
  llvm::SmallPtrSet<Operation *, 4> conversions = getAConversions(stages, body);

  OpBuilder b(loop);
  // Where the warpgroups take turns, each issues its dots between a wait
  // for its turn and the pass to the next. The first turn is warpgroup 0's
  // without a wait; the last warpgroup's last turn passes to none.
  bool turns = takesTurns(loop, stages);
  auto takeTurn = [&](OpBuilder &builder, Location l, bool firstTurn,
                      bool lastTurn, auto issue) {
    if (turns)
      WarpgroupTurnWaitOp::create(builder, l, /*not_first=*/firstTurn);
    issue();
    if (turns)
      WarpgroupTurnPassOp::create(builder, l, /*not_last=*/lastTurn);
  };
  Value lb = loop.getLowerBound(), ub = loop.getUpperBound(),
        step = loop.getStep();
  Value any = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, lb, ub);
  auto guard = scf::IfOp::create(b, loc, loop.getResultTypes(), any,
                                 /*withElseRegion=*/true);
  b.setInsertionPointToStart(guard.elseBlock());
  scf::YieldOp::create(b, loc, loop.getInitArgs());

  // The first iteration's early stage.
  b.setInsertionPointToStart(guard.thenBlock());
  IRMapping first;
  first.map(iv, lb);
  for (auto [arg, init] :
       llvm::zip(loop.getRegionIterArgs(), loop.getInitArgs()))
    first.map(arg, init);
  for (Operation *op : early) {
    if (op != firstDot) {
      b.clone(*op, first);
      continue;
    }
    takeTurn(b, loc, /*firstTurn=*/true, /*lastTurn=*/false,
             [&] { b.clone(*op, first); });
    // Waited for after the pass, so that the next warpgroup's first turn
    // need not wait for this dot to finish.
    if (turns) {
      Value s = first.lookup(stages.first.getResult());
      first.map(stages.first.getResult(),
                WarpgroupDotWaitOp::create(b, loc, s.getType(), s,
                                           b.getI32IntegerAttr(0))
                    .getResult());
    }
  }
  SmallVector<Value> inits;
  for (unsigned i = 0; i < numIterArgs; ++i)
    inits.push_back(i == stages.accIndex
                        ? loop.getInitArgs()[i]
                        : first.lookupOrDefault(yield.getOperand(i)));
  for (Value value : stages.carried)
    inits.push_back(first.lookupOrDefault(value));

  // The loop over the other iterations: early(j) around late(j - step).
  auto cloneLate = [&](OpBuilder &builder, IRMapping &mapping, Value lateIv,
                       ValueRange carried) {
    mapping.map(iv, lateIv);
    for (auto [value, now] : llvm::zip(stages.carried, carried))
      mapping.map(value, now);
    for (Operation *op : stages.lateOrder)
      builder.clone(*op, mapping);
  };
  // The slots the late dot read are free once it is done.
  auto cloneReleases = [&](OpBuilder &builder, IRMapping &mapping) {
    for (Operation *op : stages.releases)
      builder.clone(*op, mapping);
  };

  Value start = arith::AddIOp::create(b, loc, lb, step);
  auto rotated = scf::ForOp::create(
      b, loc, start, ub, step, inits,
      [&](OpBuilder &nb, Location l, Value j, ValueRange args) {
        IRMapping now, before;
        now.map(iv, j);
        for (unsigned i = 0; i < numIterArgs; ++i)
          now.map(loop.getRegionIterArgs()[i], args[i]);
        before.map(accArg, args[stages.accIndex]);
        auto it = early.begin();
        for (; *it != firstDot; ++it)
          nb.clone(**it, now);
        takeTurn(nb, l, /*firstTurn=*/false, /*lastTurn=*/false, [&] {
          nb.clone(**it, now);
          Value previous = arith::SubIOp::create(nb, l, j, step);
          cloneLate(nb, before, previous, args.drop_front(numIterArgs));
        });
        // The first dot's group is done once at most the late one's runs.
        Value firstResult = now.lookup(stages.first.getResult());
        auto firstDone = WarpgroupDotWaitOp::create(
            nb, l, firstResult.getType(), firstResult, nb.getI32IntegerAttr(1));
        now.map(stages.first.getResult(), firstDone.getResult());
        Value lateResult = before.lookup(stages.second.getResult());
        Value lateDone;
        auto waitLate = [&] {
          if (lateDone)
            return;
          lateDone = WarpgroupDotWaitOp::create(
              nb, l, lateResult.getType(), lateResult, nb.getI32IntegerAttr(0));
          cloneReleases(nb, before);
        };
        for (++it; it != early.end(); ++it) {
          if (needsLateDone(*it, conversions))
            waitLate();
          nb.clone(**it, now);
        }
        waitLate();
        SmallVector<Value> results;
        for (unsigned i = 0; i < numIterArgs; ++i)
          results.push_back(i == stages.accIndex
                                ? lateDone
                                : now.lookupOrDefault(yield.getOperand(i)));
        for (Value value : stages.carried)
          results.push_back(now.lookupOrDefault(value));
        scf::YieldOp::create(nb, l, results);
      });

  // The last iteration's late stage, at lb + floor((ub - lb - 1) / step) *
  // step.
  b.setInsertionPointAfter(rotated);
  Value one =
      arith::ConstantOp::create(b, loc, b.getIntegerAttr(iv.getType(), 1));
  Value span =
      arith::SubIOp::create(b, loc, arith::SubIOp::create(b, loc, ub, lb), one);
  Value last = arith::AddIOp::create(
      b, loc, lb,
      arith::MulIOp::create(b, loc, arith::DivSIOp::create(b, loc, span, step),
                            step));
  IRMapping final;
  final.map(accArg, rotated.getResult(stages.accIndex));
  takeTurn(b, loc, /*firstTurn=*/false, /*lastTurn=*/true, [&] {
    cloneLate(b, final, last, rotated.getResults().drop_front(numIterArgs));
  });
  // Waited for after the pass: the next warpgroup's turn need not wait for
  // this one's last dot to finish.
  Value lastLate = final.lookup(stages.second.getResult());
  lastLate = WarpgroupDotWaitOp::create(b, loc, lastLate.getType(), lastLate,
                                        b.getI32IntegerAttr(0));
  cloneReleases(b, final);
  SmallVector<Value> results(rotated.getResults().take_front(numIterArgs));
  results[stages.accIndex] = lastLate;
  scf::YieldOp::create(b, loc, results);

  loop.replaceAllUsesWith(guard.getResults());
  loop.erase();
}

struct OverlapDotsPass
    : tilegpu::impl::TileGPUOverlapDotsBase<OverlapDotsPass> {
  void runOnOperation() override {
    SmallVector<scf::ForOp> loops;
    getOperation().walk([&](scf::ForOp loop) { loops.push_back(loop); });
    for (scf::ForOp loop : loops) {
      std::optional<Stages> stages = matchStages(loop);
      if (!stages)
        continue;
      LDBG() << "loop at " << loop.getLoc() << ": the second dot issued an "
             << "iteration late, " << stages->carried.size()
             << " value(s) carried to it";
      overlap(loop, *stages);
    }
  }
};

} // namespace
