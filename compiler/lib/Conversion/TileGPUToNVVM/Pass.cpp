//===- Pass.cpp - convert-tilegpu-to-nvvm ---------------------------------===//
//
// Three steps: tensors become the values each thread holds (1:N), scf
// (and tilegpu.warp_specialize) becomes cf, and then everything becomes the LLVM dialect with the stock
// ArithToLLVM / MathToLLVM / ControlFlowToLLVM / FuncToLLVM patterns.
//
//===----------------------------------------------------------------------===//

#include "tilec/Conversion/TileGPUToNVVM/Passes.h"

#include "tilec/Conversion/TileGPUToNVVM/TileGPUToNVVM.h"
#include "tilec/Dialect/Tile/Analysis/AxisInfo.h"
#include "tilec/Dialect/TileGPU/IR/Target.h"
#include "tilec/Dialect/TileGPU/IR/ThreadLayout.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVM.h"
#include "mlir/Conversion/LLVMCommon/ConversionTarget.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/Func/Transforms/FuncConversions.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/Transforms/DialectConversion.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/Support/DebugLog.h"

#define DEBUG_TYPE "convert-tilegpu-to-nvvm"

namespace mlir::tilegpu {
#define GEN_PASS_DEF_CONVERTTILEGPUTONVVM
#include "tilec/Conversion/TileGPUToNVVM/Passes.h.inc"
} // namespace mlir::tilegpu

using namespace mlir;
using namespace mlir::tilegpu;

namespace {

/// Vector width of every load, store, atomic and async copy along its layout's fastest
/// dimension, from the axis analysis of the IR before lowering.
VectorWidths computeVectorWidths(ModuleOp module, tile::AxisInfoAnalysis &axis) {
  VectorWidths widths;
  module.walk([&](Operation *op) {
    Value ptr, mask;
    if (auto load = dyn_cast<tile::LoadOp>(op))
      ptr = load.getPtr(), mask = load.getMask();
    else if (auto store = dyn_cast<tile::StoreOp>(op))
      ptr = store.getPtr(), mask = store.getMask();
    else if (auto atomic = dyn_cast<tile::AtomicRMWOp>(op))
      ptr = atomic.getPtr(), mask = atomic.getMask();
    else if (auto copy = dyn_cast<AsyncCopyOp>(op))
      ptr = copy.getPtrs(), mask = copy.getMask();
    auto type = ptr ? dyn_cast<RankedTensorType>(ptr.getType()) : nullptr;
    if (!type)
      return;
    std::optional<ThreadLayout> layout = ThreadLayout::get(type);
    if (!layout)
      return;
    int dim = layout->getTensorDim(layout->getFastestDim());
    Type pointee = cast<tile::PointerType>(type.getElementType()).getPointeeType();
    unsigned bytes = std::max(1u, pointee.getIntOrFloatBitWidth() / 8);
    AccessWidth &width = widths[op];
    if (dim >= 0) {
      width.vector = axis.getMaxVectorWidth(ptr, mask, dim, bytes);
      width.contiguous = axis.getContiguousRun(ptr, dim);
    }
    LDBG() << op->getName() << " at " << op->getLoc() << ": vectors of "
           << width.vector << ", runs of " << width.contiguous
           << " along dimension " << dim;
  });
  return widths;
}

/// Runs of a thread's registers holding one value of an elementwise arith
/// or math op's result, from the result's constancy along the layout's
/// fastest dimension and the registers' contiguity there (see ConstantRuns).
ConstantRuns computeConstantRuns(ModuleOp module, tile::AxisInfoAnalysis &axis) {
  ConstantRuns runs;
  module.walk([&](Operation *op) {
    Dialect *dialect = op->getDialect();
    if (!op->hasTrait<OpTrait::Elementwise>() || op->getNumResults() != 1 ||
        !dialect || (dialect->getNamespace() != "arith" &&
                     dialect->getNamespace() != "math"))
      return;
    auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    std::optional<ThreadLayout> layout =
        type ? ThreadLayout::get(type) : std::nullopt;
    if (!layout)
      return;
    int dim = layout->getTensorDim(layout->getFastestDim());
    const tile::AxisInfo &info = axis.get(op->getResult(0));
    if (dim < 0 || unsigned(dim) >= info.getRank())
      return;
    int64_t run = tile::highestPowerOf2Divisor(
        std::gcd<int64_t>(info.constancy[dim], layout->getContiguity()));
    if (run > 1)
      runs[op] = unsigned(run);
  });
  LDBG() << runs.size()
         << " elementwise ops compute once per run of equal registers";
  return runs;
}

struct ConvertTileGPUToNVVM
    : tilegpu::impl::ConvertTileGPUToNVVMBase<ConvertTileGPUToNVVM> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *context = &getContext();
    tile::AxisInfoAnalysis axis(module);
    VectorWidths widths = computeVectorWidths(module, axis);
    ConstantRuns runs = computeConstantRuns(module, axis);
    AtomicFenceMap fences = computeAtomicFences(module);
    // Specialization facts are used up; LLVM has no use for them.
    // The ABI attributes too (tilec reads them before lowering): the LLVM IR
    // translation warns about attributes of dialects it does not know.
    module.walk([&](func::FuncOp func) {
      for (unsigned i = 0; i < func.getNumArguments(); ++i) {
        func.removeArgAttr(i, tile::TileDialect::getDivisibilityAttrName());
        func.removeArgAttr(i, tile::TileDialect::getParamNameAttrName());
        func.removeArgAttr(i, tile::TileDialect::getUnsignedAttrName());
        func.removeArgAttr(i, TileGPUDialect::getGlobalScratchAttrName());
        func.removeArgAttr(i, TileGPUDialect::getLaunchParamAttrName());
        func.removeArgAttr(i, TileGPUDialect::getProgramsParamAttrName());
        func.removeArgAttr(i, TileGPUDialect::getTurnstilesAttrName());
        // A tensor map the launcher built: 128 bytes by value, 64-byte
        // aligned, read in place (a `__grid_constant__` parameter, whose
        // address bulk copies take).
        if (func.removeArgAttr(i, TileGPUDialect::getHostTensorMapAttrName())) {
          func.setArgAttr(i, LLVM::LLVMDialect::getByValAttrName(),
                          TypeAttr::get(LLVM::LLVMArrayType::get(
                              IntegerType::get(context, 8), 128)));
          func.setArgAttr(i, LLVM::LLVMDialect::getAlignAttrName(),
                          IntegerAttr::get(IntegerType::get(context, 64), 64));
          func.setArgAttr(i, NVVM::NVVMDialect::getGridConstantAttrName(),
                          UnitAttr::get(context));
        }
      }
      func->removeAttr(tile::TileDialect::getConstexprsAttrName());
    });

