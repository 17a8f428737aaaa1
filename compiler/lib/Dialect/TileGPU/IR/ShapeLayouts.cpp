//===- ShapeLayouts.cpp - Layouts that make shape ops free ----------------===//
//
// Every distributed layout is a list of bit moves (ThreadLayout), and each
// shape op maps a move of its source to a move of its result: tile.trans
// renames the dimension, tile.reshape re-reads a move as a row-major
// offset in the other shape (powers of two stay single moves), tile.join
// adds the register bit that picks the operand, tile.split removes it.
// Applying that map to a layout's moves gives the layout in which the op
// is free; applying it to the laid-out types' moves tells the lowering
// which register is which. Blocked layouts stay blocked where they can
// (readable IR, and what the FMA dot takes); the rest become linear.
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/TileGPU/IR/ShapeLayouts.h"
#include "tilec/Dialect/TileGPU/IR/ThreadLayout.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::tilegpu;

namespace {

/// A layout's moves in the tensor's own dimensions (sliced root dimensions
/// have none left: their size is 1), and the padded shape they cover.
struct Moves {
  SmallVector<LayoutBasis> reg, lane, warp;
  SmallVector<int64_t> shape;
};

std::optional<Moves> getMoves(RankedTensorType type, Attribute encoding) {
  std::optional<ThreadLayout> layout = ThreadLayout::get(RankedTensorType::get(
      type.getShape(), type.getElementType(), encoding));
  if (!layout)
    return std::nullopt;
  auto inTensorDims = [&](ArrayRef<LayoutBasis> bases) {
    SmallVector<LayoutBasis> result;
    for (LayoutBasis b : bases)
      result.push_back(b.isZero() ? b
                                  : LayoutBasis{layout->getTensorDim(b.dim),
                                                b.offset});
    return result;
  };
  return Moves{inTensorDims(layout->getRegBases()),
               inTensorDims(layout->getLaneBases()),
               inTensorDims(layout->getWarpBases()),
               layout->getPaddedTensorShape()};
}

/// The register bit that moves along the last dimension by one (the pair
/// of a join or split), and the other register moves; the bit is past the
/// end when there is none.
std::pair<unsigned, SmallVector<LayoutBasis>> findPairBit(const Moves &moves) {
  LayoutBasis pair{int(moves.shape.size()) - 1, 1};
  unsigned k = llvm::find(moves.reg, pair) - moves.reg.begin();
  SmallVector<LayoutBasis> rest(moves.reg);
  if (k < rest.size())
    rest.erase(rest.begin() + k);
  return {k, rest};
}

Attribute toLinear(MLIRContext *context, unsigned rank, const Moves &moves) {
  return LinearEncodingAttr::get(context, rank, moves.reg, moves.lane,
                                 moves.warp);
}

/// Each move renamed by `rename`.
Moves renamed(const Moves &moves,
              function_ref<LayoutBasis(LayoutBasis)> rename) {
  Moves result;
  for (auto [from, to] : {std::pair(&moves.reg, &result.reg),
                          std::pair(&moves.lane, &result.lane),
                          std::pair(&moves.warp, &result.warp)})
    for (LayoutBasis b : *from)
      to->push_back(b.isZero() ? b : rename(b));
  return result;
}

/// Result dimension i is source dimension order[i].
LayoutBasis permuteMove(LayoutBasis b, ArrayRef<int32_t> order) {
  int dim = llvm::find(order, b.dim) - order.begin();
  return {dim, b.offset};
}

/// A move of `from` (row-major) as a move of `to`: both shapes are powers
/// of two, so a power-of-two flat offset lies along one dimension of `to`.
LayoutBasis reshapeMove(LayoutBasis b, ArrayRef<int64_t> from,
                        ArrayRef<int64_t> to) {
  int64_t flat = b.offset;
  for (size_t d = b.dim + 1; d < from.size(); ++d)
    flat *= from[d];
  int64_t stride = 1;
  for (int d = int(to.size()) - 1; d >= 0; --d) {
    if (flat < stride * to[d])
      return {d, flat / stride};
    stride *= to[d];
  }
  return {};
}

bool isPowerOf2Shape(ArrayRef<int64_t> shape) {
  return llvm::all_of(shape, [](int64_t s) { return llvm::isPowerOf2_64(s); });
}

Attribute permuteEncoding(RankedTensorType type, Attribute encoding,
                          ArrayRef<int32_t> order) {
  MLIRContext *context = type.getContext();
  if (auto blocked = dyn_cast<BlockedEncodingAttr>(encoding)) {
    auto permute = [&](ArrayRef<unsigned> values) {
      SmallVector<unsigned> result;
      for (int32_t d : order)
        result.push_back(values[d]);
      return result;
    };
    SmallVector<unsigned> fastFirst;
    for (unsigned d : blocked.getOrder())
      fastFirst.push_back(llvm::find(order, int32_t(d)) - order.begin());
    return BlockedEncodingAttr::get(
        context, permute(blocked.getSizePerThread()),
        permute(blocked.getThreadsPerWarp()), permute(blocked.getWarpsPerCTA()),
        fastFirst);
  }
  std::optional<Moves> moves = getMoves(type, encoding);
  if (!moves)
    return {};
  return toLinear(context, order.size(), renamed(*moves, [&](LayoutBasis b) {
                    return permuteMove(b, order);
                  }));
}

Attribute reshapeEncoding(RankedTensorType type, Attribute encoding,
                          ArrayRef<int64_t> to) {
  std::optional<Moves> moves = getMoves(type, encoding);
  if (!moves || ArrayRef<int64_t>(moves->shape) != type.getShape() ||
      !isPowerOf2Shape(to))
    return {};
  return toLinear(type.getContext(), to.size(),
                  renamed(*moves, [&](LayoutBasis b) {
                    return reshapeMove(b, type.getShape(), to);
                  }));
}

/// The layout of join(x, y) for operands in `encoding`: a new last
/// dimension of 2, in the lowest register bit.
Attribute appendPairEncoding(RankedTensorType type, Attribute encoding) {
  MLIRContext *context = type.getContext();
  unsigned rank = type.getRank();
  if (auto blocked = dyn_cast<BlockedEncodingAttr>(encoding)) {
    auto append = [](ArrayRef<unsigned> values, unsigned last) {
      SmallVector<unsigned> result(values);
      result.push_back(last);
      return result;
    };
    SmallVector<unsigned> order = {rank};
    llvm::append_range(order, blocked.getOrder());
    return BlockedEncodingAttr::get(
        context, append(blocked.getSizePerThread(), 2),
        append(blocked.getThreadsPerWarp(), 1),
        append(blocked.getWarpsPerCTA(), 1), order);
  }
  std::optional<Moves> moves = getMoves(type, encoding);
  if (!moves)
    return {};
  moves->reg.insert(moves->reg.begin(), LayoutBasis{int(rank), 1});
  return toLinear(context, rank + 1, *moves);
}

/// The layout of each half of split(x) for x in `encoding`; null unless
/// each thread holds both halves of its elements.
Attribute dropPairEncoding(RankedTensorType type, Attribute encoding) {
  MLIRContext *context = type.getContext();
  unsigned last = type.getRank() - 1;
  std::optional<Moves> moves = getMoves(type, encoding);
  if (!moves || last == 0)
    return {};
  auto [pairBit, rest] = findPairBit(*moves);
  if (pairBit == moves->reg.size())
    return {};
  if (auto blocked = dyn_cast<BlockedEncodingAttr>(encoding);
      blocked && blocked.getOrder().front() == last &&
      blocked.getSizePerThread()[last] == 2 &&
      blocked.getThreadsPerWarp()[last] == 1 &&
      blocked.getWarpsPerCTA()[last] == 1) {
    auto drop = [&](ArrayRef<unsigned> values) {
      return SmallVector<unsigned>(values.drop_back());
    };
    return BlockedEncodingAttr::get(
        context, drop(blocked.getSizePerThread()),
        drop(blocked.getThreadsPerWarp()), drop(blocked.getWarpsPerCTA()),
        SmallVector<unsigned>(blocked.getOrder().drop_front()));
  }
  moves->reg = rest;
  return toLinear(context, last, *moves);
}

RankedTensorType tensorOperandType(Operation *op) {
  return cast<RankedTensorType>(op->getOperand(0).getType());
}

RankedTensorType tensorResultType(Operation *op) {
  return dyn_cast<RankedTensorType>(op->getResult(0).getType());
}

SmallVector<int32_t> inverse(ArrayRef<int32_t> order) {
  SmallVector<int32_t> result(order.size());
  for (auto [i, d] : llvm::enumerate(order))
    result[d] = int32_t(i);
  return result;
}

/// Registers `bits` of a thread numbered by another list of moves: bit j of
/// the result is bit `position[j]` of the source.
unsigned gatherBits(unsigned e, ArrayRef<unsigned> position) {
  unsigned result = 0;
  for (auto [j, p] : llvm::enumerate(position))
    if (e >> j & 1)
      result |= 1u << p;
  return result;
}

/// For each move of `to`, the index of the equal move in `from`; nothing
/// unless the two are the same moves in some order.
std::optional<SmallVector<unsigned>> matchMoves(ArrayRef<LayoutBasis> from,
                                                ArrayRef<LayoutBasis> to) {
  if (from.size() != to.size())
    return std::nullopt;
  SmallVector<unsigned> position;
  for (LayoutBasis b : to) {
    auto it = llvm::find(from, b);
    if (it == from.end())
      return std::nullopt;
    position.push_back(it - from.begin());
  }
  return position;
}

} // namespace

