//===- StreamK.cpp - A grid's K loops shared out among a fixed set of CTAs ===//
//
// Output tiles of one size leave the GPU's last wave part idle: 192 tiles
// on 132 SMs take two waves of work for 1.45 of it (an LLM's qkv layer at
// M = 512). Stream-K evens it out. The launch starts (programs - R) CTAs
// that run a program each, and S more that share out the K iterations of
// the last R programs in contiguous runs (the launcher picks R and S,
// tile::chooseStreamK). The kernel becomes a loop over this CTA's runs:
//
//   units = max(trips, 1)               // a program's iterations, at least
//                                       // one: an empty K loop still stores
//   [begin, end) = this CTA's iterations of the grid's programs * units
//   scf.while (%at = begin) : %at < end {
//     program = at / units, kb = at % units, ke = min(units, kb + end - at)
//     the kernel, its program ids those of `program`, its K loop run from
//     kb to min(ke, trips), the accumulator from zero where kb > 0
//     if kb > 0: tilegpu.stream_k_store   // a program another CTA started
//     else:      sum = acc + the partials of the CTAs after this one that
//                ran the rest of it, in their order (tilegpu.stream_k_add);
//                the epilogue, reading sum
//     yield program * units + ke
//   }
//
// A CTA's only run that does not start at a program's first iteration is
// its first: one partial per CTA, in its own slot of the workspace. The
// CTA that waits for a partial ran the start of that program, which comes
// last in its iterations, and waits on CTAs whose first run it is, which
// they finish before anything else: nothing waits in a circle, as long as
// the S CTAs can all run at once (the launcher's part).
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
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/DebugLog.h"

#define DEBUG_TYPE "tilegpu-stream-k"

namespace mlir::tilegpu {
#define GEN_PASS_DEF_TILEGPUSTREAMK
#include "tilec/Dialect/TileGPU/Transforms/Passes.h.inc"
} // namespace mlir::tilegpu

using namespace mlir;
using namespace mlir::tilegpu;

