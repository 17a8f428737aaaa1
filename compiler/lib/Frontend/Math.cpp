//===- Math.cpp - Elementwise math, selection and casts -------------------===//
//
// tl.where, tl.maximum and tl.minimum, the one-argument math functions
// (tl.exp ... tl.erf: math dialect ops, 16-bit floats computed in fp32 as
// Triton's libdevice calls are), tl.sigmoid, tl.clamp, tl.fma, tl.umulhi,
// the divisions and casts (`x.to`), with Triton's promotion of operands.
//
//===----------------------------------------------------------------------===//

#include "MLIRGenImpl.h"

using namespace mlir;
using namespace tilec;
using llvm::StringRef;
using llvm::Twine;

TValue MLIRGenImpl::minMax(bool max, const TValue &x, const TValue &y,
                           const ast::Location &l, bool propagateNan) {
  Type element = promote(x, y, l);
  if (tile::isFP8(element))
    failFP8Arithmetic(max ? "maximum" : "minimum", l);
  auto [a, b] = unify(x, y, element, l);
  Location location = loc(l);
  if (isa<FloatType>(element) && propagateNan)
    return TValue::ofValue(
        max ? (Value)arith::MaximumFOp::create(builder, location, a, b)
            : (Value)arith::MinimumFOp::create(builder, location, a, b));
  if (isa<FloatType>(element))
    return TValue::ofValue(
        max ? (Value)arith::MaxNumFOp::create(builder, location, a, b)
            : (Value)arith::MinNumFOp::create(builder, location, a, b));
  if (!element.isInteger())
    fail(l, Twine(max ? "max" : "min") + " needs numbers, got " +
                describe(element));
  if (isUnsignedInt(element))
    return TValue::ofValue(
        max ? (Value)arith::MaxUIOp::create(builder, location, a, b)
            : (Value)arith::MinUIOp::create(builder, location, a, b),
        true);
  return TValue::ofValue(
      max ? (Value)arith::MaxSIOp::create(builder, location, a, b)
          : (Value)arith::MinSIOp::create(builder, location, a, b));
}

TValue MLIRGenImpl::absolute(const TValue &x, const ast::Location &l) {
  Value v = toValue(x, l, "the argument");
  Type element = getElementTypeOrSelf(v.getType());
  if (isa<tile::PointerType>(element))
    fail(l, "abs needs a number, got " + describe(v.getType()));
  Location location = loc(l);
  if (x.isUnsigned)
    return x;
  return TValue::ofValue(
      isa<FloatType>(element)
          ? (Value)math::AbsFOp::create(builder, location, v)
          : (Value)math::AbsIOp::create(builder, location, v));
}

/// tl.exp, tl.exp2, tl.log, tl.log2, tl.sqrt (and sqrt_rn), tl.rsqrt,
/// tl.floor, tl.ceil, tl.sin, tl.cos, tl.erf and tl.abs of one value: 16-bit
/// floats compute in fp32, integers convert to fp32 first (tl.abs keeps
/// them).
TValue MLIRGenImpl::callMath(const std::string &name, const TValue &arg,
                             const ast::Location &l) {
  Location location = loc(l);
  Value x = toValue(arg, l, "the argument");
  Type element = getElementTypeOrSelf(x.getType());
  if (name == "tl.abs")
    return absolute(TValue::ofValue(x, arg.isUnsigned), l);
  if (!isa<FloatType>(element)) {
    if (!element.isInteger())
      fail(l, name + " needs a number, got " + describe(x.getType()));
    x = cast(x, builder.getF32Type(), l, arg.isUnsigned);
    element = builder.getF32Type();
  }
  // 16-bit floats compute in fp32, as Triton's libdevice calls do.
  Value wide = element.getIntOrFloatBitWidth() < 32
                   ? cast(x, builder.getF32Type(), l)
                   : x;
  Value r =
      name == "tl.exp"    ? (Value)math::ExpOp::create(builder, location, wide)
      : name == "tl.exp2" ? (Value)math::Exp2Op::create(builder, location, wide)
      : name == "tl.log"  ? (Value)math::LogOp::create(builder, location, wide)
      : name == "tl.log2" ? (Value)math::Log2Op::create(builder, location, wide)
      : name == "tl.rsqrt"
          ? (Value)math::RsqrtOp::create(builder, location, wide)
      : name == "tl.floor"
          ? (Value)math::FloorOp::create(builder, location, wide)
      : name == "tl.ceil" ? (Value)math::CeilOp::create(builder, location, wide)
      : name == "tl.sin"  ? (Value)math::SinOp::create(builder, location, wide)
      : name == "tl.cos"  ? (Value)math::CosOp::create(builder, location, wide)
      : name == "tl.erf"  ? (Value)math::ErfOp::create(builder, location, wide)
                         : (Value)math::SqrtOp::create(builder, location, wide);
  // tl.sqrt may approximate (Triton's is sqrt.approx); tl.sqrt_rn may not.
  if (name == "tl.sqrt")
    llvm::cast<math::SqrtOp>(r.getDefiningOp())
        .setFastmath(arith::FastMathFlags::afn);
  return TValue::ofValue(cast(r, element, l));
}

