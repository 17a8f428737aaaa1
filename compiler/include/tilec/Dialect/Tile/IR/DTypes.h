//===- DTypes.h - The ABI's dtypes as MLIR types ----------------*- C++ -*-===//
//
// The one mapping between the kernel ABI's dtype table (tile/DType.h) and
// the element types of the tile dialect. Unsigned integers are MLIR's
// unsigned integer types in the frontend's IR; after that, signless
// integers with the tile.unsigned marker on a kernel's argument.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_DIALECT_TILE_IR_DTYPES_H
#define TILEC_DIALECT_TILE_IR_DTYPES_H

#include "tile/DType.h"

#include "mlir/IR/Types.h"

#include <optional>

namespace mlir::tile {

/// The element type of `dtype` (an unsigned dtype as an unsigned integer).
Type getElementType(MLIRContext *context, ::tile::DType dtype);

/// The dtype of a scalar element type; nullopt for another type. Signless
/// integers are signed unless `isUnsigned`.
std::optional<::tile::DType> getDType(Type type, bool isUnsigned = false);

/// The type of a kernel argument of parameter type `type`: its element
/// type, or a !tile.ptr to it.
Type getType(MLIRContext *context, ::tile::ParamType type);

/// The parameter type of a kernel argument of `type` (a scalar or a
/// !tile.ptr to one); nullopt for another type. getType's inverse.
std::optional<::tile::ParamType> getParamType(Type type,
                                              bool isUnsigned = false);

} // namespace mlir::tile

#endif // TILEC_DIALECT_TILE_IR_DTYPES_H