namespace {

/// Whether `value` is computed, in `func`'s entry block, by pure ops from
/// the kernel's arguments and constants, never from the program ids: the
/// same in every program, so that it can be computed before them. `seen`
/// keeps the answers, each value looked at once.
bool isProgramInvariant(func::FuncOp func, Value value,
                        llvm::DenseMap<Value, bool> &seen) {
  if (auto arg = dyn_cast<BlockArgument>(value))
    return arg.getOwner() == &func.getBody().front();
  if (auto it = seen.find(value); it != seen.end())
    return it->second;
  Operation *def = value.getDefiningOp();
  bool invariant = def && def->getBlock() == &func.getBody().front() &&
                   !def->getNumRegions() && isPure(def) &&
                   !isa<tile::ProgramIdOp, tile::NumProgramsOp>(def) &&
                   llvm::all_of(def->getOperands(), [&](Value operand) {
                     return isProgramInvariant(func, operand, seen);
                   });
  seen[value] = invariant;
  return invariant;
}

/// Clones what computes `value` (isProgramInvariant) at `b`.
Value cloneInvariant(OpBuilder &b, Value value, IRMapping &map) {
  if (Value known = map.lookupOrNull(value))
    return known;
  Operation *def = value.getDefiningOp();
  if (!def)
    return value;
  for (Value operand : def->getOperands())
    map.map(operand, cloneInvariant(b, operand, map));
  return b.clone(*def, map)->getResult(cast<OpResult>(value).getResultNumber());
}

/// Why `kloop` of `func` cannot run stream-K, or "" where it can.
std::string checkStreamK(func::FuncOp func, const KLoop &kloop) {
  scf::ForOp loop = kloop.loop;
  unsigned accumulators = llvm::count_if(kloop.carried, [](const Carried &c) {
    return c.kind == Carried::Kind::Accumulator;
  });
  if (accumulators != 1)
    return "the K loop carries " + std::to_string(accumulators) +
           " accumulators, not one";
  for (auto [i, carried] : llvm::enumerate(kloop.carried))
    if (carried.kind == Carried::Kind::Accumulator &&
        !isa<RankedTensorType>(loop.getResult(i).getType()))
      return "the accumulator is not a tensor";
  llvm::DenseMap<Value, bool> seen;
  if (!isProgramInvariant(func, loop.getLowerBound(), seen) ||
      !isProgramInvariant(func, loop.getUpperBound(), seen))
    return "the K loop's bounds depend on the program";
  if (func.getNumResults())
    return "the kernel returns values";
  return "";
}

/// Appends the stream-K parameters to `func`: the programs along x, y and
/// z the launch asked for, the programs split (i32 each), the workspace.
SmallVector<Value> appendParams(func::FuncOp func) {
  MLIRContext *context = func.getContext();
  Type i32 = IntegerType::get(context, 32);
  Type workspace =
      tile::PointerType::get(context, IntegerType::get(context, 8));
  SmallVector<Value> params;
  for (auto [name, type] : {std::pair<StringRef, Type>("programs_x", i32),
                            {"programs_y", i32},
                            {"programs_z", i32},
                            {"split_programs", i32},
                            {"stream_k_workspace", workspace}}) {
    NamedAttrList attrs;
    attrs.append(TileGPUDialect::getStreamKParamAttrName(),
                 UnitAttr::get(context));
    attrs.append(mlir::tile::TileDialect::getParamNameAttrName(),
                 StringAttr::get(context, name));
    unsigned n = func.getNumArguments();
    (void)func.insertArgument(n, type, attrs.getDictionary(context),
                              func.getLoc());
    params.push_back(func.getArgument(n));
  }
  return params;
}

/// Rewrites `func`, whose K loop `kloop` qualifies, into the loop over this
/// CTA's runs (the file's comment).
void rewriteStreamK(func::FuncOp func, const KLoop &kloop) {
  scf::ForOp loop = kloop.loop;
  Location loc = loop.getLoc();
  Block &entry = func.getBody().front();
  SmallVector<Operation *> kernelOps;
  for (Operation &op : entry.without_terminator())
    kernelOps.push_back(&op);
  SmallVector<Operation *> programQueries;
  func.walk([&](Operation *op) {
    if (isa<tile::ProgramIdOp, tile::NumProgramsOp>(op))
      programQueries.push_back(op);
  });
  SmallVector<Value> params = appendParams(func);
  Value programsX = params[0], programsY = params[1], programsZ = params[2];
  Value workspace = params[4];

  // The schedule, in 64 bits: programs * units may pass 2^31.
  OpBuilder b = OpBuilder::atBlockBegin(&entry);
  Type i64 = b.getI64Type(), i32 = b.getI32Type();
  auto c64 = [&](int64_t v) -> Value {
    return arith::ConstantIntOp::create(b, loc, i64, v);
  };
  auto wide = [&](Value v) -> Value { return castSplat(b, loc, v, i64); };
  auto add = [&](Value x, Value y) -> Value {
    return arith::AddIOp::create(b, loc, x, y);
  };
  auto sub = [&](Value x, Value y) -> Value {
    return arith::SubIOp::create(b, loc, x, y);
  };
  auto mul = [&](Value x, Value y) -> Value {
    return arith::MulIOp::create(b, loc, x, y);
  };
  auto div = [&](Value x, Value y) -> Value {
    return arith::DivSIOp::create(b, loc, x, y);
  };
  auto min = [&](Value x, Value y) -> Value {
    return arith::MinSIOp::create(b, loc, x, y);
  };
  auto max = [&](Value x, Value y) -> Value {
    return arith::MaxSIOp::create(b, loc, x, y);
  };
  auto less = [&](Value x, Value y) -> Value {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, x, y);
  };
  auto select = [&](Value c, Value x, Value y) -> Value {
    return arith::SelectOp::create(b, loc, c, x, y);
  };

