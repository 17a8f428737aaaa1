//===- TileGPUAttrs.td - Layout encodings ------------------*- tablegen -*-===//

#ifndef TILEC_DIALECT_TILEGPU_IR_TILEGPUATTRS_TD
#define TILEC_DIALECT_TILEGPU_IR_TILEGPUATTRS_TD

include "tilec/Dialect/TileGPU/IR/TileGPUDialect.td"
include "mlir/IR/AttrTypeBase.td"

class TileGPU_Attr<string name, string attrMnemonic>
    : AttrDef<TileGPU_Dialect, name> {
  let mnemonic = attrMnemonic;
}

def TileGPU_BlockedEncodingAttr : TileGPU_Attr<"BlockedEncoding", "blocked"> {
  let summary = "Each thread holds blocks of consecutive elements";
  let description = [{
    Along dimension d, a thread holds `sizePerThread[d]` consecutive elements,
    `threadsPerWarp[d]` lanes and `warpsPerCTA[d]` warps tile the next
    levels, and the pattern repeats to cover the shape. Where the shape is
    smaller than the pattern, elements are replicated over threads. `order`
    lists the dimensions fastest first: lane and warp ids are split over the
    dimensions in this order, and a thread's elements are numbered in it.
    ```mlir
    #tilegpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4],
                      warpsPerCTA = [4, 1], order = [1, 0]}>
    ```
  }];
  let parameters = (ins ArrayRefParameter<"unsigned">:$sizePerThread,
                        ArrayRefParameter<"unsigned">:$threadsPerWarp,
                        ArrayRefParameter<"unsigned">:$warpsPerCTA,
                        ArrayRefParameter<"unsigned">:$order);
  let assemblyFormat = [{
    `<` `{` `sizePerThread` `=` `[` $sizePerThread `]` `,`
            `threadsPerWarp` `=` `[` $threadsPerWarp `]` `,`
            `warpsPerCTA` `=` `[` $warpsPerCTA `]` `,`
            `order` `=` `[` $order `]` `}` `>`
  }];
  let genVerifyDecl = 1;
}

def TileGPU_SliceEncodingAttr : TileGPU_Attr<"SliceEncoding", "slice"> {
  let summary = "A parent layout with one dimension removed";
  let description = [{
    The layout of a tensor that `tile.expand_dims` along `dim` turns into a
    tensor with the `parent` layout, at no cost: each thread holds the
    elements it holds in the parent at index 0 of `dim`.
    ```mlir
    #tilegpu.slice<{dim = 1, parent = #blocked}>
    ```
  }];
  let parameters = (ins "unsigned":$dim, "::mlir::Attribute":$parent);
  let assemblyFormat = "`<` `{` `dim` `=` $dim `,` `parent` `=` $parent `}` `>`";
}

def TileGPU_MmaEncodingAttr : TileGPU_Attr<"MmaEncoding", "mma"> {
  let summary = "The accumulator of a tensor-core instruction";
  let description = [{
    Each warp holds tiles of `instrShape` (the last two dimensions are M and
    N, a leading one is a batch) as the instruction leaves them in its
    registers; `warpsPerCTA` warps tile the next level, and the pattern
    repeats in each thread's registers to cover the shape. Version 2 is
    mma.sync's m16n8: lane l holds rows l/4 and l/4 + 8 and columns
    2 (l % 4) and 2 (l % 4) + 1 of each 16 x 8 tile. Warp ids run over N
    first, then M, then the batch.
    Version 3 is Hopper's wgmma (sm_90a): each warpgroup of 4 warps holds
    64 x N tiles (instrShape [64, N]), warp w of the group rows 16 w to
    16 w + 15 with mma.sync's pattern repeated over every 8 columns;
    warpsPerCTA is [4 x warpgroups along M, warpgroups along N], warp ids
    running over the group's rows, then M, then N.
    A `swapped` version 3 layout is the accumulator of C = A B computed as
    C^T = B^T A^T: wgmma's M is the tile's N and its N the tile's M, so
    that B can be read from registers (wgmma takes only its A there) and A
    from shared memory K-major as stored. `warpsPerCTA` and `instrShape`
    describe the instruction, in its [N, M]; the tile's layout is that
    one's with its two dimensions exchanged, register for register. Its
    dot operands are likewise the instruction's other operand, exchanged.
    ```mlir
    #tilegpu.mma<{version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
    #tilegpu.mma<{version = 3, warpsPerCTA = [8, 1], instrShape = [64, 128]}>
    #tilegpu.mma<{version = 3, warpsPerCTA = [8, 1], instrShape = [64, 256], swapped = true}>
    ```
  }];
  let parameters = (ins "unsigned":$version,
                        ArrayRefParameter<"unsigned">:$warpsPerCTA,
                        ArrayRefParameter<"unsigned">:$instrShape,
                        DefaultValuedParameter<"bool", "false">:$swapped);
  let builders = [
    AttrBuilder<(ins "unsigned":$version,
                     "::llvm::ArrayRef<unsigned>":$warpsPerCTA,
                     "::llvm::ArrayRef<unsigned>":$instrShape), [{
      return $_get($_ctxt, version, warpsPerCTA, instrShape, false);
    }]>
  ];
  let assemblyFormat = [{
    `<` `{` `version` `=` $version `,`
            `warpsPerCTA` `=` `[` $warpsPerCTA `]` `,`
            `instrShape` `=` `[` $instrShape `]`
            (`,` `swapped` `=` $swapped^)? `}` `>`
  }];
  let extraClassDeclaration = [{
    /// The same instruction's layout, not swapped: the accumulator of the
    /// dot wgmma computes, [N, M] for a swapped layout.
    MmaEncodingAttr getInstructionLayout() const {
      return get(getContext(), getVersion(), getWarpsPerCTA(), getInstrShape());
    }
  }];
  let genVerifyDecl = 1;
}

