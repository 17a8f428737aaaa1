//===- TileTypes.td - Types of the tile dialect ------------*- tablegen -*-===//

#ifndef TILEC_DIALECT_TILE_IR_TILETYPES_TD
#define TILEC_DIALECT_TILE_IR_TILETYPES_TD

include "tilec/Dialect/Tile/IR/TileDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/BuiltinTypeInterfaces.td"

def Tile_PointerType : TypeDef<Tile_Dialect, "Pointer"> {
  let mnemonic = "ptr";
  let summary = "A global-memory address of an element";
  let description = [{
    `!tile.ptr<f32>` addresses one `f32` in global memory. Pointer arithmetic
    (`tile.addptr`) counts in elements, as in Triton.
  }];
  let parameters = (ins "::mlir::Type":$pointeeType);
  let assemblyFormat = "`<` $pointeeType `>`";
}

// fp8 (tl.float8e5, tl.float8e4nv) is loaded, stored, converted and
// multiplied by tile.dot; arithmetic on it goes through wider floats.
def Tile_Float : AnyTypeOf<[F8E5M2, F8E4M3FN, F16, BF16, F32, F64]>;
def Tile_Int : AnyTypeOf<[I1, I8, I16, I32, I64]>;
def Tile_Scalar : AnyTypeOf<[Tile_Float, Tile_Int]>;
def Tile_Ptr : Type<CPred<"::mlir::isa<::mlir::tile::PointerType>($_self)">,
                    "tile pointer", "::mlir::tile::PointerType">;

def Tile_IntTensor : RankedTensorOf<[Tile_Int]>;
def Tile_BoolTensor : RankedTensorOf<[I1]>;
def Tile_PtrTensor : RankedTensorOf<[Tile_Ptr]>;
def Tile_AnyTensor : RankedTensorOf<[Tile_Scalar, Tile_Ptr]>;

def Tile_IntLike : AnyTypeOf<[Tile_Int, Tile_IntTensor]>;
def Tile_BoolLike : AnyTypeOf<[I1, Tile_BoolTensor]>;
def Tile_PtrLike : AnyTypeOf<[Tile_Ptr, Tile_PtrTensor]>;
// A dot's operands: tiles, or after the layout passes, shared-memory
// buffers of the tilegpu dialect (any ranked shaped type).
def Tile_DotOperand : Type<And<[IsShapedTypePred, HasRankPred]>,
                           "ranked tensor or shared-memory buffer",
                           "::mlir::ShapedType">;
def Tile_Value : AnyTypeOf<[Tile_Scalar, Tile_Ptr, Tile_AnyTensor]>;

#endif // TILEC_DIALECT_TILE_IR_TILETYPES_TD
