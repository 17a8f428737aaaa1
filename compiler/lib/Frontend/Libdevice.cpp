//===- Libdevice.cpp - tl.extra.cuda.libdevice ----------------------------===//
//
// `libdevice.asin(x)` and the other float functions of CUDA's libdevice
// (the table in Libdevice.h) become tile.extern_elementwise calls of
// `__nv_asinf` (fp32) or `__nv_asin` (fp64). Integers and 16-bit floats
// compute in fp32, and the result stays fp32, as in Triton.
//
//===----------------------------------------------------------------------===//

#include "MLIRGenImpl.h"

#include "tilec/Dialect/Tile/IR/Libdevice.h"

using namespace mlir;
using namespace tilec;
using llvm::StringRef;
using llvm::Twine;

TValue MLIRGenImpl::genLibdevice(const ast::CallExpr &c,
                                 const std::string &name) {
  const tile::LibdeviceFunction &function =
      *tile::lookupLibdevice(StringRef(name).drop_front(strlen("libdevice.")));
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
