//===- Libdevice.h - The libdevice functions kernels may call ---*- C++ -*-===//
//
// CUDA's libdevice (nvvm/libdevice/libdevice.10.bc) is a bitcode library of
// math functions, `__nv_sinf` for fp32 and `__nv_sin` for fp64. Triton
// offers them as tl.extra.cuda.libdevice.sin and so on; tilec offers the
// float ones, calls them through tile.extern_elementwise, and links the
// bitcode into the kernel. This table is what the frontend accepts and what
// the interpreter computes for each.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_DIALECT_TILE_IR_LIBDEVICE_H
#define TILEC_DIALECT_TILE_IR_LIBDEVICE_H

#include "mlir/IR/Types.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace mlir::tile {

struct LibdeviceFunction {
  /// The name Triton gives it ("asin"); libdevice's is "__nv_asin[f]".
  llvm::StringRef name;
  /// Float operands, 1 to 3, all of the result's type.
  unsigned arity;
  /// The function in double precision, for the interpreter (an fp32 result
  /// is that rounded: within libdevice's few ulp of it).
  double (*reference)(llvm::ArrayRef<double> args);
};

/// The function Triton calls `name`, or null.
const LibdeviceFunction *lookupLibdevice(llvm::StringRef name);

/// libdevice's symbol for `function` on `element` (f32 or f64).
std::string getLibdeviceSymbol(const LibdeviceFunction &function,
                               mlir::Type element);

/// The function behind a symbol such as "__nv_sinf" for results of
/// `element`, or null.
const LibdeviceFunction *lookupLibdeviceSymbol(llvm::StringRef symbol,
                                               mlir::Type element);

} // namespace mlir::tile

#endif // TILEC_DIALECT_TILE_IR_LIBDEVICE_H
