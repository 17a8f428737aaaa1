//===- TensorBox.h - Loads that read a box of a strided tensor --*- C++ -*-===//
//
// A bulk tensor copy (TMA) reads a box of a strided tensor and fills what
// lies outside the tensor with zeros. A masked tile load does the same when
// its pointers and mask have the form a tensor descriptor's load takes
// (see Frontend/BlockPointers.cpp), whether the frontend wrote it or the
// user did:
//
//   ptrs = base + sum_d (o_d + arange(n_d)) * s_d   (along dimension d)
//   mask = and_d (o_d + arange(n_d)) < extent_d     (and optionally >= 0)
//
// Such a load is a box of the tensor (base, extents, strides) at
// coordinates o_d. tilegpu-pipeline asks here before it copies a loop's
// tile with the copy engine instead of cp.async.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_DIALECT_TILEGPU_TRANSFORMS_TENSORBOX_H
#define TILEC_LIB_DIALECT_TILEGPU_TRANSFORMS_TENSORBOX_H

#include "tilec/Dialect/TileGPU/IR/TileGPU.h"

#include <optional>

namespace mlir::tilegpu {

/// A load's box, per dimension of the tile.
struct TensorBox {
  Value base;                  ///< the tensor's origin, a scalar !tile.ptr
  SmallVector<Value> offsets;  ///< i32 coordinate of the box's first element
  SmallVector<Value> extents;  ///< i32 extent of the tensor
  SmallVector<Value> strides;  ///< integer element stride; null: 1
};

/// The box `load` reads, or nullopt when its pointers or mask have another
/// form. The load's `other`, if any, must be zero (checked by the caller).
std::optional<TensorBox> matchTensorBox(tile::LoadOp load);

} // namespace mlir::tilegpu

#endif // TILEC_LIB_DIALECT_TILEGPU_TRANSFORMS_TENSORBOX_H
