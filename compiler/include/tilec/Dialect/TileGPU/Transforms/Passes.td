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

def TileGPUClusterSplitK : Pass<"tilegpu-cluster-split-k", "::mlir::ModuleOp"> {
  let summary = "A program's K loop split over the CTAs of a thread-block cluster";
  let description = [{
    In a module marked `tilegpu.cluster_split = S`, each program runs as a
    cluster of S CTAs (program ids become cluster ids in the lowering). The
    kernel's K loop (a top-level `scf.for` whose results include `tile.dot`
    accumulators, its other loop-carried values advancing by loop-invariant
    steps) is cut into S contiguous chunks of its iterations, one per rank
    (`tilegpu.cluster_rank`); the carried values start where the chunk
    starts, the accumulators at zero except on rank 0. After the loop,
    `tilegpu.cluster_sum` adds the accumulators on rank 0 in rank order
    through distributed shared memory, and everything that follows the loop
    (the epilogue: its stores) runs on rank 0 alone. The sum's order is
    fixed, so a launch gives the same bits every time, with no atomics and
    no zeroed output.

    The kernel must have no stores, atomics or prints before the loop or in
    it, no other loop-carried value used after it, and a constant positive
    step. Where it does not qualify, the attribute is removed and the kernel
    is left as it is (a program is one CTA). Where it does, the module is
    also marked `tilegpu.cluster_splittable`; `tilegpu.cluster_split = 1`
    asks for that mark alone, the kernel unchanged.
  }];
}

def TileGPUStreamK : Pass<"tilegpu-stream-k", "::mlir::ModuleOp"> {
  let summary = "A dot kernel's programs run stream-K by a fixed number of CTAs";
  let description = [{
    Where a grid's last wave of CTAs would leave a tenth of the GPU or more
    idle (192 output tiles on 132 SMs), the launch asks for a stream-K
    kernel
    (`tilegpu.stream_k`): the launch's (programs - R) first CTAs each run one
    program, as before; the other S CTAs share the K loops of the last R
    programs, each a contiguous run of their iterations. A CTA's run may end
    a program it did not start: it stores its partial accumulator and sets a
    flag (`tilegpu.stream_k_store`); the CTA that started the program adds
    the partials of the CTAs after it in their order (`tilegpu.stream_k_add`)
    and runs the epilogue. The order is fixed by the launch, so the bits do
    not change from run to run; no output needs zeroing and no atomics are
    used.

    The kernel is rewritten into a loop over the runs of this CTA: the
    program ids (`tile.program_id`, `tile.num_programs`) come from the
    program the run is in and the grid the launch asked for, passed in
    parameters appended after every other (`tilegpu.launch_param`: the
    programs along x, y and z, R, and the workspace). The K loop qualifies
    as for tilegpu-cluster-split-k (KLoop.h), with one accumulator, and its
    bounds must not depend on the program. Where it does not qualify, the
    attribute is removed and the kernel left as it is; where it does, the
    module is marked `tilegpu.stream_k_splittable`, whether asked for or not.
    The rewritten K loop is nested in the loop over runs, so warp
    specialization (which wants the kernel's top-level loop, or one in a
    top-level scf.for over tiles) leaves it.
  }];
}

def TileGPUPersistentPrograms : Pass<"tilegpu-persistent-programs",
                                     "::mlir::ModuleOp"> {
  let summary = "A grid's programs run in turn by the CTAs the GPU holds";
  let description = [{
    The kernel becomes a loop over the programs the launch asked for, run
    by as many CTAs as the GPU holds at once, each the programs its number
    apart:

      for t = ctaid.x; t < px * py * pz; t += nctaid.x:
        the kernel, its program ids (t % px, t / px % py, t / (px * py))
        and numbers of programs (px, py, pz) the launch's

    where px, py and pz, the grid the launch asked for, are parameters
    appended after every other (`tilegpu.launch_param`, `tilegpu.programs`
    their axis). A warp-specialized loop inside then has a producer that
    copies the next program's first blocks while the consumers finish this
    one's (tilegpu-pipeline).

    `tilegpu.persistent` (bool) on the module says whether it was asked
    for; absent, the cost model decides: attention's loop on a producer
    warpgroup whose bounds are the same in every program (paysToPersist).
    Programs must be independent of each other's order: no atomics, grid
    dependencies, cluster splits or stream-K, one function, and tensor maps
    the launcher builds. Where the kernel runs persistent, the attribute is
    left (true); elsewhere it is removed.
  }];
}

