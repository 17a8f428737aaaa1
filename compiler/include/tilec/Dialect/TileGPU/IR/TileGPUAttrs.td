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

#endif // TILEC_DIALECT_TILEGPU_IR_TILEGPUATTRS_TD
