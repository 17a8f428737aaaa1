//===- ProgramLoop.h - A kernel run as a loop over programs -----*- C++ -*-===//
//
// What stream-K (StreamK.cpp) and persistent programs
// (PersistentPrograms.cpp) share: the kernel becomes a loop whose every
// iteration runs a program's work, or part of it, on fewer CTAs than the
// launch's programs. The grid the launch asked for comes in parameters it
// appends after every other, and the program ids and counts the kernel
// asks for are those of the iteration's program.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_DIALECT_TILEGPU_TRANSFORMS_PROGRAMLOOP_H
#define TILEC_LIB_DIALECT_TILEGPU_TRANSFORMS_PROGRAMLOOP_H

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mlir::tilegpu {

/// A kernel's body before it moves into its loop over programs: its ops,
/// and the program queries among them (tile.program_id, tile.num_programs)
/// that the loop's program answers.
struct KernelBody {
  SmallVector<Operation *> ops;
  SmallVector<Operation *> programQueries;

  static KernelBody get(func::FuncOp func);
  /// Moves the ops before `point` and answers each query: program ids from
  /// `ids`, numbers of programs from `extents` (by axis).
  void moveInto(Operation *point, ArrayRef<Value> ids,
                ArrayRef<Value> extents);
};

/// Appends a parameter named `name` of `type` to `func`, one the launch
/// passes after every other (tilegpu.launch_param), with `attrs` besides.
Value appendLaunchParam(func::FuncOp func, StringRef name, Type type,
                        NamedAttrList attrs = {});

} // namespace mlir::tilegpu

#endif // TILEC_LIB_DIALECT_TILEGPU_TRANSFORMS_PROGRAMLOOP_H
