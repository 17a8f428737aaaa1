//===- Libdevice.cpp - tl.extra.cuda.libdevice ----------------------------===//
//
// `libdevice.asin(x)` and the other float functions of CUDA's libdevice
// (the table in Libdevice.h) become tile.extern_elementwise calls of
// `__nv_asinf` (fp32) or `__nv_asin` (fp64). Integers and 16-bit floats
// compute in fp32, and the result stays fp32, as in Triton.
// Its bit counts, `libdevice.popc(x)` and `libdevice.clz(x)`, are one math
// op each (math.ctpop, math.ctlz), which the interpreter computes and LLVM
// lowers to PTX's popc and clz, as libdevice's __nv_popc[ll] and
// __nv_clz[ll] are: of an int32 or int64, an int32, as in Triton.
//
//===----------------------------------------------------------------------===//

#include "MLIRGenImpl.h"

#include "tilec/Dialect/Tile/IR/Libdevice.h"

#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace tilec;
using llvm::StringRef;
using llvm::Twine;

namespace {

/// libdevice's integer functions that are one math op.
struct BitCount {
  StringRef name;
  Value (*create)(OpBuilder &builder, Location loc, Value x);
};
const BitCount kBitCounts[] = {
    {"popc",
     [](OpBuilder &b, Location l, Value x) -> Value {
       return math::CtPopOp::create(b, l, x);
     }},
    {"clz",
     [](OpBuilder &b, Location l, Value x) -> Value {
       return math::CountLeadingZerosOp::create(b, l, x);
     }},
};

const BitCount *lookupBitCount(StringRef name) {
  for (const BitCount &f : kBitCounts)
    if (f.name == name)
      return &f;
  return nullptr;
}

/// `libdevice.popc(x)`, `libdevice.clz(x)`: x of int32 or int64 (uint32 and
/// uint64 too: the bits are what count), the count an int32.
TValue bitCount(MLIRGenImpl &g, const BitCount &function,
                const ast::CallExpr &c, const std::string &name) {
  BuiltinParam param{"arg0", "", /*variadic=*/false};
  BoundArgs args = g.bindArgs(c, name, param);
  g.completeArgs(args, param, c);
  Value x = g.toValue(*args.get(0), args.locs[0], "the argument");
  Type element = getElementTypeOrSelf(x.getType());
  if (!element.isInteger(32) && !element.isInteger(64))
    g.fail(args.locs[0], name + " needs a 32- or 64-bit integer, got " +
                             g.describe(*args.get(0)));
  Value count = function.create(g.builder, g.loc(c.loc), x);
  return TValue::ofValue(g.cast(count, g.builder.getI32Type(), c.loc));
}

} // namespace

bool MLIRGenImpl::isLibdeviceFunction(StringRef name) {
  return tile::lookupLibdevice(name) || lookupBitCount(name);
}

TValue MLIRGenImpl::genLibdevice(const ast::CallExpr &c,
                                 const std::string &name) {
  StringRef stem = StringRef(name).drop_front(strlen("libdevice."));
  if (const BitCount *count = lookupBitCount(stem))
    return bitCount(*this, *count, c, name);
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
