//===- MLIRGen.h - Emits the tile IR of a kernel ----------------*- C++ -*-===//

#ifndef TILEC_FRONTEND_MLIRGEN_H
#define TILEC_FRONTEND_MLIRGEN_H

#include "tilec/Frontend/HostScalar.h"
#include "tilec/Frontend/ModuleLoader.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <string>
#include <utility>
#include <vector>

namespace tilec {

/// What fixes a kernel's types and constants beyond its source.
struct Specialization {
  /// The @triton.jit function to compile; empty: the file's only one.
  std::string kernel;
  /// Triton's AOT signature, every parameter in order: "*fp32:16, i32, 1024".
  std::string signature;
  /// Constexpr values by name: -D's (HostScalar::parse), the JIT's, a
  /// config's, typed; a string may hold any text.
  std::vector<NamedScalar> constexprs;
  /// Types of the runtime (non-constexpr) parameters in order, as the JIT
  /// infers them from a call's arguments: "*fp32:16", "i32", "fp32".
  std::vector<std::string> argTypes;
  /// Buffers of the software pipeline of loops with loads feeding a dot
  /// (Triton's num_stages); the module's `tile.num_stages`.
  unsigned numStages = 3;
  /// Warps per program (Triton's num_warps): tl.extra.cuda.num_warps().
  unsigned numWarps = 4;
  /// Compiles tl.device_assert and runtime `assert` statements in, as
  /// Triton's debug mode does (`@triton.jit(debug=True)` sets it too).
  bool debug = false;
  /// The GPU's compute capability (--arch sm_80: 80), for what the
  /// hardware must offer (fp8 conversions and dots: 89 and newer).
  unsigned computeCapability = 90;
};

/// Emits the tile IR of one kernel of `loader`'s main module (parsed),
/// reading the modules it imports through `loader`. Errors go to the
/// context's diagnostic handler at the source locations; returns null after
/// one.
mlir::OwningOpRef<mlir::ModuleOp> mlirGen(mlir::MLIRContext &context,
                                          ModuleLoader &loader,
                                          const Specialization &spec);

} // namespace tilec

#endif // TILEC_FRONTEND_MLIRGEN_H
