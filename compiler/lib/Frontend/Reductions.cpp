//===- Reductions.cpp - tl.sum, max, min, xor_sum, argmax, argmin ---------===//
//
// Triton 3.6's reductions along an axis (or all of them), and
// tl.histogram; their parameters are the table's rows at the end of this
// file.
//
// Small integers are summed in int32 and max/min of narrow types work in 32
// bits, as in Triton. An arg-reduction is the reduction, then the first
// (or with tie_break_left=False the last) index along the axis holding its
// value; a NaN beats every number, as Triton's combine functions have it
// (`a > b or a != a`), so the first NaN's index wins where there is one.
//
//===----------------------------------------------------------------------===//

#include "MLIRGenImpl.h"

using namespace mlir;
using namespace tilec;
using llvm::StringRef;
using llvm::Twine;

/// `x` reduced by `kind` along `axes` (innermost first, so that the others
/// keep their numbers); the result loses those dimensions.
static Value reduceAlong(OpBuilder &builder, Location location, Value x,
                         tile::ReduceKind kind, ArrayRef<int64_t> axes) {
  for (int64_t axis : axes)
    x = tile::ReduceOp::create(
        builder, location,
        tile::getReducedType(llvm::cast<RankedTensorType>(x.getType()), axis),
        x, kind, int32_t(axis));
  return x;
}

/// A reduction's result with its reduced dimensions back, of extent 1.
static Value keepDims(OpBuilder &builder, Location location, Value x,
                      ArrayRef<int64_t> shape, ArrayRef<int64_t> axes) {
  SmallVector<int64_t> kept(shape);
  for (int64_t axis : axes)
    kept[axis] = 1;
  auto keptType = RankedTensorType::get(kept, getElementTypeOrSelf(x.getType()));
  if (shapeOf(x).empty())
    return tile::SplatOp::create(builder, location, keptType, x);
  return tile::ExpandDimsOp::create(builder, location, keptType, x,
                                    builder.getI32IntegerAttr(axes.front()));
}

