//===- VersionMasks.cpp - Selects that skip masks known to be all true ----===//
//
// In a loop, a mask is usually all true: `offs_n < N_CTX` fails only in the
// last block of keys, `offs_m >= offs_n` only on attention's causal
// diagonal. A select whose mask compares index ranges (`o + arange(n)`,
// splats, constants) gets a scalar test of "every element is true" built
// from the ranges' ends, and computes its mask and selects only when the
// test fails:
//
//   %r = scf.if %all_true -> tensor<...> {
//     scf.yield %a
//   } else {
//     %mask = ...           // the compares, moved here
//     scf.yield arith.select %mask, %a, %b
//   }
//
// The usual iteration then does a few uniform scalar instructions instead
// of a compare and a select per element.
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/TileGPU/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "llvm/Support/DebugLog.h"

#include <limits>

#define DEBUG_TYPE "tilegpu-version-masks"

namespace mlir::tilegpu {
#define GEN_PASS_DEF_TILEGPUVERSIONMASKS
#include "tilec/Dialect/TileGPU/Transforms/Passes.h.inc"
} // namespace mlir::tilegpu

using namespace mlir;
using namespace mlir::tilegpu;

namespace {

/// The elements of an i32 tile are `base + lo` ... `base + hi` (base: a
/// scalar i32, null for 0), provided that sum does not wrap; every element
/// lies between the two ends.
struct Span {
  Value base;
  int64_t lo = 0;
  int64_t hi = 0;
};

/// One conjunct of a mask: a splatted i1 scalar, or `lhs pred rhs` on two
/// spans (pred one of slt, sle, with the sides swapped for sgt, sge).
struct Conjunct {
  Value scalar;
  Span lhs, rhs;
  bool orEqual = false;
};

/// The ops that only move elements or change their layout.
Value skipMoves(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    if (!isa<ConvertLayoutOp, tile::BroadcastOp, tile::ExpandDimsOp>(def))
      break;
    v = def->getOperand(0);
  }
  return v;
}

std::optional<Span> matchSpan(Value v) {
  v = skipMoves(v);
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (!type || !type.getElementType().isInteger(32))
    return std::nullopt;
  APInt constant;
  if (matchPattern(v, m_ConstantInt(&constant)))
    return Span{Value(), constant.getSExtValue(), constant.getSExtValue()};
  Operation *def = v.getDefiningOp();
  if (auto splat = dyn_cast_or_null<tile::SplatOp>(def)) {
    if (matchPattern(splat.getSrc(), m_ConstantInt(&constant)))
      return Span{Value(), constant.getSExtValue(), constant.getSExtValue()};
    return Span{splat.getSrc()};
  }
  if (auto range = dyn_cast_or_null<tile::MakeRangeOp>(def))
    return Span{Value(), int64_t(range.getStart()), int64_t(range.getEnd()) - 1};
  if (auto add = dyn_cast_or_null<arith::AddIOp>(def)) {
    std::optional<Span> lhs = matchSpan(add.getLhs());
    std::optional<Span> rhs = matchSpan(add.getRhs());
    if (!lhs || !rhs || (lhs->base && rhs->base))
      return std::nullopt;
    return Span{lhs->base ? lhs->base : rhs->base, lhs->lo + rhs->lo,
                lhs->hi + rhs->hi};
  }
  return std::nullopt;
}

