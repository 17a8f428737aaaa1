//===- DTypes.cpp - The ABI's dtypes as MLIR types ------------------------===//

#include "tilec/Dialect/Tile/IR/DTypes.h"

#include "tilec/Dialect/Tile/IR/Tile.h"

#include "mlir/IR/Builders.h"

using namespace mlir;
using ::tile::DType;

Type mlir::tile::getElementType(MLIRContext *context, DType dtype) {
  Builder b(context);
  const ::tile::DTypeInfo &info = ::tile::info(dtype);
  switch (dtype) {
  case DType::FP8E5:
    return b.getType<Float8E5M2Type>();
  case DType::FP8E4NV:
    return b.getType<Float8E4M3FNType>();
  case DType::FP16:
    return b.getF16Type();
  case DType::BF16:
    return b.getBF16Type();
  case DType::FP32:
    return b.getF32Type();
  case DType::FP64:
    return b.getF64Type();
  default:
    break;
  }
  if (::tile::isUnsigned(dtype))
    return b.getIntegerType(info.bits, /*isSigned=*/false);
  return b.getIntegerType(info.bits);
}

std::optional<DType> mlir::tile::getDType(Type type, bool isUnsigned) {
  if (auto integer = dyn_cast<IntegerType>(type)) {
    if (integer.getWidth() == 1)
      return DType::I1;
    return ::tile::integerDType(integer.getWidth(),
                                isUnsigned || integer.isUnsigned());
  }
  for (const ::tile::DTypeInfo &row : ::tile::kDTypes)
    if (::tile::isFloat(row.dtype) &&
        getElementType(type.getContext(), row.dtype) == type)
      return row.dtype;
  return std::nullopt;
}

Type mlir::tile::getType(MLIRContext *context, ::tile::ParamType type) {
  Type element = getElementType(context, type.dtype);
  return type.isPointer ? PointerType::get(context, element) : element;
}

std::optional<::tile::ParamType> mlir::tile::getParamType(Type type,
                                                          bool isUnsigned) {
  bool pointer = false;
  if (auto ptr = dyn_cast<PointerType>(type)) {
    pointer = true;
    type = ptr.getPointeeType();
  }
  std::optional<DType> dtype = getDType(type, isUnsigned);
  if (!dtype)
    return std::nullopt;
  return ::tile::ParamType{*dtype, pointer};
}
