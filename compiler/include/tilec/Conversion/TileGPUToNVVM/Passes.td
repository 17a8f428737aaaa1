//===- Passes.td - Conversion of laid-out tiles to NVVM ----*- tablegen -*-===//

#ifndef TILEC_CONVERSION_TILEGPUTONVVM_PASSES_TD
#define TILEC_CONVERSION_TILEGPUTONVVM_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertTileGPUToNVVM : Pass<"convert-tilegpu-to-nvvm", "::mlir::ModuleOp"> {
  let summary = "Lowers laid-out tile programs to the LLVM and NVVM dialects";
  let description = [{
    Each tensor becomes the values one thread holds of it (a 1:N type
    conversion), computed from its layout encoding; kernels become
    `llvm.func`s marked `nvvm.kernel`, with pointer parameters in the global
    address space.
  }];
  let dependentDialects = [
    "::mlir::LLVM::LLVMDialect",
    "::mlir::NVVM::NVVMDialect",
    "::mlir::cf::ControlFlowDialect",
  ];
}

#endif // TILEC_CONVERSION_TILEGPUTONVVM_PASSES_TD