TValue MLIRGenImpl::genReduction(const BoundArgs &args,
                                 const ast::CallExpr &c) {
  Location location = loc(c.loc);
  const std::string &name = args.function;
  StringRef fn = StringRef(name).drop_front(3); // "tl."
  bool isSum = fn == "sum", isXor = fn == "xor_sum";
  bool isArg = fn == "argmax" || fn == "argmin";
  bool isMax = fn == "max" || fn == "argmax";
  enum { Input, Axis, Third, Fourth, Fifth };
  auto flag = [&](unsigned i, bool byDefault) {
    return args.get(i) ? isTrue(*args.get(i), args.locs[i]) : byDefault;
  };
  bool keep = flag(isSum ? Third : isXor ? Third : isArg ? Fourth : Fifth, false);
  bool withIndices = isArg || (!isSum && !isXor && flag(Third, false));
  // Only the arg and max/min forms have a tie-break parameter.
  bool tieLeft = isArg                ? flag(Third, true)
                 : !isSum && !isXor ? flag(Fourth, true)
                                    : true;

  Value x = toValue(*args.get(Input), args.locs[Input], "the input");
  bool inputUnsigned = args.get(Input)->isUnsigned;
  auto type = dyn_cast<RankedTensorType>(x.getType());
  if (!type)
    fail(args.locs[Input], name + " needs a tile, got " + describe(x.getType()));
  Type element = type.getElementType();
  if (isa<tile::PointerType>(element))
    fail(args.locs[Input], name + " cannot reduce pointers");
  if (isXor && !element.isInteger())
    fail(args.locs[Input], "tl.xor_sum needs integers, got " + describe(element));
  // fp8 compares in fp32 (as every float narrower than 32 bits); a sum
  // would compute in fp8.
  if (isSum && tile::isFP8(element) &&
      !(args.get(Fourth) && args.get(Fourth)->kind != TValue::Kind::None))
    failFP8Arithmetic("tl.sum", c.loc);

  int64_t rank = type.getRank();
  SmallVector<int64_t> axes;
  bool allAxes = !args.get(Axis) || args.get(Axis)->kind == TValue::Kind::None;
  if (allAxes && withIndices && rank > 1) {
    // The index of an element of the whole tile: along it flattened.
    for (int64_t d : type.getShape())
      if (!llvm::isPowerOf2_64(d))
        fail(args.locs[Input], name + " over all axes needs power-of-two "
                                      "dimensions, as in Triton");
    x = tile::ReshapeOp::create(
        builder, location,
        RankedTensorType::get({type.getNumElements()}, element), x);
    type = llvm::cast<RankedTensorType>(x.getType());
    rank = 1;
  }
  if (allAxes) {
    for (int64_t d = rank - 1; d >= 0; --d)
      axes.push_back(d);
  } else {
    int64_t axis = constInt(*args.get(Axis), args.locs[Axis], "axis");
    if (axis < -rank || axis >= rank)
      fail(args.locs[Axis], "axis " + Twine(axis) + " is out of range for a " +
                                Twine(rank) + "-D tile");
    axes.push_back(axis < 0 ? axis + rank : axis);
  }

  // The type the reduction works in: small integers sum in (u)int32 and
  // compare in int32, as in Triton.
  Type dtype = dtypeOf(*args.get(Input));
  Type work = dtype;
  if (isSum && args.get(Fourth) && args.get(Fourth)->kind != TValue::Kind::None)
    work = dtypeArg(*args.get(Fourth), args.locs[Fourth], "dtype");
  else if ((isSum || isXor) && element.isInteger() &&
           element.getIntOrFloatBitWidth() < 32)
    work = isUnsignedInt(dtype) ? builder.getIntegerType(32, /*isSigned=*/false)
                                : builder.getI32Type();
  else if (!isSum && !isXor && element.getIntOrFloatBitWidth() < 32)
    work = element.isInteger() ? (Type)builder.getI32Type()
                               : (Type)builder.getF32Type();
  bool workUnsigned = isUnsignedInt(work);
  x = cast(x, work, c.loc, inputUnsigned);
  tile::ReduceKind kind = isSum   ? tile::ReduceKind::Sum
                          : isXor ? tile::ReduceKind::Xor
                          : isMax ? tile::ReduceKind::Max
                                  : tile::ReduceKind::Min;
  // Unsigned max and min are signed ones with the sign bit flipped going in
  // and coming out: the flip maps unsigned order onto signed order.
  bool flipSign = workUnsigned && !isSum && !isXor;
  auto flip = [&](Value v) {
    if (!flipSign)
      return v;
    Type t = getElementTypeOrSelf(v.getType());
    Value bit = arith::ConstantOp::create(
        builder, location,
        builder.getIntegerAttr(t, llvm::APInt::getSignMask(t.getIntOrFloatBitWidth())));
    return (Value)arith::XOrIOp::create(
        builder, location, v, broadcastTo(bit, shapeOf(v), c.loc, "the sign"));
  };
  x = flip(x);
  Value reduced = flip(reduceAlong(builder, location, x, kind, axes));
  bool resultUnsigned = workUnsigned;
  if (isXor) {
    reduced = cast(reduced, dtype, c.loc, workUnsigned);
    resultUnsigned = inputUnsigned;
  }
  if (!withIndices)
    return TValue::ofValue(keep ? keepDims(builder, location, reduced,
                                           type.getShape(), axes)
                                : reduced,
                           resultUnsigned);

  // The index: where x holds the reduced value. max and min pass NaNs over
  // (maxnum), so a NaN is found only where all are NaN, and then the
  // first or last one is.
  int64_t axis = axes.front();
  ArrayRef<int64_t> shape = type.getShape();
  const ast::Location &l = c.loc;
  // (x is flipped for an unsigned max or min: compare it with the flipped
  // result.)
  TValue xv = TValue::ofValue(x);
  TValue best = TValue::ofValue(keepDims(builder, location, flip(reduced), shape, axes));
  TValue hit = compare(ast::CompareOp::Eq, xv, best, l);
  if (isa<FloatType>(work)) {
    TValue allNan = compare(ast::CompareOp::Ne, best, best, l);
    hit = binary(ast::BinaryOp::BitOr, hit, allNan, l);
  }
  Value index = broadcastTo(rangeAlong(shape[axis], axis, rank, l), shape, l,
                            "the index");
  Value none = broadcastTo(
      arith::ConstantOp::create(builder, location,
                                builder.getI32IntegerAttr(tieLeft ? INT32_MAX : -1)),
      shape, l, "the index");
  Value candidates = arith::SelectOp::create(
      builder, location, broadcastTo(hit.value, shape, l, "the match"), index,
      none);
  Value indices = reduceAlong(builder, location, candidates,
                              tieLeft ? tile::ReduceKind::Min
                                      : tile::ReduceKind::Max,
                              axes);
  if (keep) {
    reduced = keepDims(builder, location, reduced, shape, axes);
    indices = keepDims(builder, location, indices, shape, axes);
  }
  if (isArg)
    return TValue::ofValue(indices);
  return TValue::ofTuple(
      {TValue::ofValue(reduced, resultUnsigned), TValue::ofValue(indices)});
}

