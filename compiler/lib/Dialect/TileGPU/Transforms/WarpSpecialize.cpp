//===- WarpSpecialize.cpp - A loop's copies on warps of their own ---------===//
//
// The split, for iteration i of a loop over a ring of S slots:
//
//   producer (one thread of warps after the consumers'):
//     wait empty[i % S] (parity flipped: a slot's first round passes)
//     arrive on full[i % S] expecting the bytes; copy into slot i % S
//   consumers (the program's num_warps):
//     wait full[i % S]; dot on slot i % S, left in flight
//     wait for dot i - 1; each warp arrives on empty[(i - 1) % S]
//
// or, where the loop's dots are waited for where they stand (attention's
// two, whose results the iteration needs at once), each warp arrives on
// a ring's empty[i % S] after the last dot that reads it: rings released
// after different dots have empty barriers of their own, and the producer
// waits for each before its copies. Attention's K slot is free once
// Q K^T is done, before the softmax, so that the producer refills it an
// iteration before V's; with one barrier for both, two stages ran 10-15%
// slower than three, and now run as fast (bench/HISTORY.md).
// tilegpu-overlap-dots moves V's release with the second dot when it
// issues it an iteration late.
//
// Tiles loaded before the loop that only its dots read (attention's Q)
// come from the producer too, into a buffer of their own on an mbarrier of
// their own, before the loop's first copies: the consumers wait for that
// mbarrier instead of loading the tile, storing it and meeting at a CTA
// barrier before the first dot.
//
// The producer runs up to S iterations ahead, bounded by the releases, and
// never synchronizes with the consumers' CTA barriers, which become named
// barriers of the consumers alone in the lowering. Everything the
// consumers compute moves into their side: before the split stay only
// what the producer needs (scalars, the tensor maps) and the buffers.
//
// A copy two neighbouring programs share (a cluster of two CTAs): before
// the split both CTAs check that they copy the same boxes
// (cluster_pair_equal); where they do, each producer copies half of that
// copy's panels into both CTAs, and each consumer warp arrives on empty[]
// in both (twice on its own where they do not), so empty[] counts two
// arrivals a warp; the consumers meet at a cluster barrier after the loop,
// before the barriers are invalidated, since the other CTA's consumers
// arrive on them until their own loop ends. The arrivals are release.cta,
// as CUTLASS's: with release.cluster (and acquire.cluster waits) the loop
// ran 2.6x slower (bench/HISTORY.md).
//
// A persistent kernel's loop, in a loop over the tiles its program runs
// (`for tile in tl.range(program_id, tiles, num_programs)`): the rings and
// barriers move before the loop over tiles and serve every tile, and the
// producer runs a loop over the same tiles, computing what its copies need
// of each (scalar arithmetic) again, so that it copies the next tile's
// first blocks while the consumers finish this one. Both loops over tiles
// carry the number of iterations done so far, from which iteration i of
// a tile counts its slot and phase: the rings go round as one sequence.
// The producer copies the next tile's Q once the consumers release the
// buffer after their loop, so that it lands during this tile's epilogue;
// the buffer then lives through every tile, which tilegpu-pipeline allows
// only where the epilogue's scratch still fits beside the rings.
//
//===----------------------------------------------------------------------===//

#include "WarpSpecialize.h"

#include "KLoop.h"
#include "RingSlots.h"

#include "tilec/Dialect/TileGPU/IR/SharedLayout.h"
#include "tilec/Dialect/TileGPU/IR/ThreadLayout.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/DebugLog.h"

// A helper of tilegpu-pipeline: its debug output goes with the pass's.
#define DEBUG_TYPE "tilegpu-pipeline"

using namespace mlir;
using namespace mlir::tilegpu;

