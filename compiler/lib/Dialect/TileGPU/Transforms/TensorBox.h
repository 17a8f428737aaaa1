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
// A dimension the mask does not bound is one the program promises to stay
// inside: the tensor may end where the box does.
//
// Such a load is a box of the tensor (base, extents, strides) at
// coordinates o_d. tilegpu-pipeline asks here before it copies a loop's
// tile with the copy engine instead of cp.async.
//
// In a loop, the box may also move: the pointers carried from iteration to
// iteration and advanced by a fixed number of rows or columns, the mask's
// bound on that dimension shrinking by as many each iteration, as the
// classic blocked matmul walks K:
//
//   for k in range(0, cdiv(K, BLOCK_K)):
//       a = tl.load(a_ptrs, mask=(rows < M) & (ks < K - k * BLOCK_K))
//       a_ptrs += BLOCK_K * stride_ak
//
// Then iteration i reads the box at o_d + i * BLOCK_K along K, of extent K.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_DIALECT_TILEGPU_TRANSFORMS_TENSORBOX_H
#define TILEC_LIB_DIALECT_TILEGPU_TRANSFORMS_TENSORBOX_H

#include "HostTensorMaps.h"

#include "tilec/Dialect/Tile/Analysis/AxisInfo.h"
#include "tilec/Dialect/TileGPU/IR/TileGPU.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

#include <optional>

namespace mlir::tilegpu {

/// A load's box, per dimension of the tile.
struct TensorBox {
  Value base;                  ///< the tensor's origin, a scalar !tile.ptr
  SmallVector<Value> offsets;  ///< i32 coordinate of the box's first element
  SmallVector<int64_t> advances; ///< added to the offset per iteration
  /// i32 extent of the tensor; null where the load is unmasked: then the
  /// tensor ends where the box does (its last box, if it advances).
  SmallVector<Value> extents;
  SmallVector<Value> strides;  ///< integer element stride; null: 1
  /// Scalar i32: the iterations the loop's first pointers are past the box
  /// at `offsets` (a loop that starts part-way, as a cluster's share of a K
  /// loop does: tilegpu-cluster-split-k); null: none.
  Value shift;
};

/// The box `load` reads in the iterations of `loop` (its pointers may be
/// carried by the loop and advance), or nullopt when its pointers or mask
/// have another form. The load's `other`, if any, must be zero (checked by
/// the caller).
std::optional<TensorBox> matchTensorBox(tile::LoadOp load, scf::ForOp loop);

/// The box `store` writes (the part inside the tensor: the copy engine
/// writes nothing past its extents), or nullopt.
std::optional<TensorBox> matchTensorBox(tile::StoreOp store);

/// The swizzle span in bytes that `encoding` lays rows out with, as bulk
/// tensor copies name it (see SharedLayout.h), or nullopt.
std::optional<int32_t> getSwizzleBytes(SharedEncodingAttr encoding,
                                       unsigned elementBytes);

/// True when `value` is a multiple of `bytes` / `elementBytes` elements
/// (pointers: of `bytes` bytes), as far as the axis analysis knows.
bool isAligned(tile::AxisInfoAnalysis &axis, Value value, unsigned elementBytes,
               int64_t bytes);

/// `base` as `pointer + sum(coord * stride)` (a batch's origin), pointer
/// and strides 16-byte aligned, or nullopt. Whether each coordinate is
/// bounded is the launcher's map's business (HostTensorMaps.h).
std::optional<BatchOffset> matchBatchOffset(Value base,
                                            tile::AxisInfoAnalysis &axis,
                                            unsigned elementBytes);

} // namespace mlir::tilegpu

#endif // TILEC_LIB_DIALECT_TILEGPU_TRANSFORMS_TENSORBOX_H
