//===- StreamK.cpp - A grid's K loops shared out among a fixed set of CTAs ===//
//
// Output tiles of one size leave the GPU's last wave part idle: 192 tiles
// on 132 SMs take two waves of work for 1.45 of it (an LLM's qkv layer at
// M = 512). Stream-K evens it out. The launcher (tile::chooseStreamK)
// picks the R programs to split, the last of the grid, and a cut of their
// K loops into `parts` equal parts: each split program's own CTA, its
// head, runs the first headParts of them; the rest are pieces, run in turn
// by the CTAs launched after the grid's (piece j of split program p is the
// (j * R + p)-th, so that the pieces of consecutive programs run side by
// side). The kernel becomes a loop over this CTA's runs:
//
//   units = max(trips, 1)               // a program's iterations, at least
//                                       // one: an empty K loop still stores
//   part(i) = i * units / parts
//   runs: this CTA's program, or for a CTA past the grid's programs, the
//   pieces programs + e, programs + e + E, ... (E: such CTAs)
//   scf.while (%run = cta) : %run < end {
//     a program: its K loop from 0 to units, or to part(headParts) where
//       it is split; the partials of its pieces added in order, then the
//       epilogue, reading the sum
//     a piece i = run - programs: program whole + i % R, its K loop from
//       part(headParts + i / R) to the next part, from a zero accumulator;
//       tilegpu.stream_k_store into slot i
//     yield run + stride
//   }
//
// Only heads wait, and only for pieces, which wait for nothing: nothing
// waits in a circle, as long as the heads and the pieces' CTAs can all run
// at once (the launcher's part).
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/TileGPU/Transforms/Passes.h"

#include "KLoop.h"
#include "ProgramLoop.h"

#include "tilec/Dialect/Tile/Analysis/AxisInfo.h"
#include "tilec/Dialect/Tile/IR/Tile.h"
#include "tilec/Dialect/TileGPU/IR/Target.h"
#include "tilec/Dialect/TileGPU/IR/ThreadLayout.h"
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

/// Whether a dot operand `loop` loads comes in vectors narrower than 16
/// bytes: a thread then carries a pointer an element or a few, and the
/// stream-K form, its kernel inside a loop over runs, leaves them no
/// registers (4097^3 bf16 at 128 x 256 x 64, 2-byte rows: 106 TFLOP/s
/// against 169 with a CTA a program, spilling; tf32 at 4097^3: 134.9
/// against 151.5; H200). Other loads (a row's scales) do not count.
bool loadsNarrowOperands(scf::ForOp loop, tile::AxisInfoAnalysis &axis) {
  WalkResult narrow = loop.getBody()->walk([&](tile::DotOp dot) {
    for (Value operand : {dot.getA(), dot.getB()}) {
      // Through the conversion to the dot's operand layout.
      if (auto convert = operand.getDefiningOp<ConvertLayoutOp>())
        operand = convert.getSrc();
      auto load = operand.getDefiningOp<tile::LoadOp>();
      auto type =
          load ? dyn_cast<RankedTensorType>(load.getPtr().getType()) : nullptr;
      if (!type)
        continue;
      // In the tests' kernels without layouts, along the innermost
      // dimension.
      std::optional<ThreadLayout> layout = ThreadLayout::get(type);
      int dim = layout ? layout->getTensorDim(layout->getFastestDim())
                       : int(type.getRank()) - 1;
      if (dim < 0)
        continue;
      Type pointee =
          cast<tile::PointerType>(type.getElementType()).getPointeeType();
      unsigned bytes = std::max(1u, pointee.getIntOrFloatBitWidth() / 8);
      unsigned vector = axis.getMaxVectorWidth(load.getPtr(), load.getMask(),
                                               unsigned(dim), bytes);
      if (vector * bytes < 16)
        return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return narrow.wasInterrupted();
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
  tile::AxisInfoAnalysis axis(func);
  if (loadsNarrowOperands(loop, axis))
    return "the K loop loads a dot operand in vectors narrower than 16 bytes";
  return "";
}

/// Appends the stream-K parameters to `func`: the programs along x, y and
/// z the launch asked for, the programs split, the parts their K loops are
/// cut into and the heads' parts (i32 each), the workspace.
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
                            {"parts", i32},
                            {"head_parts", i32},
                            {"stream_k_workspace", workspace}})
    params.push_back(appendLaunchParam(func, name, type));
  return params;
}

