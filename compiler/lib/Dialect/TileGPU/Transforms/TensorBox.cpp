//===- TensorBox.cpp - Loads that read a box of a strided tensor ----------===//

#include "TensorBox.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::tilegpu;

namespace {

/// `o + arange(n)` laid along dimension `dim` of the tile (1 elsewhere),
/// or `(o + arange(n)) % modulus`.
struct Index {
  int dim = -1;
  Value offset;  ///< scalar i32; null: 0
  Value modulus; ///< scalar i32; null: none
  bool operator==(const Index &other) const {
    return dim == other.dim && offset == other.offset &&
           modulus == other.modulus;
  }
};

/// One summand of an offset tile: an index times a scalar stride.
struct Term {
  Index index;
  Value stride; ///< scalar integer; null: 1
};

/// `v` without the ops that only move or widen its elements.
Value skipMoves(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    if (auto convert = dyn_cast<ConvertLayoutOp>(def))
      v = convert.getSrc();
    else if (auto broadcast = dyn_cast<tile::BroadcastOp>(def))
      v = broadcast.getSrc();
    else if (auto ext = dyn_cast<arith::ExtSIOp>(def);
             ext && isa<RankedTensorType>(ext.getType()))
      v = ext.getIn();
    else
      break;
  }
  return v;
}

/// The scalar that `v` splats, or null.
Value getSplatted(Value v) {
  auto splat = skipMoves(v).getDefiningOp<tile::SplatOp>();
  return splat ? splat.getSrc() : Value();
}

/// The only dimension of `type` longer than 1, or -1.
int getLongDim(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return -1;
  int dim = -1;
  for (auto [d, n] : llvm::enumerate(tensor.getShape()))
    if (n != 1) {
      if (dim >= 0)
        return -1;
      dim = int(d);
    }
  return dim;
}

/// `v` as an Index, if it is one.
std::optional<Index> matchIndex(Value v) {
  v = skipMoves(v);
  int dim = getLongDim(v.getType());
  if (dim < 0)
    return std::nullopt;
  Operation *def = v.getDefiningOp();
  if (auto expand = dyn_cast_or_null<tile::ExpandDimsOp>(def)) {
    std::optional<Index> inner = matchIndex(expand.getSrc());
    if (!inner)
      return std::nullopt;
    return Index{dim, inner->offset, inner->modulus};
  }
  if (auto rem = dyn_cast_or_null<arith::RemSIOp>(def)) {
    std::optional<Index> inner = matchIndex(rem.getLhs());
    Value modulus = getSplatted(rem.getRhs());
    if (!inner || inner->modulus || !modulus || !modulus.getType().isInteger(32))
      return std::nullopt;
    return Index{dim, inner->offset, modulus};
  }
  if (auto range = dyn_cast_or_null<tile::MakeRangeOp>(def)) {
    if (range.getStart() != 0)
      return std::nullopt;
    return Index{dim, Value()};
  }
  if (auto add = dyn_cast_or_null<arith::AddIOp>(def)) {
    for (auto [lhs, rhs] : {std::pair(add.getLhs(), add.getRhs()),
                            std::pair(add.getRhs(), add.getLhs())}) {
      Value offset = getSplatted(lhs);
      std::optional<Index> inner = matchIndex(rhs);
      if (offset && offset.getType().isInteger(32) && inner &&
          !inner->offset && !inner->modulus && inner->dim == dim)
        return Index{dim, offset};
    }
  }
  return std::nullopt;
}

/// Adds the terms of the integer tile `v` to `terms`; false when it has
/// another form. Zero splats add nothing.
bool collectTerms(Value v, SmallVectorImpl<Term> &terms) {
  v = skipMoves(v);
  if (Value scalar = getSplatted(v))
    return matchPattern(scalar, m_Zero());
  if (std::optional<Index> index = matchIndex(v)) {
    terms.push_back({*index, Value()});
    return true;
  }
  Operation *def = v.getDefiningOp();
  if (auto add = dyn_cast_or_null<arith::AddIOp>(def))
    return collectTerms(add.getLhs(), terms) &&
           collectTerms(add.getRhs(), terms);
  if (auto mul = dyn_cast_or_null<arith::MulIOp>(def)) {
    for (auto [lhs, rhs] : {std::pair(mul.getLhs(), mul.getRhs()),
                            std::pair(mul.getRhs(), mul.getLhs())}) {
      Value stride = getSplatted(rhs);
      std::optional<Index> index = matchIndex(lhs);
      if (!stride || !index)
        continue;
      if (matchPattern(stride, m_One()))
        stride = Value();
      terms.push_back({*index, stride});
      return true;
    }
  }
  return false;
}

