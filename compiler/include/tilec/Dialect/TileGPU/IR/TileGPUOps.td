//===- TileGPUOps.td - Operations on laid-out tiles --------*- tablegen -*-===//

#ifndef TILEC_DIALECT_TILEGPU_IR_TILEGPUOPS_TD
#define TILEC_DIALECT_TILEGPU_IR_TILEGPUOPS_TD

include "tilec/Dialect/TileGPU/IR/TileGPUAttrs.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def TileGPU_ConvertLayoutOp : TileGPU_Op<"convert_layout", [Pure,
    SameOperandsAndResultShape, SameOperandsAndResultElementType]> {
  let summary = "Moves a tile's elements to the threads of another layout";
  let description = [{
    Lowered through shared memory; the layout passes insert as few as they
    can and rematerialize cheap producers instead.
    ```mlir
    %y = tilegpu.convert_layout %x : tensor<128xi32, #a> -> tensor<128xi32, #b>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$src);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasFolder = 1;
}

#endif // TILEC_DIALECT_TILEGPU_IR_TILEGPUOPS_TD
