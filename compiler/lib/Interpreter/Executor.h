//===- Executor.h - The tree-walking executor of tile IR --------*- C++ -*-===//
//
// Runs one kernel for every program of a grid. Every SSA value of the kernel
// gets a slot once, before the first program, and every program reuses the
// slots' storage: a program allocates nothing once the first has run.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_INTERPRETER_EXECUTOR_H
#define TILEC_LIB_INTERPRETER_EXECUTOR_H

#include "Values.h"

#include "tilec/Interpreter/InterpreterArg.h"

#include "mlir/IR/Operation.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/Twine.h"

#include <string>
#include <vector>

namespace tilec::interp {

/// The element kind of a scalar, pointer or tensor type; false when the
/// interpreter cannot represent it.
bool elemKindOf(mlir::Type type, ElemKind &kind);

class Executor {
public:
  Executor(mlir::Operation *kernel, llvm::ArrayRef<InterpreterArg> args,
           const unsigned grid[3]);

  /// Gives every value a slot and checks the arguments and that every op
  /// and type is supported.
  mlir::LogicalResult prepare();
  /// Runs every program, x fastest.
  mlir::LogicalResult run();

  // Used by the op implementations (Arith.cpp).
  TValue &get(mlir::Value v) { return slots[slotOf.find(v)->second]; }
  /// The slot of `v`, reset to the kind and shape of its type with room for
  /// as many elements.
  TValue &define(mlir::Value v);
  /// Emits `message` on `op` and fails.
  mlir::LogicalResult fail(mlir::Operation *op, const llvm::Twine &message);
  /// "program (3, 0, 0)".
  std::string program() const;

  /// Operands of tile.dot converted for its loops (Dot.cpp), kept from one
  /// dot to the next so that programs after the first allocate nothing.
  std::vector<float> dotScratch;

private:
  /// Runs the ops of `block` up to its terminator, which it returns (null on
  /// failure).
  mlir::Operation *runBlock(mlir::Block &block);
  mlir::LogicalResult execute(mlir::Operation *op);
  mlir::LogicalResult executeTileOp(mlir::Operation *op);
  mlir::LogicalResult executeLoad(mlir::Operation *op);
  mlir::LogicalResult executeStore(mlir::Operation *op);
  /// tile.atomic_rmw and tile.atomic_cas (Atomic.cpp).
  mlir::LogicalResult executeAtomic(mlir::Operation *op);
  /// tile.reduce_with and tile.scan, through their combine regions
  /// (Combine.cpp).
  mlir::LogicalResult executeCombine(mlir::Operation *op);
  mlir::LogicalResult executeFor(mlir::Operation *op);
  mlir::LogicalResult executeWhile(mlir::Operation *op);
  mlir::LogicalResult executeIf(mlir::Operation *op);
  /// Copies `from` into `to`, value by value, correct when they overlap
  /// (a loop yielding its iteration arguments in another order).
  void assign(mlir::ValueRange to, mlir::ValueRange from);
  /// Checks that the pointer `p` of element `i` of `ptrs` addresses a whole
  /// element of `kind` in its buffer; the byte address on success.
  uint8_t *address(mlir::Operation *op, const char *what, const TValue &ptrs,
                   size_t i, ElemKind kind);
  std::string bufferName(int64_t arg) const;

  mlir::Operation *kernel;
  llvm::ArrayRef<InterpreterArg> args;
  unsigned grid[3];
  unsigned pid[3] = {0, 0, 0};
  llvm::DenseMap<mlir::Value, unsigned> slotOf;
  std::vector<TValue> slots;
  std::vector<TValue> scratch;
  /// The kind and shape of each slot, from its value's type.
  std::vector<ElemKind> slotKind;
  std::vector<llvm::SmallVector<int64_t, 2>> slotShape;
};

/// Arithmetic and math ops (Arith.cpp).
bool isArithOp(mlir::Operation *op);
mlir::LogicalResult executeArith(Executor &ex, mlir::Operation *op);

/// tile.dot, in the GPU's numeric classes (Dot.cpp).
mlir::LogicalResult executeDot(Executor &ex, mlir::Operation *op);

} // namespace tilec::interp

#endif // TILEC_LIB_INTERPRETER_EXECUTOR_H
