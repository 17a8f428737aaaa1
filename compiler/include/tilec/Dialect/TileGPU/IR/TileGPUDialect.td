//===- TileGPUDialect.td - Tile programs mapped to a GPU ---*- tablegen -*-===//

#ifndef TILEC_DIALECT_TILEGPU_IR_TILEGPUDIALECT_TD
#define TILEC_DIALECT_TILEGPU_IR_TILEGPUDIALECT_TD

include "mlir/IR/OpBase.td"

def TileGPU_Dialect : Dialect {
  let name = "tilegpu";
  let cppNamespace = "::mlir::tilegpu";
  let summary = "Layouts: how tiles are spread over the threads of a CTA";
  let description = [{
    Every tensor of a kernel mapped to the GPU carries an encoding attribute
    that says which thread holds which element. The layout passes choose the
    encodings; the conversion to NVVM reads them. The module attribute
    `tilegpu.num_warps` fixes the CTA size the encodings assume.
  }];
  let useDefaultAttributePrinterParser = 1;
  let useDefaultTypePrinterParser = 1;
  let dependentDialects = ["::mlir::tile::TileDialect"];
  let extraClassDeclaration = [{
    /// Name of the module attribute holding the number of warps of a CTA.
    static constexpr ::llvm::StringLiteral getNumWarpsAttrName() {
      return "tilegpu.num_warps";
    }
    /// Name of the module attribute holding the target's compute
    /// capability (90 for sm_90; see Target.h).
    static constexpr ::llvm::StringLiteral getComputeCapabilityAttrName() {
      return "tilegpu.compute_capability";
    }
    /// Name of the module attribute overriding the shared memory, in bytes,
    /// a CTA may use (absent: the target's; see Target.h).
    static constexpr ::llvm::StringLiteral getSharedLimitAttrName() {
      return "tilegpu.shared_limit";
    }
  }];
}

class TileGPU_Op<string mnemonic, list<Trait> traits = []>
    : Op<TileGPU_Dialect, mnemonic, traits>;

#endif // TILEC_DIALECT_TILEGPU_IR_TILEGPUDIALECT_TD