namespace {

/// The producer's warps: one warpgroup, the unit setmaxnreg works on.
constexpr int32_t kProducerWarps = 4;
/// What the producer keeps of its registers: enough for a loop of
/// addresses and coordinates.
constexpr int32_t kProducerRegisters = 40;

/// Whether `op` may run before the split, on the producer's threads too:
/// it computes a scalar, makes a buffer or builds a tensor map (whose
/// lowering picks its threads by number among the first warp's).
bool runsOnEveryThread(Operation *op) {
  if (auto alloc = dyn_cast<LocalAllocOp>(op))
    return !alloc.getSrc();
  if (isa<TensorMapCreateOp>(op))
    return true;
  return op->getNumRegions() == 0 && isMemoryEffectFree(op) &&
         llvm::none_of(op->getResultTypes(), llvm::IsaPred<ShapedType>);
}

/// The ring of buffers whose slot `buffer` is, or null.
LocalAllocOp getRing(Value buffer) {
  auto slot = buffer.getDefiningOp<MemDescIndexOp>();
  return slot ? slot.getSrc().getDefiningOp<LocalAllocOp>() : nullptr;
}

/// What reads `buffer`, through the views of it (tilegpu.memdesc_trans).
SmallVector<Operation *> getReaders(Value buffer) {
  SmallVector<Operation *> readers(buffer.getUsers());
  for (unsigned i = 0; i < readers.size(); ++i)
    if (isa<MemDescTransOp>(readers[i]))
      llvm::append_range(readers, readers[i]->getUsers());
  llvm::erase_if(readers, llvm::IsaPred<MemDescTransOp>);
  return readers;
}

/// When `user` is a dot left in flight, its only user: keepInFlight's wait
/// for the dot before it; otherwise null.
WarpgroupDotWaitOp getInFlightWait(Operation *user) {
  auto dot = dyn_cast<tile::DotOp>(user);
  if (!dot || !dot->hasOneUse())
    return nullptr;
  auto wait = dyn_cast<WarpgroupDotWaitOp>(*dot->user_begin());
  return wait && wait.getPending() == 1 ? wait : nullptr;
}

/// Whether `user` is a wgmma dot that the lowering waits for where it
/// stands: no tilegpu.warpgroup_dot_wait reads it.
bool isWaitedInPlace(Operation *user) {
  auto dot = dyn_cast<tile::DotOp>(user);
  return dot && isWgmma(dot) &&
         llvm::none_of(dot->getUsers(), llvm::IsaPred<WarpgroupDotWaitOp>);
}

/// The registers each of the loop's threads holds its dots' accumulators in.
int64_t getAccumulatorRegisters(scf::ForOp loop) {
  int64_t threads = 32 * int64_t(getNumWarps(loop)), registers = 0;
  loop.getBody()->walk([&](tile::DotOp dot) {
    auto type = cast<RankedTensorType>(dot.getType());
    int64_t bits = std::max(32u, type.getElementTypeBitWidth());
    registers += type.getNumElements() * bits / 32 / threads;
  });
  return registers;
}

/// From this many accumulator registers per thread, a program holds a
/// whole SM's register file (128 x 256 fp32 on 8 warps): handing the
/// producer's registers to the consumers costs no occupancy. Below, the
/// even share that setmaxnreg needs at entry (a CTA's part of the file)
/// would keep programs that fit two to an SM to one.
constexpr int64_t kLargeAccumulator = 128;

/// Registers a consumer thread needs beside its accumulators: addresses,
/// descriptors and the loop's own (ptxas asks for 154 with 128 of
/// accumulators for 64 x 256 wgmma).
constexpr int64_t kConsumerOverhead = 32;

/// The registers each thread of a program of `warps` consumer warps and
/// the producer's starts with.
int64_t getRegistersAtEntry(unsigned warps) {
  return getEvenRegisterShare(32 * (warps + kProducerWarps));
}

/// The register split for `warps` consumer warps beside the producer's:
/// {producer, consumers}, or {0, 0} to leave registers as ptxas gives them.
std::pair<int32_t, int32_t> splitRegisters(scf::ForOp loop, unsigned warps) {
  int64_t atEntry = getRegistersAtEntry(warps);
  // The consumers take no more than the producer gives up: setmaxnreg.inc
  // waits until the CTA's pool has them.
  int64_t released = (atEntry - kProducerRegisters) * kProducerWarps;
  int64_t consumers =
      std::min<int64_t>(256, atEntry + released / int64_t(warps) / 8 * 8);
  if (getAccumulatorRegisters(loop) < kLargeAccumulator || atEntry >= 248 ||
      consumers <= atEntry)
    return {0, 0};
  return {kProducerRegisters, int32_t(consumers)};
}

} // namespace

std::optional<bool> mlir::tilegpu::askedWarpSpecialization(scf::ForOp loop) {
  StringRef name = tile::TileDialect::getWarpSpecializeAttrName();
  if (auto asked = loop->getAttrOfType<BoolAttr>(name))
    return asked.getValue();
  if (auto module = loop->getParentOfType<ModuleOp>())
    if (auto asked = module->getAttrOfType<BoolAttr>(name))
      return asked.getValue();
  return std::nullopt;
}

bool mlir::tilegpu::isWgmma(tile::DotOp dot) {
  auto mma = dyn_cast<MmaEncodingAttr>(dot.getType().getEncoding());
  return mma && mma.getVersion() == 3;
}

bool mlir::tilegpu::paysToIssueLate(tile::DotOp second) {
  // Measured on the H200 (bench/HISTORY.md), head dim 128 ran 3 to 13%
  // faster for [128, 64], [64, 64] and [128, 128] blocks; head dim 64 ran
  // 3 to 22% slower.
  return second.getType().getShape()[1] >= 128;
}

/// Whether attention's `loop` (two dots, the second's tile narrower than
/// paysToIssueLate wants: a head dim below 128) pays for a producer and
/// warpgroups taking turns anyway: causal (its end differs between
/// programs), 128 keys a block, two warpgroups. Measured on the H200 at
/// head dim 64 (bench/HISTORY.md):
/// 216.7 / 363.1 / 415.5 TFLOP/s against 184.8 / 309.5 / 355.8 without at
/// N_CTX 1024 / 4096 / 16384, and 3-4% faster than the best configuration
/// without from N_CTX 8192; not causal it ran 0.85x to 0.96x.
static bool paysToTakeTurns(scf::ForOp loop, tile::DotOp first) {
  auto func = dyn_cast<func::FuncOp>(loop->getParentOp());
  llvm::DenseMap<Value, bool> seen;
  return func && getNumWarps(loop) >= 8 &&
         first.getType().getShape()[1] >= 128 &&
         !isProgramInvariant(func, loop.getUpperBound(), seen);
}

