//===- Pipeline.h - The pass pipeline every tool uses -----------*- C++ -*-===//

#ifndef TILEC_PIPELINE_PIPELINE_H
#define TILEC_PIPELINE_PIPELINE_H

namespace mlir {
class OpPassManager;
} // namespace mlir

namespace tilec {

/// tile IR -> simplified tile IR: what the interpreter runs.
void buildTileTransformsPipeline(mlir::OpPassManager &pm);
/// simplified tile IR -> every tensor laid out for `numWarps` warps.
void buildTileGPULayoutPipeline(mlir::OpPassManager &pm, unsigned numWarps);
/// Both: tile IR -> laid-out tile IR (`--emit=ttgpu`).
void buildTileToTileGPUPipeline(mlir::OpPassManager &pm, unsigned numWarps);
/// laid-out tile IR -> the LLVM and NVVM dialects (`--emit=llvm`); with
/// `lineInfo`, each function with the debug scope that makes its ops'
/// locations PTX's .file and .loc directives.
void buildTileGPUToLLVMPipeline(mlir::OpPassManager &pm, bool lineInfo);

/// Registers both as `tile-to-tilegpu{num-warps=N}` and
/// `tilegpu-to-llvm{line-info}`.
void registerTilePipelines();

} // namespace tilec

#endif // TILEC_PIPELINE_PIPELINE_H
