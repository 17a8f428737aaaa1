//===- Passes.td - Transforms of the tile dialect ----------*- tablegen -*-===//

#ifndef TILEC_DIALECT_TILE_TRANSFORMS_PASSES_TD
#define TILEC_DIALECT_TILE_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def TileCombine : Pass<"tile-combine", "::mlir::ModuleOp"> {
  let summary = "Simplifies tile programs: pointer chains, splats, broadcasts, "
                "accumulating dots";
  let description = [{
    Folds patterns the frontend produces naturally: `addptr(addptr(p, a), b)`
    becomes `addptr(p, a + b)`, a broadcast or expand_dims of a splat becomes
    a splat, elementwise operations on splats are done on the scalars, and
    the add of a dot with a zero accumulator (`acc += tl.dot(a, b)`) becomes
    one dot accumulating into `acc`.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def TileTestAxisInfo : Pass<"tile-test-axis-info", "::mlir::ModuleOp"> {
  let summary = "Prints the axis analysis of every integer or pointer value";
  let description = [{
    For lit tests of the analysis: emits a remark on each operation with its
    result's contiguity, divisibility and constancy.
  }];
}

#endif // TILEC_DIALECT_TILE_TRANSFORMS_PASSES_TD