bool mlir::tilegpu::wantsWarpSpecialization(scf::ForOp loop) {
  if (std::optional<bool> asked = askedWarpSpecialization(loop))
    return *asked;
  unsigned warps = getNumWarps(loop);
  // Attention's loop, whose second dot tilegpu-overlap-dots issues an
  // iteration late: on producer warps, two consumer warpgroups or more
  // take turns at the tensor cores. Measured on the H200 at N_CTX 8192
  // (bench/HISTORY.md), head dim 128 on 8 warps ran 1.04x to 1.15x faster
  // ([128, 128]: 572.7 against 498.6 TFLOP/s; causal 544.6 against
  // 473.1); one warpgroup ([64, 64] on 4 warps) 0.83x, and head dim 64,
  // where the late dot does not pay either, 0.90x to 0.95x.
  auto dots = llvm::to_vector(loop.getBody()->getOps<tile::DotOp>());
  if (dots.size() == 2 && isWaitedInPlace(dots[0]) &&
      isWaitedInPlace(dots[1]) &&
      isa<RankedTensorType>(dots[1].getA().getType()))
    return warps >= 8 &&
           (paysToIssueLate(dots[1]) || paysToTakeTurns(loop, dots[0]));
  // The attention backward's dk/dv loop: several dots waited in place, two
  // summing into dk and dv. Measured on the H200 (bench/HISTORY.md), head
  // dim 128 on 8 warps ([64, 128] blocks) ran 1.04x to 1.09x faster, head
  // dim 64 0.8x to 0.9x.
  if (dots.size() > 2 && llvm::all_of(dots, isWaitedInPlace)) {
    bool wide = llvm::all_of(dots, [&](tile::DotOp dot) {
      auto acc = dyn_cast<BlockArgument>(dot.getAcc());
      return !acc || acc.getOwner() != loop.getBody() ||
             dot.getType().getShape().back() >= 128;
    });
    return warps >= 8 && wide;
  }
  // Measured on the H100 (the tutorial's grouped matmul at 4096^3, ten
  // alternating runs of each): the split pays where each of two or more
  // consumer warpgroups computes 128 rows or more (256 x 128 x 64 on 8
  // warps: fp16 608 against 590 TFLOP/s, bf16 626 against 611), not where
  // it computes 64 (128 x 256 x 64: fp16 636 against 646, bf16 662
  // against 669), nor with one warpgroup or smaller accumulators (up to
  // 15% slower: the producer's warps cost more than the CTA barriers they
  // save).
  if (warps < 8)
    return false;
  bool tallRows = false;
  loop.getBody()->walk([&](tile::DotOp dot) {
    auto type = cast<RankedTensorType>(dot.getType());
    tallRows |= type.getRank() == 2 && type.getDimSize(0) / (warps / 4) >= 128;
  });
  return tallRows && getAccumulatorRegisters(loop) >= kLargeAccumulator;
}

bool mlir::tilegpu::paysToPersist(scf::ForOp loop) {
  // Measured on the H200 (bench/HISTORY.md): attention at head dim 128 on
  // a producer and two warpgroups taking turns, where every program runs
  // the same iterations, ran 0.99x to 1.05x persistent at [128, 128]
  // blocks (N_CTX 1024: 469.8 against 445.4 TFLOP/s; 16384: 611.7 against
  // 598.8), 1.05x to 1.07x at [128, 64], and fp8 1.03x to 1.08x (741.7
  // against 717.1 at 16384). Head dim 64 (not causal: its loop gets no
  // producer) ran 0.75x to 0.9x; head dim 256 ([128, 64], bound by shared
  // memory) 0.97x to 1.01x.
  auto dots = llvm::to_vector(loop.getBody()->getOps<tile::DotOp>());
  return dots.size() == 2 && isWaitedInPlace(dots[0]) &&
         isWaitedInPlace(dots[1]) &&
         isa<RankedTensorType>(dots[1].getA().getType()) &&
         paysToIssueLate(dots[1]) && dots[1].getType().getShape()[1] <= 128 &&
         wantsWarpSpecialization(loop);
}

bool mlir::tilegpu::hasLargeTiles(scf::ForOp loop) {
  // Where sharing a copy was measured to pay: 128 x 256 on 8 warps. Smaller
  // tiles draw less from L2 a CTA, and their loops pay for the producer's
  // warps that sharing needs (see wantsWarpSpecialization).
  return getNumWarps(loop) >= 8 &&
         getAccumulatorRegisters(loop) >= kLargeAccumulator;
}

