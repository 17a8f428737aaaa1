//===- Sort.cpp - tl.sort, tl.topk, tl.flip: networks of butterflies ------===//
//
// Triton 3.6's sorting functions (standard.py; their parameters: the
// table's rows at the end of this file): sort and topk (the k largest, in
// descending order) on the last dimension, flip along any.
//
// sort is Triton's bitonic network, stage for stage, so that its result is
// Triton's bit for bit even where the order is not total (NaNs, -0.0 and
// 0.0): stage s merges sequences of 2^s, comparing each element with its
// partner 2^j away for j = s-1 down to 0 (a tile.butterfly). An element
// takes its partner's value where `(x > partner) != (flip ^ is_right)`:
// is_right says it is the second of the pair, flip that its sequence
// descends (every other sequence of 2^s, and in the last stage all of them
// when descending). topk sorts runs of k the same way, then keeps the
// larger half of each pair of runs (the max of two elements, in 32 bits for
// narrower types, as Triton's tl.max) and merges again, until k remain.
// Unsigned integers compare as unsigned.
//
//===----------------------------------------------------------------------===//

#include "MLIRGenImpl.h"

using namespace mlir;
using namespace tilec;
using llvm::Twine;

namespace {

/// Bitonic merges on the last dimension of tiles.
class Bitonic {
public:
  Bitonic(MLIRGenImpl &g, const ast::Location &l) : g(g), l(l), location(g.loc(l)) {}

  /// Whether bit `j` of each position along the last dimension of `x` is
  /// set: an i1 tile of shape [1, ..., n].
  TValue positionBit(Value x, int64_t j) {
    auto type = cast<RankedTensorType>(x.getType());
    TValue column = TValue::ofValue(
        g.rangeAlong(type.getShape().back(), type.getRank() - 1, type.getRank(), l));
    TValue shifted = g.binary(ast::BinaryOp::RShift, column, TValue::ofInt(j), l);
    TValue low = g.binary(ast::BinaryOp::BitAnd, shifted, TValue::ofInt(1), l);
    return g.compare(ast::CompareOp::Ne, low, TValue::ofInt(0), l);
  }

  /// Stage `stage` of the network: compare-and-swap at bits stage-1 .. 0.
  /// `flip` is an i1 tile, or a bool for every element; `isUnsigned` says
  /// how x's integers compare.
  Value merge(Value x, int64_t stage, const TValue &flip, bool isUnsigned) {
    int32_t axis = int32_t(cast<RankedTensorType>(x.getType()).getRank() - 1);
    for (int64_t j = stage - 1; j >= 0; --j) {
      Value partner = tile::ButterflyOp::create(g.builder, location, x.getType(),
                                                x, axis, int32_t(j));
      TValue outOfOrder =
          g.compare(ast::CompareOp::Gt, TValue::ofValue(x, isUnsigned),
                    TValue::ofValue(partner, isUnsigned), l);
      TValue isRight = positionBit(x, j);
      TValue swap =
          flip.kind == TValue::Kind::Bool
              ? g.compare(flip.intValue() ? ast::CompareOp::Eq : ast::CompareOp::Ne,
                          outOfOrder, isRight, l)
              : g.compare(ast::CompareOp::Ne, outOfOrder,
                          g.binary(ast::BinaryOp::BitXor, flip, isRight, l), l);
      x = arith::SelectOp::create(g.builder, location, swap.value, partner, x);
    }
    return x;
  }

  /// Where the sequence holding each element descends in stage `stage` of
  /// `stages`: alternately, and in the last one as `descending` says.
  TValue flipOf(Value x, int64_t stage, int64_t stages, bool descending) {
    return stage < stages ? positionBit(x, stage) : TValue::ofBool(descending);
  }

  /// The larger of each element and its partner across bit `bit` of the
  /// last dimension, kept once: the last dimension halves. As tl.max, in
  /// 32 bits for narrower types (an unsigned one widened to int32), and
  /// unsigned where x is at least 32 bits and unsigned.
  Value maxAcross(Value x, int64_t bit, bool &isUnsigned) {
    auto type = cast<RankedTensorType>(x.getType());
    Type element = type.getElementType();
    if (element.getIntOrFloatBitWidth() < 32) {
      element = isa<FloatType>(element) ? (Type)g.builder.getF32Type()
                                        : (Type)g.builder.getI32Type();
      x = g.cast(x, element, l, isUnsigned);
      isUnsigned = false;
    }
    int64_t run = int64_t(1) << bit;
    int64_t pairs = type.getNumElements() / (2 * run);
    Value cube = tile::ReshapeOp::create(
        g.builder, location, RankedTensorType::get({pairs, 2, run}, element), x);
    // Of two elements: the larger of them, by a compare and select.
    auto [low, high] = splitPairs(cube);
    TValue larger = g.minMax(/*max=*/true, TValue::ofValue(low, isUnsigned),
                             TValue::ofValue(high, isUnsigned), l);
    SmallVector<int64_t> shape(type.getShape());
    shape.back() /= 2;
    return tile::ReshapeOp::create(g.builder, location,
                                   RankedTensorType::get(shape, element),
                                   larger.value);
  }