/// Rewrites `func`, whose K loop `kloop` qualifies, into the loop over this
/// CTA's runs (the file's comment).
void rewriteStreamK(func::FuncOp func, const KLoop &kloop) {
  scf::ForOp loop = kloop.loop;
  Location loc = loop.getLoc();
  Block &entry = func.getBody().front();
  KernelBody kernel = KernelBody::get(func);
  SmallVector<Value> params = appendParams(func);
  Value programsX = params[0], programsY = params[1], programsZ = params[2];
  Value workspace = params[6];

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
  auto rem = [&](Value x, Value y) -> Value {
    return arith::RemSIOp::create(b, loc, x, y);
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
  // Divisors at least 1: a launch that splits nothing passes 0 for all
  // three, and runs only whole programs.
  Value splitPrograms = wide(params[3]), cut = wide(params[4]);
  Value split = max(splitPrograms, c64(1));
  Value parts = max(cut, c64(1));
  Value headParts = wide(params[5]);
  Value tailParts = sub(cut, headParts);      // a split program's pieces
  Value whole = sub(programs, splitPrograms); // run by one CTA each
  Value pieces = mul(splitPrograms, tailParts);
  Value slots = max(pieces, c64(1)); // the workspace's
  auto part = [&](Value i) { return div(mul(i, units), parts); };
  // A CTA past the grid's programs runs every E-th piece from its own.
  Value runsPieces =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, cta, programs);
  Value stride = select(runsPieces, max(sub(ctas, programs), c64(1)), c64(1));
  Value end = select(runsPieces, add(programs, pieces), add(cta, c64(1)));

  auto runs = scf::WhileOp::create(b, loc, TypeRange{i64}, ValueRange{cta});
  Block *before = b.createBlock(&runs.getBefore(), {}, {i64}, {loc});
  b.setInsertionPointToEnd(before);
  scf::ConditionOp::create(b, loc, less(before->getArgument(0), end),
                           before->getArguments());
  Block *after = b.createBlock(&runs.getAfter(), {}, {i64}, {loc});
  b.setInsertionPointToEnd(after);
  Value run = after->getArgument(0);
  Value isProgram = less(run, programs);
  Value piece = sub(run, programs);
  Value program =
      select(isProgram, run, add(whole, rem(max(piece, c64(0)), split)));
  Value firstPart = add(headParts, div(max(piece, c64(0)), split));
  Value kb = select(isProgram, c64(0), part(firstPart));
  Value ke = select(isProgram, select(less(run, whole), units, part(headParts)),
                    part(add(firstPart, c64(1))));
  // The program's ids: x fastest, as the launch numbers a grid.
  Value x = rem(program, wide(programsX));
  Value xy = div(program, wide(programsX));
  Value y = rem(xy, wide(programsY));
  Value z = div(xy, wide(programsY));
  auto narrow = [&](Value v) -> Value {
    return arith::TruncIOp::create(b, loc, i32, v);
  };
  Value ids[] = {narrow(x), narrow(y), narrow(z)};
  Value extents[] = {programsX, programsY, programsZ};
  auto yield = scf::YieldOp::create(b, loc, ValueRange{add(run, stride)});

  kernel.moveInto(yield, ids, extents);

  // The K loop from kb to min(ke, trips); the accumulator from its own
  // initial value where this run is the program's own.
  // (Built one statement at a time: the order of a call's arguments is
  // the C++ compiler's, and the IR would change with it.)
  b.setInsertionPoint(loop);
  Value first = castSplat(b, loc, kb, loopType);
  Value last =
      castSplat(b, loc, arith::MinSIOp::create(b, loc, ke, trips), loopType);
  restrictKLoop(kloop, first, last, isProgram);

  unsigned index = llvm::find_if(kloop.carried,
                                 [](const Carried &c) {
                                   return c.kind == Carried::Kind::Accumulator;
                                 }) -
                   kloop.carried.begin();
  Value acc = loop.getResult(index);
  b.setInsertionPointAfter(loop);
  Value slots32 = narrow(slots);
  auto branch = scf::IfOp::create(b, loc, TypeRange{}, isProgram,
                                  /*withElseRegion=*/true);
  // A piece: its partial, for the program's head.
  b.setInsertionPointToStart(branch.elseBlock());
  StreamKStoreOp::create(b, loc, acc, workspace, narrow(piece), slots32);
  // A program: where it is split, its pieces' partials in order (piece j
  // of split program p in slot j * R + p), then the epilogue.
  b.setInsertionPointToStart(branch.thenBlock());
  Value splitProgram = sub(run, whole);
  Value lower = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge,
                                      splitProgram, c64(0));
  Value tail = select(lower, tailParts, c64(0));
  auto partials =
      scf::ForOp::create(b, loc, c64(0), tail, c64(1), ValueRange{acc});
  b.setInsertionPointToStart(partials.getBody());
  Value slot = add(mul(partials.getInductionVar(), split), splitProgram);
  Value sum =
      StreamKAddOp::create(b, loc, acc.getType(), partials.getRegionIterArg(0),
                           workspace, narrow(slot), slots32);
  scf::YieldOp::create(b, loc, sum);
  b.setInsertionPointAfter(partials);

  // The epilogue: what followed the loop, reading the sum.
  Operation *epilogueEnd = branch.thenBlock()->getTerminator();
  for (Operation &op : llvm::make_early_inc_range(llvm::make_range(
           std::next(branch->getIterator()), yield->getIterator())))
    op.moveBefore(epilogueEnd);
  acc.replaceUsesWithIf(partials.getResult(0), [&](OpOperand &use) {
    Operation *top = branch.thenBlock()->findAncestorOpInBlock(*use.getOwner());
    return top && partials->isBeforeInBlock(top);
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