LogicalResult
mlir::tilegpu::specializeWarps(scf::ForOp loop, ArrayRef<Operation *> copies,
                               ArrayRef<LocalAllocOp> fullRings, int64_t stages,
                               ArrayRef<OperandCopy> operandCopies,
                               SmallPtrSetImpl<Operation *> &replaced,
                               AsyncTMACopyOp shared) {
  // The loop is in the kernel's body, or in a loop there over the tiles a
  // persistent program runs in turn (`tiles`).
  auto func = dyn_cast<func::FuncOp>(loop->getParentOp());
  auto tiles = dyn_cast<scf::ForOp>(loop->getParentOp());
  if (tiles)
    func = dyn_cast<func::FuncOp>(tiles->getParentOp());
  unsigned warps = getNumWarps(loop);
  auto giveUp = [&](StringRef why) {
    LDBG() << "loop at " << loop.getLoc() << " not warp-specialized: " << why;
    return failure();
  };
  if (!func || warps % 4 != 0 || warps + kProducerWarps > 32)
    return giveUp("not in the kernel's body or a loop of it, or no whole "
                  "warpgroups");
  if (tiles && !getConstantIntValue(loop.getStep()))
    return giveUp("a loop over tiles around a loop of a variable step");
  Block *body = loop.getBody();
  Block *top = loop->getBlock();
  Block *entry = &func.getBody().front();
  // What the split goes around in the kernel's body.
  Operation *outer = tiles ? tiles.getOperation() : loop.getOperation();
  // Around tiles, a copy that two programs share would have to be checked
  // for every tile: each CTA copies its own, where the split pays alone.
  if (tiles && shared) {
    if (!wantsWarpSpecialization(loop))
      return giveUp("a copy two programs share asked for the split, and the "
                    "loop runs once a tile");
    LDBG() << "copy at " << shared.getLoc()
           << " not shared: the loop runs once a tile";
    shared = {};
  }

  // The producer's ops: the copies and what they need from the iteration,
  // which must be the induction variable's arithmetic alone.
  llvm::SetVector<Operation *> producerOps;
  llvm::SetVector<Value> needed; // from before the loop
  SmallVector<Operation *> worklist;
  SmallVector<LocalAllocOp> rings;
  for (Operation *copy : copies) {
    if (isa<tile::DebugBarrierOp>(copy))
      continue;
    worklist.push_back(copy);
    if (auto tma = dyn_cast<AsyncTMACopyOp>(copy)) {
      LocalAllocOp ring = getRing(tma.getDst());
      if (!ring)
        return giveUp("a copy fills no ring");
      rings.push_back(ring);
    }
  }
  while (!worklist.empty()) {
    Operation *op = worklist.pop_back_val();
    if (!producerOps.insert(op))
      continue;
    if (!isa<AsyncTMACopyOp, BarrierExpectOp>(op) &&
        (op->getNumRegions() || !isMemoryEffectFree(op)))
      return giveUp("the copies need more than address arithmetic");
    for (Value operand : op->getOperands()) {
      if (operand == loop.getInductionVar())
        continue;
      if (auto arg = dyn_cast<BlockArgument>(operand);
          arg && arg.getOwner() == body)
        return giveUp("the copies need a value carried from the iteration "
                      "before");
      Operation *def = operand.getDefiningOp();
      if (def && def->getBlock() == body)
        worklist.push_back(def);
      else
        needed.insert(operand);
    }
  }

  // Each ring is read only by dots left in flight, so that iteration i may
  // release slot i - 1 once its wait for dot i - 1 has passed; or only by
  // dots waited for in place, so that it releases slot i after the last.
  // Dots waited for in place release each ring's slot after its own last
  // reader: attention's K after Q K^T, V after P V.
  SmallVector<WarpgroupDotWaitOp> inFlightWaits;
  llvm::DenseMap<LocalAllocOp, Operation *> lastReaders;
  for (LocalAllocOp ring : rings)
    for (Operation *user : ring->getUsers()) {
      if (user->getBlock() != body || producerOps.contains(user))
        continue;
      for (Value view : user->getResults())
        for (Operation *reader : getReaders(view)) {
          if (WarpgroupDotWaitOp wait = getInFlightWait(reader)) {
            inFlightWaits.push_back(wait);
          } else if (isWaitedInPlace(reader) && reader->getBlock() == body) {
            Operation *&last = lastReaders[ring];
            if (!last || last->isBeforeInBlock(reader))
              last = reader;
          } else {
            return giveUp("a ring is read by other than a wgmma dot");
          }
        }
    }
  if (inFlightWaits.empty() == lastReaders.empty())
    return giveUp(inFlightWaits.empty() ? "no dot reads the rings"
                                        : "some dots stay in flight, others "
                                          "not");
  if (inFlightWaits.empty() &&
      lastReaders.size() !=
          llvm::SmallPtrSet<Operation *, 4>(rings.begin(), rings.end()).size())
    return giveUp("a ring is read by no dot");

  // The consumers must keep the registers their accumulators need (16
  // warps of 256 x 256 would get 104).
  auto [producerRegisters, consumerRegisters] = splitRegisters(loop, warps);
  int64_t consumerBudget =
      consumerRegisters ? consumerRegisters : getRegistersAtEntry(warps);
  if (getAccumulatorRegisters(loop) + kConsumerOverhead > consumerBudget)
    return giveUp("the consumers' accumulators need more registers than they "
                  "would get");

  // Before the split stay what the producer needs and the buffers and
  // tensor maps, all of which every thread may run. Around tiles, what the
  // producer needs of a tile (its coordinates, the loop's bounds) it
  // computes again in its own loop over them (`perTile`), and the rings
  // move before the loop over tiles (`hoisted`): they serve every tile.
  llvm::SetVector<Operation *> setup, perTile, hoisted;
  SmallVector<Value> values(needed.begin(), needed.end());
  llvm::append_range(values, ValueRange{loop.getLowerBound(),
                                        loop.getUpperBound(), loop.getStep()});
  if (tiles)
    llvm::append_range(values,
                       ValueRange{tiles.getLowerBound(), tiles.getUpperBound(),
                                  tiles.getStep()});
  for (Operation &op : *entry) {
    if (&op == outer)
      break;
    if (isa<LocalAllocOp, TensorMapCreateOp>(op) && runsOnEveryThread(&op))
      llvm::append_range(values, op.getResults());
    // gdc_wait holds every thread, the producer's copies included: under
    // programmatic dependent launch they may read what the grid before
    // writes.
    if (auto grid = dyn_cast<tile::GridDependencyOp>(op);
        grid && grid.getKind() == tile::GridDependencyKind::Wait)
      setup.insert(&op);
  }
  auto isRing = [&](Operation *op) {
    auto alloc = dyn_cast_or_null<LocalAllocOp>(op);
    return alloc && (llvm::is_contained(rings, alloc) ||
                     llvm::is_contained(fullRings, alloc));
  };
  // tilegpu-pipeline counts a ring's slots and phases from the loop's
  // first iteration. Around tiles they count on from the tiles before:
  // `block`'s slots of the rings become `slot`, and with `phase`, its
  // waits for their copies wait for that phase.
  auto rebaseRings = [&](Block *block, Value slot, Value phase) {
    for (auto index : block->getOps<MemDescIndexOp>())
      if (isRing(index.getSrc().getDefiningOp()))
        index.getIndexMutable().assign(slot);
    if (!phase)
      return;
    for (auto wait : block->getOps<BarrierWaitOp>()) {
      auto index = wait.getBarrier().getDefiningOp<MemDescIndexOp>();
      if (index && llvm::is_contained(
                       fullRings, index.getSrc().getDefiningOp<LocalAllocOp>()))
        wait.getPhaseMutable().assign(phase);
    }
  };
  // Sorts what computes `values` into the sets above; why the producer
  // cannot have them, if it cannot.
  auto collect = [&](SmallVector<Value> values) -> const char * {
    while (!values.empty()) {
      Value value = values.pop_back_val();
      if (tiles && value == tiles.getInductionVar())
        continue;
      if (auto arg = dyn_cast<BlockArgument>(value);
          tiles && arg && arg.getOwner() == top)
        return "the copies need a value the loop over tiles carries";
      Operation *def = value.getDefiningOp();
      if (def && tiles && def->getBlock() == top) {
        if (isRing(def)) {
          hoisted.insert(def);
        } else if (isa<LocalAllocOp, TensorMapCreateOp>(def) ||
                   !runsOnEveryThread(def)) {
          return "what the producer needs of a tile is more than scalar "
                 "arithmetic";
        } else if (perTile.insert(def)) {
          llvm::append_range(values, def->getOperands());
        }
        continue;
      }
      if (!def || !setup.insert(def))
        continue;
      if (def->getBlock() != entry || !runsOnEveryThread(def))
        return "what the producer needs cannot run on every thread before "
               "the split";
      llvm::append_range(values, def->getOperands());
    }
    return nullptr;
  };
  if (const char *why = collect(values))
    return giveUp(why);

  // The tiles loaded before the loop that the producer copies too: those
  // only the loop's wgmma dots read (around tiles, dots done in place, so
  // that the buffer is free for the next tile's after the loop), whose
  // coordinates the producer can compute.
  SmallVector<const OperandCopy *> operands;
  for (const OperandCopy &operand : operandCopies) {
    LocalAllocOp alloc = operand.alloc;
    Location at = alloc.getLoc();
    SmallVector<Operation *> readers = getReaders(alloc.getResult());
    if (readers.empty() || !llvm::all_of(readers, [&](Operation *reader) {
          auto dot = dyn_cast<tile::DotOp>(reader);
          return dot && isWgmma(dot) && dot->getBlock() == body &&
                 (!tiles || isWaitedInPlace(dot));
        })) {
      LDBG() << "load at " << at << ": the consumers load it (read by other "
             << "than the loop's wgmma dots"
             << (tiles ? " done in place)" : ")");
      continue;
    }
    const BulkCopy &plan = operand.plan;
    SmallVector<Value> coords;
    for (Value offset : plan.box.offsets)
      if (offset)
        coords.push_back(offset);
    if (plan.batchOffset)
      llvm::append_range(coords, plan.batchOffset->coords);
    auto kept = std::make_tuple(setup, perTile, hoisted);
    if (const char *why = collect(coords)) {
      std::tie(setup, perTile, hoisted) = kept;
      LDBG() << "load at " << at << ": the consumers load it (" << why << ")";
      continue;
    }
    operands.push_back(&operand);
  }

  // A copy two programs share: what its coordinates come from besides the
  // induction variable, and the loop's bounds, must be the same in both.
  SmallVector<Value> sharedInputs;
  if (shared) {
    llvm::SetVector<Operation *> slice;
    SmallVector<Operation *> pending = {shared};
    while (!pending.empty()) {
      Operation *op = pending.pop_back_val();
      if (!slice.insert(op))
        continue;
      // A value made in the loop from nothing compared (the program's id
      // read there) may differ between the CTAs.
      if (op->getNumOperands() == 0 && !matchPattern(op, m_Constant())) {
        LDBG() << "copy at " << shared.getLoc() << " not shared: it depends on "
               << op->getName() << " in the loop";
        shared = {};
        sharedInputs.clear();
        break;
      }
      for (Value operand : op == shared.getOperation()
                               ? ValueRange(shared.getCoords())
                               : ValueRange(op->getOperands())) {
        if (Operation *def = operand.getDefiningOp();
            def && producerOps.contains(def))
          pending.push_back(def);
        else if (needed.contains(operand) && operand.getType().isIntOrIndex() &&
                 !matchPattern(operand, m_Constant()) &&
                 !llvm::is_contained(sharedInputs, operand))
          sharedInputs.push_back(operand);
      }
    }
    for (Value bound :
         {loop.getLowerBound(), loop.getUpperBound(), loop.getStep()})
      if (shared && !matchPattern(bound, m_Constant()) &&
          !llvm::is_contained(sharedInputs, bound))
        sharedInputs.push_back(bound);
  }

  // The split is certain from here on. The rings' mbarriers, and rings of
  // `empty` ones on which each consumer warp releases its slots (twice
  // where a copy is shared: once for each CTA that fills it).
  for (Operation *ring : hoisted) {
    ring->moveBefore(outer);
    setup.insert(ring);
  }
  OpBuilder b(outer);
  Location loc = loop.getLoc();
  MLIRContext *context = loop.getContext();
  MemDescType barrierType = getBarrierType(context);
  // Rings released at the same point share their ring of `empty`
  // mbarriers: all of them where the dots stay in flight.
  struct Release {
    Operation *after; ///< the last reader, or null: in flight
    LocalAllocOp empty;
  };
  SmallVector<Release, 2> releases;
  llvm::DenseMap<LocalAllocOp, unsigned> releaseOf;
  for (LocalAllocOp ring : rings) {
    Operation *after = lastReaders.lookup(ring);
    auto *it = llvm::find_if(releases, [&](const Release &release) {
      return release.after == after;
    });
    if (it == releases.end()) {
      auto empty = LocalAllocOp::create(b, loc, getBarrierType(context, stages),
                                        Value());
      setup.insert(empty);
      releases.push_back({after, empty});
      it = std::prev(releases.end());
    }
    releaseOf[ring] = it - releases.begin();
  }
  // Each operand tile's buffer (a ring of one), filled on a `full`
  // mbarrier of its own; around tiles, released on an `empty` one.
  struct OperandBuffer {
    const OperandCopy *copy;
    Value map;
    SmallVector<Value> outerCoords;
    LocalAllocOp buffer, full, empty;
  };
  SmallVector<OperandBuffer, 1> operandBuffers;
  for (const OperandCopy *operand : operands) {
    LocalAllocOp alloc = operand->alloc;
    OperandBuffer filled{operand, Value(), {}, {}, {}, {}};
    filled.map = createTensorMap(operand->plan, filled.outerCoords,
                                 /*hostOnly=*/true);
    if (!filled.map) {
      LDBG() << "load at " << alloc.getLoc()
             << ": the consumers load it (no tensor map the launcher builds)";
      continue;
    }
    needed.insert(filled.map);
    MemDescType type = alloc.getType();
    SmallVector<int64_t> shape = {1};
    llvm::append_range(shape, type.getShape());
    filled.buffer = LocalAllocOp::create(b, loc,
                                         MemDescType::get(context, shape,
                                                          type.getElementType(),
                                                          type.getEncoding()),
                                         Value());
    filled.full = LocalAllocOp::create(b, loc, barrierType, Value());
    setup.insert(filled.buffer);
    setup.insert(filled.full);
    if (tiles) {
      filled.empty = LocalAllocOp::create(b, loc, barrierType, Value());
      setup.insert(filled.empty);
    }
    operandBuffers.push_back(std::move(filled));
  }
  // The rings' bytes may have served something else before: every thread
  // is done with them before the copies start.
  setup.insert(tile::DebugBarrierOp::create(b, loc));
  for (LocalAllocOp full : fullRings)
    setup.insert(BarrierInitOp::create(b, loc, full, b.getI32IntegerAttr(1)));
  for (Release &release : releases)
    setup.insert(
        BarrierInitOp::create(b, loc, release.empty,
                              b.getI32IntegerAttr(shared ? 2 * warps : warps)));
  for (OperandBuffer &filled : operandBuffers) {
    setup.insert(
        BarrierInitOp::create(b, loc, filled.full, b.getI32IntegerAttr(1)));
    if (filled.empty)
      setup.insert(BarrierInitOp::create(b, loc, filled.empty,
                                         b.getI32IntegerAttr(warps)));
  }
  setup.insert(tile::DebugBarrierOp::create(b, loc));
  Value agree;
  if (shared) {
    auto pair = ClusterPairEqualOp::create(b, loc, b.getI1Type(), sharedInputs);
    setup.insert(pair);
    agree = pair.getResult();
  }

  b.setInsertionPoint(entry->getTerminator());
  auto split = WarpSpecializeOp::create(
      b, loc, b.getI32IntegerAttr(kProducerWarps),
      b.getI32IntegerAttr(producerRegisters),
      b.getI32IntegerAttr(consumerRegisters));
  for (Region *region : {&split.getProducer(), &split.getConsumer()}) {
    b.setInsertionPointToStart(&region->emplaceBlock());
    WarpYieldOp::create(b, loc);
  }

  // The producer: every iteration's copies, once their slot is free,
  // through maps that thread 0 built or the launcher passed, which it
  // starts fetching (the consumers need not).
  b.setInsertionPoint(split.getProducer().front().getTerminator());
  for (auto map : entry->getOps<TensorMapCreateOp>())
    if (needed.contains(map.getResult()))
      TensorMapAcquireOp::create(b, loc, map.getResult());
  for (Block *block : {entry, top}) {
    for (auto prefetch :
         llvm::make_early_inc_range(block->getOps<TensorMapPrefetchOp>())) {
      if (!needed.contains(prefetch.getTensormap()))
        continue;
      TensorMapPrefetchOp::create(b, loc, prefetch.getTensormap());
      prefetch.erase();
    }
    if (!tiles)
      break;
  }
  // Around tiles, the producer runs the same tiles, counting the rings'
  // iterations on from one tile to the next (`base`, as the consumers do):
  // it copies the next tile's first blocks while the consumers finish this
  // one.
  IRMapping mapping;
  Value base;
  Type countType = loop.getInductionVar().getType();
  auto countAfter = [&](OpBuilder &builder, Value count, Value lb, Value ub,
                        Value step) -> Value {
    return arith::AddIOp::create(builder, loc, count,
                                 buildTripCount(builder, loc, lb, ub, step));
  };
  scf::ForOp producerTiles;
  if (tiles) {
    Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(countType));
    producerTiles =
        scf::ForOp::create(b, loc, tiles.getLowerBound(), tiles.getUpperBound(),
                           tiles.getStep(), ValueRange{zero});
    b.setInsertionPointToStart(producerTiles.getBody());
    mapping.map(tiles.getInductionVar(), producerTiles.getInductionVar());
    base = producerTiles.getRegionIterArg(0);
    for (Operation &op : *top)
      if (perTile.contains(&op))
        b.clone(op, mapping);
  }
  // The operand tiles first: the loop's first dot reads them. Around
  // tiles, the next tile's once the consumers are done with this one's.
  Value zero = arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(0));
  Value one = arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(1));
  for (OperandBuffer &filled : operandBuffers) {
    const BulkCopy &plan = filled.copy->plan;
    if (tiles)
      BarrierWaitOp::create(
          b, loc, filled.empty,
          arith::XOrIOp::create(
              b, loc, emitPhase(b, loc, producerTiles, /*stages=*/1), one));
    MemDescType type = LocalAllocOp(filled.copy->alloc).getType();
    Value buffer = MemDescIndexOp::create(b, loc, type, filled.buffer, zero);
    BarrierExpectOp::create(b, loc, filled.full,
                            b.getI32IntegerAttr(getSharedAllocBytes(type)),
                            Value());
    SmallVector<Value> coords;
    for (unsigned d : plan.dims)
      coords.push_back(plan.box.offsets[d]
                           ? mapping.lookupOrDefault(plan.box.offsets[d])
                           : zero);
    for (Value coord : filled.outerCoords)
      coords.push_back(mapping.lookupOrDefault(coord));
    AsyncTMACopyOp::create(b, loc, filled.map, coords, buffer, filled.full,
                           Value(), Value());
  }
  auto producer =
      scf::ForOp::create(b, loc, mapping.lookupOrDefault(loop.getLowerBound()),
                         mapping.lookupOrDefault(loop.getUpperBound()),
                         mapping.lookupOrDefault(loop.getStep()));
  if (tiles) {
    b.setInsertionPointAfter(producer);
    scf::YieldOp::create(b, loc,
                         countAfter(b, base, producer.getLowerBound(),
                                    producer.getUpperBound(),
                                    producer.getStep()));
  }
  b.setInsertionPoint(producer.getBody()->getTerminator());
  Value slot = emitSlot(b, loc, producer, stages, /*back=*/0, base);
  Value releasedPhase = arith::XOrIOp::create(
      b, loc, emitPhase(b, loc, producer, stages, base), one);
  // Each ring's copies (the first, its barrier_expect) wait for its slot's
  // release, once an iteration for the rings released together.
  llvm::DenseMap<Operation *, unsigned> releaseOfFull;
  for (Operation *copy : copies)
    if (auto tma = dyn_cast<AsyncTMACopyOp>(copy))
      releaseOfFull[getRing(tma.getBarrier())] =
          releaseOf.lookup(getRing(tma.getDst()));
  SmallVector<bool, 2> waited(releases.size(), false);
  mapping.map(loop.getInductionVar(), producer.getInductionVar());
  for (Operation &op : body->without_terminator()) {
    if (!producerOps.contains(&op))
      continue;
    Value barrier;
    if (auto expect = dyn_cast<BarrierExpectOp>(op))
      barrier = expect.getBarrier();
    else if (auto tma = dyn_cast<AsyncTMACopyOp>(op))
      barrier = tma.getBarrier();
    if (LocalAllocOp full = barrier ? getRing(barrier) : LocalAllocOp()) {
      assert(releaseOfFull.count(full) && "a copy's barrier of no ring");
      unsigned index = releaseOfFull.lookup(full);
      if (!waited[index]) {
        waited[index] = true;
        Value released = MemDescIndexOp::create(b, loc, barrierType,
                                                releases[index].empty, slot);
        BarrierWaitOp::create(b, loc, released, releasedPhase);
      }
    }
    Operation *clone = b.clone(op, mapping);
    if (&op == shared.getOperation())
      cast<AsyncTMACopyOp>(clone).getSharedMutable().assign(agree);
  }
  if (tiles)
    rebaseRings(producer.getBody(), slot, Value());

  // The consumers: the rest of the kernel, the loop without its copies.
  Block *consumer = &split.getConsumer().front();
  for (Operation &op : llvm::make_early_inc_range(*entry))
    if (&op != split.getOperation() && &op != entry->getTerminator() &&
        !setup.contains(&op))
      op.moveBefore(consumer->getTerminator());
  // What only the copies needed goes with them (the copies are among the
  // producer's ops: skipped there once erased).
  llvm::SmallPtrSet<Operation *, 8> erased(copies.begin(), copies.end());
  for (Operation *copy : copies)
    copy->erase();
  for (Operation *op : llvm::reverse(producerOps))
    if (!erased.contains(op) && !isa<AsyncTMACopyOp, BarrierExpectOp>(op) &&
        op->use_empty())
      op->erase();

  // Around tiles, the consumers' loop over them counts the rings'
  // iterations too, and their slots and phases in the loop count from it.
  if (tiles) {
    IRRewriter rewriter(context);
    rewriter.setInsertionPoint(tiles);
    Value zero =
        arith::ConstantOp::create(rewriter, loc, b.getZeroAttr(countType));
    replaced.insert(tiles);
    DictionaryAttr asked = tiles->getDiscardableAttrDictionary();
    FailureOr<LoopLikeOpInterface> counted = tiles.replaceWithAdditionalYields(
        rewriter, ValueRange{zero}, /*replaceInitOperandUsesInLoop=*/false,
        [&](OpBuilder &builder, Location, ArrayRef<BlockArgument> args) {
          return SmallVector<Value>{
              countAfter(builder, args.front(), loop.getLowerBound(),
                         loop.getUpperBound(), loop.getStep())};
        });
    tiles = cast<scf::ForOp>(counted->getOperation());
    tiles->setDiscardableAttrs(asked);
    outer = tiles;
    top = tiles.getBody();
    base = tiles.getRegionIterArgs().back();
    b.setInsertionPointToStart(body);
    rebaseRings(body, emitSlot(b, loc, loop, stages, /*back=*/0, base),
                emitPhase(b, loc, loop, stages, base));
    // Each tile ends with the consumers together: a warpgroup's turns
    // (tilegpu-overlap-dots) start over with the next tile, so no
    // warpgroup may pass the next tile's first turn before the others have
    // taken this tile's last.
    b.setInsertionPoint(tiles.getBody()->getTerminator());
    tile::DebugBarrierOp::create(b, loc);
  }

  // The consumers wait for each operand tile where they loaded it and,
  // around tiles, release it once the loop's dots are done with it.
  for (OperandBuffer &filled : operandBuffers) {
    LocalAllocOp alloc = filled.copy->alloc;
    b.setInsertionPoint(alloc);
    Value first = arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(0));
    BarrierWaitOp::create(b, loc, filled.full,
                          tiles ? emitPhase(b, loc, tiles, /*stages=*/1)
                                : first);
    Value read =
        MemDescIndexOp::create(b, loc, alloc.getType(), filled.buffer, first);
    Operation *load = alloc.getSrc().getDefiningOp();
    alloc.getResult().replaceAllUsesWith(read);
    alloc.erase();
    load->erase();
    if (tiles) {
      b.setInsertionPointAfter(loop);
      BarrierArriveOp::create(b, loc, filled.empty, Value(), Value());
    }
  }

  // Each warp releases the slot of the dots it has just seen finish; no
  // CTA barrier is needed between iterations any more.
  if (inFlightWaits.empty()) {
    for (Release &release : releases) {
      b.setInsertionPointAfter(release.after);
      Value current = MemDescIndexOp::create(
          b, loc, barrierType, release.empty,
          emitSlot(b, loc, loop, stages, /*back=*/0, base));
      BarrierArriveOp::create(b, loc, current, Value(), agree);
    }
  } else {
    WarpgroupDotWaitOp last = inFlightWaits.front();
    for (WarpgroupDotWaitOp wait : inFlightWaits) {
      if (auto barrier =
              dyn_cast_or_null<tile::DebugBarrierOp>(wait->getNextNode()))
        barrier.erase();
      if (last->isBeforeInBlock(wait))
        last = wait;
    }
    // Around tiles, a tile's first iteration releases the slot of the last
    // tile's last (whose dot the epilogue waited for).
    b.setInsertionPointAfter(last);
    Value iteration = emitIteration(b, loc, loop, base);
    Value started = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::sgt, iteration,
        arith::ConstantOp::create(b, loc,
                                  b.getIntegerAttr(iteration.getType(), 0)));
    Value previous = MemDescIndexOp::create(
        b, loc, barrierType, releases.front().empty,
        emitSlot(b, loc, loop, stages, /*back=*/1, base));
    BarrierArriveOp::create(b, loc, previous, started, agree);
  }

  // The mbarriers' bytes may serve other buffers once every consumer is
  // done waiting on them; the producer has issued its last copy by then.
  // Where a copy is shared, the other CTA's consumers arrive on this one's
  // empty barriers until their loop ends.
  b.setInsertionPointAfter(outer);
  tile::DebugBarrierOp::create(b, loc);
  if (shared)
    ClusterBarrierOp::create(b, loc);
  for (LocalAllocOp full : fullRings)
    BarrierInvalOp::create(b, loc, full);
  for (Release &release : releases)
    BarrierInvalOp::create(b, loc, release.empty);
  for (OperandBuffer &filled : operandBuffers) {
    BarrierInvalOp::create(b, loc, filled.full);
    if (filled.empty)
      BarrierInvalOp::create(b, loc, filled.empty);
  }

  ModuleOp module = func->getParentOfType<ModuleOp>();
  module->setAttr(TileGPUDialect::getProducerWarpsAttrName(),
                  b.getI32IntegerAttr(kProducerWarps));
  if (shared)
    module->setAttr(TileGPUDialect::getClusterProgramsAttrName(),
                    b.getI32IntegerAttr(2));
  LDBG() << "loop at " << loc << " warp-specialized: " << producerOps.size()
         << " ops on " << kProducerWarps << " producer warps ("
         << producerRegisters << " registers), the rest on " << warps
         << " consumer warps (" << consumerRegisters
         << " registers; 0: as ptxas gives them)"
         << (shared ? "; a copy shared by clusters of two programs" : "")
         << "; " << operandBuffers.size() << " tile(s) before the loop copied "
         << (tiles ? "a tile ahead" : "first");
  return success();
}
