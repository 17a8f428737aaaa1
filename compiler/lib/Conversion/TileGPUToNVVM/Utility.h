//===- Utility.h - Helpers shared by the TileGPU lowering patterns -*- C++ -*-===//

#ifndef TILEC_LIB_CONVERSION_TILEGPUTONVVM_UTILITY_H
#define TILEC_LIB_CONVERSION_TILEGPUTONVVM_UTILITY_H

#include "tilec/Dialect/TileGPU/IR/ThreadLayout.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"

namespace mlir::tilegpu {

/// An i32 constant.
Value i32Constant(OpBuilder &b, Location loc, int64_t value);

/// Per tensor dimension, the index of each element this thread holds:
/// result[e][d].
SmallVector<SmallVector<Value>> emitElementIndices(OpBuilder &b, Location loc,
                                                   const ThreadLayout &layout);

/// The layout of a tensor type, which the layout passes guarantee.
ThreadLayout getThreadLayout(Type tensorType);

/// Bits an element takes in memory (i1 is stored as a byte).
unsigned getMemoryBits(Type elementType);

/// Runs PTX `asm` with LLVM inline-asm `constraints`; returns the results
/// (`resultTypes` may be empty).
SmallVector<Value> emitPTX(OpBuilder &b, Location loc, StringRef asmString,
                           StringRef constraints, ValueRange operands,
                           TypeRange resultTypes, bool hasSideEffects);

} // namespace mlir::tilegpu

#endif // TILEC_LIB_CONVERSION_TILEGPUTONVVM_UTILITY_H
