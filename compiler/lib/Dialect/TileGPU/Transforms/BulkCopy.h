//===- BulkCopy.h - A load's tile brought by the copy engine ----*- C++ -*-===//
//
// A tile that a load reads from a box of a strided tensor (TensorBox.h) and
// stores to a buffer laid out as the copy engine writes (128-byte panels
// of a 32-, 64- or 128-byte swizzle) can come by bulk tensor copies
// instead: one tensor map for the tensor, built by the launcher where its
// fields are functions of the kernel's arguments (HostTensorMaps.h), else
// by the kernel, and one copy per panel at the box's coordinates.
// tilegpu-pipeline fills a loop's rings this way; warp specialization also
// the tiles loaded before the loop that its dots read (attention's
// queries), on the producer.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_DIALECT_TILEGPU_TRANSFORMS_BULKCOPY_H
#define TILEC_LIB_DIALECT_TILEGPU_TRANSFORMS_BULKCOPY_H

#include "HostTensorMaps.h"
#include "TensorBox.h"

#include "tilec/Dialect/Tile/Analysis/AxisInfo.h"
#include "tilec/Dialect/TileGPU/IR/TileGPU.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

#include <optional>

namespace mlir::tilegpu {

/// How the copy engine fills the buffer of a load: the tensor map's
/// operands and the copy's coordinates, innermost dimension first.
struct BulkCopy {
  TensorBox box;
  scf::ForOp loop;            ///< the loop the box may advance in
  SmallVector<int64_t> shape; ///< the tile's
  SmallVector<unsigned> dims; ///< the tile's dimensions, innermost first
  SmallVector<int32_t> boxShape;
  int32_t swizzle = 0;
  /// The base split as `pointer + sum(coord * stride)`, where it is so.
  std::optional<BatchOffset> batchOffset;
  /// Whether each row of the box may start off a 32-byte sector (its
  /// stride is not known to be a multiple of 32 bytes): a 128-byte panel
  /// row then draws five sectors from L2, not four.
  bool rowsOffSectors = false;
  unsigned elementBytes = 0;

  /// The values the tensor map is built from: the base, the outer stride
  /// and the extents (or, where the load is unmasked, what the box's end
  /// is computed from).
  SmallVector<Value> getMapOperands() const;

  /// The tensor's extent along `d`: the mask's bound, or where the box (of
  /// the loop's last iteration, if it advances) ends.
  Value emitExtent(OpBuilder &b, Location loc, unsigned d) const;
};

/// The bulk copy that can fill `alloc` with `load`'s tile in each
/// iteration of `loop` (or once before it, where `load` is not in it), or
/// nullopt: the load must read a box of a tensor fixed for the whole loop,
/// along rows that are the buffer's, 16-byte aligned (base and strides) as
/// the copy engine wants, into a buffer laid out as it writes (128-byte
/// panels of a 32-, 64- or 128-byte swizzle, unpadded).
std::optional<BulkCopy> planBulkCopy(LocalAllocOp alloc, tile::LoadOp load,
                                     scf::ForOp loop,
                                     tile::AxisInfoAnalysis &axis);

/// The coordinate along dimension `d` of the box that `box`'s load reads in
/// the current iteration of `loop`.
Value emitCoordinate(OpBuilder &b, Location loc, const TensorBox &box,
                     unsigned d, scf::ForOp loop);

/// The tensor map of `copy`, built once where its operands are known: before
/// the outermost loop around `copy.loop` that does not define them. The
/// launcher builds it where it can (HostTensorMaps.h); then thread 0 only
/// starts fetching it there, and the copies may take coordinates after the
/// box's (`outerCoords`). Otherwise the kernel builds it, or with
/// `hostOnly`, the result is null (and the extents' arithmetic is left for
/// canonicalization to remove).
Value createTensorMap(const BulkCopy &copy, SmallVector<Value> &outerCoords,
                      bool hostOnly = false);

} // namespace mlir::tilegpu

#endif // TILEC_LIB_DIALECT_TILEGPU_TRANSFORMS_BULKCOPY_H
