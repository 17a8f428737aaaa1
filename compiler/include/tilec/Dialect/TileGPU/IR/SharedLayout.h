//===- SharedLayout.h - Where a tile's elements sit in shared memory -*- C++ -*-===//
//
// The shared-memory counterpart of ThreadLayout: which swizzle a tile gets,
// and the element offset of each index under it. The lowering computes the
// same offsets with LLVM values (emitSharedOffset).
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_DIALECT_TILEGPU_IR_SHAREDLAYOUT_H
#define TILEC_DIALECT_TILEGPU_IR_SHAREDLAYOUT_H

#include "tilec/Dialect/TileGPU/IR/TileGPU.h"

namespace mlir::tilegpu {

/// The swizzle for a tile of (padded) `shape` with `order[0]` contiguous and
/// elements of `elementBits`: 16-byte chunks, and as many phases as keep the
/// eight rows of an 8 x 16-byte access in distinct bank groups.
SharedEncodingAttr chooseSharedEncoding(MLIRContext *context,
                                        ArrayRef<int64_t> shape,
                                        ArrayRef<unsigned> order,
                                        unsigned elementBits);

/// The type of a 2-D buffer of `type` seen transposed
/// (tilegpu.memdesc_trans): its shape and its encoding's order reversed.
MemDescType getTransposedType(MemDescType type);

/// True for a ring of mbarriers (`memdesc<Sx1xi64>`, one 8-byte barrier
/// per pipeline stage) or one of them (`memdesc<1xi64>`), which no
/// instruction reads as a matrix.
bool isBarrierRing(MemDescType type);

/// The shape a buffer of `type` takes in shared memory: its last two
/// dimensions (the matrix) rounded up to powers of two and to at least 32
/// bytes and 16 elements, so that every instruction's operand tile fits;
/// leading dimensions (batch, ring) as they are. The padding is zero.
/// Barrier rings keep their shape.
SmallVector<int64_t> getSharedAllocShape(MemDescType type);

/// The bytes a buffer of `type` takes in shared memory (its allocated
/// shape, see getSharedAllocShape).
int64_t getSharedAllocBytes(MemDescType type);

/// The row (all dimensions but the contiguous one, row-major) and column of
/// `index` in a tile of `shape`.
std::pair<int64_t, int64_t> getSharedRowAndColumn(SharedEncodingAttr encoding,
                                                  ArrayRef<int64_t> shape,
                                                  ArrayRef<int64_t> index);

/// How a matrix of a tile is cut into column panels. A row longer than 128
/// bytes (eight 16-byte chunks, the most the swizzle spans) is split into
/// panels of 128 bytes; each panel holds its part of every row of the
/// matrix, rows `width` elements apart, and panels follow one another. So
/// each panel is laid out as Hopper's wgmma and bulk tensor copies read and
/// write a 128-byte swizzled tile (the NVMMA layout, docs/hopper-facts.md),
/// and eight consecutive rows of a panel still fall in distinct 16-byte bank
/// groups for ldmatrix. Matrices of a batch or of a ring follow one another.
struct SharedPanels {
  int64_t rowLength = 1; ///< elements along the contiguous dimension
  int64_t width = 1;     ///< elements of a row in one panel
  int64_t rows = 1;      ///< rows of one matrix
};
SharedPanels getSharedPanels(SharedEncodingAttr encoding,
                             ArrayRef<int64_t> shape);

/// The element offset of `index` in a tile of `shape`: the matrix, then the
/// panel, then the row, then the row's swizzled 16-byte chunk.
int64_t getSharedOffset(SharedEncodingAttr encoding, ArrayRef<int64_t> shape,
                        ArrayRef<int64_t> index);

} // namespace mlir::tilegpu

#endif // TILEC_DIALECT_TILEGPU_IR_SHAREDLAYOUT_H