TValue MLIRGenImpl::genHistogram(const BoundArgs &args,
                                 const ast::CallExpr &c) {
  Value x = toValue(*args.get(0), args.locs[0], "the input");
  auto type = dyn_cast<RankedTensorType>(x.getType());
  if (!type || type.getRank() != 1 || !type.getElementType().isInteger() ||
      type.getElementType().isInteger(1))
    fail(args.locs[0], "tl.histogram counts a 1-D tile of integers, got " +
                           describe(x.getType()));
  int64_t bins = constInt(*args.get(1), args.locs[1], "num_bins");
  if (bins < 1 || bins > (int64_t(1) << 20))
    fail(args.locs[1], "num_bins must be from 1 to 2^20, got " + Twine(bins));
  Value mask;
  if (const TValue *given = args.get(2);
      given && given->kind != TValue::Kind::None) {
    mask = broadcastTo(toValue(*given, args.locs[2], "the mask"),
                       type.getShape(), args.locs[2], "the mask");
    if (!getElementTypeOrSelf(mask.getType()).isInteger(1))
      fail(args.locs[2], "the mask of tl.histogram must be boolean, got " +
                             describe(mask.getType()));
  }
  auto result = RankedTensorType::get({bins}, builder.getI32Type());
  return TValue::ofValue(
      tile::HistogramOp::create(builder, loc(c.loc), result, x, mask));
}

namespace {

using Kind = BuiltinKind;
constexpr BuiltinHandler kReduce = member<&MLIRGenImpl::genReduction>;

const BuiltinSpec kReductions[] = {
    {"tl.sum", "input, axis=None, keep_dims=False, dtype=None", Kind::Both,
     kReduce, "sum along an axis or all; small integers in int32"},
    {"tl.max",
     "input, axis=None, return_indices=False, "
     "return_indices_tie_break_left=True, keep_dims=False",
     Kind::Both, kReduce, "maximum along an axis or all, with its index"},
    {"tl.min",
     "input, axis=None, return_indices=False, "
     "return_indices_tie_break_left=True, keep_dims=False",
     Kind::Both, kReduce, "minimum along an axis or all, with its index"},
    {"tl.xor_sum", "input, axis=None, keep_dims=False", Kind::Both, kReduce,
     "xor of integers along an axis or all"},
    {"tl.argmax", "input, axis, tie_break_left=True, keep_dims=False",
     Kind::Both, kReduce,
     "index of the maximum (the first among ties; NaN beats numbers)"},
    {"tl.argmin", "input, axis, tie_break_left=True, keep_dims=False",
     Kind::Both, kReduce, "index of the minimum (the first among ties)"},
    {"tl.histogram", "input, num_bins, mask=None", Kind::Both,
     member<&MLIRGenImpl::genHistogram>,
     "int32 counts of 0..num_bins-1 in a 1-D tile; others uncounted"},
};

} // namespace

ArrayRef<BuiltinSpec> tilec::getReductionBuiltins() { return kReductions; }
