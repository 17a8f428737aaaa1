//===- ShapeLayouts.h - Layouts that make shape ops free --------*- C++ -*-===//
//
// tile.trans, tile.reshape, tile.join and tile.split only rename where
// elements are: given a source layout, some result layout holds each
// element in the same thread (often in the same register), so the op moves
// nothing. tile.reduce (and reduce_with) and tile.expand_dims are the same idea with a
// dimension removed or added (slice layouts). The layout pass asks here
// which layouts those are; the lowering asks which register goes where.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_DIALECT_TILEGPU_IR_SHAPELAYOUTS_H
#define TILEC_DIALECT_TILEGPU_IR_SHAPELAYOUTS_H

#include "tilec/Dialect/TileGPU/IR/TileGPU.h"

#include <optional>

namespace mlir::tilegpu {

/// tile.trans, reshape, join, split, reduce or reduce_with (to tiles) or
/// expand_dims.
bool isShapeOp(Operation *op);

/// The encoding of the results of shape op `op` when its tile operands have
/// `source`: one in which every thread holds the same elements. Null where
/// there is none (a split whose halves lie in different threads, the
/// source of an expand_dims that is not a slice) or the op is no shape op.
Attribute inferResultEncoding(Operation *op, Attribute source);

/// The encoding the tile operands of `op` need for its results to have
/// `result` without moving data; null where there is none.
Attribute inferSourceEncoding(Operation *op, Attribute result);

/// Where each result element of a trans, reshape, join or split comes from
/// in the laid-out types `op` has: per result, per register of a thread,
/// the operand and its register. Nothing when the layouts do not hold the
/// same elements in the same threads.
struct SourceRegister {
  unsigned operand, reg;
};
std::optional<SmallVector<SmallVector<SourceRegister>>>
getRegisterSources(Operation *op);

} // namespace mlir::tilegpu

#endif // TILEC_DIALECT_TILEGPU_IR_SHAPELAYOUTS_H
