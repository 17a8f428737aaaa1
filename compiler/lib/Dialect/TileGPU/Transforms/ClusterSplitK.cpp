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

#include "tilec/Dialect/Tile/IR/Tile.h"
#include "tilec/Dialect/TileGPU/IR/Target.h"
#include "tilec/Dialect/TileGPU/IR/TileGPU.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/LoopInvariantCodeMotionUtils.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/DebugLog.h"

#define DEBUG_TYPE "tilegpu-cluster-split-k"

namespace mlir::tilegpu {
#define GEN_PASS_DEF_TILEGPUCLUSTERSPLITK
#include "tilec/Dialect/TileGPU/Transforms/Passes.h.inc"
} // namespace mlir::tilegpu

using namespace mlir;
using namespace mlir::tilegpu;

namespace {

/// Whether `op`, or an op nested in it, may write memory (an op that does
/// not say what it does may).
bool mayWriteMemory(Operation *op) {
  WalkResult result = op->walk([](Operation *nested) {
    if (nested->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
      return WalkResult::advance();
    auto effects = dyn_cast<MemoryEffectOpInterface>(nested);
    if (!effects || effects.hasEffect<MemoryEffects::Write>())
      return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return result.wasInterrupted();
}

/// How a loop-carried value goes from one iteration to the next.
struct Carried {
  enum class Kind { Accumulator, Induction, Unchanged } kind;
  /// An induction's step (loop-invariant): value + step, or for a
  /// pointer, addptr(value, step).
  Value step;
};

/// The K loop of `func` split S ways: the loop and what each of its
/// carried values is.
struct Plan {
  scf::ForOp loop;
  SmallVector<Carried> carried;
};

/// Whether `value` is the same in every iteration of `loop`: defined
/// outside it, or by pure ops in it of such values (which the split then
/// hoists). `seen` remembers the answers, so that values shared along a
/// chain of ops are looked at once.
bool isLoopInvariant(scf::ForOp loop, Value value,
                     llvm::DenseMap<Value, bool> &seen) {
  if (loop.isDefinedOutsideOfLoop(value))
    return true;
  if (auto it = seen.find(value); it != seen.end())
    return it->second;
  Operation *def = value.getDefiningOp();
  bool invariant =
      def && def->getBlock() == loop.getBody() && isPure(def) &&
      def->getNumRegions() == 0 &&
      llvm::all_of(def->getOperands(),
                   [&](Value v) { return isLoopInvariant(loop, v, seen); });
  seen[value] = invariant;
  return invariant;
}

/// How iter_arg `i` of `loop` is carried, or a reason it cannot be split.
FailureOr<Carried> classify(scf::ForOp loop, unsigned i, std::string &why) {
  BlockArgument arg = loop.getRegionIterArg(i);
  llvm::DenseMap<Value, bool> seen;
  Value next = loop.getYieldedValues()[i];
  if (next == arg)
    return Carried{Carried::Kind::Unchanged, {}};
  if (auto dot = next.getDefiningOp<tile::DotOp>()) {
    Type element = getElementTypeOrSelf(arg.getType());
    if (dot.getAcc() == arg && arg.hasOneUse() && next.hasOneUse() &&
        (element.isF32() || element.isInteger(32)))
      return Carried{Carried::Kind::Accumulator, {}};
    why = "a dot's loop-carried value is not only its accumulator";
    return failure();
  }
  if (auto add = next.getDefiningOp<arith::AddIOp>()) {
    for (auto [self, other] : {std::pair(add.getLhs(), add.getRhs()),
                               std::pair(add.getRhs(), add.getLhs())})
      if (self == arg && isLoopInvariant(loop, other, seen))
        return Carried{Carried::Kind::Induction, other};
  }
  if (auto add = next.getDefiningOp<tile::AddPtrOp>())
    if (add.getPtr() == arg && isLoopInvariant(loop, add.getOffset(), seen))
      return Carried{Carried::Kind::Induction, add.getOffset()};
  why = "loop-carried value " + std::to_string(i) +
        " does not advance by a loop-invariant step";
  return failure();
}

/// The plan for `func`, or why it has none. Only where `hoist` may it
/// change the kernel: the loop's invariant code moves out, so that the
/// steps do; unhoisted, a step computed in the loop is taken as movable.
FailureOr<Plan> analyze(func::FuncOp func, std::string &why, bool hoist) {
  if (!func.getBody().hasOneBlock()) {
    why = "the kernel has more than one block";
    return failure();
  }
  if (func.walk([](Operation *op) {
            return isa<tile::AtomicRMWOp, tile::AtomicCASOp>(op)
                       ? WalkResult::interrupt()
                       : WalkResult::advance();
          }).wasInterrupted()) {
    why = "the kernel has atomics";
    return failure();
  }
  Plan plan;
  for (Operation &op : func.getBody().front()) {
    auto loop = dyn_cast<scf::ForOp>(op);
    if (!loop || !llvm::any_of(loop.getYieldedValues(), [](Value v) {
          return v.getDefiningOp<tile::DotOp>();
        })) {
      if (mayWriteMemory(&op)) {
        why = "the kernel writes memory before its K loop";
        return failure();
      }
      continue;
    }
    plan.loop = loop;
    break;
  }
  if (!plan.loop) {
    why = "no top-level loop carries a dot's accumulator";
    return failure();
  }
  scf::ForOp loop = plan.loop;
  std::optional<int64_t> step = getConstantIntValue(loop.getStep());
  if (!step || *step <= 0) {
    why = "the K loop's step is not a positive constant";
    return failure();
  }
  if (mayWriteMemory(loop)) {
    why = "the K loop writes memory";
    return failure();
  }
  for (unsigned i = 0; i < loop.getNumRegionIterArgs(); ++i) {
    FailureOr<Carried> carried = classify(loop, i, why);
    if (failed(carried))
      return failure();
    if (carried->kind != Carried::Kind::Accumulator &&
        !loop.getResult(i).use_empty()) {
      why = "loop-carried value " + std::to_string(i) +
            " is used after the K loop";
      return failure();
    }
    plan.carried.push_back(*carried);
  }
  // Steps computed in the loop from values outside it go before it, where a
  // chunk's first values need them (only now: a kernel that is not split
  // is left as it was).
  if (!hoist)
    return plan;
  moveLoopInvariantCode(cast<LoopLikeOpInterface>(loop.getOperation()));
  for (const Carried &carried : plan.carried)
    if (carried.step && !loop.isDefinedOutsideOfLoop(carried.step)) {
      why = "a loop-carried value's step stays in the loop";
      return failure();
    }
  return plan;
}

/// `value` (an integer of the loop's type) as `type`'s integer elements, a
/// tensor's splat.
Value castSplat(OpBuilder &b, Location loc, Value value, Type type) {
  Type element = getElementTypeOrSelf(type);
  Value scalar = value;
  if (scalar.getType() != element) {
    if (scalar.getType().isIndex() || element.isIndex())
      scalar = arith::IndexCastOp::create(b, loc, element, scalar);
    else if (scalar.getType().getIntOrFloatBitWidth() <
             element.getIntOrFloatBitWidth())
      scalar = arith::ExtSIOp::create(b, loc, element, scalar);
    else
      scalar = arith::TruncIOp::create(b, loc, element, scalar);
  }
  if (isa<RankedTensorType>(type))
    return tile::SplatOp::create(b, loc, type, scalar);
  return scalar;
}

/// Whether `value` is zero everywhere (a constant or a splat of one).
bool isZero(Value value) {
  if (auto splat = value.getDefiningOp<tile::SplatOp>())
    value = splat.getSrc();
  return matchPattern(value, m_AnyZeroFloat()) || matchPattern(value, m_Zero());
}

/// Splits `plan`'s loop over `ctas` ranks and runs the epilogue on rank 0.
void split(const Plan &plan, unsigned ctas) {
  scf::ForOp loop = plan.loop;
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
  // (Rounding up as (a + b - 1) / b: a negative span gives at most 0,
  // which the max clamps; the lowering has no arith.ceildivsi.)
  auto ceilDiv = [&](Value a, Value d, int64_t dValue) -> Value {
    Value biased = arith::AddIOp::create(b, loc, a, constant(dValue - 1));
    return arith::DivSIOp::create(b, loc, biased, d);
  };
  Value lb = loop.getLowerBound(), step = loop.getStep();
  int64_t stepValue = *getConstantIntValue(step);
  Value trips = arith::MaxSIOp::create(
      b, loc,
      ceilDiv(arith::SubIOp::create(b, loc, loop.getUpperBound(), lb), step,
              stepValue),
      constant(0));
  Value chunk = ceilDiv(trips, constant(ctas), ctas);
  Value first = arith::MinSIOp::create(
      b, loc, arith::MulIOp::create(b, loc, rank, chunk), trips);
  Value last = arith::MinSIOp::create(
      b, loc, arith::AddIOp::create(b, loc, first, chunk), trips);
  // Folded as built: the box analysis of the pipeliner that follows reads
  // a bound of `first` (a step of 1 from 0), or `first * step`.
  auto at = [&](Value i) {
    return b.createOrFold<arith::AddIOp>(
        loc, lb, b.createOrFold<arith::MulIOp>(loc, i, step));
  };
  loop.setLowerBound(at(first));
  loop.setUpperBound(at(last));

  Value isFirst = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                        rank32, arith::ConstantIntOp::create(
                                                    b, loc, b.getI32Type(), 0));
  for (auto [i, carried] : llvm::enumerate(plan.carried)) {
    OpOperand &init = loop.getInitArgsMutable()[i];
    Value value = init.get();
    switch (carried.kind) {
    case Carried::Kind::Unchanged:
      break;
    case Carried::Kind::Induction: {
      // A splatted step advances by a splat of step * first, which the
      // pipeliner's box analysis reads as `first` iterations in. Pointers
      // move by it in 64 bits: the loop added the step one iteration at a
      // time, and `first` of them may pass 2^31 elements.
      bool pointer = isa<tile::PointerType>(getElementTypeOrSelf(value.getType()));
      Value step = carried.step;
      auto splat = step.getDefiningOp<tile::SplatOp>();
      Value scalar = splat ? splat.getSrc() : Value();
      auto widen = [&](Value v) -> Value {
        Type wide = b.getI64Type();
        if (auto tensor = dyn_cast<RankedTensorType>(v.getType()))
          wide = tensor.clone(b.getI64Type());
        if (!pointer || getElementTypeOrSelf(v.getType()).isInteger(64))
          return v;
        return arith::ExtSIOp::create(b, loc, wide, v);
      };
      Value offset;
      if (scalar) {
        Value wide = widen(scalar);
        Value product = arith::MulIOp::create(
            b, loc, wide, castSplat(b, loc, first, wide.getType()));
        auto type = cast<RankedTensorType>(step.getType());
        offset = tile::SplatOp::create(
            b, loc, type.clone(getElementTypeOrSelf(product.getType())), product);
      } else {
        Value wide = widen(step);
        offset = arith::MulIOp::create(b, loc, wide,
                                       castSplat(b, loc, first, wide.getType()));
      }
      if (isa<tile::PointerType>(getElementTypeOrSelf(value.getType())))
        init.set(tile::AddPtrOp::create(b, loc, value.getType(), value, offset));
      else
        init.set(arith::AddIOp::create(b, loc, value, offset));
      break;
    }
    case Carried::Kind::Accumulator: {
      // Rank 0 starts from the loop's own initial value, the others from
      // zero: the sum counts it once.
      if (isZero(value))
        break;
      auto tensor = cast<RankedTensorType>(value.getType());
      Type element = tensor.getElementType();
      Value zero = tile::SplatOp::create(
          b, loc, tensor,
          arith::ConstantOp::create(b, loc, element, b.getZeroAttr(element)));
      Value mask = tile::SplatOp::create(
          b, loc, tensor.clone(b.getI1Type()), isFirst);
      init.set(arith::SelectOp::create(b, loc, mask, value, zero));
      break;
    }
    }
  }

  b.setInsertionPointAfter(loop);
  for (auto [i, carried] : llvm::enumerate(plan.carried)) {
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
    FailureOr<Plan> plan = failure();
    if (getComputeCapability(module) < 90)
      why = "clusters need sm_90 or newer";
    else if (module->hasAttr(TileGPUDialect::getDeviceTensorMapsAttrName()))
      why = "the kernel builds its own tensor maps";
    else if (kernels.size() != 1)
      why = "the module has more than one function";
    else
      plan = analyze(kernels.front(), why, /*hoist=*/ctas > 1);
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