/// Adds the upper bounds the mask `v` puts on indices to `bounds`; false
/// when it is something else than a conjunction of `index < extent` and
/// `index >= 0`.
bool collectBounds(Value v, SmallVectorImpl<std::pair<Index, Value>> &bounds) {
  v = skipMoves(v);
  Operation *def = v.getDefiningOp();
  if (auto conj = dyn_cast_or_null<arith::AndIOp>(def))
    return collectBounds(conj.getLhs(), bounds) &&
           collectBounds(conj.getRhs(), bounds);
  // A mask compared before it was expanded (`(o + arange(n) < N)[None, :]`):
  // its indices move one dimension up from the new axis on.
  if (auto expand = dyn_cast_or_null<tile::ExpandDimsOp>(def)) {
    SmallVector<std::pair<Index, Value>> inner;
    if (!collectBounds(expand.getSrc(), inner))
      return false;
    for (auto &[index, bound] : inner) {
      if (index.dim >= int(expand.getAxis()))
        ++index.dim;
      bounds.push_back({index, bound});
    }
    return true;
  }
  auto cmp = dyn_cast_or_null<arith::CmpIOp>(def);
  if (!cmp)
    return false;
  std::optional<Index> index = matchIndex(cmp.getLhs());
  Value bound = getSplatted(cmp.getRhs());
  if (!index || !bound)
    return false;
  // The copy engine reads coordinates below zero as outside the tensor too.
  if (cmp.getPredicate() == arith::CmpIPredicate::sge)
    return matchPattern(bound, m_Zero());
  if (cmp.getPredicate() != arith::CmpIPredicate::slt ||
      !bound.getType().isInteger(32))
    return false;
  bounds.push_back({*index, bound});
  return true;
}

/// Pointers carried by a loop and advanced by a scalar each iteration.
struct Advancing {
  Value init;  ///< the pointers of the first iteration
  Value delta; ///< the scalar the pointers advance by
};

/// `ptrs` as pointers that `loop` carries and advances, if they are.
std::optional<Advancing> matchAdvancing(Value ptrs, scf::ForOp loop) {
  auto arg = dyn_cast<BlockArgument>(skipMoves(ptrs));
  if (!arg || arg.getOwner() != loop.getBody() || arg.getArgNumber() == 0)
    return std::nullopt;
  unsigned index = arg.getArgNumber() - 1;
  Value next = loop.getBody()->getTerminator()->getOperand(index);
  auto add = skipMoves(next).getDefiningOp<tile::AddPtrOp>();
  if (!add || skipMoves(add.getPtr()) != arg)
    return std::nullopt;
  Value delta = getSplatted(add.getOffset());
  if (!delta)
    return std::nullopt;
  return Advancing{loop.getInitArgs()[index], delta};
}

/// `v` without a sign extension.
Value skipExtension(Value v) {
  if (auto ext = v.getDefiningOp<arith::ExtSIOp>())
    return ext.getIn();
  return v;
}

/// `init` as `ptrs + k * delta` (`delta` the scalar each iteration adds;
/// the product in 64 bits or not), the pointers of k iterations later (a
/// loop that starts part-way): ptrs and k, or {init, null}.
std::pair<Value, Value> peelIterations(Value init, Value delta) {
  auto add = init.getDefiningOp<tile::AddPtrOp>();
  Value offset = add ? getSplatted(add.getOffset()) : Value();
  auto mul = offset ? offset.getDefiningOp<arith::MulIOp>() : nullptr;
  if (!mul)
    return {init, Value()};
  for (auto [lhs, rhs] : {std::pair(mul.getLhs(), mul.getRhs()),
                          std::pair(mul.getRhs(), mul.getLhs())})
    if (skipExtension(lhs) == delta && skipExtension(rhs).getType().isInteger(32))
      return {add.getPtr(), skipExtension(rhs)};
  return {init, Value()};
}

