//===- Pipeline.cpp - The pass pipeline every tool uses -------------------===//

#include "tilec/Pipeline/Pipeline.h"

#include "tilec/Conversion/TileGPUToNVVM/Passes.h"
#include "tilec/Dialect/Tile/Transforms/Passes.h"
#include "tilec/Dialect/TileGPU/Transforms/Passes.h"

#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Dialect/LLVMIR/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void tilec::buildTileTransformsPipeline(OpPassManager &pm) {
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(tile::createTileCombine());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

void tilec::buildTileToTileGPUPipeline(OpPassManager &pm, unsigned numWarps) {
  buildTileTransformsPipeline(pm);
  buildTileGPULayoutPipeline(pm, numWarps);
}

void tilec::buildTileGPULayoutPipeline(OpPassManager &pm, unsigned numWarps) {
  tilegpu::TileGPUAssignLayoutsOptions layoutOptions;
  layoutOptions.numWarps = numWarps;
  pm.addPass(tilegpu::createTileGPUAssignLayouts(layoutOptions));
  pm.addPass(tilegpu::createTileGPURemoveLayoutConversions());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(tilegpu::createTileGPUClusterSplitK());
  pm.addPass(tilegpu::createTileGPUStreamK());
  pm.addPass(tilegpu::createTileGPUPersistentPrograms());
  pm.addPass(tilegpu::createTileGPUPipeline());
  pm.addPass(tilegpu::createTileGPUBulkStores());
  pm.addPass(tilegpu::createTileGPUVersionMasks());
  pm.addPass(tilegpu::createTileGPUOverlapDots());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(tilegpu::createTileGPUOrderAtomics());
}

void tilec::buildTileGPUToLLVMPipeline(OpPassManager &pm, bool lineInfo) {
  pm.addPass(tilegpu::createConvertTileGPUToNVVM());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  // Each function's debug scope, so that the translation keeps the ops'
  // locations as LLVM's line table: the PTX's .file and .loc, an inlined
  // helper's ops at the helper's file and line (a lexical block of that
  // file, inlined at the call). Directives only: a full line table would
  // mark the PTX `.target ..., debug`, and ptxas compiles such PTX without
  // optimizing it (twice the SASS for the same kernel).
  if (lineInfo) {
    LLVM::DIScopeForLLVMFuncOpPassOptions scope;
    scope.emissionKind = LLVM::DIEmissionKind::DebugDirectivesOnly;
    pm.addPass(LLVM::createDIScopeForLLVMFuncOpPass(scope));
  }
}

namespace {
struct TileToTileGPUOptions : PassPipelineOptions<TileToTileGPUOptions> {
  Option<unsigned> numWarps{*this, "num-warps", llvm::cl::desc("Warps per CTA"),
                            llvm::cl::init(4)};
};
struct TileGPUToLLVMOptions : PassPipelineOptions<TileGPUToLLVMOptions> {
  Option<bool> lineInfo{*this, "line-info",
                        llvm::cl::desc("Keep the ops' locations as PTX's "
                                       ".file and .loc directives"),
                        llvm::cl::init(false)};
};
} // namespace

void tilec::registerTilePipelines() {
  PassPipelineRegistration<TileToTileGPUOptions>(
      "tile-to-tilegpu", "Simplify tile IR and assign layouts",
      [](OpPassManager &pm, const TileToTileGPUOptions &options) {
        buildTileToTileGPUPipeline(pm, options.numWarps);
      });
  PassPipelineRegistration<TileGPUToLLVMOptions>(
      "tilegpu-to-llvm", "Lower laid-out tile IR to LLVM and NVVM",
      [](OpPassManager &pm, const TileGPUToLLVMOptions &options) {
        buildTileGPUToLLVMPipeline(pm, options.lineInfo);
      });
}