  IRMapping invariant;
  Value lb = cloneInvariant(b, loop.getLowerBound(), invariant);
  Value ub = cloneInvariant(b, loop.getUpperBound(), invariant);
  Value step = cloneInvariant(b, loop.getStep(), invariant);
  Type loopType = loop.getInductionVar().getType();
  Value trips = wide(buildTripCount(b, loc, lb, ub, step));
  Value units = max(trips, c64(1));
  Value cta = wide(tile::ProgramIdOp::create(b, loc, 0));
  Value ctas = wide(tile::NumProgramsOp::create(b, loc, 0));
  Value programs = mul(mul(wide(programsX), wide(programsY)), wide(programsZ));
  Value split = wide(params[3]);
  Value whole = sub(programs, split);          // programs run by one CTA each
  Value slots = max(sub(ctas, whole), c64(1)); // the workspace's
  Value shared = mul(split, units);            // the split programs' iterations
  Value sharedBase = mul(whole, units);
  Value share = sub(cta, whole); // this CTA among the sharers
  // Sharer s runs [s * shared / sharers, (s + 1) * shared / sharers) of
  // them; past `shared` sharers (a short K loop) the last ones run none,
  // so that every run of a sharer below it has an iteration and a flag to
  // set.
  Value sharers = max(min(slots, shared), c64(1));
  auto shareStart = [&](Value s) {
    return add(sharedBase, div(mul(min(s, sharers), shared), sharers));
  };
  Value runsOne = less(cta, whole);
  Value begin = select(runsOne, mul(cta, units), shareStart(share));
  Value end = select(runsOne, add(mul(cta, units), units),
                     shareStart(add(share, c64(1))));

  auto runs = scf::WhileOp::create(b, loc, TypeRange{i64}, ValueRange{begin});
  Block *before = b.createBlock(&runs.getBefore(), {}, {i64}, {loc});
  b.setInsertionPointToEnd(before);
  scf::ConditionOp::create(b, loc, less(before->getArgument(0), end),
                           before->getArguments());
  Block *after = b.createBlock(&runs.getAfter(), {}, {i64}, {loc});
  b.setInsertionPointToEnd(after);
  Value at = after->getArgument(0);
  Value program = div(at, units);
  Value kb = sub(at, mul(program, units));
  Value ke = min(units, add(kb, sub(end, at)));
  // The program's ids: x fastest, as the launch numbers a grid.
  Value x = arith::RemSIOp::create(b, loc, program, wide(programsX));
  Value xy = div(program, wide(programsX));
  Value y = arith::RemSIOp::create(b, loc, xy, wide(programsY));
  Value z = div(xy, wide(programsY));
  auto narrow = [&](Value v) -> Value {
    return arith::TruncIOp::create(b, loc, i32, v);
  };
  Value ids[] = {narrow(x), narrow(y), narrow(z)};
  Value extents[] = {programsX, programsY, programsZ};
  Value next = add(mul(program, units), ke);
  auto yield = scf::YieldOp::create(b, loc, ValueRange{next});

  for (Operation *op : kernelOps)
    op->moveBefore(yield);
  for (Operation *op : programQueries) {
    if (auto id = dyn_cast<tile::ProgramIdOp>(op))
      op->getResult(0).replaceAllUsesWith(ids[id.getAxis()]);
    else
      op->getResult(0).replaceAllUsesWith(
          extents[cast<tile::NumProgramsOp>(op).getAxis()]);
    op->erase();
  }

