//===- TileDialect.td - The tile dialect -------------------*- tablegen -*-===//

#ifndef TILEC_DIALECT_TILE_IR_TILEDIALECT_TD
#define TILEC_DIALECT_TILE_IR_TILEDIALECT_TD

include "mlir/IR/OpBase.td"

def Tile_Dialect : Dialect {
  let name = "tile";
  let cppNamespace = "::mlir::tile";
  let summary = "Tile programs: ranked tensors of scalars and pointers";
  let description = [{
    The tile dialect is the IR the frontend emits for a Triton-style kernel.
    Values are scalars or ranked tensors of scalars and `!tile.ptr`s;
    arithmetic uses `arith` and `math` on tensors, control flow `scf`, and a
    kernel is a `func.func`. This dialect adds what those lack: program ids,
    index ranges, broadcasting, pointer arithmetic and masked memory access.
  }];
  let useDefaultTypePrinterParser = 1;
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::math::MathDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::func::FuncDialect",
  ];
}

class Tile_Op<string mnemonic, list<Trait> traits = []>
    : Op<Tile_Dialect, mnemonic, traits>;

#endif // TILEC_DIALECT_TILE_IR_TILEDIALECT_TD