def TileGPU_DotOperandEncodingAttr : TileGPU_Attr<"DotOperandEncoding", "dot_op"> {
  let summary = "An operand of a dot, in the registers its instruction reads";
  let description = [{
    Operand `opIdx` (0: A, M x K; 1: B, K x N) of a dot whose result has
    the `parent` layout. With an `mma` parent it is the instruction's
    fragment, `kWidth` consecutive K elements packed in each 32-bit
    register (2 for f16 and bf16, 1 for tf32, 4 for i8), and the K
    dimension is padded to the instruction's K. With a `blocked` parent
    (the FMA dot) each thread holds, for the rows (A) or columns (B) of
    its accumulator elements, the whole K extent.
    ```mlir
    #tilegpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>
    ```
  }];
  let parameters = (ins "unsigned":$opIdx, "::mlir::Attribute":$parent,
                        "unsigned":$kWidth);
  let assemblyFormat = [{
    `<` `{` `opIdx` `=` $opIdx `,` `parent` `=` $parent `,`
            `kWidth` `=` $kWidth `}` `>`
  }];
  let genVerifyDecl = 1;
}

def TileGPU_LinearEncodingAttr : TileGPU_Attr<"LinearEncoding", "linear"> {
  let summary = "Any layout, by the moves of its register, lane and warp bits";
  let description = [{
    The general form of the distributed layouts (see ThreadLayout.h): each
    bit of a thread's register number, of its lane id (five bits) and of
    its warp id moves an element by a power of two along one dimension, or
    not at all (an all-zero basis: threads differing in that bit hold
    copies). Bases are written per dimension, as in Triton's linear
    layouts. The layout passes make these where a shape op renames a
    layout's dimensions (tile.trans of a non-blocked layout, tile.reshape,
    tile.join, tile.split); each covers one shape exactly.
    ```mlir
    #tilegpu.linear<{reg = [[0, 1], [1, 0]], lane = [[0, 2], [0, 4], [2, 0],
                     [4, 0], [8, 0]], warp = [[16, 0], [0, 0]]}>
    ```
  }];
  let parameters = (ins "unsigned":$rank,
                        ArrayRefParameter<"int64_t">:$reg,
                        ArrayRefParameter<"int64_t">:$lane,
                        ArrayRefParameter<"int64_t">:$warp);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The bases of each kind as (dimension, offset) moves.
    ::llvm::SmallVector<LayoutBasis> getRegBases() const;
    ::llvm::SmallVector<LayoutBasis> getLaneBases() const;
    ::llvm::SmallVector<LayoutBasis> getWarpBases() const;
    static LinearEncodingAttr get(::mlir::MLIRContext *context, unsigned rank,
                                  ::llvm::ArrayRef<LayoutBasis> reg,
                                  ::llvm::ArrayRef<LayoutBasis> lane,
                                  ::llvm::ArrayRef<LayoutBasis> warp);
  }];
}

def TileGPU_SharedEncodingAttr : TileGPU_Attr<"SharedEncoding", "shared"> {
  let summary = "A tile in shared memory, rows swizzled against bank conflicts";
  let description = [{
    Elements are stored with dimension `order[0]` contiguous (a row), the
    others row-major around it. Each row is split into chunks of `vec`
    elements (16 bytes), and the chunk index is xor-ed with the row's phase,
    `(row / perPhase) % maxPhase`: the eight rows that an ldmatrix (or a
    warp's 16-byte stores down a column) touches land in eight different
    16-byte bank groups. Like the distributed layouts, the map is linear in
    the bits of the index (an xor), and maxPhase = 1 is no swizzle.
    ```mlir
    #tilegpu.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
    ```
  }];
  let parameters = (ins "unsigned":$vec, "unsigned":$perPhase,
                        "unsigned":$maxPhase,
                        ArrayRefParameter<"unsigned">:$order);
  let assemblyFormat = [{
    `<` `{` `vec` `=` $vec `,` `perPhase` `=` $perPhase `,`
            `maxPhase` `=` $maxPhase `,` `order` `=` `[` $order `]` `}` `>`
  }];
}

#endif // TILEC_DIALECT_TILEGPU_IR_TILEGPUATTRS_TD