/// The dimension whose index `delta` advances and by how much, given each
/// dimension's stride: `c` moves c elements along the unit-stride
/// dimension, `c * stride_d` (or `stride_d * c`) c along dimension d.
std::optional<std::pair<unsigned, int64_t>>
matchAdvance(Value delta, ArrayRef<Value> strides) {
  Value stride;
  std::optional<int64_t> count = getConstantIntValue(delta);
  if (auto mul = delta.getDefiningOp<arith::MulIOp>()) {
    for (auto [lhs, rhs] : {std::pair(mul.getLhs(), mul.getRhs()),
                            std::pair(mul.getRhs(), mul.getLhs())})
      if ((count = getConstantIntValue(rhs))) {
        stride = lhs;
        break;
      }
  } else if (!count) {
    stride = delta;
    count = 1;
  }
  if (!count || *count <= 0 || llvm::count(strides, stride) != 1)
    return std::nullopt;
  return std::pair(unsigned(llvm::find(strides, stride) - strides.begin()),
                   *count);
}

/// Whether `loop` starts `shift` iterations in (its lower bound is shift
/// steps), or at 0 where there is no shift.
bool startsAt(scf::ForOp loop, Value shift) {
  Value lower = loop.getLowerBound();
  std::optional<int64_t> step = getConstantIntValue(loop.getStep());
  if (!shift)
    return getConstantIntValue(lower) == 0;
  if (lower == shift)
    return step == 1;
  auto mul = lower.getDefiningOp<arith::MulIOp>();
  return mul && ((mul.getLhs() == shift && getConstantIntValue(mul.getRhs()) == step) ||
                 (mul.getRhs() == shift && getConstantIntValue(mul.getLhs()) == step));
}

/// The extent `E` of a bound `E - x` on the index of a dimension that
/// advances by `advance` per iteration of `loop`, where x is that many
/// times the iteration's number (counted from the box at its offset, past
/// `shift` iterations where the loop starts part-way): `E - k * advance`
/// for k counting iterations, or `E - k` for k stepping by `advance`.
Value matchShrinkingBound(Value bound, scf::ForOp loop, int64_t advance,
                          Value shift) {
  auto sub = bound.getDefiningOp<arith::SubIOp>();
  if (!sub || !loop.isDefinedOutsideOfLoop(sub.getLhs()))
    return Value();
  Value x = sub.getRhs();
  int64_t scale = 1;
  if (auto mul = x.getDefiningOp<arith::MulIOp>()) {
    for (auto [lhs, rhs] : {std::pair(mul.getLhs(), mul.getRhs()),
                            std::pair(mul.getRhs(), mul.getLhs())})
      if (std::optional<int64_t> c = getConstantIntValue(rhs)) {
        x = lhs;
        scale = *c;
        break;
      }
  }
  std::optional<int64_t> step = getConstantIntValue(loop.getStep());
  if (x != loop.getInductionVar() || !startsAt(loop, shift) || !step ||
      *step * scale != advance)
    return Value();
  return sub.getLhs();
}

/// The base pointer of `ptrs` and the terms of its offsets.
Value collectPointerTerms(Value ptrs, SmallVectorImpl<Term> &terms) {
  ptrs = skipMoves(ptrs);
  if (Value base = getSplatted(ptrs))
    return base;
  auto add = ptrs.getDefiningOp<tile::AddPtrOp>();
  if (!add || !collectTerms(add.getOffset(), terms))
    return Value();
  return collectPointerTerms(add.getPtr(), terms);
}

/// True when the mask `mask` of a store keeps `index < extent`.
bool keepsBelow(Value mask, const Index &index, Value extent) {
  SmallVector<std::pair<Index, Value>> bounds;
  if (!mask || !collectBounds(mask, bounds))
    return false;
  return llvm::any_of(bounds, [&](const auto &bound) {
    return bound.first == index && bound.second == extent;
  });
}

