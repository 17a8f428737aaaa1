//===- TileOps.td - Operations of the tile dialect ---------*- tablegen -*-===//

#ifndef TILEC_DIALECT_TILE_IR_TILEOPS_TD
#define TILEC_DIALECT_TILE_IR_TILEOPS_TD

include "tilec/Dialect/Tile/IR/TileDialect.td"
include "tilec/Dialect/Tile/IR/TileTypes.td"
include "mlir/IR/OpBase.td"
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"

// An i32 attribute read as a signed value (I32Attr reads uint32_t, which
// turns -4 into 4294967292).
def Tile_SI32Attr : TypedSignlessIntegerAttrBase<I32, "int32_t",
                                                 "32-bit integer attribute"> {
  let convertFromStorage = "$_self.getValue().getSExtValue()";
}

def Tile_AxisAttr : ConfinedAttr<Tile_SI32Attr, [IntMinValue<0>, IntMaxValue<2>]>;

//===----------------------------------------------------------------------===//
// Program grid
//===----------------------------------------------------------------------===//

def Tile_ProgramIdOp : Tile_Op<"program_id", [Pure]> {
  let summary = "Index of this program instance along a grid axis";
  let description = [{
    ```mlir
    %pid = tile.program_id 0 : i32
    ```
  }];
  let arguments = (ins Tile_AxisAttr:$axis);
  let results = (outs I32:$result);
  let assemblyFormat = "$axis attr-dict `:` type($result)";
}

def Tile_NumProgramsOp : Tile_Op<"num_programs", [Pure]> {
  let summary = "Number of program instances along a grid axis";
  let description = [{
    ```mlir
    %n = tile.num_programs 1 : i32
    ```
  }];
  let arguments = (ins Tile_AxisAttr:$axis);
  let results = (outs I32:$result);
  let assemblyFormat = "$axis attr-dict `:` type($result)";
}

//===----------------------------------------------------------------------===//
// Shapes
//===----------------------------------------------------------------------===//

def Tile_MakeRangeOp : Tile_Op<"make_range", [Pure]> {
  let summary = "The tile [start, end) of consecutive i32";
  let description = [{
    `tl.arange(start, end)`.
    ```mlir
    %r = tile.make_range {start = 0 : i32, end = 128 : i32} : tensor<128xi32>
    ```
  }];
  let arguments = (ins Tile_SI32Attr:$start, Tile_SI32Attr:$end);
  let results = (outs RankedTensorOf<[I32]>:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Tile_SplatOp : Tile_Op<"splat", [Pure,
    TypesMatchWith<"result element type is the operand type", "result", "src",
                   "::mlir::cast<::mlir::RankedTensorType>($_self).getElementType()">]> {
  let summary = "A tile with every element equal to a scalar";
  let description = [{
    ```mlir
    %t = tile.splat %x : tensor<128xf32>
    ```
  }];
  let arguments = (ins AnyTypeOf<[Tile_Scalar, Tile_Ptr]>:$src);
  let results = (outs Tile_AnyTensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($result)";
}

def Tile_BroadcastOp : Tile_Op<"broadcast", [Pure, SameOperandsAndResultElementType]> {
  let summary = "Repeats a tile along its dimensions of size 1";
  let description = [{
    ```mlir
    %b = tile.broadcast %a : tensor<64x1xi32> -> tensor<64x128xi32>
    ```
  }];
  let arguments = (ins Tile_AnyTensor:$src);
  let results = (outs Tile_AnyTensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Tile_ExpandDimsOp : Tile_Op<"expand_dims", [Pure, SameOperandsAndResultElementType]> {
  let summary = "Inserts a dimension of size 1 (`x[:, None]`)";
  let description = [{
    ```mlir
    %e = tile.expand_dims %a {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
    ```
  }];
  let arguments = (ins Tile_AnyTensor:$src, Tile_SI32Attr:$axis);
  let results = (outs Tile_AnyTensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

def Tile_AddPtrOp : Tile_Op<"addptr", [Pure, Elementwise,
    SameOperandsAndResultShape,
    AllTypesMatch<["ptr", "result"]>]> {
  let summary = "Pointer plus an element offset";
  let description = [{
    Offsets count elements of the pointee type, as in C and Triton.
    ```mlir
    %p = tile.addptr %base, %offsets : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
    ```
  }];
  let arguments = (ins Tile_PtrLike:$ptr, Tile_IntLike:$offset);
  let results = (outs Tile_PtrLike:$result);
  let assemblyFormat = "$ptr `,` $offset attr-dict `:` type($result) `,` type($offset)";
}

def Tile_LoadOp : Tile_Op<"load", [
    MemoryEffects<[MemRead<DefaultResource>]>, AttrSizedOperandSegments,
    SameOperandsAndResultShape,
    TypesMatchWith<"result is the pointee of ptr", "ptr", "result",
                   "::mlir::tile::getPointeeType($_self)">,
    // Optional operands: compare only those present.
    TypesMatchWith<"mask is i1 of the pointer's shape", "ptr", "mask",
                   "::mlir::tile::getI1SameShape($_self)",
                   "!::llvm::cast<::mlir::tile::LoadOp>(&$_op).getMask() || std::equal_to<>()">,
    TypesMatchWith<"other is the pointee of ptr", "ptr", "other",
                   "::mlir::tile::getPointeeType($_self)",
                   "!::llvm::cast<::mlir::tile::LoadOp>(&$_op).getOther() || std::equal_to<>()">]> {
  let summary = "Masked load of a tile (`tl.load`)";
  let description = [{
    Loads every element whose mask is true; the others take `other`, or an
    undefined value without it.
    ```mlir
    %x = tile.load %ptrs, %mask, %other : tensor<128x!tile.ptr<f32>>
    ```
  }];
  let arguments = (ins Tile_PtrLike:$ptr, Optional<Tile_BoolLike>:$mask,
                   Optional<AnyType>:$other);
  let results = (outs AnyType:$result);
  let assemblyFormat = [{
    $ptr (`,` $mask^)? (`,` $other^)? attr-dict `:` type($ptr)
  }];
  let hasVerifier = 1;
  let builders = [
    OpBuilder<(ins "::mlir::Value":$ptr, "::mlir::Value":$mask,
                   "::mlir::Value":$other)>,
  ];
}

def Tile_StoreOp : Tile_Op<"store", [
    MemoryEffects<[MemWrite<DefaultResource>]>,
    SameOperandsShape,
    TypesMatchWith<"value is the pointee of ptr", "ptr", "value",
                   "::mlir::tile::getPointeeType($_self)">,
    TypesMatchWith<"mask is i1 of the pointer's shape", "ptr", "mask",
                   "::mlir::tile::getI1SameShape($_self)",
                   "($_op.getOperands().size() <= 2) || std::equal_to<>()">]> {
  let summary = "Masked store of a tile (`tl.store`)";
  let description = [{
    ```mlir
    tile.store %ptrs, %value, %mask : tensor<128x!tile.ptr<f32>>
    ```
  }];
  let arguments = (ins Tile_PtrLike:$ptr, AnyType:$value,
                   Optional<Tile_BoolLike>:$mask);
  let assemblyFormat = [{
    $ptr `,` $value (`,` $mask^)? attr-dict `:` type($ptr)
  }];
}

#endif // TILEC_DIALECT_TILE_IR_TILEOPS_TD