  // The K loop from kb to min(ke, trips); the accumulator from its own
  // initial value where this run starts the program.
  b.setInsertionPoint(loop);
  Value starts =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, kb, c64(0));
  restrictKLoop(kloop, castSplat(b, loc, kb, loopType),
                castSplat(b, loc, min(ke, trips), loopType), starts);

  unsigned index = llvm::find_if(kloop.carried,
                                 [](const Carried &c) {
                                   return c.kind == Carried::Kind::Accumulator;
                                 }) -
                   kloop.carried.begin();
  Value acc = loop.getResult(index);
  b.setInsertionPointAfter(loop);
  Value slots32 = narrow(slots);
  auto branch = scf::IfOp::create(b, loc, TypeRange{}, starts,
                                  /*withElseRegion=*/true);
  // Not the program's start: this CTA's partial, for the CTA that started it.
  b.setInsertionPointToStart(branch.elseBlock());
  StreamKStoreOp::create(b, loc, acc, workspace, narrow(share), slots32);
  // The program's start: the partials of the CTAs that ran the rest of it,
  // from share + 1 to the one that ran its last iteration, then the
  // epilogue.
  b.setInsertionPointToStart(branch.thenBlock());
  Value finished = less(ke, units);
  auto gather = scf::IfOp::create(b, loc, TypeRange{acc.getType()}, finished,
                                  /*withElseRegion=*/true);
  b.setInsertionPointToStart(gather.thenBlock());
  // The sharer whose run holds iteration i (counted from sharedBase) is the
  // largest s with s * shared / sharers <= i: ((i + 1) * sharers - 1) /
  // shared, here for the program's last iteration.
  Value lastIteration = sub(add(mul(program, units), units), sharedBase);
  Value lastSharer =
      div(sub(mul(lastIteration, sharers), c64(1)), max(shared, c64(1)));
  auto partials =
      scf::ForOp::create(b, loc, add(share, c64(1)), add(lastSharer, c64(1)),
                         c64(1), ValueRange{acc});
  b.setInsertionPointToStart(partials.getBody());
  Value sum = StreamKAddOp::create(b, loc, acc.getType(),
                                   partials.getRegionIterArg(0), workspace,
                                   narrow(partials.getInductionVar()), slots32);
  scf::YieldOp::create(b, loc, sum);
  b.setInsertionPointAfter(partials);
  scf::YieldOp::create(b, loc, partials.getResult(0));
  b.setInsertionPointToStart(gather.elseBlock());
  scf::YieldOp::create(b, loc, acc);

  // The epilogue: what followed the loop, reading the sum.
  Operation *epilogueEnd = branch.thenBlock()->getTerminator();
  for (Operation &op : llvm::make_early_inc_range(llvm::make_range(
           std::next(branch->getIterator()), yield->getIterator())))
    op.moveBefore(epilogueEnd);
  acc.replaceUsesWithIf(gather.getResult(0), [&](OpOperand &use) {
    Operation *top = branch.thenBlock()->findAncestorOpInBlock(*use.getOwner());
    return top && gather->isBeforeInBlock(top);
  });
}

struct StreamK : tilegpu::impl::TileGPUStreamKBase<StreamK> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    StringRef name = TileGPUDialect::getStreamKAttrName();
    bool asked = module->hasAttr(name);
    module->removeAttr(name);
    SmallVector<func::FuncOp> kernels;
    module.walk([&](func::FuncOp func) {
      if (!func.isExternal())
        kernels.push_back(func);
    });
    auto cluster = module->getAttrOfType<IntegerAttr>(
        TileGPUDialect::getClusterSplitAttrName());
    std::string why;
    FailureOr<KLoop> kloop = failure();
    if (cluster && cluster.getInt() > 1)
      why = "the K loop is split over a cluster";
    else if (module->hasAttr(TileGPUDialect::getDeviceTensorMapsAttrName()))
      why = "the kernel builds its own tensor maps";
    else if (kernels.size() != 1)
      why = "the module has more than one function";
    else
      kloop = findKLoop(kernels.front(), why, /*hoist=*/asked);
    if (succeeded(kloop))
      why = checkStreamK(kernels.front(), *kloop);
    if (failed(kloop) || !why.empty()) {
      LDBG() << "no stream-K: " << why;
      return;
    }
    module->setAttr(TileGPUDialect::getStreamKSplittableAttrName(),
                    UnitAttr::get(module.getContext()));
    if (!asked)
      return;
    LDBG() << "K loop at " << kloop->loop.getLoc() << " run stream-K";
    module->setAttr(name, UnitAttr::get(module.getContext()));
    rewriteStreamK(kernels.front(), *kloop);
  }
};

} // namespace
