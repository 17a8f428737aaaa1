//===- TypeNames.cpp - The frontend's names of types ----------------------===//
//
// How the frontend reads a type from text (annotations, --signature, the
// JIT's argument types) and names one in its errors: through the kernel
// ABI's dtype table, so that every spelling tilec accepts is one the
// runtime reads.
//
//===----------------------------------------------------------------------===//

#include "MLIRGenImpl.h"

#include "tile/DType.h"
#include "tilec/Dialect/Tile/IR/DTypes.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace tilec;
using llvm::StringRef;

std::string MLIRGenImpl::describe(Type type) {
  if (auto tensor = dyn_cast<RankedTensorType>(type)) {
    std::string s = describe(tensor.getElementType()) + "[";
    llvm::raw_string_ostream os(s);
    llvm::interleaveComma(tensor.getShape(), os);
    return s + "]";
  }
  if (auto ptr = dyn_cast<mlir::tile::PointerType>(type))
    return "*" + describe(ptr.getPointeeType());
  if (std::optional<::tile::DType> dtype =
          mlir::tile::getDType(type, isUnsignedInt(type)))
    return std::string(::tile::name(*dtype));
  std::string s;
  llvm::raw_string_ostream os(s);
  os << type;
  return s;
}

std::string MLIRGenImpl::describeDType(Type dtype) {
  if (auto ptr = dyn_cast<mlir::tile::PointerType>(dtype))
    return "tl.pointer_type(" + describeDType(ptr.getPointeeType()) + ")";
  if (std::optional<::tile::DType> known =
          mlir::tile::getDType(dtype, isUnsignedInt(dtype)))
    return "tl." + std::string(::tile::info(*known).tritonName);
  return describe(dtype);
}

Type MLIRGenImpl::parseTypeString(StringRef text) {
  std::optional<::tile::ParamType> type =
      ::tile::ParamType::parse(text.trim().str());
  return type ? mlir::tile::getType(&context, *type) : Type();
}

std::optional<MLIRGenImpl::TypedText>
MLIRGenImpl::parseTypedText(StringRef text, const ast::Location &l,
                            const llvm::Twine &what) {
  std::string error;
  std::optional<::tile::SignatureType> entry =
      ::tile::parseSignatureType(text.str(), &error);
  if (!error.empty())
    fail(l, what + ": " + error);
  if (!entry)
    return std::nullopt;
  return TypedText{mlir::tile::getType(&context, entry->type), entry->hint};
}

/// tl.float16, tl.int32, ...: the ABI's dtypes by their triton.language
/// names (tilec/Dialect/Tile/IR/DTypes.h), and AMD's fp8 types, known so
/// that kernels can test for them (dtypeArg refuses them).
Type tilec::dtypeNamed(MLIRContext *context, StringRef name) {
  if (std::optional<::tile::DType> dtype = ::tile::parseDType(name.str());
      dtype && ::tile::info(*dtype).tritonName == std::string_view(name))
    return mlir::tile::getElementType(context, *dtype);
  Builder b(context);
  return llvm::StringSwitch<Type>(name)
      .Case("float8e4b8", b.getType<Float8E4M3FNUZType>())
      .Case("float8e5b16", b.getType<Float8E5M2FNUZType>())
      .Default(Type());
}

std::string tilec::tritonDTypeName(Type type) {
  std::optional<::tile::DType> dtype =
      mlir::tile::getDType(type, isUnsignedInt(type));
  if (!dtype)
    return "";
  const ::tile::DTypeInfo &row = ::tile::info(*dtype);
  return std::string(row.typeClass == ::tile::DTypeClass::Float
                         ? row.name
                         : row.tritonName);
}

Type tilec::tritonDTypeByName(MLIRContext *context, StringRef name) {
  for (const ::tile::DTypeInfo &row : ::tile::kDTypes) {
    Type type = mlir::tile::getElementType(context, row.dtype);
    if (tritonDTypeName(type) == name)
      return type;
  }
  return Type();
}
