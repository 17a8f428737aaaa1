//===- TileGPUOps.td - Operations on laid-out tiles --------*- tablegen -*-===//

#ifndef TILEC_DIALECT_TILEGPU_IR_TILEGPUOPS_TD
#define TILEC_DIALECT_TILEGPU_IR_TILEGPUOPS_TD

include "tilec/Dialect/TileGPU/IR/TileGPUAttrs.td"
include "tilec/Dialect/TileGPU/IR/TileGPUTypes.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

/// A scalar !tile.ptr (the Tile dialect's pointer type).
def TileGPU_ScalarPointer : Type<CPred<"::mlir::isa<::mlir::tile::PointerType>($_self)">,
                                 "a !tile.ptr">;

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

def TileGPU_MemDescTransOp : TileGPU_Op<"memdesc_trans", [Pure]> {
  let summary = "A matrix in shared memory seen transposed";
  let description = [{
    The bytes of `src` (a 2-D buffer) with its dimensions swapped: the
    result's shape is the source's reversed and its encoding's order too,
    so element (i, j) of the result is element (j, i) of the source.
    tilegpu-pipeline reads a wgmma B operand `tl.trans(x)` through this
    view of x's buffer, which x's other dots share and the loop's copies
    fill once (the backward's q and do; an fp8 attention's V^T, whose rows
    run along K as fp8 wgmma wants).
    ```mlir
    %qT = tilegpu.memdesc_trans %q : !tilegpu.memdesc<64x128xf16, #shared> -> !tilegpu.memdesc<128x64xf16, #shared1>
    ```
  }];
  let arguments = (ins TileGPU_MemDescType:$src);
  let results = (outs TileGPU_MemDescType:$result);
  let assemblyFormat = [{
    $src attr-dict `:` type($src) `->` type($result)
  }];
  let extraClassDeclaration = [{
    /// The buffer `buffer` is a view of, or `buffer` itself.
    static Value getViewed(Value buffer) {
      auto view = buffer.getDefiningOp<MemDescTransOp>();
      return view ? view.getSrc() : buffer;
    }
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
    wait); this op is wgmma.wait_group `pending`. Groups finish in the
    order they were committed: `result` is the finished accumulator where
    at most `pending` groups were committed after the dot's (0: always;
    tilegpu-overlap-dots waits for attention's S with 1, its P V issued
    after it). Otherwise `input` may still be written by the hardware, and
    `result` may only be read by the next dot of the same accumulator
    chain, which tilegpu-pipeline guarantees when it keeps a K loop's dot
    in flight across iterations.
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

def TileGPU_TensorMapCreateOp : TileGPU_Op<"tensormap_create", [AttrSizedOperandSegments,
    MemoryEffects<[MemRead<DefaultResource>, MemWrite<DefaultResource>]>]> {
  let summary = "Builds a bulk-copy tensor map in the program's global scratch";
  let description = [{
    Thread 0 writes the 128-byte tensor map (CUtensorMap) of a tensor at
    `base` into `staging`, a 128-byte shared-memory buffer, and the first
    warp copies it into slot `index` of this program's part of `scratch`
    (the kernel's trailing global-scratch parameter), fenced for the
    tensor-map proxy; the result is its generic address. Dimensions, strides and
    the box run innermost first, as bulk tensor copies number them: `dims`
    are the extents (i32), `strides` the element strides of every dimension
    but the innermost, which is contiguous, and `box` the extents one copy
    moves. Out-of-bounds elements read as zero; `swizzle` is the shared
    memory swizzle span in bytes (32, 64 or 128; 0 for none).
    ```mlir
    %map = tilegpu.tensormap_create %scratch, %a[%k, %m] strides [%lda] {box = array<i32: 64, 128>, index = 0 : i32, swizzle = 128 : i32} via %staging : !tile.ptr<i8>, !tile.ptr<f16>, <16xi64, #shared>
    ```
  }];
  let arguments = (ins TileGPU_ScalarPointer:$scratch, TileGPU_ScalarPointer:$base,
                       Variadic<I32>:$dims, Variadic<I64>:$strides,
                       TileGPU_MemDescType:$staging,
                       DenseI32ArrayAttr:$box, I32Attr:$swizzle,
                       I32Attr:$index);
  let results = (outs TileGPU_TensorMapType:$result);
  let assemblyFormat = [{
    $scratch `,` $base `[` $dims `]` `strides` `[` $strides `]` attr-dict
    `via` $staging `:` type($scratch) `,` type($base) `,` type($staging)
  }];
  let hasVerifier = 1;
}

def TileGPU_TensorMapAcquireOp : TileGPU_Op<"tensormap_acquire", [
    MemoryEffects<[MemRead<DefaultResource>, MemWrite<DefaultResource>]>]> {
  let summary = "The copies' thread acquires a tensor map another thread built";
  let description = [{
    tilegpu.tensormap_create releases its map to the tensor-map proxy and
    acquires it for thread 0. A thread that issues bulk copies through the
    map from other code (a tilegpu.warp_specialize producer) acquires it
    here, after a CTA barrier that follows the create, and starts fetching
    it (prefetch.tensormap).
    ```mlir
    tilegpu.tensormap_acquire %map
    ```
  }];
  let arguments = (ins TileGPU_TensorMapType:$tensormap);
  let assemblyFormat = "$tensormap attr-dict";
}

def TileGPU_TensorMapPrefetchOp : TileGPU_Op<"tensormap_prefetch", [
    MemoryEffects<[MemRead<DefaultResource>, MemWrite<DefaultResource>]>]> {
  let summary = "The copies' thread starts fetching a tensor map the launcher built";
  let description = [{
    A tensor map passed as a kernel parameter needs no fence: the launch
    made it visible. The thread that issues bulk copies through it (thread
    0, or a warp-specialized producer's first thread) starts fetching it
    before the first copy needs it (prefetch.tensormap).
    ```mlir
    tilegpu.tensormap_prefetch %map
    ```
  }];
  let arguments = (ins TileGPU_TensorMapType:$tensormap);
  let assemblyFormat = "$tensormap attr-dict";
}

def TileGPU_ClusterRankOp : TileGPU_Op<"cluster_rank", [Pure]> {
  let summary = "This CTA's rank among the CTAs of its program's cluster";
  let description = [{
    In a kernel whose programs run as thread-block clusters
    (`tilegpu.cluster_split`), the CTA's rank in its cluster (0 to the
    cluster's size minus 1; %cluster_ctarank). tilegpu-cluster-split-k
    gives each rank its share of the K loop.
    ```mlir
    %rank = tilegpu.cluster_rank : i32
    ```
  }];
  let results = (outs I32:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
}

def TileGPU_ClusterPairEqualOp : TileGPU_Op<"cluster_pair_equal", [
    MemoryEffects<[MemRead<DefaultResource>, MemWrite<DefaultResource>]>]> {
  let summary = "Whether the kernel runs as clusters of two CTAs that agree on `values`";
  let description = [{
    True in both CTAs of a cluster of two whose `values` are equal, false
    in both otherwise, and in a CTA launched alone (a cluster of one):
    after a cluster barrier, each CTA writes its values into the other's
    scratch shared memory through distributed shared memory, and after
    another compares them with its own. The barriers also publish the
    mbarriers each CTA initialized before (fence.mbarrier_init), so the
    other CTA's copies and arrivals may target them. Every thread of both
    CTAs must reach it. tilegpu-pipeline's warp specialization asks it
    whether two neighbouring programs copy the same boxes of a tile
    (`tilegpu.async_tma_copy shared`).
    ```mlir
    %agree = tilegpu.cluster_pair_equal %n, %lower, %upper : i32, i32, i32
    ```
  }];
  let arguments = (ins Variadic<AnySignlessIntegerOrIndex>:$values);
  let results = (outs I1:$result);
  let assemblyFormat = "($values^ `:` type($values))? attr-dict";
}

def TileGPU_ClusterBarrierOp : TileGPU_Op<"cluster_barrier", [
    MemoryEffects<[MemRead<DefaultResource>, MemWrite<DefaultResource>]>]> {
  let summary = "Every thread of every CTA of the cluster arrives and waits";
  let description = [{
    barrier.cluster (release, acquire): shared-memory accesses before it in
    any CTA of the cluster happen before those after it in any other, and
    no CTA leaves it while another may still reach its shared memory.
    Threads that have exited do not count.
    ```mlir
    tilegpu.cluster_barrier
    ```
  }];
  let assemblyFormat = "attr-dict";
}

def TileGPU_ClusterSumOp : TileGPU_Op<"cluster_sum", [
    AllTypesMatch<["input", "result"]>,
    MemoryEffects<[MemRead<DefaultResource>, MemWrite<DefaultResource>]>]> {
  let summary = "Sums a tensor over the CTAs of a cluster, in rank order, on rank 0";
  let description = [{
    Every CTA of the cluster writes its `input` (an f32 or i32
    accumulator) into its scratch shared memory; after a cluster barrier,
    rank r sums its share of the elements over all the CTAs through
    distributed shared memory in rank order (((r0 + r1) + r2) + ...), so
    the result has the same bits on every run, and stores the sums back;
    after another, rank 0 gathers them, and a last one keeps the others'
    shared memory alive until it has. Only rank 0's `result` is the sum
    (the others' is unspecified). Thread t of every CTA holds the same
    elements in the same layout, so no layout conversion is needed. Every
    thread of every CTA must reach it.
    ```mlir
    %sum = tilegpu.cluster_sum %acc {ctas = 4 : i32} : tensor<64x128xf32, #mma>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input, I32Attr:$ctas);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
}

def TileGPU_StreamKStoreOp : TileGPU_Op<"stream_k_store", [
    MemoryEffects<[MemRead<DefaultResource>, MemWrite<DefaultResource>]>]> {
  let summary = "Stores a stream-K CTA's partial accumulator and signals it";
  let description = [{
    A stream-K kernel's workspace (tilegpu-stream-k) holds `slots` zeroed
    32-bit flags, padded to 128 bytes, then `slots` partial accumulators.
    Every thread stores its registers of `partial` (f32 or i32) into partial
    `slot`, 16-byte chunk j of thread t at (j * T + t) * 16 (each warp's
    stores contiguous, whatever the layout); after a CTA barrier, thread 0
    sets flag `slot` with a release store. The CTA that owns the tile reads
    it back with `tilegpu.stream_k_add` in the same layout. Every thread of
    the CTA must reach it.
    ```mlir
    tilegpu.stream_k_store %acc, %workspace[%slot of %slots] : tensor<128x128xf32, #mma>, !tile.ptr<i8>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$partial, TileGPU_ScalarPointer:$workspace,
                       I32:$slot, I32:$slots);
  let assemblyFormat = [{
    $partial `,` $workspace `[` $slot `of` $slots `]` attr-dict `:`
    type($partial) `,` type($workspace)
  }];
}

def TileGPU_StreamKAddOp : TileGPU_Op<"stream_k_add", [
    AllTypesMatch<["input", "result"]>,
    MemoryEffects<[MemRead<DefaultResource>, MemWrite<DefaultResource>]>]> {
  let summary = "Adds another stream-K CTA's partial accumulator, once it is there";
  let description = [{
    Thread 0 waits until flag `slot` of the workspace is set (an acquire
    load, backing off with nanosleep); after a CTA barrier every thread
    loads its registers of partial `slot` (stored by
    `tilegpu.stream_k_store` in the same layout) and adds them to its
    `input`: input + partial, in that order. Every thread of the CTA must
    reach it.
    ```mlir
    %sum = tilegpu.stream_k_add %acc, %workspace[%slot of %slots] : tensor<128x128xf32, #mma>, !tile.ptr<i8>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input, TileGPU_ScalarPointer:$workspace,
                       I32:$slot, I32:$slots);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $input `,` $workspace `[` $slot `of` $slots `]` attr-dict `:`
    type($input) `,` type($workspace)
  }];
}

def TileGPU_TurnstileWaitOp : TileGPU_Op<"turnstile_wait", [
    MemoryEffects<[MemRead<DefaultResource>, MemWrite<DefaultResource>]>]> {
  let summary = "Waits for this program's turn to do its atomics";
  let description = [{
    Deterministic atomics (`tilegpu.deterministic`): the programs that differ
    only along the ordering axis (the grid's last axis with more than one
    program) take turns, in order of their id on that axis. `turnstiles`
    holds one zeroed 32-bit counter per position on the other axes; thread
    0 waits until its position's counter equals the program's id on the
    ordering axis (an acquire load), then the CTA barrier lets every thread
    go on, seeing what the programs before did.
    ```mlir
    tilegpu.turnstile_wait %turnstiles : !tile.ptr<i32>
    ```
  }];
  let arguments = (ins TileGPU_ScalarPointer:$turnstiles);
  let assemblyFormat = "$turnstiles attr-dict `:` type($turnstiles)";
}

def TileGPU_TurnstileSignalOp : TileGPU_Op<"turnstile_signal", [
    MemoryEffects<[MemRead<DefaultResource>, MemWrite<DefaultResource>]>]> {
  let summary = "Passes the turn to the next program on the ordering axis";
  let description = [{
    After a CTA barrier (every thread's atomics done), thread 0 stores the
    program's id on the ordering axis plus one into its position's counter,
    with release semantics: the next program's `tilegpu.turnstile_wait`
    sees this program's atomics.
    ```mlir
    tilegpu.turnstile_signal %turnstiles : !tile.ptr<i32>
    ```
  }];
  let arguments = (ins TileGPU_ScalarPointer:$turnstiles);
  let assemblyFormat = "$turnstiles attr-dict `:` type($turnstiles)";
}

def TileGPU_AsyncTMACopyOp : TileGPU_Op<"async_tma_copy", [AttrSizedOperandSegments,
    MemoryEffects<[MemRead<DefaultResource>, MemWrite<DefaultResource>]>]> {
  let summary = "Global to shared memory by the bulk tensor copy engine (TMA)";
  let description = [{
    Where `pred` holds (absent: always), thread 0 starts copying the box of
    `tensormap` at `coords` (innermost first, as the map numbers its
    dimensions) into `dst`, one bulk tensor copy per 128-byte column panel
    of `dst` (see SharedPanels). The copies complete on `barrier`, whose
    phase `tilegpu.barrier_expect` told the bytes to wait for.

    Where `shared` holds, the two CTAs of the cluster copy the same box
    (`tilegpu.cluster_pair_equal` said so): each copies half of the panels
    and multicasts them to both, at the same offsets and on the same
    barriers, so that the box comes from L2 once. Where it does not, each
    copies every panel for itself. The panels must be even in number.
    ```mlir
    tilegpu.async_tma_copy %map[%k, %m], %slot, %bar, %pred : !tilegpu.memdesc<128x64xf16, #shared>, !tilegpu.memdesc<1xi64>
    tilegpu.async_tma_copy %map[%n, %k], %slot, %bar shared %agree : !tilegpu.memdesc<64x256xf16, #shared>, !tilegpu.memdesc<1xi64>
    ```
  }];
  let arguments = (ins TileGPU_TensorMapType:$tensormap, Variadic<I32>:$coords,
                       TileGPU_MemDescType:$dst, TileGPU_MemDescType:$barrier,
                       Optional<I1>:$pred, Optional<I1>:$shared);
  let assemblyFormat = [{
    $tensormap `[` $coords `]` `,` $dst `,` $barrier (`,` $pred^)?
    (`shared` $shared^)? attr-dict `:` type($dst) `,` type($barrier)
  }];
  let hasVerifier = 1;
}

def TileGPU_AsyncTMAStoreOp : TileGPU_Op<"async_tma_store", [
    MemoryEffects<[MemRead<DefaultResource>, MemWrite<DefaultResource>]>]> {
  let summary = "A tile stored to global memory by the bulk tensor copy engine (TMA)";
  let description = [{
    Every thread writes its elements of `src` into the op's scratch space,
    laid out as `buffer` says (128-byte column panels of a 32-, 64- or
    128-byte swizzle, as the copy engine reads them, see SharedPanels), and
    fences them for the async proxy; after a CTA barrier, thread 0 copies
    the buffer to the box of `tensormap` at `coords` (innermost first), one
    bulk tensor copy per panel, and waits until the engine has read it.
    The engine writes only the part of the box inside the tensor, which is
    what a store masked by the box's bounds writes. The scratch space, like
    a layout conversion's, reuses the bytes of buffers no longer live (an
    epilogue's, the pipeline's rings).

    The writes themselves complete later, in the async proxy, unordered
    with the program's later accesses to global memory. With `complete`,
    thread 0 waits until they are done and a CTA barrier follows, so that
    whatever the program does next sees them (tilegpu-bulk-stores sets it
    where an access to global memory may follow).
    ```mlir
    tilegpu.async_tma_store %map[%n, %m], %c {buffer = !tilegpu.memdesc<128x256xf16, #shared>} : tensor<128x256xf16, #mma>
    tilegpu.async_tma_store %map[%n, %m], %c {buffer = !tilegpu.memdesc<128x256xf16, #shared>, complete} : tensor<128x256xf16, #mma>
    ```
  }];
  let arguments = (ins TileGPU_TensorMapType:$tensormap, Variadic<I32>:$coords,
                       AnyRankedTensor:$src, TypeAttrOf<TileGPU_MemDescType>:$buffer,
                       UnitAttr:$complete);
  let assemblyFormat = [{
    $tensormap `[` $coords `]` `,` $src attr-dict `:` type($src)
  }];
  let hasVerifier = 1;
}

def TileGPU_BarrierInitOp : TileGPU_Op<"barrier_init", [
    MemoryEffects<[MemWrite<DefaultResource>]>]> {
  let summary = "Thread 0 initializes a ring of mbarriers";
  let description = [{
    mbarrier.init of every slot of `barriers` (a `memdesc<Sx1xi64>`) with an
    arrival count of `count` (1: the thread that issues bulk copies), then a
    proxy fence so that bulk copies see them. A CTA barrier must follow
    before any thread waits on them.
    ```mlir
    tilegpu.barrier_init %bars : !tilegpu.memdesc<3x1xi64>
    tilegpu.barrier_init %empty {count = 8 : i32} : !tilegpu.memdesc<3x1xi64>
    ```
  }];
  let arguments = (ins TileGPU_MemDescType:$barriers,
                       DefaultValuedAttr<I32Attr, "1">:$count);
  let assemblyFormat = "$barriers attr-dict `:` type($barriers)";
}

def TileGPU_BarrierExpectOp : TileGPU_Op<"barrier_expect", [
    MemoryEffects<[MemRead<DefaultResource>, MemWrite<DefaultResource>]>]> {
  let summary = "Thread 0 arrives on an mbarrier expecting `bytes` of copies";
  let description = [{
    mbarrier.arrive.expect_tx where `pred` holds: the barrier's current
    phase completes once bulk copies have written `bytes` bytes to it.
    ```mlir
    tilegpu.barrier_expect %bar, %pred {bytes = 49152 : i32} : !tilegpu.memdesc<1xi64>
    ```
  }];
  let arguments = (ins TileGPU_MemDescType:$barrier, I32Attr:$bytes,
                       Optional<I1>:$pred);
  let assemblyFormat = [{
    $barrier (`,` $pred^)? attr-dict `:` type($barrier)
  }];
}

def TileGPU_BarrierArriveOp : TileGPU_Op<"barrier_arrive", [AttrSizedOperandSegments,
    MemoryEffects<[MemRead<DefaultResource>, MemWrite<DefaultResource>]>]> {
  let summary = "Each warp arrives once on an mbarrier";
  let description = [{
    Where `pred` holds (absent: always), the first lane of every warp that
    runs this op does mbarrier.arrive, releasing what the warp did before
    to the threads that wait on the phase: a consumer warp tells the
    producer that it is done reading a buffer, so the barrier counts one
    arrival per consumer warp (`tilegpu.barrier_init {count}`).

    With `shared`, the warp arrives twice: on its own barrier and, where
    `shared` holds, on the same barrier of the cluster's other CTA, whose
    copies fill this CTA's buffer too (`tilegpu.async_tma_copy shared`);
    where it does not, on its own again. The barrier counts two arrivals
    per consumer warp either way.
    ```mlir
    tilegpu.barrier_arrive %empty, %pred : !tilegpu.memdesc<1xi64>
    tilegpu.barrier_arrive %empty, %pred shared %agree : !tilegpu.memdesc<1xi64>
    ```
  }];
  let arguments = (ins TileGPU_MemDescType:$barrier, Optional<I1>:$pred,
                       Optional<I1>:$shared);
  let assemblyFormat = [{
    $barrier (`,` $pred^)? (`shared` $shared^)? attr-dict `:` type($barrier)
  }];
}

def TileGPU_BarrierWaitOp : TileGPU_Op<"barrier_wait", [
    MemoryEffects<[MemRead<DefaultResource>, MemWrite<DefaultResource>]>]> {
  let summary = "Every thread waits for an mbarrier's phase of parity `phase`";
  let description = [{
    mbarrier.try_wait.parity until the phase completes: afterwards the
    bulk copies it counted are visible to the waiting thread.
    ```mlir
    tilegpu.barrier_wait %bar, %phase : !tilegpu.memdesc<1xi64>
    ```
  }];
  let arguments = (ins TileGPU_MemDescType:$barrier, I32:$phase);
  let assemblyFormat = "$barrier `,` $phase attr-dict `:` type($barrier)";
}

def TileGPU_BarrierInvalOp : TileGPU_Op<"barrier_inval", [
    MemoryEffects<[MemWrite<DefaultResource>]>]> {
  let summary = "Thread 0 invalidates a ring of mbarriers";
  let description = [{
    mbarrier.inval of every slot, so that the memory may serve other
    buffers. Every thread must be done waiting on them (a CTA barrier
    before).
    ```mlir
    tilegpu.barrier_inval %bars : !tilegpu.memdesc<3x1xi64>
    ```
  }];
  let arguments = (ins TileGPU_MemDescType:$barriers);
  let assemblyFormat = "$barriers attr-dict `:` type($barriers)";
}

def TileGPU_WarpgroupTurnWaitOp : TileGPU_Op<"warpgroup_turn_wait", [
    MemoryEffects<[MemRead<DefaultResource>, MemWrite<DefaultResource>]>]> {
  let summary = "This consumer warpgroup waits for its turn";
  let description = [{
    The consumer warpgroups of a warp-specialized program (`num_warps / 4`
    of them, n) take turns in a cycle: warpgroup g waits (bar.sync on named
    barrier 2 + g, 256 threads) until warpgroup g - 1 mod n has passed it
    the turn (`tilegpu.warpgroup_turn_pass`). Between a wait and its pass a
    warpgroup issues its tensor-core work, so that one warpgroup's wgmma
    run while the others compute on their results (FlashAttention-3's
    ping-pong). With `not_first`, warpgroup 0 does not wait: the first
    turn is its own.
    ```mlir
    tilegpu.warpgroup_turn_wait
    tilegpu.warpgroup_turn_wait {not_first}
    ```
  }];
  let arguments = (ins UnitAttr:$not_first);
  let assemblyFormat = "attr-dict";
}

def TileGPU_WarpgroupTurnPassOp : TileGPU_Op<"warpgroup_turn_pass", [
    MemoryEffects<[MemRead<DefaultResource>, MemWrite<DefaultResource>]>]> {
  let summary = "This consumer warpgroup passes the turn to the next";
  let description = [{
    Warpgroup g arrives (bar.arrive, 256 threads) on the named barrier of
    warpgroup g + 1 mod n, which its `tilegpu.warpgroup_turn_wait` then
    passes. With `not_last`, the last warpgroup does not pass: its turn is
    the last one, and every named barrier's arrivals are matched by waits.
    ```mlir
    tilegpu.warpgroup_turn_pass
    tilegpu.warpgroup_turn_pass {not_last}
    ```
  }];
  let arguments = (ins UnitAttr:$not_last);
  let assemblyFormat = "attr-dict";
}

def TileGPU_WarpSpecializeOp : TileGPU_Op<"warp_specialize", [
    RecursiveMemoryEffects, NoRegionArguments,
    SingleBlockImplicitTerminator<"WarpYieldOp">]> {
  let summary = "Producer warps and consumer warps run different code";
  let description = [{
    The program's `num_warps` warps (the consumers, which every layout of
    the module counts) run `consumer`; `producer_warps` more warps, after
    them, run `producer`, of which only the first thread does anything: it
    issues the bulk copies that fill the consumers' buffers. The two sides
    meet only through mbarriers: the producer waits for a slot's consumers
    to release it (`tilegpu.barrier_arrive`), the consumers for its copies
    (`tilegpu.barrier_wait`). CTA barriers in `consumer` synchronize the
    consumers alone. Where `consumer_registers` is nonzero, the producer
    warps give registers up (setmaxnreg.dec to `producer_registers`) and
    the consumers take them (setmaxnreg.inc to `consumer_registers`).
    Whatever follows the op runs on both sides; tilegpu-pipeline moves the
    rest of the kernel into `consumer`.
    ```mlir
    tilegpu.warp_specialize attributes {consumer_registers = 232 : i32,
        producer_registers = 40 : i32, producer_warps = 4 : i32} producer {
      scf.for %i = %c0 to %n step %c1 { ... }
    } consumer {
      %acc = scf.for ... ; tile.store ...
    }
    ```
  }];
  let arguments = (ins I32Attr:$producer_warps, I32Attr:$producer_registers,
                       I32Attr:$consumer_registers);
  let regions = (region SizedRegion<1>:$producer, SizedRegion<1>:$consumer);
  let assemblyFormat = "attr-dict-with-keyword `producer` $producer `consumer` $consumer";
  let hasVerifier = 1;
}

def TileGPU_WarpYieldOp : TileGPU_Op<"warp_yield", [
    Pure, Terminator, HasParent<"WarpSpecializeOp">]> {
  let summary = "Ends a side of tilegpu.warp_specialize";
  let assemblyFormat = "attr-dict";
}

#endif // TILEC_DIALECT_TILEGPU_IR_TILEGPUOPS_TD
