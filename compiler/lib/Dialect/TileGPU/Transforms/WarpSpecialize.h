//===- WarpSpecialize.h - A loop's copies on warps of their own -*- C++ -*-===//
//
// tilegpu-pipeline's alternative to software pipelining for a loop whose
// buffers the copy engine fills and wgmma dots read: a producer
// warpgroup of its own issues the copies of every iteration as soon as
// their slot of the ring is free, and the consumers (the program's
// num_warps) only wait for them and compute. No CTA barrier passes
// between iterations: each consumer warp releases a slot on an mbarrier
// once its dot no longer reads it.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_DIALECT_TILEGPU_TRANSFORMS_WARPSPECIALIZE_H
#define TILEC_LIB_DIALECT_TILEGPU_TRANSFORMS_WARPSPECIALIZE_H

#include "BulkCopy.h"

#include "tilec/Dialect/TileGPU/IR/TileGPU.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

#include <optional>

namespace mlir::tilegpu {

/// What was asked of `loop`: its `tl.range(..., warp_specialize=)`, else
/// the kernel's option (tilec --warp-specialize on|off: the module's
/// `tile.warp_specialize`); nothing where neither says, for the cost
/// models to decide. It covers both schedules the name stands for: copies
/// on producer warps, and attention's second dot an iteration late
/// (tilegpu-overlap-dots).
std::optional<bool> askedWarpSpecialization(scf::ForOp loop);

/// Whether `loop` should run its copies on producer warps: what was asked
/// (askedWarpSpecialization), or else what the cost model says.
bool wantsWarpSpecialization(scf::ForOp loop);

/// Whether `dot` runs on Hopper's wgmma (an mma layout of version 3).
bool isWgmma(tile::DotOp dot);

/// Whether issuing `second`, the second of two chained wgmma dots of a
/// loop (attention's P V), an iteration late pays where nothing asked for
/// it: its tile is wide enough (tilegpu-overlap-dots).
bool paysToIssueLate(tile::DotOp second);

/// Whether running the kernel's programs persistent pays for `loop`, one
/// of the kernel's body whose bounds are the same in every program: a
/// producer then copies the next program's first blocks while the
/// consumers finish this one's (tilegpu-persistent-programs).
bool paysToPersist(scf::ForOp loop);
/// Whether `loop`'s dots hold large accumulators on two or more consumer
/// warpgroups, the tiles whose copies are worth sharing between two
/// programs (specializeWarps' `shared`).
bool hasLargeTiles(scf::ForOp loop);

/// A tile loaded before the loop that only the loop's dots read
/// (attention's queries), which the copy engine can bring.
struct OperandCopy {
  LocalAllocOp alloc; ///< the buffer the load's tile is stored to
  BulkCopy plan;
};

/// Splits the kernel at `loop` (a loop of the function's body) into a
/// tilegpu.warp_specialize: the producer runs `copies` (tilegpu-pipeline's
/// bulk copies of each iteration, with the barrier_expect ops and the CTA
/// barrier before them) into rings of `stages` buffers completing on
/// `fullRings`; the consumers run the loop without them and the rest of the
/// kernel. Fails, leaving the IR untouched, unless every buffer the copies
/// fill is read only by wgmma dots, all of which the loop keeps in flight
/// or none (attention's), and the copies need nothing the consumers
/// compute.
///
/// `loop` may also be in a loop of the function's body over the tiles a
/// persistent program runs in turn (`for tile in range(program_id,
/// tiles, num_programs)`), the copies needing of each tile only scalar
/// arithmetic: the producer runs the same loop over tiles with the copies
/// alone, and both sides count the rings' iterations across tiles. The loop
/// over tiles is replaced by one that carries that count; the old one goes
/// into `replaced`.
///
/// With `shared` (one of `copies`), the kernel's programs run in pairs
/// along x, a thread-block cluster of two CTAs (the module's
/// tilegpu.cluster_programs): where both CTAs of a pair copy the same boxes
/// (tilegpu.cluster_pair_equal on what the copy's coordinates are computed
/// from, checked once before the split), each copies half of that copy's
/// panels for both, and its consumers release each slot in both CTAs.
/// `shared`'s tensor map must be a kernel argument (one the launcher built,
/// the same in both CTAs).
///
/// The producer also copies each of `operandCopies` whose tensor map the
/// launcher builds and whose coordinates need only what its copies may
/// need, into a buffer of its own on an mbarrier of its own, before the
/// loop's first copies. Around tiles, it copies the next tile's once the
/// consumers release the buffer after the loop, which the dots reading it
/// must then finish in place: the next tile's queries land during this
/// tile's epilogue.
LogicalResult specializeWarps(scf::ForOp loop, ArrayRef<Operation *> copies,
                              ArrayRef<LocalAllocOp> fullRings, int64_t stages,
                              ArrayRef<OperandCopy> operandCopies,
                              SmallPtrSetImpl<Operation *> &replaced,
                              AsyncTMACopyOp shared = {});

} // namespace mlir::tilegpu

#endif // TILEC_LIB_DIALECT_TILEGPU_TRANSFORMS_WARPSPECIALIZE_H
