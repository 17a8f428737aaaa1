//===- KLoop.cpp - A dot kernel's K loop, run in parts --------------------===//

#include "KLoop.h"

#include "tilec/Dialect/Tile/IR/Tile.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/LoopInvariantCodeMotionUtils.h"
#include "llvm/ADT/DenseMap.h"

using namespace mlir;
using namespace mlir::tilegpu;

bool mlir::tilegpu::isProgramInvariant(func::FuncOp func, Value value,
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
  bool invariant = def && def->getBlock() == loop.getBody() && isPure(def) &&
                   def->getNumRegions() == 0 &&
                   llvm::all_of(def->getOperands(), [&](Value v) {
                     return isLoopInvariant(loop, v, seen);
                   });
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

/// Whether `value` is zero everywhere (a constant or a splat of one).
bool isZero(Value value) {
  if (auto splat = value.getDefiningOp<tile::SplatOp>())
    value = splat.getSrc();
  return matchPattern(value, m_AnyZeroFloat()) || matchPattern(value, m_Zero());
}

} // namespace

FailureOr<KLoop> mlir::tilegpu::findKLoop(func::FuncOp func, std::string &why,
                                          bool hoist) {
  if (!func.getBody().hasOneBlock()) {
    why = "the kernel has more than one block";
    return failure();
  }
  if (func.walk([](Operation *op) {
            return isa<tile::AtomicRMWOp, tile::AtomicCASOp>(op)
                       ? WalkResult::interrupt()
                       : WalkResult::advance();
          })
          .wasInterrupted()) {
    why = "the kernel has atomics";
    return failure();
  }
  KLoop plan;
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

Value mlir::tilegpu::buildTripCount(OpBuilder &b, Location loc, Value lb,
                                    Value ub, Value step) {
  Type type = lb.getType();
  auto constant = [&](int64_t v) -> Value {
    if (type.isIndex())
      return arith::ConstantIndexOp::create(b, loc, v);
    return arith::ConstantIntOp::create(b, loc, type, v);
  };
  // Rounding up as (a + b - 1) / b: a negative span gives at most 0,
  // which the max clamps; the lowering has no arith.ceildivsi.
  int64_t stepValue = *getConstantIntValue(step);
  Value span = arith::SubIOp::create(b, loc, ub, lb);
  Value biased = arith::AddIOp::create(b, loc, span, constant(stepValue - 1));
  return arith::MaxSIOp::create(
      b, loc, arith::DivSIOp::create(b, loc, biased, step), constant(0));
}

Value mlir::tilegpu::castSplat(OpBuilder &b, Location loc, Value value,
                               Type type) {
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

void mlir::tilegpu::restrictKLoop(const KLoop &kloop, Value first, Value last,
                                  Value keepInit) {
  scf::ForOp loop = kloop.loop;
  Location loc = loop.getLoc();
  OpBuilder b(loop);
  // Folded as built: the box analysis of the pipeliner that follows reads
  // a bound of `first` (a step of 1 from 0), or `first * step`.
  Value lb = loop.getLowerBound(), step = loop.getStep();
  auto at = [&](Value i) {
    return b.createOrFold<arith::AddIOp>(
        loc, lb, b.createOrFold<arith::MulIOp>(loc, i, step));
  };
  loop.setLowerBound(at(first));
  loop.setUpperBound(at(last));

  for (auto [i, carried] : llvm::enumerate(kloop.carried)) {
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
      bool pointer =
          isa<tile::PointerType>(getElementTypeOrSelf(value.getType()));
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
            b, loc, type.clone(getElementTypeOrSelf(product.getType())),
            product);
      } else {
        Value wide = widen(step);
        offset = arith::MulIOp::create(
            b, loc, wide, castSplat(b, loc, first, wide.getType()));
      }
      if (pointer)
        init.set(
            tile::AddPtrOp::create(b, loc, value.getType(), value, offset));
      else
        init.set(arith::AddIOp::create(b, loc, value, offset));
      break;
    }
    case Carried::Kind::Accumulator: {
      // Where `keepInit` fails the part starts from zero: the sum of the
      // parts counts the loop's own initial value once.
      if (isZero(value))
        break;
      auto tensor = cast<RankedTensorType>(value.getType());
      Type element = tensor.getElementType();
      Value zero = tile::SplatOp::create(
          b, loc, tensor,
          arith::ConstantOp::create(b, loc, element, b.getZeroAttr(element)));
      Value mask =
          tile::SplatOp::create(b, loc, tensor.clone(b.getI1Type()), keepInit);
      init.set(arith::SelectOp::create(b, loc, mask, value, zero));
      break;
    }
    }
  }
}
