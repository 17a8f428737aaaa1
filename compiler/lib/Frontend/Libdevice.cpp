//===- Libdevice.cpp - tl.extra.cuda.libdevice ----------------------------===//
//
// `libdevice.asin(x)` and the other float functions of CUDA's libdevice
// (the table in Libdevice.h) become tile.extern_elementwise calls of
// `__nv_asinf` (fp32) or `__nv_asin` (fp64). Integers and 16-bit floats
// compute in fp32, and the result stays fp32, as in Triton.
// Its functions giving an int32 of one operand, the bit counts
// (`libdevice.popc(x)`, clz, ffs) and the float classes (isinf, isnan,
// finitef, isfinited, signbit), are a few arith and math ops each, which
// the interpreter computes and LLVM lowers to PTX's popc, clz, setp..., as
// libdevice's own bodies are.
//
//===----------------------------------------------------------------------===//

#include "MLIRGenImpl.h"

#include "tilec/Dialect/Tile/IR/Libdevice.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace tilec;
using llvm::StringRef;
using llvm::Twine;

namespace {

/// libdevice's functions of one operand that give an int32 and are a few
/// arith and math ops (which LLVM lowers to the instructions libdevice's
/// own bodies use): the bit counts of an integer and the classes of a
/// float, 1 or 0.
struct IntFunction {
  StringRef name;
  /// Whether the operand is a float (16-bit floats compute in fp32, as
  /// Triton's calls do) or a 32- or 64-bit integer.
  bool ofFloat;
  Value (*create)(OpBuilder &builder, Location loc, Value x);
};

/// A constant of `x`'s type, a tile's splat.
Value constantLike(OpBuilder &b, Location l, Value x, TypedAttr element) {
  if (auto tensor = dyn_cast<RankedTensorType>(x.getType()))
    return arith::ConstantOp::create(b, l,
                                     DenseElementsAttr::get(tensor, element));
  return arith::ConstantOp::create(b, l, element);
}
Value infinity(OpBuilder &b, Location l, Value x) {
  auto element = cast<FloatType>(getElementTypeOrSelf(x.getType()));
  return constantLike(
      b, l, x,
      FloatAttr::get(element, APFloat::getInf(element.getFloatSemantics())));
}
Value compareMagnitude(OpBuilder &b, Location l, Value x,
                       arith::CmpFPredicate predicate) {
  return arith::CmpFOp::create(b, l, predicate, math::AbsFOp::create(b, l, x),
                               infinity(b, l, x));
}

const IntFunction kIntFunctions[] = {
    {"popc", false,
     [](OpBuilder &b, Location l, Value x) -> Value {
       return math::CtPopOp::create(b, l, x);
     }},
    {"clz", false,
     [](OpBuilder &b, Location l, Value x) -> Value {
       return math::CountLeadingZerosOp::create(b, l, x);
     }},
    // The 1-based position of the lowest set bit, 0 for 0.
    {"ffs", false,
     [](OpBuilder &b, Location l, Value x) -> Value {
       Value zero = arith::ConstantOp::create(b, l, b.getZeroAttr(x.getType()));
       Value one = arith::ConstantOp::create(b, l, b.getOneAttr(x.getType()));
       Value position = arith::AddIOp::create(
           b, l, math::CountTrailingZerosOp::create(b, l, x), one);
       Value isZero =
           arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, x, zero);
       return arith::SelectOp::create(b, l, isZero, zero, position);
     }},
    {"isinf", true,
     [](OpBuilder &b, Location l, Value x) -> Value {
       return compareMagnitude(b, l, x, arith::CmpFPredicate::OEQ);
     }},
    {"isnan", true,
     [](OpBuilder &b, Location l, Value x) -> Value {
       return arith::CmpFOp::create(b, l, arith::CmpFPredicate::UNO, x, x);
     }},
    {"finitef", true,
     [](OpBuilder &b, Location l, Value x) -> Value {
       return compareMagnitude(b, l, x, arith::CmpFPredicate::OLT);
     }},
    {"isfinited", true,
     [](OpBuilder &b, Location l, Value x) -> Value {
       return compareMagnitude(b, l, x, arith::CmpFPredicate::OLT);
     }},
    // The sign bit, of NaNs and zeros too.
    {"signbit", true,
     [](OpBuilder &b, Location l, Value x) -> Value {
       Type element = getElementTypeOrSelf(x.getType());
       unsigned width = element.getIntOrFloatBitWidth();
       Type bitsType = b.getIntegerType(width);
       if (auto tensor = dyn_cast<RankedTensorType>(x.getType()))
         bitsType = RankedTensorType::get(tensor.getShape(), bitsType);
       Value bits = arith::BitcastOp::create(b, l, bitsType, x);
       Value shift = constantLike(
           b, l, bits, b.getIntegerAttr(b.getIntegerType(width), width - 1));
       return arith::ShRUIOp::create(b, l, bits, shift);
     }},
};