def TileGPUPipeline : Pass<"tilegpu-pipeline", "::mlir::ModuleOp"> {
  let summary = "Dot operands in shared memory, loaded num-stages iterations ahead";
  let description = [{
    Every dot operand that a layout conversion brings into registers is
    stored into a shared-memory buffer (`tilegpu.local_alloc`) instead, and
    the dot reads it from there one instruction step at a time. In an
    `scf.for`, an operand loaded from global memory and used only so goes
    further: a ring of `num_stages` buffers is filled by async copies
    (cp.async) issued `num_stages - 1` iterations ahead, and each iteration
    waits only for its own buffer, so the copies of later iterations overlap
    the dots of the current one. The loop is rewritten by MLIR's
    `scf::pipelineForLoop` (stage 0: the copies and what their addresses
    need; the last stage: everything else), its first and last iterations
    predicated rather than peeled.

    `num_stages` comes from the loop's `tile.num_stages` attribute
    (`tl.range(..., num_stages=)`), else the module's; 1 (or less) leaves
    the loop as it is.

    On sm_90a, a loop of the kernel's body whose buffers the copy engine
    fills and whose dots stay in flight may be warp-specialized instead
    (`tilegpu.warp_specialize`, see WarpSpecialize.h): a producer
    warpgroup issues every iteration's copies once the consumers have
    released the slot on an mbarrier. The loop's `tile.warp_specialize`
    (`tl.range(..., warp_specialize=)`) decides, else a cost model.
  }];
  let dependentDialects = ["::mlir::tilegpu::TileGPUDialect",
                           "::mlir::arith::ArithDialect"];
}

def TileGPUBulkStores : Pass<"tilegpu-bulk-stores", "::mlir::ModuleOp"> {
  let summary = "Epilogue stores of accumulators by the bulk tensor copy engine";
  let description = [{
    On sm_90a, a `tile.store` of a 2-D tile that a layout conversion brings
    out of an mma accumulator, whose pointers and mask write a box of a
    tensor with 16-byte aligned rows (TensorBox.h), becomes a
    `tilegpu.async_tma_store` of the accumulator's registers through a
    swizzled buffer: thread 0 copies the buffer to the box with
    `cp.async.bulk.tensor`, which writes only what lies inside the tensor.
    The tensor map is a kernel parameter the launcher builds
    (HostTensorMaps.h); stores whose map it cannot build, and every store
    under `--device-tensor-maps`, stay as they are.
  }];
  let dependentDialects = ["::mlir::tilegpu::TileGPUDialect",
                           "::mlir::arith::ArithDialect"];
}

def TileGPUVersionMasks : Pass<"tilegpu-version-masks", "::mlir::ModuleOp"> {
  let summary = "Selects in loops skip their mask when it is all true";
  let description = [{
    An `arith.select` of tiles inside a loop whose mask is a conjunction of
    comparisons between index ranges (`o + arange(n)`, splats, constants)
    and splatted i1 scalars becomes an `scf.if` on a scalar test that every
    element of the mask is true (each comparison's largest element against
    the other side's smallest, with the ranges' ends checked not to wrap):
    then it yields the selected value unmasked, else it computes the mask
    and selects as before. Attention's `offs_n < N_CTX` and causal
    `offs_m >= offs_n` are true in every block of keys but the last ones.
  }];
  let dependentDialects = ["::mlir::scf::SCFDialect",
                           "::mlir::arith::ArithDialect"];
}

def TileGPUOverlapDots : Pass<"tilegpu-overlap-dots", "::mlir::ModuleOp"> {
  let summary = "A loop's second wgmma dot issued an iteration late, over the work between the dots";
  let description = [{
    In a loop of two wgmma dots where the second's A comes from the first
    in registers and its accumulator is carried by the loop (attention: S =
    Q K^T, the online softmax, O = O * alpha + P V), the second dot, the
    rescale of its accumulator and the waits for its B's bulk copies run
    one iteration late: iteration j issues S_j's wgmma, then the P V of
    iteration j - 1, waits for S_j alone and computes its softmax while
    the P V runs (FlashAttention-3's overlap within a warpgroup). The
    first iteration's early ops and the last one's late ops go around the
    loop, under a test that it runs at all; what the late ops read of the
    early ones is carried by the loop or, where cheap, recomputed from the
    induction variable. The results are the same bits. It runs where the
    second dot's tile has 128 columns or more (head dim 128), where it was
    measured to pay.
  }];
  let dependentDialects = ["::mlir::scf::SCFDialect",
                           "::mlir::arith::ArithDialect"];
}

def TileGPUOrderAtomics : Pass<"tilegpu-order-atomics", "::mlir::ModuleOp"> {
  let summary = "Floating-point atomic adds in a fixed order of programs";
  let description = [{
    In a module marked `tilegpu.deterministic`, a kernel whose floating-point
    `tile.atomic_rmw add`s would sum in whatever order the programs reach
    them gets a `turnstiles` parameter (last, `tilegpu.turnstiles`), a
    `tilegpu.turnstile_wait` before the top-level op that holds its first
    such atomic, and a `tilegpu.turnstile_signal` before its return: the
    programs that differ only along the grid's last axis with more than one
    program (split-K's splits) add one after another, in order of their id
    on it, so every run sums in the same order. Programs elsewhere on the
    grid run their turns independently: they must not add into the same
    addresses. Other modules are left as they are.
  }];
}

#endif // TILEC_DIALECT_TILEGPU_TRANSFORMS_PASSES_TD