    // setmaxnreg takes effect only where ptxas knows the registers each
    // thread starts with: a CTA's share of the register file.
    bool handsOverRegisters = false;
    module.walk([&](WarpSpecializeOp split) {
      handsOverRegisters |= split.getConsumerRegisters() != 0;
    });
    assignSharedOffsets(module);
    auto step = [](StringRef name, LogicalResult result) {
      LDBG() << name << (succeeded(result) ? " done" : " failed");
      return result;
    };
    if (failed(step("tensors to per-thread values",
                    convertTensors(module, widths, runs, fences))) ||
        failed(step("scf to cf", convertSCFToCF(module))) ||
        failed(step("to the LLVM dialect", convertToLLVM(module))) ||
        failed(step("NVVM ops to inline PTX", convertNVVMToPTX(module))))
      return signalPassFailure();

    unsigned threads = getNumThreads(module);
    LDBG() << threads << " threads per block"
           << (handsOverRegisters
                   ? ", setmaxnreg hands registers to the consumer warps"
                   : "");
    module.walk([&](LLVM::LLVMFuncOp func) {
      if (func.isExternal())
        return;
      func->setAttr(NVVM::NVVMDialect::getKernelFuncAttrName(),
                    UnitAttr::get(context));
      // Launches always have exactly these threads (the metadata's
      // threads_per_block), as Triton's do: ptxas may rely on it.
      func->setAttr(NVVM::NVVMDialect::getReqntidAttrName(),
                    DenseI32ArrayAttr::get(context, {int32_t(threads), 1, 1}));
      if (handsOverRegisters)
        func->setAttr(NVVM::NVVMDialect::getMaxnregAttrName(),
                      IntegerAttr::get(IntegerType::get(context, 32),
                                       getEvenRegisterShare(threads)));
    });
  }

  LogicalResult convertTensors(ModuleOp module, const VectorWidths &widths,
                               const ConstantRuns &runs,
                               const AtomicFenceMap &fences) {
    MLIRContext *context = &getContext();
    TileGPUTypeConverter converter(context);
    RewritePatternSet patterns(context);
    ConversionTarget target(*context);
    populateElementwiseToLLVMPatterns(converter, runs, patterns);
    populateShapeToLLVMPatterns(converter, patterns);
    populateLoadStoreToLLVMPatterns(converter, widths, patterns);
    populateAtomicToLLVMPatterns(converter, widths, fences, patterns);
    populateBarrierToLLVMPatterns(converter, patterns);
    populateTurnstileToLLVMPatterns(converter, patterns);
    populateClusterToLLVMPatterns(converter, patterns);
    populateStreamKToLLVMPatterns(converter, patterns);
    populateBulkCopyToLLVMPatterns(converter, patterns);
    populateDebugToLLVMPatterns(converter, patterns);
    populateHintToLLVMPatterns(converter, patterns);
    populateConvertLayoutToLLVMPatterns(converter, patterns);
    populateReduceToLLVMPatterns(converter, patterns);
    populateScanToLLVMPatterns(converter, patterns);
    populateButterflyToLLVMPatterns(converter, patterns);
    populateFP8ToLLVMPatterns(converter, patterns);
    populateHistogramToLLVMPatterns(converter, patterns);
    populateGatherToLLVMPatterns(converter, patterns);
    populateSharedMemoryToLLVMPatterns(converter, widths, patterns);
    populateMMAv2DotToLLVMPatterns(converter, patterns);
    populateWgmmaDotToLLVMPatterns(converter, patterns);
    populateFMADotToLLVMPatterns(converter, patterns);
    scf::populateSCFStructuralTypeConversionsAndLegality(converter, patterns,
                                                         target);
    populateFunctionOpInterfaceTypeConversionPattern<func::FuncOp>(patterns,
                                                                   converter);
    populateReturnOpTypeConversionPattern(patterns, converter);

    target.addLegalDialect<LLVM::LLVMDialect, NVVM::NVVMDialect>();
    target.addIllegalDialect<tile::TileDialect, TileGPUDialect>();
    // Until scf becomes cf: the ops inside ask which side they are on.
    target.addLegalOp<WarpSpecializeOp, WarpYieldOp>();
    target.addDynamicallyLegalOp<func::FuncOp>([&](func::FuncOp func) {
      return converter.isSignatureLegal(func.getFunctionType()) &&
             converter.isLegal(&func.getBody());
    });
    target.markUnknownOpDynamicallyLegal(
        [&](Operation *op) { return converter.isLegal(op); });
    return applyPartialConversion(module, target, std::move(patterns));
  }

  LogicalResult convertSCFToCF(ModuleOp module) {
    MLIRContext *context = &getContext();
    RewritePatternSet patterns(context);
    populateSCFToControlFlowConversionPatterns(patterns);
    populateWarpSpecializeToCFPatterns(patterns);
    ConversionTarget target(*context);
    target.addIllegalOp<scf::ForOp, scf::IfOp, scf::WhileOp,
                        scf::ExecuteRegionOp, WarpSpecializeOp, WarpYieldOp>();
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    return applyPartialConversion(module, target, std::move(patterns));
  }

  /// NVVM ops that have no LLVM intrinsic in the form used (thread 0's
  /// predicated mbarrier and bulk-copy ops, mbarrier waits) become inline
  /// PTX.
  LogicalResult convertNVVMToPTX(ModuleOp module) {
    RewritePatternSet patterns(&getContext());
    populateNVVMToLLVMConversionPatterns(patterns);
    SmallVector<Operation *> ops;
    module.walk([&](NVVM::BasicPtxBuilderInterface op) { ops.push_back(op); });
    if (ops.empty())
      return success();
    // Only these ops: the rest of the module stays as it is.
    GreedyRewriteConfig config;
    config.setStrictness(GreedyRewriteStrictness::ExistingOps)
        .enableFolding(false)
        .enableConstantCSE(false);
    return applyOpPatternsGreedily(ops, std::move(patterns), config);
  }

  LogicalResult convertToLLVM(ModuleOp module) {
    MLIRContext *context = &getContext();
    LLVMTypeConverter converter(context);
    RewritePatternSet patterns(context);
    populateMathToNVVMPatterns(patterns);
    populateIntToBF16Patterns(patterns);
    arith::populateArithToLLVMConversionPatterns(converter, patterns);
    populateMathToLLVMConversionPatterns(converter, patterns);
    cf::populateControlFlowToLLVMConversionPatterns(converter, patterns);
    populateFuncToLLVMConversionPatterns(converter, patterns);
    LLVMConversionTarget target(*context);
    target.addLegalDialect<NVVM::NVVMDialect>();
    target.addLegalOp<UnrealizedConversionCastOp>();
    return applyPartialConversion(module, target, std::move(patterns));
  }
};

} // namespace
