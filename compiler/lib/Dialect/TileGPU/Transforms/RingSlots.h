//===- RingSlots.h - Where an iteration stands in a ring of buffers -*- C++
//-*-===//
//
// A pipelined loop fills a ring of `stages` buffers: iteration i uses
// buffer i % stages, and the ring's mbarriers complete once per round, so
// the phase iteration i waits for has parity (i / stages) % 2. Where the
// loop runs again and again on the same ring (a persistent program's K
// loop, once a tile), i counts on from `base`, the iterations of the runs
// before, so that the slots and phases go round as one sequence.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_DIALECT_TILEGPU_TRANSFORMS_RINGSLOTS_H
#define TILEC_LIB_DIALECT_TILEGPU_TRANSFORMS_RINGSLOTS_H

#include "tilec/Dialect/TileGPU/IR/TileGPU.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

namespace mlir::tilegpu {

/// The number of the loop's current iteration, from the induction variable,
/// plus `base` where given (of the induction variable's type).
Value emitIteration(OpBuilder &b, Location loc, scf::ForOp loop,
                    Value base = {});

/// `value` as an i32.
Value toI32(OpBuilder &b, Location loc, Value value);

/// The current iteration's buffer of a ring of `stages` (an i32), `back`
/// iterations before it (wrapping around the ring), counting from `base`.
Value emitSlot(OpBuilder &b, Location loc, scf::ForOp loop, int64_t stages,
               int64_t back = 0, Value base = {});

/// The parity of the phase the current iteration's mbarrier completes (an
/// i32), counting from `base`.
Value emitPhase(OpBuilder &b, Location loc, scf::ForOp loop, int64_t stages,
                Value base = {});

/// One mbarrier (`memdesc<1xi64>`), or with `stages`, a ring of them
/// (`memdesc<stages x 1 x i64>`), one per slot.
MemDescType getBarrierType(MLIRContext *context,
                           std::optional<int64_t> stages = std::nullopt);

} // namespace mlir::tilegpu

#endif // TILEC_LIB_DIALECT_TILEGPU_TRANSFORMS_RINGSLOTS_H
