//===- KLoop.h - A dot kernel's K loop, run in parts ------------*- C++ -*-===//
//
// What the two ways of splitting a program's K loop across CTAs share: the
// cluster split (ClusterSplitK.cpp: the CTAs of a program's cluster, each a
// chunk) and stream-K (StreamK.cpp: a fixed number of CTAs walking the
// iterations of all the programs). Both find the loop that carries a dot's
// accumulator, check that the rest of what it carries moves by
// loop-invariant steps, and run it from some iteration to another, the
// carried values computed where that part starts rather than walked to.
// Persistent programs (PersistentPrograms.cpp) ask the same of a loop's
// bounds: whether they are the same in every program.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_DIALECT_TILEGPU_TRANSFORMS_KLOOP_H
#define TILEC_LIB_DIALECT_TILEGPU_TRANSFORMS_KLOOP_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/DenseMap.h"

#include <string>

namespace mlir::tilegpu {

/// How a K loop's carried value goes from one iteration to the next.
struct Carried {
  enum class Kind { Accumulator, Induction, Unchanged } kind;
  /// An induction's step (loop-invariant): value + step, or for a
  /// pointer, addptr(value, step).
  Value step;
};

/// Whether `value` is computed, in `func`'s entry block, by pure ops from
/// the kernel's arguments and constants, never from the program ids: the
/// same in every program, so that it can be computed before them. `seen`
/// keeps the answers, each value looked at once.
bool isProgramInvariant(func::FuncOp func, Value value,
                        llvm::DenseMap<Value, bool> &seen);

/// A kernel's K loop: a top-level scf.for of a constant positive step whose
/// yielded values include a tile.dot's accumulator (f32 or i32, carried
/// for nothing else), every other carried value an induction by a
/// loop-invariant step or unchanged and unused after the loop. Nothing
/// before it or in it writes memory, and the kernel has no atomics.
struct KLoop {
  scf::ForOp loop;
  SmallVector<Carried> carried;
};

/// The K loop of `func`, or `why` it has none. Only where `hoist` may it
/// change the kernel: the loop's invariant code moves out, so that the
/// steps do; unhoisted, a step computed in the loop is taken as movable.
FailureOr<KLoop> findKLoop(func::FuncOp func, std::string &why, bool hoist);

/// The iterations of a loop from `lb` to `ub` by `step` (a positive
/// constant), max(0, ceil((ub - lb) / step)), in their type, built at `b`.
Value buildTripCount(OpBuilder &b, Location loc, Value lb, Value ub,
                     Value step);

/// `value` (an integer) as `type`'s integer elements: a cast, and a
/// tensor's splat.
Value castSplat(OpBuilder &b, Location loc, Value value, Type type);

/// Makes `kloop` run its iterations `first` to `last` (counted from 0, of
/// the loop's type, defined before it): its bounds moved, each induction
/// starting `first` steps in (pointers moved in 64 bits). An accumulator
/// starts from its own initial value where `keepInit` (i1) holds, else from
/// zero, so that a sum of the parts counts it once. Builds before the loop.
void restrictKLoop(const KLoop &kloop, Value first, Value last, Value keepInit);

} // namespace mlir::tilegpu

#endif // TILEC_LIB_DIALECT_TILEGPU_TRANSFORMS_KLOOP_H