const IntFunction *lookupIntFunction(StringRef name) {
  for (const IntFunction &f : kIntFunctions)
    if (f.name == name)
      return &f;
  return nullptr;
}

/// `libdevice.popc(x)`, `libdevice.isinf(x)`, ...: the int32 result of
/// one operand (an integer's bits count whether it is signed or not).
TValue intFunction(MLIRGenImpl &g, const IntFunction &function,
                   const ast::CallExpr &c, const std::string &name) {
  BuiltinParam param{"arg0", "", /*variadic=*/false};
  BoundArgs args = g.bindArgs(c, name, param);
  g.completeArgs(args, param, c);
  Value x = g.toValue(*args.get(0), args.locs[0], "the argument");
  Type element = getElementTypeOrSelf(x.getType());
  if (function.ofFloat) {
    if (!isa<FloatType>(element))
      g.fail(args.locs[0],
             name + " needs a float, got " + g.describe(*args.get(0)));
    if (!element.isF64())
      x = g.cast(x, g.builder.getF32Type(), c.loc);
  } else if (!element.isInteger(32) && !element.isInteger(64)) {
    g.fail(args.locs[0], name + " needs a 32- or 64-bit integer, got " +
                             g.describe(*args.get(0)));
  }
  Value result = function.create(g.builder, g.loc(c.loc), x);
  return TValue::ofValue(g.cast(result, g.builder.getI32Type(), c.loc));
}

} // namespace

bool MLIRGenImpl::isLibdeviceFunction(StringRef name) {
  return tile::lookupLibdevice(name) || lookupIntFunction(name);
}

TValue MLIRGenImpl::genLibdevice(const ast::CallExpr &c,
                                 const std::string &name) {
  StringRef stem = StringRef(name).drop_front(strlen("libdevice."));
  if (const IntFunction *function = lookupIntFunction(stem))
    return intFunction(*this, *function, c, name);
  const tile::LibdeviceFunction &function = *tile::lookupLibdevice(stem);
  SmallVector<BuiltinParam, 3> params;
  for (unsigned i = 0; i < function.arity; ++i)
    params.push_back({"arg" + std::to_string(i), "", /*variadic=*/false});
  BoundArgs args = bindArgs(c, name, params);
  completeArgs(args, params, c);

  // One shape and element type for all operands: fp64 if any is, else fp32.
  SmallVector<Value, 3> operands;
  bool anyF64 = false;
  for (unsigned i = 0; i < function.arity; ++i) {
    Value operand = toValue(*args.get(i), args.locs[i], "the argument");
    Type element = getElementTypeOrSelf(operand.getType());
    if (!isa<FloatType>(element) && !element.isInteger())
      fail(args.locs[i], name + " needs numbers, got " + describe(element));
    anyF64 |= element.isF64();
    operands.push_back(operand);
  }
  Type compute = anyF64 ? builder.getF64Type() : builder.getF32Type();
  for (unsigned i = 1; i < function.arity; ++i)
    std::tie(operands[0], operands[i]) =
        unify(TValue::ofValue(operands[0]), TValue::ofValue(operands[i]),
              compute, args.locs[i]);
  for (Value &operand : operands)
    operand = broadcastTo(cast(operand, compute, c.loc), shapeOf(operands[0]),
                          c.loc, "the argument");

  Type resultType = compute;
  if (auto tensor = dyn_cast<RankedTensorType>(operands[0].getType()))
    resultType = RankedTensorType::get(tensor.getShape(), compute);
  Value result = tile::ExternElementwiseOp::create(
      builder, loc(c.loc), resultType, operands,
      builder.getStringAttr(tile::getLibdeviceSymbol(function, compute)));
  return TValue::ofValue(result);
}
