//===- SharedMemory.h - Tiles in swizzled shared memory ---------*- C++ -*-===//

#ifndef TILEC_LIB_CONVERSION_TILEGPUTONVVM_SHAREDMEMORY_H
#define TILEC_LIB_CONVERSION_TILEGPUTONVVM_SHAREDMEMORY_H

#include "Utility.h"

#include "tilec/Dialect/TileGPU/IR/SharedLayout.h"

namespace mlir::tilegpu {

/// A tile in shared memory laid out as `encoding` says (see SharedLayout.h).
struct SharedTile {
  Value base; ///< !llvm.ptr<3>
  SharedEncodingAttr encoding;
  SmallVector<int64_t> shape; ///< padded, in tensor dimensions
  Type slotType;              ///< the elements' memory form

  int64_t getBytes() const;
  /// The address of the element at `index` (one i32 per tensor dimension).
  Value getAddress(OpBuilder &b, Location loc, ArrayRef<Value> index) const;
};

/// Writes this thread's elements of a tensor in `layout` into `tile`, in
/// vectors of up to 16 bytes where its registers run along the tile's rows.
void storeToShared(OpBuilder &b, Location loc, const SharedTile &tile,
                   const ThreadLayout &layout, ValueRange values);

/// Reads this thread's elements of a tensor in `layout` from `tile`, one by
/// one; `elementType` is the tensor's (converted) element type.
SmallVector<Value> loadFromShared(OpBuilder &b, Location loc,
                                  const SharedTile &tile,
                                  const ThreadLayout &layout, Type elementType);

/// Reads this thread's elements of an mma.sync operand (`layout`, a dot_op
/// encoding of an mma parent) from `tile` with ldmatrix; nothing when the
/// tile's layout does not allow it (a transposed read of elements other
/// than 16 bits).
std::optional<SmallVector<Value>>
loadMmaOperand(OpBuilder &b, Location loc, const SharedTile &tile,
               const ThreadLayout &layout, Type elementType);

} // namespace mlir::tilegpu

#endif // TILEC_LIB_CONVERSION_TILEGPUTONVVM_SHAREDMEMORY_H