/// True when the elements of `load`'s tile whose `index` along `dim` lies
/// at or past `extent` never reach memory, so that they may hold anything:
/// the tile is only the A (dim 0) or B (dim 1) operand of a dot that
/// `loop` accumulates (each of whose rows, or columns, depends on the
/// operand's alone), and the accumulator leaves it only through elementwise
/// ops into stores masked by `index < extent`. This is how Triton's
/// tutorials wrap the rows of their edge tiles, `(o + arange) % M`: the
/// copy engine reads zeros there instead.
bool isUnobservablePast(tile::LoadOp load, unsigned dim, const Index &index,
                        Value extent, scf::ForOp loop) {
  if (!load->hasOneUse())
    return false;
  auto alloc = dyn_cast<LocalAllocOp>(*load->user_begin());
  if (!alloc || !alloc->hasOneUse())
    return false;
  auto dot = dyn_cast<tile::DotOp>(*alloc->user_begin());
  if (!dot || dot.getType().getRank() != 2 ||
      (dim == 0 ? dot.getA() : dot.getB()) != alloc.getResult() ||
      dot.getA() == dot.getB())
    return false;
  auto acc = dyn_cast<BlockArgument>(dot.getAcc());
  if (!acc || acc.getOwner() != loop.getBody() || acc.getArgNumber() == 0 ||
      !acc.hasOneUse())
    return false;
  unsigned carried = acc.getArgNumber() - 1;
  Operation *yield = loop.getBody()->getTerminator();

  // Everything the dot's result flows into: element for element, so that
  // the rows (or columns) past the extent stay apart from the others.
  // Values outside the flow do not depend on the tile at all (its only
  // reader is the dot), so elementwise ops may combine them with it.
  SmallVector<Value> worklist = {dot.getResult()};
  llvm::DenseSet<Value> derived;
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    if (!derived.insert(value).second)
      continue;
    for (OpOperand &use : value.getUses()) {
      Operation *user = use.getOwner();
      if (user == yield) {
        if (use.getOperandNumber() != carried)
          return false;
        worklist.push_back(loop.getResult(carried));
        continue;
      }
      if (auto store = dyn_cast<tile::StoreOp>(user)) {
        if (use.get() != store.getValue() || store.getPtr() == value ||
            store.getMask() == value ||
            !keepsBelow(store.getMask(), index, extent))
          return false;
        continue;
      }
      // Through the control flow that stream-K wraps around the epilogue:
      // the sum of the partials (scf.for) and the branch that yields it.
      if (auto forOp = dyn_cast<scf::ForOp>(user)) {
        if (!forOp.isDefinedOutsideOfLoop(use.get()) ||
            use.getOperandNumber() < forOp.getNumControlOperands())
          return false;
        worklist.push_back(forOp.getTiedLoopRegionIterArg(&use));
        worklist.push_back(forOp.getTiedLoopResult(&use));
        continue;
      }
      if (isa<scf::YieldOp>(user) &&
          isa<scf::ForOp, scf::IfOp>(user->getParentOp())) {
        worklist.push_back(user->getParentOp()->getResult(use.getOperandNumber()));
        continue;
      }
      // A stream-K partial reaches memory only through the accumulator of
      // the CTA that adds it, which is in this flow.
      if (isa<StreamKStoreOp>(user) && use.getOperandNumber() == 0)
        continue;
      bool elementwise = user->hasTrait<OpTrait::Elementwise>() ||
                         isa<ConvertLayoutOp, WarpgroupDotWaitOp,
                             ClusterSumOp, StreamKAddOp>(user);
      if (!elementwise || user->getNumRegions())
        return false;
      llvm::append_range(worklist, user->getResults());
    }
  }
  return true;
}

/// The box that the pointers `ptrs` under `mask` address: `load`'s, in
/// the iterations of `loop`, or (both null) a store's, which can neither
/// advance nor wrap.
std::optional<TensorBox> matchBox(Value ptrs, Value mask, tile::LoadOp load,
                                  scf::ForOp loop) {
  auto type = dyn_cast<RankedTensorType>(ptrs.getType());
  if (!type)
    return std::nullopt;
  unsigned rank = type.getRank();
  std::optional<Advancing> advancing;
  Value shift;
  if (loop && (advancing = matchAdvancing(ptrs, loop)))
    std::tie(ptrs, shift) = peelIterations(advancing->init, advancing->delta);
  SmallVector<Term> terms;
  Value base = collectPointerTerms(ptrs, terms);
  SmallVector<std::pair<Index, Value>> bounds;
  if (!base || terms.size() != rank || (mask && !collectBounds(mask, bounds)))
    return std::nullopt;

  TensorBox box;
  box.base = base;
  box.shift = shift;
  box.offsets.resize(rank);
  box.advances.assign(rank, 0);
  box.extents.resize(rank);
  box.strides.resize(rank);
  SmallVector<bool> seen(rank, false);
  unsigned boundsUsed = 0;
  for (const Term &term : terms) {
    int d = term.index.dim;
    if (d < 0 || seen[d] || type.getDimSize(d) == 1)
      return std::nullopt;
    seen[d] = true;
    box.offsets[d] = term.index.offset;
    box.strides[d] = term.stride;
    // Wrapped modulo an extent, it may end there if what lies past it is
    // never seen.
    if (Value modulus = term.index.modulus) {
      if (!load || !isUnobservablePast(load, d, Index{d, term.index.offset},
                                       modulus, loop))
        return std::nullopt;
      box.extents[d] = modulus;
      continue;
    }
    // Unmasked along d, the tensor ends where the box does (null).
    for (const auto &[index, bound] : bounds)
      if (index == term.index && !box.extents[d]) {
        box.extents[d] = bound;
        ++boundsUsed;
      }
  }
  // Every bound must be one of the box's.
  if (boundsUsed != bounds.size())
    return std::nullopt;
  if (advancing) {
    auto advance = matchAdvance(advancing->delta, box.strides);
    if (!advance)
      return std::nullopt;
    auto [d, count] = *advance;
    box.advances[d] = count;
    // A wrapped index does not advance as a box does.
    for (const Term &term : terms)
      if (term.index.dim == int(d) && term.index.modulus)
        return std::nullopt;
    if (box.extents[d]) {
      box.extents[d] = matchShrinkingBound(box.extents[d], loop, count, shift);
      if (!box.extents[d])
        return std::nullopt;
    } else if (shift) {
      // Unmasked, the tensor ends with the whole loop's last box, which a
      // loop that starts part-way does not know.
      return std::nullopt;
    }
  }
  return box;
}

} // namespace