bool mlir::tilegpu::isShapeOp(Operation *op) {
  if (isa<tile::ReduceOp, tile::ReduceWithOp>(op))
    return isa<RankedTensorType>(op->getResult(0).getType());
  return isa<tile::TransOp, tile::ReshapeOp, tile::JoinOp, tile::SplitOp,
             tile::ExpandDimsOp>(op);
}

Attribute mlir::tilegpu::inferResultEncoding(Operation *op, Attribute source) {
  if (!source || !isShapeOp(op))
    return {};
  RankedTensorType type = tensorOperandType(op);
  return TypeSwitch<Operation *, Attribute>(op)
      .Case<tile::ReduceOp, tile::ReduceWithOp>([&](auto reduce) -> Attribute {
        return SliceEncodingAttr::get(op->getContext(), reduce.getAxis(),
                                      source);
      })
      .Case([&](tile::TransOp trans) {
        return permuteEncoding(type, source, trans.getOrder());
      })
      .Case([&](tile::ReshapeOp reshape) {
        return reshapeEncoding(type, source, reshape.getType().getShape());
      })
      .Case([&](tile::JoinOp) { return appendPairEncoding(type, source); })
      .Case([&](tile::SplitOp) { return dropPairEncoding(type, source); })
      .Default([](Operation *) { return Attribute(); });
}

