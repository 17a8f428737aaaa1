//===- Passes.h - Conversion of laid-out tiles to NVVM ----------*- C++ -*-===//

#ifndef TILEC_CONVERSION_TILEGPUTONVVM_PASSES_H
#define TILEC_CONVERSION_TILEGPUTONVVM_PASSES_H

#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::tilegpu {
#define GEN_PASS_DECL
#include "tilec/Conversion/TileGPUToNVVM/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "tilec/Conversion/TileGPUToNVVM/Passes.h.inc"
} // namespace mlir::tilegpu

#endif // TILEC_CONVERSION_TILEGPUTONVVM_PASSES_H