namespace {

using Kind = BuiltinKind;

TValue where(MLIRGenImpl &g, const BoundArgs &args, const ast::CallExpr &c) {
  Value cond = g.cast(g.toValue(*args.get(0), args.locs[0], "the condition"),
                      g.builder.getI1Type(), args.locs[0]);
  TValue x = *args.get(1), y = *args.get(2);
  // Of two constexprs, as Triton: both become scalar tensors, whose types
  // promote (where(c, 0, float("-inf")) is fp32).
  if (!x.isRuntime() && !y.isRuntime()) {
    x = g.tensorize(x, args.locs[1]);
    y = g.tensorize(y, args.locs[2]);
  }
  Type element = g.promote(x, y, c.loc);
  auto [a, b] = g.unify(x, y, element, c.loc);
  SmallVector<int64_t> shape =
      g.broadcastShapes(shapeOf(cond), shapeOf(a), c.loc);
  cond = g.broadcastTo(cond, shape, args.locs[0], "the condition");
  a = g.broadcastTo(a, shape, args.locs[1], "x");
  b = g.broadcastTo(b, shape, args.locs[2], "y");
  return TValue::ofValue(
      arith::SelectOp::create(g.builder, g.loc(c.loc), cond, a, b),
      hasUnsignedElements(element));
}

/// Whether propagate_nan (args.get(i)) is tl.PropagateNan.ALL.
static bool propagatesNan(const BoundArgs &args, unsigned i) {
  const TValue *p = args.get(i);
  return p && p->kind == TValue::Kind::Int && p->intValue() != 0;
}

/// tl.maximum and tl.minimum: the number where one operand is NaN, or NaN
/// with propagate_nan=tl.PropagateNan.ALL.
TValue maximum(MLIRGenImpl &g, const BoundArgs &args, const ast::CallExpr &c) {
  const TValue &x = *args.get(0), &y = *args.get(1);
  bool max = args.function == "tl.maximum";
  // Of two constexprs, as Triton: both become scalar tensors first.
  if (!x.isRuntime() && !y.isRuntime())
    return g.minMax(max, g.tensorize(x, args.locs[0]), y, c.loc,
                    propagatesNan(args, 2));
  return g.minMax(max, x, y, c.loc, propagatesNan(args, 2));
}

TValue unaryMath(MLIRGenImpl &g, const BoundArgs &args, const ast::CallExpr &) {
  return g.callMath(args.function, *args.get(0), args.locs[0]);
}

/// Triton's: 1 / (1 + exp(-x)), its '/' and exp.
TValue sigmoid(MLIRGenImpl &g, const BoundArgs &args, const ast::CallExpr &c) {
  const TValue &x = *args.get(0);
  TValue e = g.callMath(
      "tl.exp",
      g.binary(ast::BinaryOp::Sub, TValue::ofFloat(0.0), x, args.locs[0]),
      args.locs[0]);
  return g.binary(ast::BinaryOp::Div, TValue::ofFloat(1.0),
                  g.binary(ast::BinaryOp::Add, TValue::ofFloat(1.0), e, c.loc),
                  c.loc);
}

/// Triton's: minimum(maximum(x, min), max).
TValue clamp(MLIRGenImpl &g, const BoundArgs &args, const ast::CallExpr &) {
  bool nan = propagatesNan(args, 3);
  TValue lo = g.minMax(true, *args.get(0), *args.get(1), args.locs[1], nan);
  return g.minMax(false, lo, *args.get(2), args.locs[2], nan);
}

TValue fusedMultiplyAdd(MLIRGenImpl &g, const BoundArgs &args,
                        const ast::CallExpr &c) {
  const TValue &x = *args.get(0), &y = *args.get(1), &z = *args.get(2);
  // One element type and shape for the three.
  Type element = g.promote(x, y, c.loc);
  auto [a, b] = g.unify(x, y, element, c.loc);
  element = g.promote(TValue::ofValue(a), z, c.loc);
  if (!isa<FloatType>(element))
    g.fail(args.locs[0], "tl.fma needs floats, got " + g.describe(element));
  auto [a2, d] = g.unify(TValue::ofValue(a), z, element, c.loc);
  auto [b2, d2] =
      g.unify(TValue::ofValue(b), TValue::ofValue(d), element, c.loc);
  return TValue::ofValue(
      math::FmaOp::create(g.builder, g.loc(c.loc), a2, b2, d2));
}

/// The high 32 bits of the unsigned 64-bit product of two int32s.
TValue umulhi(MLIRGenImpl &g, const BoundArgs &args, const ast::CallExpr &c) {
  Location location = g.loc(c.loc);
  OpBuilder &b = g.builder;
  Type i32 = b.getI32Type(), i64 = b.getI64Type();
  auto [x, y] = g.unify(*args.get(0), *args.get(1), i32, c.loc);
  auto wide = [&](Value v) {
    Type t = isa<RankedTensorType>(v.getType())
                 ? (Type)RankedTensorType::get(shapeOf(v), i64)
                 : i64;
    return arith::ExtUIOp::create(b, location, t, v).getResult();
  };
  Value product = arith::MulIOp::create(b, location, wide(x), wide(y));
  Value shift = g.toValue(TValue::ofInt(32), c.loc, "the shift");
  Value high = arith::ShRUIOp::create(b, location, product,
                                      g.broadcastTo(g.cast(shift, i64, c.loc),
                                                    shapeOf(product), c.loc,
                                                    "the shift"));
  // Of the operands' type, as Triton's: int32, or uint32 from one.
  bool isUnsigned = args.get(0)->isUnsigned || args.get(1)->isUnsigned;
  return TValue::ofValue(g.cast(high, i32, c.loc), isUnsigned);
}

/// tl.div_rn, and tl.fdiv (correctly rounded with ieee_rounding=True).
TValue divide(MLIRGenImpl &g, const BoundArgs &args, const ast::CallExpr &c) {
  bool fdiv = args.function == "tl.fdiv";
  TValue q = g.binary(ast::BinaryOp::Div, *args.get(0), *args.get(1), c.loc);
  // Correctly rounded: without the `arcp` of Triton's '/'.
  bool ieee = !fdiv || g.isTrue(*args.get(2), args.locs[2]);
  if (ieee && q.isRuntime())
    if (auto divide = q.value.getDefiningOp<arith::DivFOp>())
      divide.setFastmath(arith::FastMathFlags::none);
  return q;
}

/// Triton's cdiv: (x + div - 1) // div, on constexprs or runtime values.
TValue cdiv(MLIRGenImpl &g, const BoundArgs &args, const ast::CallExpr &c) {
  const TValue &x = *args.get(0), &d = *args.get(1);
  TValue sum = g.binary(ast::BinaryOp::Add, x, d, c.loc);
  TValue minusOne = g.binary(ast::BinaryOp::Sub, sum, TValue::ofInt(1), c.loc);
  return g.binary(ast::BinaryOp::FloorDiv, minusOne, d, c.loc);
}

/// `x.to(dtype, fp_downcast_rounding=None, bitcast=False)` and tl.cast:
/// a conversion, or with bitcast=True the same bits as another type of the
/// same width. fp_downcast_rounding says how a float conversion to a
/// narrower float rounds: "rtne" (to nearest even, the default) or "rtz"
/// (toward zero: an arith.truncf of roundingmode toward_zero, cvt.rz on the
/// GPU).
TValue convert(MLIRGenImpl &g, const BoundArgs &args, const ast::CallExpr &c) {
  enum { Input, DType, Rounding, Bitcast };
  // tl.cast's input may be a number: a scalar of its default type, as
  // Triton's to_tensor makes it.
  const TValue &given = *args.get(Input);
  TValue self =
      given.isRuntime()
          ? given
          : TValue::ofValue(g.toValue(given, args.locs[Input], "the input"));
  Type to = g.dtypeArg(*args.get(DType), args.locs[DType], "the target type");
  Value v = self.value;
  Type from = getElementTypeOrSelf(v.getType());
  if (g.isTrue(*args.get(Bitcast), args.locs[Bitcast])) {
    if (isa<tile::PointerType>(from) || isa<tile::PointerType>(to) ||
        from.getIntOrFloatBitWidth() != to.getIntOrFloatBitWidth())
      g.fail(c.loc, "cannot bitcast " + g.describe(from) + " to " +
                        g.describe(to) +
                        ": a bitcast keeps the width (and takes no pointers)");
    Type result = tile::withElementType(v.getType(), signless(to));
    Value bits = result == v.getType()
                     ? v
                     : (Value)arith::BitcastOp::create(g.builder, g.loc(c.loc),
                                                       result, v);
    return TValue::ofValue(bits, isUnsignedInt(to));
  }
  // As Triton, a conversion to the same dtype checks nothing.
  const TValue *rounding = args.get(Rounding);
  if (!rounding || from == signless(to))
    return g.castTo(self, to, c.loc);
  const ast::Location &l = args.locs[Rounding];
  if (rounding->kind != TValue::Kind::String ||
      (rounding->text() != "rtne" && rounding->text() != "rtz"))
    g.fail(l, "fp_downcast_rounding must be \"rtne\" or \"rtz\", got " +
                  g.describe(*rounding));
  if (!isa<FloatType>(from) || !isa<FloatType>(to) ||
      to.getIntOrFloatBitWidth() >= from.getIntOrFloatBitWidth())
    g.fail(l, "fp_downcast_rounding is for conversions to a narrower float, "
              "not " +
                  g.describe(from) + " to " + g.describe(to));
  if (rounding->text() == "rtne")
    return g.castTo(self, to, c.loc);
  if (tile::isFP8(to))
    g.fail(l, "fp_downcast_rounding=\"rtz\" is not supported to fp8 (PTX "
              "converts to fp8 to nearest only)");
  auto towardZero = arith::RoundingModeAttr::get(
      &g.context, arith::RoundingMode::toward_zero);
  return TValue::ofValue(arith::TruncFOp::create(
      g.builder, g.loc(c.loc), tile::withElementType(v.getType(), to), v,
      towardZero, /*fastmath=*/nullptr));
}

#define MATH(NAME, WHAT)                                                       \
  { "tl." NAME, "x", Kind::Both, unaryMath, WHAT }
const BuiltinSpec kMath[] = {
    {"tl.where", "condition, x, y", Kind::Function, where,
     "elementwise x where condition, else y"},
    {"tl.maximum", "x, y, propagate_nan=None", Kind::Function, maximum,
     "elementwise; a NaN operand yields the other (NaN with "
     "propagate_nan=tl.PropagateNan.ALL)"},
    {"tl.minimum", "x, y, propagate_nan=None", Kind::Function, maximum,
     "elementwise; a NaN operand yields the other (NaN with "
     "propagate_nan=tl.PropagateNan.ALL)"},
    MATH("exp", "e^x, in fp32 for 16-bit floats"),
    MATH("exp2", "2^x"),
    MATH("log", "natural logarithm"),
    MATH("log2", "base-2 logarithm"),
    MATH("sqrt", "square root, approximate as Triton's (sqrt.approx)"),
    MATH("sqrt_rn", "square root, correctly rounded"),
    MATH("rsqrt", "1 / sqrt(x)"),
    MATH("floor", "rounds down"),
    MATH("ceil", "rounds up"),
    MATH("sin", "sine, through libdevice"),
    MATH("cos", "cosine, through libdevice"),
    MATH("erf", "the error function, through libdevice"),
    MATH("abs", "absolute value; integers stay integers"),
    {"tl.sigmoid", "x", Kind::Both, sigmoid, "1 / (1 + exp(-x))"},
    {"tl.clamp", "x, min, max, propagate_nan=None", Kind::Function, clamp,
     "minimum(maximum(x, min), max)"},
    {"tl.fma", "x, y, z", Kind::Function, fusedMultiplyAdd,
     "x * y + z, rounded once"},
    {"tl.umulhi", "x, y", Kind::Function, umulhi,
     "the high 32 bits of the 64-bit product of two int32s"},
    {"tl.div_rn", "x, y", Kind::Function, divide, "x / y, correctly rounded"},
    {"tl.fdiv", "x, y, ieee_rounding=False", Kind::Function, divide,
     "x / y; correctly rounded with ieee_rounding=True"},
    {"tl.cdiv", "x, div", Kind::Function, cdiv,
     "ceiling division (also triton.cdiv)"},
    {"tl.cast", "input, dtype, fp_downcast_rounding=None, bitcast=False",
     Kind::Both, convert, "x.to(dtype, ...) as a function"},
    {"tensor.to", "self, dtype, fp_downcast_rounding=None, bitcast=False",
     Kind::Method, convert,
     "converts to dtype (to a narrower float: to nearest even, or toward "
     "zero with fp_downcast_rounding=\"rtz\"); bitcast=True keeps the bits"},
};
#undef MATH

} // namespace

ArrayRef<BuiltinSpec> tilec::getMathBuiltins() { return kMath; }