std::optional<TensorBox> mlir::tilegpu::matchTensorBox(tile::LoadOp load,
                                                      scf::ForOp loop) {
  return matchBox(load.getPtr(), load.getMask(), load, loop);
}

std::optional<TensorBox> mlir::tilegpu::matchTensorBox(tile::StoreOp store) {
  return matchBox(store.getPtr(), store.getMask(), tile::LoadOp(), scf::ForOp());
}

std::optional<int32_t> mlir::tilegpu::getSwizzleBytes(SharedEncodingAttr encoding,
                                       unsigned elementBytes) {
  if (encoding.getVec() * elementBytes != 16)
    return std::nullopt;
  switch (encoding.getMaxPhase()) {
  case 8:
    return encoding.getPerPhase() == 1 ? std::optional<int32_t>(128) : std::nullopt;
  case 4:
    return encoding.getPerPhase() == 2 ? std::optional<int32_t>(64) : std::nullopt;
  case 2:
    return encoding.getPerPhase() == 4 ? std::optional<int32_t>(32) : std::nullopt;
  default:
    return std::nullopt;
  }
}

bool mlir::tilegpu::isAligned(tile::AxisInfoAnalysis &axis, Value value, unsigned elementBytes,
               int64_t bytes) {
  const tile::AxisInfo &info = axis.get(value);
  if (info.divisibility.empty())
    return false;
  int64_t unit = isa<tile::PointerType>(value.getType()) ? 1 : elementBytes;
  return info.divisibility.front() * unit % bytes == 0;
}

namespace {

/// Adds the terms `coord * stride` of the scalar integer `offset` to
/// `batch`: i32 coordinates (widened or not), 16-byte aligned strides;
/// false when it has another form.
bool collectBatchTerms(Value offset, tile::AxisInfoAnalysis &axis,
                       unsigned elementBytes, BatchOffset &batch) {
  if (auto add = offset.getDefiningOp<arith::AddIOp>())
    return collectBatchTerms(add.getLhs(), axis, elementBytes, batch) &&
           collectBatchTerms(add.getRhs(), axis, elementBytes, batch);
  auto mul = offset.getDefiningOp<arith::MulIOp>();
  if (!mul)
    return false;
  for (auto [coord, stride] : {std::pair(mul.getLhs(), mul.getRhs()),
                               std::pair(mul.getRhs(), mul.getLhs())}) {
    if (auto ext = coord.getDefiningOp<arith::ExtSIOp>())
      coord = ext.getIn();
    if (!coord.getType().isInteger(32) ||
        !isAligned(axis, stride, elementBytes, 16))
      continue;
    batch.coords.push_back(coord);
    batch.strides.push_back(stride);
    return true;
  }
  return false;
}

} // namespace

std::optional<BatchOffset> mlir::tilegpu::matchBatchOffset(Value base,
                                            tile::AxisInfoAnalysis &axis,
                                            unsigned elementBytes) {
  auto addPtr = base.getDefiningOp<tile::AddPtrOp>();
  if (!addPtr || !isAligned(axis, addPtr.getPtr(), elementBytes, 16))
    return std::nullopt;
  BatchOffset batch;
  batch.pointer = addPtr.getPtr();
  if (!collectBatchTerms(addPtr.getOffset(), axis, elementBytes, batch))
    return std::nullopt;
  return batch;
}
