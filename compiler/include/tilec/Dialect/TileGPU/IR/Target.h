//===- Target.h - What the GPU a module is compiled for offers --*- C++ -*-===//
//
// The layout passes and the lowering read the target from module
// attributes that tilec sets from --arch: `tilegpu.compute_capability` (90
// for sm_90, tilec's default, when absent), `tilegpu.arch_specific` (for
// sm_90a) and, to override the budget, `tilegpu.shared_limit`. Their names,
// and those of the other attributes tilec and the passes exchange, are
// TileGPUDialect's (TileGPUDialect.td).
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_DIALECT_TILEGPU_IR_TARGET_H
#define TILEC_DIALECT_TILEGPU_IR_TARGET_H

#include "mlir/IR/Operation.h"
#include "mlir/IR/Types.h"

namespace mlir::tilegpu {

/// The compute capability of the module of `op`, e.g. 80 or 90.
unsigned getComputeCapability(Operation *op);

/// Whether dots of the module of `op` may run on wgmma: sm_90a.
bool hasWgmma(Operation *op);
/// Whether loops of the module of `op` may fill buffers with bulk tensor
/// copies whose tensor maps the kernel builds itself: the copies need
/// sm_90, building their maps (tensormap.replace) sm_90a.
inline bool hasBulkTensorCopies(Operation *op) { return hasWgmma(op); }

/// Whether wgmma reads operands of `elementType` K-major only: it
/// transposes 16-bit ones (f16, bf16) as it reads them, tf32 and 8-bit
/// ones never.
inline bool isWgmmaKMajorOnly(Type elementType) {
  return elementType.getIntOrFloatBitWidth() != 16;
}

/// Shared memory, in bytes, a CTA may use: `tilegpu.shared_limit` where
/// set, else the target's (227 KB on sm_90, 163 KB on sm_80).
int64_t getSharedMemoryLimit(Operation *op);

/// Records that `op`'s module needs PTX ISA `version` (times ten).
void requirePTXVersion(Operation *op, unsigned version);
/// The PTX ISA version `module` needs (81 unless raised).
unsigned getMinPTXVersion(Operation *module);

/// The most bytes one atomic add on `element` updates: sm_90 adds vectors
/// of f32, f16 and bf16 up to 16 bytes in one `atom`; otherwise one element.
unsigned getMaxAtomicAddBytes(Type element, unsigned computeCapability);

} // namespace mlir::tilegpu

#endif // TILEC_DIALECT_TILEGPU_IR_TARGET_H
