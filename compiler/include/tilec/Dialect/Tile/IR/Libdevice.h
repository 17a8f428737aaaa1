//===- Libdevice.h - The libdevice functions kernels may call ---*- C++ -*-===//
//
// CUDA's libdevice (nvvm/libdevice/libdevice.10.bc) is a bitcode library of
// math functions, `__nv_sinf` for fp32 and `__nv_sin` for fp64. Triton
// offers them as tl.extra.cuda.libdevice.sin and so on; tilec offers the
// float ones, calls them through tile.extern_elementwise, and links the
// bitcode into the kernel. This table is what the frontend accepts and what
// the interpreter computes for each. Among them are IEEE arithmetic in a
// named rounding (div_rz is x / y rounded toward zero, `__nv_fdiv_rz`),
// which the interpreter rounds exactly as the GPU does.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_DIALECT_TILE_IR_LIBDEVICE_H
#define TILEC_DIALECT_TILE_IR_LIBDEVICE_H

#include "mlir/IR/Types.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace mlir::tile {

/// How an operation rounds its exact result to the result's type.
enum class Rounding { Nearest, TowardZero, Down, Up };

struct LibdeviceFunction {
  /// The name Triton gives it ("asin"); libdevice's is "__nv_asin[f]".
  llvm::StringRef name;
  /// Float operands, 1 to 3, all of the result's type.
  unsigned arity;
  /// The function in double precision, for the interpreter (an fp32 result
  /// is that rounded: within libdevice's few ulp of it).
  double (*reference)(llvm::ArrayRef<double> args);
  /// For arithmetic in a named rounding (add_rz, div_ru, ...): the sign of
  /// the exact result less `nearest`, the result in double rounded to
  /// nearest, found exactly (an error-free transformation); null for the
  /// others.
  int (*exactSide)(llvm::ArrayRef<double> args, double nearest) = nullptr;
  Rounding rounding = Rounding::Nearest;
  /// libdevice's symbols where they are not "__nv_<name>[f]" (the rounded
  /// arithmetic is "__nv_fdiv_rz" and "__nv_ddiv_rz").
  llvm::StringRef f32Symbol = {}, f64Symbol = {};
};

/// The function Triton calls `name`, or null.
const LibdeviceFunction *lookupLibdevice(llvm::StringRef name);

/// libdevice's symbol for `function` on `element` (f32 or f64).
std::string getLibdeviceSymbol(const LibdeviceFunction &function,
                               mlir::Type element);

/// `function` at `args` as the GPU computes it, in double precision: for
/// an f32 result the reference, or for rounded arithmetic the exact result
/// rounded to f32 (`toF32`) or f64 in the function's rounding.
double evaluateLibdevice(const LibdeviceFunction &function,
                         llvm::ArrayRef<double> args, bool toF32);

/// The function behind a symbol such as "__nv_sinf" for results of
/// `element`, or null.
const LibdeviceFunction *lookupLibdeviceSymbol(llvm::StringRef symbol,
                                               mlir::Type element);

} // namespace mlir::tile

#endif // TILEC_DIALECT_TILE_IR_LIBDEVICE_H
