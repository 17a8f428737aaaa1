//===- Tile.h - The tile dialect --------------------------------*- C++ -*-===//
//
// The dialect, its types and its operations.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_DIALECT_TILE_IR_TILE_H
#define TILEC_DIALECT_TILE_IR_TILE_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "tilec/Dialect/Tile/IR/TileDialect.h.inc"
#include "tilec/Dialect/Tile/IR/TileEnums.h.inc"

#define GET_TYPEDEF_CLASSES
#include "tilec/Dialect/Tile/IR/TileTypes.h.inc"

namespace mlir::tile {
/// The element type a pointer (or tensor of pointers) points to, keeping the
/// tensor's shape and encoding.
Type getPointeeType(Type ptrLike);
/// `i1` with the shape and encoding of `type`.
Type getI1SameShape(Type type);
/// The tensor type `type` with another element type, or `elementType` for a
/// scalar.
Type withElementType(Type type, Type elementType);
/// Whether `type` (a scalar, or a tensor's elements) is an fp8 the tile
/// dialect takes: e5m2 (tl.float8e5) or e4m3fn (tl.float8e4nv).
bool isFP8(Type type);
/// The type of `src` reduced along `axis`: its shape without that dimension
/// (the element type for a 1-D source), with no encoding.
Type getReducedType(RankedTensorType src, int64_t axis);
/// Whether an atomic of `kind` (none: compare-and-swap) takes `element`: add
/// f16, bf16, f32, f64, i32, i64; max, min, xchg f32, f64, i32, i64; and,
/// or, xor i32, i64; cas any 16-, 32- or 64-bit integer or float.
bool isAtomicElementType(std::optional<AtomicRMWKind> kind, Type element);
/// Whether PTX's ld (`isLoad`) or st has the cache operator `cache`: ld
/// takes ca, cg and cv; st wb, cg, cs and wt; both take none.
bool isCacheModifierFor(CacheModifier cache, bool isLoad);
} // namespace mlir::tile

#define GET_OP_CLASSES
#include "tilec/Dialect/Tile/IR/TileOps.h.inc"

#endif // TILEC_DIALECT_TILE_IR_TILE_H
