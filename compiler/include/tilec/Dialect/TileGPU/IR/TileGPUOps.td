//===- TileGPUOps.td - Operations on laid-out tiles --------*- tablegen -*-===//

#ifndef TILEC_DIALECT_TILEGPU_IR_TILEGPUOPS_TD
#define TILEC_DIALECT_TILEGPU_IR_TILEGPUOPS_TD

include "tilec/Dialect/TileGPU/IR/TileGPUAttrs.td"
include "tilec/Dialect/TileGPU/IR/TileGPUTypes.td"
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

def TileGPU_LocalAllocOp : TileGPU_Op<"local_alloc", [
    MemoryEffects<[MemAlloc<DefaultResource>, MemWrite<DefaultResource>]>]> {
  let summary = "A buffer of shared memory, optionally holding a tile";
  let description = [{
    Allocates the result's buffer in shared memory for the whole kernel and,
    given `src`, stores the tile into it (the CTA synchronizes before and
    after, so earlier readers are done and later ones see it all).
    ```mlir
    %m = tilegpu.local_alloc %x : tensor<64x32xf16, #blocked> -> !tilegpu.memdesc<64x32xf16, #shared>
    %ring = tilegpu.local_alloc : () -> !tilegpu.memdesc<3x64x32xf16, #shared>
    ```
  }];
  let arguments = (ins Optional<AnyRankedTensor>:$src);
  let results = (outs TileGPU_MemDescType:$result);
  let assemblyFormat = [{
    ($src^)? attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def TileGPU_MemDescIndexOp : TileGPU_Op<"memdesc_index", [Pure]> {
  let summary = "One buffer of a ring of shared-memory buffers";
  let description = [{
    ```mlir
    %slot = tilegpu.memdesc_index %ring, %i : !tilegpu.memdesc<3x64x32xf16, #shared> -> !tilegpu.memdesc<64x32xf16, #shared>
    ```
  }];
  let arguments = (ins TileGPU_MemDescType:$src, I32:$index);
  let results = (outs TileGPU_MemDescType:$result);
  let assemblyFormat = [{
    $src `,` $index attr-dict `:` type($src) `->` type($result)
  }];
  let hasVerifier = 1;
}

def TileGPU_AsyncCopyOp : TileGPU_Op<"async_copy", [
    MemoryEffects<[MemRead<DefaultResource>, MemWrite<DefaultResource>]>]> {
  let summary = "Global to shared memory without passing through registers (cp.async)";
  let description = [{
    Each thread starts copying the elements it holds of `ptrs` (in their
    blocked layout) into `dst`; masked-off elements are filled with zeros
    (`other` must be absent or zero). The copies complete in the order of
    `tilegpu.async_commit_group`s, as `tilegpu.async_wait` waits for them.
    ```mlir
    tilegpu.async_copy %ptrs, %slot, %mask : tensor<64x32x!tile.ptr<f16>, #blocked>, !tilegpu.memdesc<64x32xf16, #shared>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$ptrs, TileGPU_MemDescType:$dst,
                       Optional<AnyRankedTensor>:$mask);
  let assemblyFormat = [{
    $ptrs `,` $dst (`,` $mask^)? attr-dict `:` type($ptrs) `,` type($dst) (`,` type($mask)^)?
  }];
}

def TileGPU_AsyncCommitGroupOp : TileGPU_Op<"async_commit_group", [
    MemoryEffects<[MemWrite<DefaultResource>]>]> {
  let summary = "Closes a group of this thread's async copies (cp.async.commit_group)";
  let assemblyFormat = "attr-dict";
}

def TileGPU_AsyncWaitOp : TileGPU_Op<"async_wait", [
    MemoryEffects<[MemRead<DefaultResource>, MemWrite<DefaultResource>]>]> {
  let summary = "Waits until at most `pending` copy groups are in flight, then syncs the CTA";
  let description = [{
    cp.async.wait_group and a CTA barrier: afterwards every thread sees
    every thread's completed copies.
    ```mlir
    tilegpu.async_wait {pending = 1 : i32}
    ```
  }];
  let arguments = (ins I32Attr:$pending);
  let assemblyFormat = "attr-dict";
}

def TileGPU_WarpgroupDotWaitOp : TileGPU_Op<"warpgroup_dot_wait", [
    AllTypesMatch<["input", "result"]>,
    MemoryEffects<[MemRead<DefaultResource>, MemWrite<DefaultResource>]>]> {
  let summary = "Waits until at most `pending` of the warpgroup's wgmma dots are in flight";
  let description = [{
    A Hopper dot (mma encoding version 3) whose result's only user is this
    op leaves its wgmma group in flight (wgmma.commit_group without a
    wait); this op is wgmma.wait_group `pending`. `result` is `input`: with
    `pending` 0 it is the finished accumulator; otherwise `input` may still
    be written by the hardware, and `result` may only be read by the next
    dot of the same accumulator chain, which tilegpu-pipeline guarantees
    when it keeps a K loop's dot in flight across iterations.
    ```mlir
    %d = tile.dot %a, %b, %acc : ... -> tensor<128x128xf32, #mma>
    %r = tilegpu.warpgroup_dot_wait %d {pending = 1 : i32} : tensor<128x128xf32, #mma>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input, I32Attr:$pending);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasVerifier = 1;
}

def TileGPU_FenceAsyncSharedOp : TileGPU_Op<"fence_async_shared", [
    MemoryEffects<[MemRead<DefaultResource>, MemWrite<DefaultResource>]>]> {
  let summary = "Makes this thread's shared-memory stores visible to the async proxy";
  let description = [{
    fence.proxy.async.shared::cta: wgmma reads its operands, and bulk copies
    read and write shared memory, through the async proxy, which does not
    see ordinary stores (st.shared) without this fence. Each thread fences
    its own stores; a CTA barrier after it makes all of them visible.
    tilegpu-pipeline puts it before a wgmma dot whose buffers were stored
    from registers (cp.async's writes need none).
    ```mlir
    tilegpu.fence_async_shared
    ```
  }];
  let assemblyFormat = "attr-dict";
}

#endif // TILEC_DIALECT_TILEGPU_IR_TILEGPUOPS_TD