/// Adds the conjuncts of `mask` to `conjuncts`; false when it is made of
/// something else.
bool collectConjuncts(Value mask, SmallVectorImpl<Conjunct> &conjuncts) {
  mask = skipMoves(mask);
  Operation *def = mask.getDefiningOp();
  if (auto splat = dyn_cast_or_null<tile::SplatOp>(def)) {
    conjuncts.push_back({splat.getSrc()});
    return true;
  }
  if (auto conj = dyn_cast_or_null<arith::AndIOp>(def))
    return collectConjuncts(conj.getLhs(), conjuncts) &&
           collectConjuncts(conj.getRhs(), conjuncts);
  auto cmp = dyn_cast_or_null<arith::CmpIOp>(def);
  if (!cmp)
    return false;
  std::optional<Span> lhs = matchSpan(cmp.getLhs());
  std::optional<Span> rhs = matchSpan(cmp.getRhs());
  if (!lhs || !rhs || (!lhs->base && !rhs->base))
    return false;
  using Pred = arith::CmpIPredicate;
  switch (cmp.getPredicate()) {
  case Pred::slt:
  case Pred::sle:
    conjuncts.push_back({Value(), *lhs, *rhs, cmp.getPredicate() == Pred::sle});
    return true;
  case Pred::sgt:
  case Pred::sge:
    conjuncts.push_back({Value(), *rhs, *lhs, cmp.getPredicate() == Pred::sge});
    return true;
  default:
    return false;
  }
}

/// Builds the scalar i1 "every element of the mask is true".
class AllTrueBuilder {
public:
  AllTrueBuilder(OpBuilder &builder, Location loc) : b(builder), loc(loc) {}

  Value build(ArrayRef<Conjunct> conjuncts) {
    Value all;
    for (const Conjunct &c : conjuncts) {
      Value test = c.scalar ? c.scalar : compare(c);
      all = all ? arith::AndIOp::create(b, loc, all, test).getResult() : test;
    }
    return all;
  }

private:
  /// Every element of c.lhs below (or equal to) every element of c.rhs:
  /// the largest of one against the smallest of the other, in i64 so the
  /// ends cannot wrap, and each side's ends within i32 (else its elements
  /// wrapped and are not between them).
  Value compare(const Conjunct &c) {
    Value largest = end(c.lhs, c.lhs.hi);
    Value smallest = end(c.rhs, c.rhs.lo);
    Value test = arith::CmpIOp::create(
        b, loc, c.orEqual ? arith::CmpIPredicate::sle : arith::CmpIPredicate::slt,
        largest, smallest);
    for (const Span &span : {c.lhs, c.rhs}) {
      if (!span.base)
        continue;
      if (span.hi > 0)
        test = both(test, fitsI32(end(span, span.hi), arith::CmpIPredicate::sle,
                                  std::numeric_limits<int32_t>::max()));
      if (span.lo < 0)
        test = both(test, fitsI32(end(span, span.lo), arith::CmpIPredicate::sge,
                                  std::numeric_limits<int32_t>::min()));
    }
    return test;
  }

  /// base + offset as i64.
  Value end(const Span &span, int64_t offset) {
    if (!span.base)
      return constantI64(offset);
    Value wide = arith::ExtSIOp::create(b, loc, b.getI64Type(), span.base);
    if (!offset)
      return wide;
    return arith::AddIOp::create(b, loc, wide, constantI64(offset));
  }

  Value fitsI32(Value value, arith::CmpIPredicate pred, int64_t limit) {
    return arith::CmpIOp::create(b, loc, pred, value, constantI64(limit));
  }

  Value both(Value a, Value c) { return arith::AndIOp::create(b, loc, a, c); }

  Value constantI64(int64_t value) {
    return arith::ConstantIntOp::create(b, loc, value, 64);
  }

  OpBuilder &b;
  Location loc;
};

/// Clones the ops `value` is computed by in the mask's tree (everything
/// collectConjuncts and matchSpan walked), so the mask is computed where
/// the builder is; values from elsewhere are used as they are.
Value cloneMaskTree(Value value, OpBuilder &builder, IRMapping &mapping) {
  if (Value mapped = mapping.lookupOrNull(value))
    return mapped;
  Operation *def = value.getDefiningOp();
  if (!def || !isa<RankedTensorType>(value.getType()) ||
      !isa<ConvertLayoutOp, tile::BroadcastOp, tile::ExpandDimsOp,
           tile::SplatOp, tile::MakeRangeOp, arith::ConstantOp, arith::AddIOp,
           arith::AndIOp, arith::CmpIOp>(def))
    return value;
  for (Value operand : def->getOperands())
    cloneMaskTree(operand, builder, mapping);
  return builder.clone(*def, mapping)->getResult(0);
}

