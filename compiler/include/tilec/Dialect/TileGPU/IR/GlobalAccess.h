//===- GlobalAccess.h - Which ops may touch global memory -------*- C++ -*-===//
//
// Atomics decide which fences they need, and bulk stores whether they must
// wait for their writes, by asking what else in the kernel may touch global
// memory before or after them. Ops are judged by their memory effects, less
// those tilegpu ops known to touch only the program's shared memory or to
// wait; an op with recursive effects is judged by its nested ops.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_DIALECT_TILEGPU_IR_GLOBALACCESS_H
#define TILEC_DIALECT_TILEGPU_IR_GLOBALACCESS_H

#include "mlir/IR/Block.h"

namespace mlir::tilegpu {

/// Which accesses count.
enum class GlobalProxy {
  /// Those in the generic proxy: what a memory fence orders. Bulk tensor
  /// copies into shared memory read through the async proxy and do not
  /// count.
  Generic,
  /// Those of either proxy, the copy engine's reads included.
  Any,
};

/// Whether `op` itself (not its nested ops) may access global memory.
bool mayAccessGlobalMemory(Operation *op, GlobalProxy proxy);

/// Whether an op in [begin, end) of a block, or nested in one, may access
/// global memory.
bool mayAccessGlobalMemory(Block::iterator begin, Block::iterator end,
                           GlobalProxy proxy);

/// Whether an op that may access global memory can run after `op` in the
/// same program: one after it in its block or an enclosing one, up to the
/// function, or any op of a loop around it (the next iteration's).
bool mayAccessGlobalMemoryAfter(Operation *op, GlobalProxy proxy);

} // namespace mlir::tilegpu

#endif // TILEC_DIALECT_TILEGPU_IR_GLOBALACCESS_H