Attribute mlir::tilegpu::inferSourceEncoding(Operation *op, Attribute result) {
  if (!result || !isShapeOp(op))
    return {};
  RankedTensorType type = tensorResultType(op);
  return TypeSwitch<Operation *, Attribute>(op)
      .Case([&](tile::ExpandDimsOp expand) -> Attribute {
        return SliceEncodingAttr::get(op->getContext(), expand.getAxis(),
                                      result);
      })
      .Case([&](tile::TransOp trans) {
        return permuteEncoding(type, result, inverse(trans.getOrder()));
      })
      .Case([&](tile::ReshapeOp reshape) {
        return reshapeEncoding(type, result,
                               reshape.getSrc().getType().getShape());
      })
      .Case([&](tile::JoinOp) { return dropPairEncoding(type, result); })
      .Case([&](tile::SplitOp) { return appendPairEncoding(type, result); })
      .Default([](Operation *) { return Attribute(); });
}

std::optional<SmallVector<SmallVector<SourceRegister>>>
mlir::tilegpu::getRegisterSources(Operation *op) {
  auto movesOf = [](Value v) -> std::optional<Moves> {
    auto type = dyn_cast<RankedTensorType>(v.getType());
    if (!type)
      return std::nullopt;
    return getMoves(type, type.getEncoding());
  };
  std::optional<Moves> src = movesOf(op->getOperand(0));
  std::optional<Moves> dst = movesOf(op->getResult(0));
  if (!src || !dst)
    return std::nullopt;
  auto sameThreads = [](const Moves &a, const Moves &b) {
    return a.lane == b.lane && a.warp == b.warp;
  };
  SmallVector<SmallVector<SourceRegister>> sources(op->getNumResults());
  unsigned numElems = 1u << dst->reg.size();

  if (isa<tile::TransOp, tile::ReshapeOp>(op)) {
    Moves moved;
    if (auto trans = dyn_cast<tile::TransOp>(op)) {
      moved = renamed(*src, [&](LayoutBasis b) {
        return permuteMove(b, trans.getOrder());
      });
    } else {
      if (src->shape != SmallVector<int64_t>(tensorOperandType(op).getShape()) ||
          dst->shape != SmallVector<int64_t>(tensorResultType(op).getShape()))
        return std::nullopt; // padded: positions are not row-major offsets
      moved = renamed(*src, [&](LayoutBasis b) {
        return reshapeMove(b, src->shape, dst->shape);
      });
    }
    std::optional<SmallVector<unsigned>> position =
        matchMoves(moved.reg, dst->reg);
    if (!position || !sameThreads(moved, *dst))
      return std::nullopt;
    for (unsigned e = 0; e < numElems; ++e)
      sources[0].push_back({0, gatherBits(e, *position)});
    return sources;
  }

  if (isa<tile::JoinOp>(op)) {
    // The result's pair bit picks the operand; the others are the
    // operands' registers.
    auto [k, rest] = findPairBit(*dst);
    std::optional<SmallVector<unsigned>> position;
    if (k < dst->reg.size())
      position = matchMoves(src->reg, rest);
    if (!position || !sameThreads(*src, *dst))
      return std::nullopt;
    for (unsigned e = 0; e < numElems; ++e) {
      unsigned low = e & ((1u << k) - 1), high = e >> (k + 1);
      sources[0].push_back(
          {e >> k & 1, gatherBits(low | high << k, *position)});
    }
    return sources;
  }

  if (isa<tile::SplitOp>(op)) {
    auto [k, rest] = findPairBit(*src);
    std::optional<SmallVector<unsigned>> position;
    if (k < src->reg.size())
      position = matchMoves(rest, dst->reg);
    if (!position || !sameThreads(*src, *dst))
      return std::nullopt;
    for (unsigned half = 0; half < 2; ++half)
      for (unsigned e = 0; e < numElems; ++e) {
        unsigned r = gatherBits(e, *position); // in `rest` numbering
        unsigned low = r & ((1u << k) - 1), high = r >> k;
        sources[half].push_back({0, low | half << k | high << (k + 1)});
      }
    return sources;
  }
  return std::nullopt;
}
