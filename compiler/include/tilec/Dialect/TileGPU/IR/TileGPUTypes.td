//===- TileGPUTypes.td - Shared-memory buffers -------------*- tablegen -*-===//

#ifndef TILEC_DIALECT_TILEGPU_IR_TILEGPUTYPES_TD
#define TILEC_DIALECT_TILEGPU_IR_TILEGPUTYPES_TD

include "tilec/Dialect/TileGPU/IR/TileGPUDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/BuiltinTypeInterfaces.td"

def TileGPU_MemDescType : TypeDef<TileGPU_Dialect, "MemDesc", [ShapedTypeInterface]> {
  let mnemonic = "memdesc";
  let summary = "A tile in shared memory";
  let description = [{
    A buffer of the CTA's shared memory holding a tile of `shape`, laid out
    as its `encoding` (a `#tilegpu.shared` swizzle) says. A leading extra
    dimension makes a ring of buffers (one per pipeline stage), indexed by
    `tilegpu.memdesc_index`. Dots read their operands from such buffers.
    ```mlir
    !tilegpu.memdesc<3x128x32xf16, #tilegpu.shared<{vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]}>>
    ```
  }];
  let parameters = (ins ArrayRefParameter<"int64_t">:$shape, "::mlir::Type":$elementType,
                        "::mlir::Attribute":$encoding);
  let hasCustomAssemblyFormat = 1;
  let extraClassDeclaration = [{
    bool hasRank() const { return true; }
    ::mlir::ShapedType cloneWith(std::optional<::llvm::ArrayRef<int64_t>> shape,
                                 ::mlir::Type elementType) const {
      return MemDescType::get(getContext(), shape ? *shape : getShape(),
                              elementType, getEncoding());
    }
  }];
}

def TileGPU_TensorMapType : TypeDef<TileGPU_Dialect, "TensorMap"> {
  let mnemonic = "tensormap";
  let summary = "The generic address of a bulk-copy tensor map";
  let description = [{
    A 128-byte CUtensorMap as bulk tensor copies read it: one the kernel
    built in its global scratch (`tilegpu.tensormap_create`) or one the
    launcher built and passed as a kernel parameter (an argument with a
    `tilegpu.host_tensor_map` recipe).
    ```mlir
    !tilegpu.tensormap
    ```
  }];
}

#endif // TILEC_DIALECT_TILEGPU_IR_TILEGPUTYPES_TD
