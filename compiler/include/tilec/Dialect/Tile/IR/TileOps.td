//===- TileOps.td - Operations of the tile dialect ---------*- tablegen -*-===//

#ifndef TILEC_DIALECT_TILE_IR_TILEOPS_TD
#define TILEC_DIALECT_TILE_IR_TILEOPS_TD

include "tilec/Dialect/Tile/IR/TileDialect.td"
include "tilec/Dialect/Tile/IR/TileTypes.td"
include "mlir/IR/OpBase.td"
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/IR/EnumAttr.td"
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

def Tile_TransOp : Tile_Op<"trans", [Pure, SameOperandsAndResultElementType]> {
  let summary = "Permutes a tile's dimensions (`tl.trans`, `tl.permute`)";
  let description = [{
    Dimension `i` of the result is dimension `order[i]` of the source.
    ```mlir
    %t = tile.trans %a {order = array<i32: 1, 0>} : tensor<64x32xf16> -> tensor<32x64xf16>
    ```
  }];
  let arguments = (ins Tile_AnyTensor:$src, DenseI32ArrayAttr:$order);
  let results = (outs Tile_AnyTensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_ReshapeOp : Tile_Op<"reshape", [Pure, SameOperandsAndResultElementType]> {
  let summary = "The same elements in row-major order, another shape (`tl.reshape`)";
  let description = [{
    ```mlir
    %r = tile.reshape %a : tensor<16x2x8xf32> -> tensor<32x8xf32>
    ```
  }];
  let arguments = (ins Tile_AnyTensor:$src);
  let results = (outs Tile_AnyTensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_JoinOp : Tile_Op<"join", [Pure, SameTypeOperands]> {
  let summary = "Two tiles side by side along a new last dimension of 2 (`tl.join`)";
  let description = [{
    ```mlir
    %j = tile.join %a, %b : tensor<64xf32> -> tensor<64x2xf32>
    ```
  }];
  let arguments = (ins Tile_AnyTensor:$lhs, Tile_AnyTensor:$rhs);
  let results = (outs Tile_AnyTensor:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($lhs) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_SplitOp : Tile_Op<"split", [Pure, AllTypesMatch<["lhs", "rhs"]>]> {
  let summary = "The two halves of a tile's last dimension of 2 (`tl.split`)";
  let description = [{
    The inverse of `tile.join`. Splitting a 1-D tile of two gives scalars.
    ```mlir
    %a, %b = tile.split %j : tensor<64x2xf32> -> tensor<64xf32>
    ```
  }];
  let arguments = (ins Tile_AnyTensor:$src);
  let results = (outs AnyType:$lhs, AnyType:$rhs);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($lhs)";
  let hasVerifier = 1;
}

def Tile_GatherOp : Tile_Op<"gather", [Pure]> {
  let summary = "Elements of a tile picked along one axis by an index tile (`tl.gather`)";
  let description = [{
    The result has the index tile's shape and the source's element type:
    element `i` is the source's element at `i` with its coordinate along
    `axis` replaced by `indices[i]`. Along the other axes the two tiles
    have the same extents. An index outside [0, extent) is undefined, as in
    Triton (the interpreter reports it, the GPU clamps it).
    ```mlir
    %g = tile.gather %src[%idx] {axis = 0 : i32} : tensor<16x8xf32>, tensor<4x8xi32> -> tensor<4x8xf32>
    ```
  }];
  let arguments = (ins Tile_AnyTensor:$src, Tile_AnyTensor:$indices, I32Attr:$axis);
  let results = (outs Tile_AnyTensor:$result);
  let assemblyFormat = [{
    $src `[` $indices `]` attr-dict `:` type($src) `,` type($indices) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tile_ButterflyOp : Tile_Op<"butterfly", [Pure, SameOperandsAndResultType]> {
  let summary = "Elements exchanged with their partners across one bit of an axis";
  let description = [{
    Element i along `axis` of the result is element i xor 2^`bit` of the
    source: a butterfly exchange, as PTX's `shfl.bfly` is across lanes.
    tl.sort's bitonic network and tl.flip are made of it. 2^(`bit` + 1)
    must divide the axis's extent, so that every element has a partner.
    ```mlir
    %y = tile.butterfly %x {axis = 1 : i32, bit = 3 : i32} : tensor<4x64xf32>
    ```
  }];
  let arguments = (ins Tile_AnyTensor:$src, Tile_SI32Attr:$axis,
                       Tile_SI32Attr:$bit);
  let results = (outs Tile_AnyTensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

def Tile_ReduceKind : I32EnumAttr<"ReduceKind", "how a reduction combines", [
    I32EnumAttrCase<"Sum", 0, "sum">,
    I32EnumAttrCase<"Max", 1, "max">,
    I32EnumAttrCase<"Min", 2, "min">,
    I32EnumAttrCase<"Xor", 3, "xor">]> {
  let cppNamespace = "::mlir::tile";
}

def Tile_ReduceOp : Tile_Op<"reduce", [Pure]> {
  let summary = "Sum, max, min or xor of a tile along one axis (`tl.sum`)";
  let description = [{
    The result has the source's shape without `axis`; reducing the only axis
    of a 1-D tile gives a scalar. Float max and min ignore NaNs
    (maxnum/minnum), as Triton's do.
    ```mlir
    %rows = tile.reduce sum %x {axis = 1 : i32} : tensor<64x128xf32> -> tensor<64xf32>
    %all = tile.reduce max %v {axis = 0 : i32} : tensor<128xi32> -> i32
    ```
  }];
  let arguments = (ins Tile_AnyTensor:$src, Tile_ReduceKind:$kind,
                       Tile_SI32Attr:$axis);
  let results = (outs AnyType:$result);
  let assemblyFormat = "$kind $src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_ReduceWithOp : Tile_Op<"reduce_with", [Pure]> {
  let summary = "Tiles reduced along one axis by a combine region (`tl.reduce`)";
  let description = [{
    Reduces N tiles of one shape together along `axis`: the region takes
    two groups of N scalars (the left's, then the right's) and yields the
    combined group. The combination must be associative and commutative,
    as Triton's `tl.reduce` assumes: the GPU combines in a tree. Results
    are the sources' shapes without `axis` (scalars for 1-D sources).
    ```mlir
    %v, %i = tile.reduce_with %x, %idx {axis = 0 : i32}
        : tensor<128xf32>, tensor<128xi32> -> f32, i32 {
    ^bb0(%a: f32, %ai: i32, %b: f32, %bi: i32):
      %gt = arith.cmpf ogt, %a, %b : f32
      %m = arith.select %gt, %a, %b : f32
      %j = arith.select %gt, %ai, %bi : i32
      tile.yield %m, %j : f32, i32
    }
    ```
  }];
  let arguments = (ins Variadic<Tile_AnyTensor>:$srcs, Tile_SI32Attr:$axis);
  let results = (outs Variadic<AnyType>:$results);
  let regions = (region SizedRegion<1>:$combine);
  let assemblyFormat =
      "$srcs attr-dict `:` type($srcs) `->` type($results) $combine";
  let hasVerifier = 1;
}

def Tile_ScanOp : Tile_Op<"scan", [Pure]> {
  let summary = "Inclusive prefix combination along one axis (`tl.associative_scan`)";
  let description = [{
    Element i along `axis` of each result is the combination, by the
    region, of elements 0..i of the sources in order (with `reverse`,
    elements n-1 down to i: the scan of the reversed sequence, as in
    Triton). The region is as `tile.reduce_with`'s and must be
    associative. `tl.cumsum` and `tl.cumprod` are scans with one `arith`
    op in the region.
    ```mlir
    %c = tile.scan %x {axis = 1 : i32, reverse = false}
        : tensor<4x64xi32> -> tensor<4x64xi32> {
    ^bb0(%a: i32, %b: i32):
      %s = arith.addi %a, %b : i32
      tile.yield %s : i32
    }
    ```
  }];
  let arguments = (ins Variadic<Tile_AnyTensor>:$srcs, Tile_SI32Attr:$axis,
                       BoolAttr:$reverse);
  let results = (outs Variadic<Tile_AnyTensor>:$results);
  let regions = (region SizedRegion<1>:$combine);
  let assemblyFormat =
      "$srcs attr-dict `:` type($srcs) `->` type($results) $combine";
  let hasVerifier = 1;
}

def Tile_YieldOp : Tile_Op<"yield", [Pure, Terminator,
    ParentOneOf<["ReduceWithOp", "ScanOp"]>]> {
  let summary = "The combined scalars of a combine region";
  let arguments = (ins Variadic<AnyType>:$values);
  let assemblyFormat = "attr-dict ($values^ `:` type($values))?";
}

def Tile_HistogramOp : Tile_Op<"histogram", [Pure]> {
  let summary = "Counts of the values 0..n-1 in an integer tile (`tl.histogram`)";
  let description = [{
    Element b of the result counts the elements of `src` equal to b (and,
    with a `mask`, where the mask holds). Values outside [0, n) are not
    counted: Triton leaves them undefined (its GPU lowering wraps them into
    the low bits, its interpreter drops them).
    ```mlir
    %h = tile.histogram %x, %m : tensor<1024xi32>, tensor<1024xi1> -> tensor<64xi32>
    ```
  }];
  let arguments = (ins Tile_AnyTensor:$src, Optional<Tile_AnyTensor>:$mask);
  let results = (outs Tile_AnyTensor:$result);
  let assemblyFormat = [{
    $src (`,` $mask^)? attr-dict `:` type($src) (`,` type($mask)^)? `->` type($result)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Matrix multiplication
//===----------------------------------------------------------------------===//

def Tile_InputPrecision : I32EnumAttr<"InputPrecision",
    "how a dot multiplies fp32 inputs (Triton's `input_precision`)", [
    I32EnumAttrCase<"TF32", 0, "tf32">,
    I32EnumAttrCase<"TF32x3", 1, "tf32x3">,
    I32EnumAttrCase<"IEEE", 2, "ieee">]> {
  let cppNamespace = "::mlir::tile";
}

def Tile_DotOp : Tile_Op<"dot", [Pure,
    AllTypesMatch<["acc", "result"]>]> {
  let summary = "Matrix product plus accumulator (`tl.dot`)";
  let description = [{
    `result = a * b + acc` for (M, K) x (K, N) tiles, or batched
    (B, M, K) x (B, K, N). The accumulator's element type is the dot's
    `out_dtype`: f32 (or f16) for f16 and bf16 inputs, f32 for f32 inputs,
    i32 for i8 inputs, f64 for f64 inputs. `precision` says how f32 inputs
    are multiplied: rounded to tf32 (Triton's default), as three tf32
    products (`tf32x3`), or exactly (`ieee`); other inputs ignore it.
    Products of f16 and bf16 are exact and summed in the accumulator's type.
    On the GPU, after the layout passes, `a` and `b` may be shared-memory
    buffers (`!tilegpu.memdesc`) that the dot reads as it goes.
    `max_num_imprecise_acc` is Triton's fp8 hint, kept for fidelity.
    ```mlir
    %d = tile.dot %a, %b, %c, tf32 : tensor<64x32xf32>, tensor<32x16xf32> -> tensor<64x16xf32>
    %e = tile.dot %x, %y, %z, ieee {max_num_imprecise_acc = 0 : i32}
        : tensor<2x16x16xf16>, tensor<2x16x8xf16> -> tensor<2x16x8xf32>
    ```
  }];
  let arguments = (ins Tile_DotOperand:$a, Tile_DotOperand:$b, Tile_AnyTensor:$acc,
                       Tile_InputPrecision:$precision,
                       OptionalAttr<I32Attr>:$max_num_imprecise_acc);
  let results = (outs Tile_AnyTensor:$result);
  let assemblyFormat = [{
    $a `,` $b `,` $acc `,` $precision attr-dict `:` type($a) `,` type($b)
    `->` type($result)
  }];
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

def Tile_PtrToIntOp : Tile_Op<"ptr_to_int", [Pure, Elementwise,
    SameOperandsAndResultShape]> {
  let summary = "A pointer's address as an int64 (`ptr.to(tl.int64)`)";
  let description = [{
    ```mlir
    %a = tile.ptr_to_int %p : !tile.ptr<f32> -> i64
    ```
  }];
  let arguments = (ins Tile_PtrLike:$ptr);
  let results = (outs Tile_IntLike:$result);
  let assemblyFormat = "$ptr attr-dict `:` type($ptr) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_IntToPtrOp : Tile_Op<"int_to_ptr", [Pure, Elementwise,
    SameOperandsAndResultShape]> {
  let summary = "The pointer at an int64 address (`x.to(tl.pointer_type(...))`)";
  let description = [{
    Addresses usually come from memory (Triton's grouped GEMM loads each
    group's matrices' addresses). The interpreter maps an address back into
    the argument buffer that holds it; one that lies in none can only fault.
    ```mlir
    %p = tile.int_to_ptr %a : i64 -> !tile.ptr<f16>
    ```
  }];
  let arguments = (ins Tile_IntLike:$address);
  let results = (outs Tile_PtrLike:$result);
  let assemblyFormat = "$address attr-dict `:` type($address) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_CacheModifier : I32EnumAttr<"CacheModifier",
    "the cache operator of a global access (Triton's `cache_modifier`)", [
    I32EnumAttrCase<"None", 0, "none">,
    I32EnumAttrCase<"CA", 1, "ca">,
    I32EnumAttrCase<"CG", 2, "cg">,
    I32EnumAttrCase<"CS", 3, "cs">,
    I32EnumAttrCase<"CV", 4, "cv">,
    I32EnumAttrCase<"WB", 5, "wb">,
    I32EnumAttrCase<"WT", 6, "wt">]> {
  let cppNamespace = "::mlir::tile";
}

def Tile_EvictionPolicy : I32EnumAttr<"EvictionPolicy",
    "an L1 eviction priority hint (Triton's `eviction_policy`)", [
    I32EnumAttrCase<"Normal", 0, "normal">,
    I32EnumAttrCase<"EvictFirst", 1, "evict_first">,
    I32EnumAttrCase<"EvictLast", 2, "evict_last">]> {
  let cppNamespace = "::mlir::tile";
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
    undefined value without it. `cache` (ca, cg, cv), `evict` and
    `isVolatile` become the PTX load's cache operator, L1 eviction priority
    and `.volatile`, as Triton's `cache_modifier`, `eviction_policy` and
    `volatile`.
    ```mlir
    %x = tile.load %ptrs, %mask, %other {cache = 2 : i32} : tensor<128x!tile.ptr<f32>>
    ```
  }];
  let arguments = (ins Tile_PtrLike:$ptr, Optional<Tile_BoolLike>:$mask,
                   Optional<AnyType>:$other,
                   DefaultValuedAttr<Tile_CacheModifier, "::mlir::tile::CacheModifier::None">:$cache,
                   DefaultValuedAttr<Tile_EvictionPolicy, "::mlir::tile::EvictionPolicy::Normal">:$evict,
                   UnitAttr:$isVolatile);
  let results = (outs AnyType:$result);
  let assemblyFormat = [{
    $ptr (`,` $mask^)? (`,` $other^)? attr-dict `:` type($ptr)
  }];
  let hasVerifier = 1;
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
    `cache` (wb, cg, cs, wt) and `evict` become the PTX store's cache
    operator and L1 eviction priority, as Triton's `cache_modifier` and
    `eviction_policy`.
    ```mlir
    tile.store %ptrs, %value, %mask : tensor<128x!tile.ptr<f32>>
    ```
  }];
  let arguments = (ins Tile_PtrLike:$ptr, AnyType:$value,
                   Optional<Tile_BoolLike>:$mask,
                   DefaultValuedAttr<Tile_CacheModifier, "::mlir::tile::CacheModifier::None">:$cache,
                   DefaultValuedAttr<Tile_EvictionPolicy, "::mlir::tile::EvictionPolicy::Normal">:$evict);
  let assemblyFormat = [{
    $ptr `,` $value (`,` $mask^)? attr-dict `:` type($ptr)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Atomics
//===----------------------------------------------------------------------===//

def Tile_AtomicRMWKind : I32EnumAttr<"AtomicRMWKind",
    "the read-modify-write an atomic performs", [
    I32EnumAttrCase<"Add", 0, "add">,
    I32EnumAttrCase<"Max", 1, "max">,
    I32EnumAttrCase<"Min", 2, "min">,
    I32EnumAttrCase<"And", 3, "and">,
    I32EnumAttrCase<"Or", 4, "or">,
    I32EnumAttrCase<"Xor", 5, "xor">,
    I32EnumAttrCase<"Xchg", 6, "xchg">,
    I32EnumAttrCase<"UMax", 7, "umax">,
    I32EnumAttrCase<"UMin", 8, "umin">]> {
  let cppNamespace = "::mlir::tile";
}

def Tile_MemSemantic : I32EnumAttr<"MemSemantic",
    "memory ordering of an atomic (Triton's `sem`)", [
    I32EnumAttrCase<"Relaxed", 0, "relaxed">,
    I32EnumAttrCase<"Acquire", 1, "acquire">,
    I32EnumAttrCase<"Release", 2, "release">,
    I32EnumAttrCase<"AcqRel", 3, "acq_rel">]> {
  let cppNamespace = "::mlir::tile";
}

def Tile_MemScope : I32EnumAttr<"MemScope",
    "threads an atomic is ordered with (Triton's `scope`)", [
    I32EnumAttrCase<"GPU", 0, "gpu">,
    I32EnumAttrCase<"CTA", 1, "cta">,
    I32EnumAttrCase<"System", 2, "sys">]> {
  let cppNamespace = "::mlir::tile";
}

def Tile_AtomicRMWOp : Tile_Op<"atomic_rmw", [
    MemoryEffects<[MemRead<DefaultResource>, MemWrite<DefaultResource>]>,
    SameOperandsShape,
    TypesMatchWith<"value is the pointee of ptr", "ptr", "val",
                   "::mlir::tile::getPointeeType($_self)">,
    TypesMatchWith<"result is the pointee of ptr", "ptr", "result",
                   "::mlir::tile::getPointeeType($_self)">,
    TypesMatchWith<"mask is i1 of the pointer's shape", "ptr", "mask",
                   "::mlir::tile::getI1SameShape($_self)",
                   "($_op.getOperands().size() <= 2) || std::equal_to<>()">]> {
  let summary = "Atomic read-modify-write of memory (`tl.atomic_add`, ...)";
  let description = [{
    Atomically combines `val` into the memory `ptr` addresses and returns the
    value found there before, element by element for tiles. Elements whose
    `mask` is false are not touched and return 0. Each element is updated
    once per program, however many threads of the program hold it; a scalar
    pointer is one atomic per program. `add` on floats is a float add, on
    integers a wrapping integer add; `max` and `min` compare signed integers
    or floats, `umax` and `umin` unsigned integers; `and`, `or` and `xor` are bitwise on integers; `xchg` stores
    `val` (any 32- or 64-bit element). `sem` and `scope` are Triton's: the
    memory ordering of the atomic and the threads it is ordered with.

    ```mlir
    %old = tile.atomic_rmw add, acq_rel, gpu, %ptrs, %vals, %mask : tensor<128x!tile.ptr<f32>>
    %sum = tile.atomic_rmw add, relaxed, gpu, %counter, %one : !tile.ptr<i32>
    ```
  }];
  let arguments = (ins Tile_AtomicRMWKind:$kind,
                       Tile_MemSemantic:$sem,
                       Tile_MemScope:$scope,
                       Tile_PtrLike:$ptr, AnyType:$val,
                       Optional<Tile_BoolLike>:$mask);
  let results = (outs AnyType:$result);
  let assemblyFormat = [{
    $kind `,` $sem `,` $scope `,` $ptr `,` $val (`,` $mask^)? attr-dict
    `:` type($ptr)
  }];
  let hasVerifier = 1;
}

def Tile_AtomicCASOp : Tile_Op<"atomic_cas", [
    MemoryEffects<[MemRead<DefaultResource>, MemWrite<DefaultResource>]>,
    SameOperandsShape,
    TypesMatchWith<"compared value is the pointee of ptr", "ptr", "cmp",
                   "::mlir::tile::getPointeeType($_self)">,
    TypesMatchWith<"value is the pointee of ptr", "ptr", "val",
                   "::mlir::tile::getPointeeType($_self)">,
    TypesMatchWith<"result is the pointee of ptr", "ptr", "result",
                   "::mlir::tile::getPointeeType($_self)">]> {
  let summary = "Atomic compare-and-swap of memory (`tl.atomic_cas`)";
  let description = [{
    Atomically, where the memory `ptr` addresses equals `cmp` (bit for bit),
    stores `val` there; returns the value found before either way, element
    by element for tiles, once per program as `tile.atomic_rmw`. Elements
    are 16, 32 or 64 bits.

    ```mlir
    %old = tile.atomic_cas acq_rel, gpu, %lock, %zero, %one : !tile.ptr<i32>
    ```
  }];
  let arguments = (ins Tile_MemSemantic:$sem,
                       Tile_MemScope:$scope,
                       Tile_PtrLike:$ptr, AnyType:$cmp, AnyType:$val);
  let results = (outs AnyType:$result);
  let assemblyFormat = [{
    $sem `,` $scope `,` $ptr `,` $cmp `,` $val attr-dict `:` type($ptr)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Synchronization
//===----------------------------------------------------------------------===//

def Tile_DebugBarrierOp : Tile_Op<"debug_barrier", [
    MemoryEffects<[MemRead<DefaultResource>, MemWrite<DefaultResource>]>]> {
  let summary = "Waits for every thread of the program (`tl.debug_barrier`)";
  let description = [{
    Every thread of the program reaches the barrier before any goes on, and
    the memory accesses before it are seen by all after it (a CTA barrier on
    the GPU). Triton's layer norm uses it to finish a critical section's
    stores before the lock is released. The interpreter, which runs a
    program as one, has nothing to wait for.

    ```mlir
    tile.debug_barrier
    ```
  }];
  let assemblyFormat = "attr-dict";
}

def Tile_GridDependencyKind : I32EnumAttr<"GridDependencyKind",
    "what a program says to the grids it depends on, or that depend on it", [
    I32EnumAttrCase<"Wait", 0, "wait">,
    I32EnumAttrCase<"LaunchDependents", 1, "launch_dependents">]> {
  let cppNamespace = "::mlir::tile";
}

def Tile_GridDependencyOp : Tile_Op<"grid_dependency", [
    MemoryEffects<[MemRead<DefaultResource>, MemWrite<DefaultResource>]>]> {
  let summary = "Programmatic dependent launch (`tl.extra.cuda.gdc_wait`, "
                "`gdc_launch_dependents`)";
  let description = [{
    With programmatic dependent launch (Hopper's), a kernel may start while
    the grid before it in the stream still runs. `wait` holds the program
    until that grid has finished and its writes are visible;
    `launch_dependents` lets the next grid start once every program of this
    one has said so or finished. Without that launch attribute, and on
    cards before sm_90 that have none, both are no-ops, as they are on the
    interpreter, which runs one grid at a time.

    ```mlir
    tile.grid_dependency wait
    ```
  }];
  let arguments = (ins Tile_GridDependencyKind:$kind);
  let assemblyFormat = "$kind attr-dict";
}

//===----------------------------------------------------------------------===//
// Hints
//===----------------------------------------------------------------------===//

def Tile_PrintOp : Tile_Op<"print", [
    MemoryEffects<[MemRead<DefaultResource>, MemWrite<DefaultResource>]>]> {
  let summary = "Prints values with their program and index (`tl.device_print`)";
  let description = [{
    One line per element of each operand (a scalar prints once per
    program): `pid (x, y, z) idx (i, j)` then `prefix` and the value, in
    hexadecimal where `hex` is set. With several operands each line also
    says `(operand n)`. `isSigned` tells how each integer operand prints.
    On the GPU, through CUDA's vprintf.

    ```mlir
    tile.print " x: " %x {hex = false, isSigned = array<i1: true>} : tensor<128xi32>
    ```
  }];
  let arguments = (ins StrAttr:$prefix, BoolAttr:$hex,
                       DenseBoolArrayAttr:$isSigned,
                       Variadic<Tile_Value>:$args);
  let assemblyFormat = "$prefix ($args^ `:` type($args))? attr-dict";
  let hasVerifier = 1;
}

def Tile_AssertOp : Tile_Op<"assert", [
    MemoryEffects<[MemRead<DefaultResource>, MemWrite<DefaultResource>]>]> {
  let summary = "Stops the kernel where a condition is false (`tl.device_assert`)";
  let description = [{
    When any element of `condition` is false, the program fails with
    `message`, the op's source location, and the program and index of
    the element. On the GPU, through CUDA's `__assertfail`, which prints
    and traps (the launch fails with an assertion error); the interpreter
    reports it as an error. Only in debug builds of a kernel, as in Triton.

    ```mlir
    tile.assert %ok, "x must be positive" : tensor<128xi1>
    ```
  }];
  let arguments = (ins Tile_Value:$condition, StrAttr:$message);
  let assemblyFormat = "$condition `,` $message attr-dict `:` type($condition)";
}

def Tile_HintOp : Tile_Op<"hint", [Pure, Elementwise, SameOperandsAndResultType]> {
  let summary = "Facts asserted about a value (`tl.multiple_of`, `tl.max_contiguous`, `tl.max_constancy`)";
  let description = [{
    Returns `src` unchanged; per dimension (one entry for a scalar), the
    programmer asserts that its values come in runs of `contiguity`
    consecutive integers and of `constancy` equal ones, and that the first
    of each run is a multiple of `divisibility`, as Triton's hints do. The
    axis analysis takes the asserted facts, so that hinted accesses
    vectorize; a false hint is undefined behavior.

    ```mlir
    %offs = tile.hint %x {divisibility = array<i64: 16>, contiguity = array<i64: 128>} : tensor<128xi32>
    ```
  }];
  let arguments = (ins AnyType:$src,
                       OptionalAttr<DenseI64ArrayAttr>:$divisibility,
                       OptionalAttr<DenseI64ArrayAttr>:$contiguity,
                       OptionalAttr<DenseI64ArrayAttr>:$constancy);
  let results = (outs AnyType:$result);
  let assemblyFormat = "$src attr-dict `:` type($src)";
  let hasVerifier = 1;
}

def Tile_AssumeOp : Tile_Op<"assume", [
    MemoryEffects<[MemWrite<DefaultResource>]>]> {
  let summary = "A condition the program asserts holds (`tl.assume`)";
  let description = [{
    The scalar `cond` is true wherever this op runs; code may rely on it
    (LLVM's `llvm.assume` on the GPU, and the axis analysis reads
    `x % c == 0` as x divisible by c). The interpreter checks it. It writes
    no memory; the effect keeps it from being removed.

    ```mlir
    tile.assume %cond
    ```
  }];
  let arguments = (ins I1:$cond);
  let assemblyFormat = "$cond attr-dict";
}

//===----------------------------------------------------------------------===//
// External functions
//===----------------------------------------------------------------------===//

def Tile_ExternElementwiseOp : Tile_Op<"extern_elementwise", [Pure,
    Elementwise, SameOperandsAndResultType]> {
  let summary = "A function of CUDA's libdevice, applied element by element";
  let description = [{
    Calls `symbol`, a float function of libdevice such as `__nv_asinf`
    (`tl.extra.cuda.libdevice.asin`), on each element. On the GPU it is a
    call that the PTX emitter resolves by linking libdevice's bitcode; the
    interpreter computes the function itself (Libdevice.h).

    ```mlir
    %y = tile.extern_elementwise %x {symbol = "__nv_asinf"} : tensor<128xf32>
    ```
  }];
  let arguments = (ins Variadic<AnyTypeOf<[F32, F64, RankedTensorOf<[F32, F64]>]>>:$srcs,
                       StrAttr:$symbol);
  let results = (outs AnyTypeOf<[F32, F64, RankedTensorOf<[F32, F64]>]>:$result);
  let assemblyFormat = "$srcs attr-dict `:` type($result)";
  let hasVerifier = 1;
}

#endif // TILEC_DIALECT_TILE_IR_TILEOPS_TD
