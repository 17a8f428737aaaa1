//===- Passes.td - Layout passes ---------------------------*- tablegen -*-===//

#ifndef TILEC_DIALECT_TILEGPU_TRANSFORMS_PASSES_TD
#define TILEC_DIALECT_TILEGPU_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def TileGPUAssignLayouts : Pass<"tilegpu-assign-layouts", "::mlir::ModuleOp"> {
  let summary = "Gives every tensor a layout encoding for a CTA of num-warps warps";
  let description = [{
    Tensors that must share a layout (operands and results of elementwise
    operations, memory accesses, loop-carried values) form classes. Each class
    gets a blocked layout spread over `num-warps * 32` threads; along the
    dimension where the axis analysis proves the longest contiguous, aligned
    accesses, each thread holds a vector of up to 16 bytes. The source of a
    `tile.expand_dims` gets the slice of its result's layout; where a class is
    asked for two layouts, a `tilegpu.convert_layout` goes in.

    A `tile.dot` that a tensor-core instruction can run gives its
    accumulator's class (loop-carried accumulators included) an `mma`
    layout; otherwise it runs on FMAs in its class's blocked layout. Its
    operands are converted to the matching `dot_op` layouts.
  }];
  let options = [
    Option<"numWarps", "num-warps", "unsigned", /*default=*/"4",
           "Warps per CTA">,
  ];
  let dependentDialects = ["::mlir::tilegpu::TileGPUDialect"];
}

def TileGPURemoveLayoutConversions
    : Pass<"tilegpu-remove-layout-conversions", "::mlir::ModuleOp"> {
  let summary = "Removes layout conversions that are free to avoid";
  let description = [{
    Folds conversions to the same layout and chains of conversions, and
    recomputes cheap producers (ranges, splats, constants and elementwise
    operations on them) directly in the layout a conversion asks for, so no
    shared-memory round trip is needed.
  }];
}

#endif // TILEC_DIALECT_TILEGPU_TRANSFORMS_PASSES_TD