  /// The two halves of a [pairs, 2, run] tile along its middle dimension.
  std::pair<Value, Value> splitPairs(Value cube) {
    auto type = cast<RankedTensorType>(cube.getType());
    int64_t pairs = type.getDimSize(0), run = type.getDimSize(2);
    Type element = type.getElementType();
    Value moved = tile::TransOp::create(
        g.builder, location, RankedTensorType::get({pairs, run, 2}, element),
        cube, g.builder.getDenseI32ArrayAttr({0, 2, 1}));
    auto half = RankedTensorType::get({pairs, run}, element);
    auto split = tile::SplitOp::create(g.builder, location, half, half, moved);
    return {split.getLhs(), split.getRhs()};
  }

private:
  MLIRGenImpl &g;
  const ast::Location &l;
  Location location;
};

} // namespace

TValue MLIRGenImpl::genSort(const BoundArgs &args, const ast::CallExpr &c) {
  const std::string &name = args.function;
  bool isTopk = name == "tl.topk", isFlip = name == "tl.flip";
  unsigned dimIndex = isTopk ? 2 : 1;
  Value x = toValue(*args.get(0), args.locs[0], "the input");
  bool isUnsigned = args.get(0)->isUnsigned;
  auto type = dyn_cast<RankedTensorType>(x.getType());
  if (!type)
    fail(args.locs[0], name + " needs a tile, got " + describe(x.getType()));
  if (isa<tile::PointerType>(type.getElementType()))
    fail(args.locs[0], name + " cannot order pointers");
  int64_t rank = type.getRank();
  int64_t dim = rank - 1;
  if (const TValue *given = args.get(dimIndex);
      given && given->kind != TValue::Kind::None) {
    dim = constInt(*given, args.locs[dimIndex], "dim");
    if (dim < -rank || dim >= rank)
      fail(args.locs[dimIndex], "dim " + Twine(dim) + " is out of range for a " +
                                    Twine(rank) + "-D tile");
    if (dim < 0)
      dim += rank;
    if (!isFlip && dim != rank - 1)
      fail(args.locs[dimIndex], name + " sorts along the last dimension only "
                                       "(dim " + Twine(rank - 1) +
                                       "), as in Triton; got dim " + Twine(dim));
  }
  int64_t n = type.getDimSize(dim);
  if (!llvm::isPowerOf2_64(n))
    fail(args.locs[0], name + " needs a power-of-two extent along dim " +
                           Twine(dim) + ", got " + Twine(n));
  int64_t stages = llvm::Log2_64(n);
  Location location = loc(c.loc);

  if (isFlip) {
    for (int64_t j = 0; j < stages; ++j)
      x = tile::ButterflyOp::create(builder, location, x.getType(), x,
                                    int32_t(dim), int32_t(j));
    return TValue::ofValue(x, isUnsigned);
  }

  Bitonic network(*this, c.loc);
  if (!isTopk) {
    bool descending = args.get(2) && isTrue(*args.get(2), args.locs[2]);
    for (int64_t s = 1; s <= stages; ++s)
      x = network.merge(x, s, network.flipOf(x, s, stages, descending),
                        isUnsigned);
    return TValue::ofValue(x, isUnsigned);
  }

  int64_t k = constInt(*args.get(1), args.locs[1], "k");
  if (k < 1 || k > n || !llvm::isPowerOf2_64(k))
    fail(args.locs[1], "tl.topk needs k a power of two from 1 to " + Twine(n) +
                           ", got " + Twine(k));
  int64_t logK = llvm::Log2_64(k);
  for (int64_t s = 1; s <= logK; ++s)
    x = network.merge(x, s, network.flipOf(x, s, stages, true), isUnsigned);
  for (int64_t s = logK + 1; s <= stages; ++s) {
    // Runs of k alternate again, now by bit logK of the halved positions.
    x = network.maxAcross(x, logK, isUnsigned);
    x = network.merge(x, logK,
                      s < stages ? network.positionBit(x, logK)
                                 : TValue::ofBool(true),
                      isUnsigned);
  }
  return TValue::ofValue(x, isUnsigned);
}

namespace {

using Kind = BuiltinKind;
constexpr BuiltinHandler kSort = member<&MLIRGenImpl::genSort>;

const BuiltinSpec kSorts[] = {
    {"tl.sort", "x, dim=None, descending=False", Kind::Both, kSort,
     "bitonic sort along the last dimension (power-of-two extent)"},
    {"tl.topk", "x, k, dim=None", Kind::Both, kSort,
     "the k largest along the last dimension, in descending order"},
    {"tl.flip", "x, dim=None", Kind::Both, kSort,
     "reverses along a dimension (the last by default)"},
};

} // namespace

ArrayRef<BuiltinSpec> tilec::getSortBuiltins() { return kSorts; }
