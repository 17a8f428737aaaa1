//===- TileDialect.cpp - The tile dialect and its types -------------------===//

#include "tilec/Dialect/Tile/IR/Tile.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::tile;

#include "tilec/Dialect/Tile/IR/TileDialect.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "tilec/Dialect/Tile/IR/TileTypes.cpp.inc"

void TileDialect::initialize() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "tilec/Dialect/Tile/IR/TileTypes.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "tilec/Dialect/Tile/IR/TileOps.cpp.inc"
      >();
}

Type mlir::tile::withElementType(Type type, Type elementType) {
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    return RankedTensorType::get(tensor.getShape(), elementType,
                                 tensor.getEncoding());
  return elementType;
}

bool mlir::tile::isFP8(Type type) {
  return isa<Float8E5M2Type, Float8E4M3FNType>(getElementTypeOrSelf(type));
}

Type mlir::tile::getReducedType(RankedTensorType src, int64_t axis) {
  if (src.getRank() == 1)
    return src.getElementType();
  SmallVector<int64_t> shape(src.getShape());
  shape.erase(shape.begin() + axis);
  return RankedTensorType::get(shape, src.getElementType());
}

Type mlir::tile::getPointeeType(Type ptrLike) {
  auto ptr = dyn_cast<PointerType>(getElementTypeOrSelf(ptrLike));
  if (!ptr)
    return Type();
  return withElementType(ptrLike, ptr.getPointeeType());
}

bool mlir::tile::isAtomicElementType(std::optional<AtomicRMWKind> kind,
                                     Type element) {
  if (!element.isIntOrFloat() || element.isInteger(1))
    return false;
  unsigned bits = element.getIntOrFloatBitWidth();
  bool int3264 = element.isInteger(32) || element.isInteger(64);
  bool float3264 = element.isF32() || element.isF64();
  if (!kind)
    return bits == 16 || bits == 32 || bits == 64;
  switch (*kind) {
  case AtomicRMWKind::Add:
    return int3264 || float3264 || element.isF16() || element.isBF16();
  case AtomicRMWKind::Max:
  case AtomicRMWKind::Min:
  case AtomicRMWKind::Xchg:
    return int3264 || float3264;
  case AtomicRMWKind::And:
  case AtomicRMWKind::Or:
  case AtomicRMWKind::Xor:
  case AtomicRMWKind::UMax:
  case AtomicRMWKind::UMin:
    return int3264;
  }
  return false;
}

bool mlir::tile::isCacheModifierFor(CacheModifier cache, bool isLoad) {
  switch (cache) {
  case CacheModifier::None:
  case CacheModifier::CG:
    return true;
  case CacheModifier::CA:
  case CacheModifier::CV:
    return isLoad;
  case CacheModifier::CS:
  case CacheModifier::WB:
  case CacheModifier::WT:
    return !isLoad;
  }
  return false;
}

Type mlir::tile::getI1SameShape(Type type) {
  return withElementType(type, IntegerType::get(type.getContext(), 1));
}
