//===- ThreadLayout.h - Which thread holds which element --------*- C++ -*-===//
//
// The one place that turns an encoding into element positions. The layout
// passes use it to reason about cost; the conversion to NVVM uses it to
// compute each thread's indices, so both agree by construction.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_DIALECT_TILEGPU_IR_THREADLAYOUT_H
#define TILEC_DIALECT_TILEGPU_IR_THREADLAYOUT_H

#include "tilec/Dialect/TileGPU/IR/TileGPU.h"

#include "llvm/ADT/SmallVector.h"

namespace mlir::tilegpu {

/// The elements a thread holds of a tensor with a blocked encoding or a
/// (nested) slice of one. Positions are given in the rank of the root blocked
/// layout, where each sliced dimension has size 1 and index 0.
///
/// Along root dimension d, a thread's elements sit at
///   (base_d(thread) + offset_d(k)) mod shape_d,   k < localCount_d,
/// with base_d = (warp_d * threadsPerWarp_d + lane_d) * sizePerThread_d. A
/// thread's elements are numbered with the layout's `order` fastest first.
///
/// A tile's extents need not be powers of two: the layout covers the padded
/// shape, each extent rounded up to a power of two, and the positions at or
/// past the extent are padding. Registers, shuffles and shared memory work
/// on the padded shape; memory accesses, reductions and atomics leave the
/// padding out.
class ThreadLayout {
public:
  /// The layout of `type`, or an empty optional when its encoding is missing
  /// or not a distributed one.
  static std::optional<ThreadLayout> get(RankedTensorType type);

  BlockedEncodingAttr getBlocked() const { return blocked; }
  unsigned getRootRank() const { return shape.size(); }
  /// The padded shape, in root dimensions.
  ArrayRef<int64_t> getRootShape() const { return shape; }
  /// The tile's real extents, in root dimensions.
  ArrayRef<int64_t> getRootExtent() const { return extent; }
  /// True when positions along `d` past the extent are padding.
  bool isPadded(unsigned d) const { return extent[d] != shape[d]; }
  /// The padded shape of the tensor itself (sliced dimensions left out).
  SmallVector<int64_t> getPaddedTensorShape() const;
  /// Root dimensions that the tensor does not have, ascending.
  ArrayRef<unsigned> getSlicedDims() const { return slicedDims; }
  /// The tensor's dimension of a root dimension, or -1 for a sliced one.
  int getTensorDim(unsigned rootDim) const;

  /// Number of elements each thread holds.
  unsigned getNumElems() const;
  /// Elements each thread holds along a root dimension.
  int64_t getLocalCount(unsigned d) const { return localCount[d]; }
  /// The extent one repetition of the layout covers along a root dimension.
  int64_t getTileExtent(unsigned d) const;
  /// True when several threads hold the same elements along `d`.
  bool wraps(unsigned d) const { return shape[d] < getTileExtent(d); }

  /// Per root dimension, the position of element `e` in the thread's block.
  SmallVector<int64_t> getLocalIndex(unsigned e) const;
  /// The element number of a position in the thread's block.
  unsigned linearize(ArrayRef<int64_t> local) const;
  /// Per root dimension, offset_d of element `e` (add base_d, wrap by shape).
  SmallVector<int64_t> getElemOffset(unsigned e) const;

private:
  BlockedEncodingAttr blocked;
  SmallVector<int64_t> shape, extent;
  SmallVector<unsigned> slicedDims;
  SmallVector<int64_t> localCount;
};

/// The number of warps the module's layouts assume (`tilegpu.num_warps`).
unsigned getNumWarps(Operation *op);

} // namespace mlir::tilegpu

#endif // TILEC_DIALECT_TILEGPU_IR_THREADLAYOUT_H
