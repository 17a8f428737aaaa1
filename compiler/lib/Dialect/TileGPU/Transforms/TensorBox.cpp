//===- TensorBox.cpp - Loads that read a box of a strided tensor ----------===//

#include "TensorBox.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::tilegpu;

namespace {

/// `o + arange(n)` laid along dimension `dim` of the tile (1 elsewhere).
struct Index {
  int dim = -1;
  Value offset; ///< scalar i32; null: 0
  bool operator==(const Index &other) const {
    return dim == other.dim && offset == other.offset;
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
    return Index{dim, inner->offset};
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
          !inner->offset && inner->dim == dim)
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

} // namespace

std::optional<TensorBox> mlir::tilegpu::matchTensorBox(tile::LoadOp load) {
  auto type = dyn_cast<RankedTensorType>(load.getPtr().getType());
  if (!type || !load.getMask())
    return std::nullopt;
  unsigned rank = type.getRank();
  SmallVector<Term> terms;
  Value base = collectPointerTerms(load.getPtr(), terms);
  SmallVector<std::pair<Index, Value>> bounds;
  if (!base || !collectBounds(load.getMask(), bounds) ||
      terms.size() != rank || bounds.size() != rank)
    return std::nullopt;

  TensorBox box;
  box.base = base;
  box.offsets.resize(rank);
  box.extents.resize(rank);
  box.strides.resize(rank);
  SmallVector<bool> seen(rank, false);
  for (const Term &term : terms) {
    int d = term.index.dim;
    if (d < 0 || seen[d] || type.getDimSize(d) == 1)
      return std::nullopt;
    seen[d] = true;
    auto bound = llvm::find_if(bounds, [&](const auto &b) {
      return b.first == term.index;
    });
    if (bound == bounds.end())
      return std::nullopt;
    box.offsets[d] = term.index.offset;
    box.extents[d] = bound->second;
    box.strides[d] = term.stride;
  }
  return box;
}
