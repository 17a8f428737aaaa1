//===- Interpreter.h - Runs tile IR on the CPU ------------------*- C++ -*-===//
//
// The reference executor of the tile dialect: Triton's semantics, one
// program instance after another, stricter than the GPU (an out-of-bounds
// access is an error naming the op's source line, the program id and the
// index). It runs the tile IR after the frontend and the tile-level
// transforms, so it checks what the GPU path compiles.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_INTERPRETER_INTERPRETER_H
#define TILEC_INTERPRETER_INTERPRETER_H

#include "tilec/Interpreter/InterpreterArg.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

namespace tilec {

/// Runs the func.func `kernel` of `module` (tile IR, no layouts needed) for
/// every program id of the grid (x, y, z), x fastest. An error stops the run
/// and is emitted as a diagnostic on the op that failed (so it prints as
/// `file:line:col: error: ...` with the source line), naming the program id
/// and, for memory accesses, the offending element index and offset.
/// `args` are the kernel's parameters in order, then any further buffers
/// it reaches only through addresses (an int64 cast to a pointer).
mlir::LogicalResult interpret(mlir::ModuleOp module, llvm::StringRef kernel,
                              unsigned gridX, unsigned gridY, unsigned gridZ,
                              llvm::ArrayRef<InterpreterArg> args);

} // namespace tilec

#endif // TILEC_INTERPRETER_INTERPRETER_H
