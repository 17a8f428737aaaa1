//===- PointerRebase.h - A loop's pointer tiles from a moving scalar -*- C++ -*-===//
//
// A K loop as Triton's tutorials write it carries its tiles of pointers
// from iteration to iteration (`a_ptrs += BLOCK_K * stride_ak`): a 64-bit
// register for each element a thread loads, through the whole loop. Where
// the loads are of single elements (rows aligned to 2 bytes only: 4097
// halves), that is 32 to 96 pointers a thread beside the accumulator, and
// ptxas spills. Rebuilt in each iteration from the one scalar pointer the
// tile derives from, advanced by the iteration's offset, the tile keeps
// only its 32-bit row and column offsets through the loop.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_DIALECT_TILEGPU_TRANSFORMS_POINTERREBASE_H
#define TILEC_LIB_DIALECT_TILEGPU_TRANSFORMS_POINTERREBASE_H

#include "tilec/Dialect/Tile/IR/Tile.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

namespace mlir::tilegpu {

/// Whether `load` reads one element at a time: its pointers' layout gives
/// each thread runs of one element along its fastest dimension
/// (ThreadLayout::getContiguity).
bool loadsSingleElements(tile::LoadOp load);

/// Rewrites `load`, in `loop`'s body, to read pointers rebuilt there from
/// their scalar base advanced by the iteration's offset, where its pointers
/// are a tile the loop carries, advanced each iteration by a splat of a
/// value defined outside the loop, and derived from one scalar pointer by
/// splat, broadcast, expand_dims, convert_layout and addptr. The carried
/// tile is then read by nothing but its own advance. True when rewritten.
bool rebaseCarriedPointers(scf::ForOp loop, tile::LoadOp load);

} // namespace mlir::tilegpu

#endif // TILEC_LIB_DIALECT_TILEGPU_TRANSFORMS_POINTERREBASE_H