/// Adds the ops that compute the i1 tile `mask` (its compares, their
/// conjunction and moves) to `ops`.
void collectMaskOps(Value mask, SmallPtrSetImpl<Operation *> &ops) {
  Operation *def = mask.getDefiningOp();
  auto type = dyn_cast<RankedTensorType>(mask.getType());
  if (!def || !type || !type.getElementType().isInteger(1) ||
      !ops.insert(def).second)
    return;
  for (Value operand : def->getOperands())
    collectMaskOps(operand, ops);
}

/// True when the select is the only user of its mask's compares: the test
/// then saves them as well as the selects. Where a masked load shares them
/// they stay, and the unmasked value must be whole before the branch where
/// it could have been computed and selected an element at a time (more
/// registers live for a select per element saved).
bool ownsMask(arith::SelectOp select) {
  SmallPtrSet<Operation *, 8> ops;
  collectMaskOps(select.getCondition(), ops);
  return llvm::all_of(ops, [&](Operation *op) {
    return llvm::all_of(op->getUsers(), [&](Operation *user) {
      return user == select.getOperation() || ops.contains(user);
    });
  });
}

void versionSelect(arith::SelectOp select) {
  SmallVector<Conjunct> conjuncts;
  if (!ownsMask(select)) {
    LDBG() << "select at " << select.getLoc()
           << " stays: other ops use its mask's compares";
    return;
  }
  if (!collectConjuncts(select.getCondition(), conjuncts)) {
    LDBG() << "select at " << select.getLoc() << " stays: its mask is not a "
           << "conjunction of index range comparisons";
    return;
  }
  LDBG() << "select at " << select.getLoc() << ": unmasked where a test of "
         << conjuncts.size() << " comparison(s) finds the mask all true";
  OpBuilder builder(select);
  Location loc = select.getLoc();
  Value allTrue = AllTrueBuilder(builder, loc).build(conjuncts);
  auto branch = scf::IfOp::create(builder, loc, select.getType(), allTrue,
                                  /*withElseRegion=*/true);
  builder.setInsertionPointToStart(branch.thenBlock());
  scf::YieldOp::create(builder, loc, select.getTrueValue());
  builder.setInsertionPointToStart(branch.elseBlock());
  IRMapping mapping;
  Value mask = cloneMaskTree(select.getCondition(), builder, mapping);
  Value selected = arith::SelectOp::create(builder, loc, mask,
                                           select.getTrueValue(),
                                           select.getFalseValue());
  scf::YieldOp::create(builder, loc, selected);
  select.replaceAllUsesWith(branch.getResult(0));
  select.erase();
  // The mask's ops outside, erased once nothing uses them.
  SmallVector<Operation *> originals;
  for (auto [original, clone] : mapping.getValueMap())
    originals.push_back(original.getDefiningOp());
  for (bool erased = true; erased;) {
    erased = false;
    for (Operation *&op : originals)
      if (op && op->use_empty()) {
        op->erase();
        op = nullptr;
        erased = true;
      }
  }
}

struct VersionMasksPass
    : tilegpu::impl::TileGPUVersionMasksBase<VersionMasksPass> {
  void runOnOperation() override {
    SmallVector<arith::SelectOp> selects;
    getOperation().walk([&](arith::SelectOp select) {
      // Tiles selected by a tile mask, in loops: there a mask is usually
      // all true (a ragged edge is one iteration of many), where elsewhere
      // the test could as well fail and be paid for nothing.
      if (isa<RankedTensorType>(select.getCondition().getType()) &&
          select->getParentOfType<LoopLikeOpInterface>())
        selects.push_back(select);
    });
    for (arith::SelectOp select : selects)
      versionSelect(select);
  }
};

} // namespace
