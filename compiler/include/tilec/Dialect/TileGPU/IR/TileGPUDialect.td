//===- TileGPUDialect.td - Tile programs mapped to a GPU ---*- tablegen -*-===//

#ifndef TILEC_DIALECT_TILEGPU_IR_TILEGPUDIALECT_TD
#define TILEC_DIALECT_TILEGPU_IR_TILEGPUDIALECT_TD

include "mlir/IR/OpBase.td"

def TileGPU_Dialect : Dialect {
  let name = "tilegpu";
  let cppNamespace = "::mlir::tilegpu";
  let summary = "Layouts: how tiles are spread over the threads of a CTA";
  let description = [{
    Every tensor of a kernel mapped to the GPU carries an encoding attribute
    that says which thread holds which element. The layout passes choose the
    encodings; the conversion to NVVM reads them. The module attribute
    `tilegpu.num_warps` fixes the CTA size the encodings assume.
  }];
  let useDefaultAttributePrinterParser = 1;
  let useDefaultTypePrinterParser = 1;
  let dependentDialects = ["::mlir::tile::TileDialect"];
  let extraClassDeclaration = [{
    /// Name of the module attribute holding the number of warps of a CTA.
    static constexpr ::llvm::StringLiteral getNumWarpsAttrName() {
      return "tilegpu.num_warps";
    }
    /// Name of the module attribute holding the target's compute
    /// capability (90 for sm_90; see Target.h).
    static constexpr ::llvm::StringLiteral getComputeCapabilityAttrName() {
      return "tilegpu.compute_capability";
    }
    /// Name of the module attribute overriding the shared memory, in bytes,
    /// a CTA may use (absent: the target's; see Target.h).
    static constexpr ::llvm::StringLiteral getSharedLimitAttrName() {
      return "tilegpu.shared_limit";
    }
    /// Name of the module attribute (unit) saying the target is
    /// architecture-specific (sm_90a), so that the instructions only Hopper
    /// has (wgmma, tensormap.replace) may be used. tilec sets it from
    /// --arch; hasWgmma and hasBulkTensorCopies (Target.h) read it.
    static constexpr ::llvm::StringLiteral getArchSpecificAttrName() {
      return "tilegpu.arch_specific";
    }
    /// Name of the module attribute (unit) asking the kernel to build every
    /// tensor map itself, the launcher none. tilec sets it from
    /// --device-tensor-maps; tilegpu-pipeline and tilegpu-bulk-stores read
    /// it before leaving a map to the launcher.
    static constexpr ::llvm::StringLiteral getDeviceTensorMapsAttrName() {
      return "tilegpu.device_tensor_maps";
    }
    /// Name of the module attribute (unit) asking for deterministic
    /// floating-point atomic adds, the programs taking turns (TurnstileWaitOp).
    /// tilec sets it from --deterministic; tilegpu-order-atomics reads it.
    static constexpr ::llvm::StringLiteral getDeterministicAttrName() {
      return "tilegpu.deterministic";
    }
    /// Name of the module attribute (i32): the warps, beyond num_warps, that
    /// a warp-specialized loop runs its producer on. tilegpu-pipeline's warp
    /// specialization writes it; getNumThreads (ThreadLayout.h) reads it for
    /// the lowering and the metadata's threads_per_block.
    static constexpr ::llvm::StringLiteral getProducerWarpsAttrName() {
      return "tilegpu.producer_warps";
    }
    /// Name of the module attribute (i32): the tensor maps each program
    /// builds in its part of the global scratch, 128 bytes each.
    /// tilegpu-pipeline writes it; the lowering of TensorMapCreateOp reads
    /// it for the slots, and tilec for the metadata's global scratch.
    static constexpr ::llvm::StringLiteral getTensorMapCountAttrName() {
      return "tilegpu.tensor_maps";
    }
    /// Name of the module attribute (i32): the CTAs each program runs as,
    /// a thread-block cluster along x that splits the program's K loop and
    /// sums its accumulators in a fixed order (tilegpu-cluster-split-k writes
    /// it; absent, 1). The lowering reads it for program ids (the cluster's
    /// id) and tilec for the metadata's "cluster_dims".
    static constexpr ::llvm::StringLiteral getClusterSplitAttrName() {
      return "tilegpu.cluster_split";
    }
    /// Name of the module attribute (i32): the programs along x that run
    /// as one thread-block cluster of as many CTAs, a CTA each, where the
    /// grid's x divides by it (absent, 1): their copies of a tile they both
    /// read come from L2 once, multicast to both (tilegpu.async_tma_copy
    /// shared). A launch without clusters is correct too, each CTA copying
    /// for itself. tilegpu-pipeline writes it; tilec reads it for the
    /// metadata's "cluster_programs".
    static constexpr ::llvm::StringLiteral getClusterProgramsAttrName() {
      return "tilegpu.cluster_programs";
    }
    /// Name of the module attribute (unit): whether rows being whole 32-byte
    /// sectors or not decided something (a bulk copy two programs could
    /// share, tilegpu-pipeline), whichever way it went. tilec reads it for
    /// the metadata's "row_sectors_matter".
    static constexpr ::llvm::StringLiteral getRowSectorsMatterAttrName() {
      return "tilegpu.row_sectors_matter";
    }
    /// Name of the module attribute (unit): tilegpu-cluster-split-k found a
    /// K loop it can split, asked to or not (a module marked
    /// tilegpu.cluster_split = 1 is analyzed only); tilec reads it for the
    /// metadata's "cluster_splittable".
    static constexpr ::llvm::StringLiteral getClusterSplittableAttrName() {
      return "tilegpu.cluster_splittable";
    }
    /// Name of the module attribute (i32): the dynamic shared memory, in
    /// bytes, the lowering allocated. The lowering raises it as it takes
    /// shared memory (getSharedMemoryAt); tilec reads it into the
    /// metadata's "shared_bytes", which every launch must provide.
    static constexpr ::llvm::StringLiteral getSharedBytesAttrName() {
      return "tilegpu.shared_bytes";
    }
    /// Name of the module attribute (i32): the PTX ISA version, times ten
    /// (84), the lowering needs at least; absent, 8.1 (CUDA 12.1). Lowerings
    /// of newer instructions raise it (requirePTXVersion, Target.h; fp8
    /// mma.sync needs 8.4); tilec reads it (getMinPTXVersion) for the PTX.
    static constexpr ::llvm::StringLiteral getMinPTXVersionAttrName() {
      return "tilegpu.min_ptx_version";
    }

    /// Name of the kernel-argument attribute (unit) of the global-scratch
    /// parameter that tilegpu-pipeline appends for the tensor maps the
    /// kernel builds (TensorMapCreateOp). The launcher's tensor maps are
    /// inserted before the parameter this marks (addHostTensorMap) and left
    /// out of their recipes; the lowering drops it.
    static constexpr ::llvm::StringLiteral getGlobalScratchAttrName() {
      return "tilegpu.global_scratch";
    }
    /// Name of the kernel-argument attribute (a dictionary) of a tensor map
    /// the launcher builds and passes by value: the recipe of its fields
    /// from the kernel's arguments (HostTensorMaps.h). tilegpu-pipeline and
    /// tilegpu-bulk-stores write it (addHostTensorMap); tilec reads it into
    /// the metadata's "tensor_maps" (readTensorMapRecipe), and the lowering
    /// makes the argument a 128-byte __grid_constant__.
    static constexpr ::llvm::StringLiteral getHostTensorMapAttrName() {
      return "tilegpu.host_tensor_map";
    }
    /// Name of the kernel-argument attribute (unit) of the turnstiles
    /// parameter that tilegpu-order-atomics appends after every other: one
    /// zeroed i32 per program. tilec reads it into the metadata's
    /// "turnstiles", by which the runtime and the C launcher allocate them.
    static constexpr ::llvm::StringLiteral getTurnstilesAttrName() {
      return "tilegpu.turnstiles";
    }
    /// Name of the module attribute (unit) asking for a stream-K kernel
    /// (tilec's --stream-k); tilegpu-stream-k removes it where the kernel
    /// does not qualify, and leaves it where it made one.
    static constexpr ::llvm::StringLiteral getStreamKAttrName() {
      return "tilegpu.stream_k";
    }
    /// Name of the module attribute (unit): tilegpu-stream-k found a K loop
    /// it can run stream-K, asked to or not; tilec reads it for the
    /// metadata's "stream_k_splittable".
    static constexpr ::llvm::StringLiteral getStreamKSplittableAttrName() {
      return "tilegpu.stream_k_splittable";
    }
    /// Name of the kernel-argument attribute (unit) of the parameters the
    /// launch appends after every other: tilegpu-stream-k's (the programs
    /// the launch asked for along x, y and z, the programs split, i32 each,
    /// and the workspace) and tilegpu-persistent-programs' (the programs
    /// along x, y and z). The launcher's tensor maps (addHostTensorMap) and
    /// the global scratch (getGlobalScratch) go before them; the lowering
    /// drops it.
    static constexpr ::llvm::StringLiteral getLaunchParamAttrName() {
      return "tilegpu.launch_param";
    }
    /// Name of the kernel-argument attribute (i32, an axis) of a persistent
    /// kernel's launch parameter that holds the programs the launch asked
    /// for along that axis: a launcher's tensor map reads it as the grid's
    /// extent.
    static constexpr ::llvm::StringLiteral getProgramsParamAttrName() {
      return "tilegpu.programs";
    }
    /// Name of the module attribute (bool) for tilegpu-persistent-programs:
    /// before it, what was asked (tilec --persistent on|off; absent, the
    /// cost model decides); after it, present (true) where the kernel runs
    /// persistent, which tilec reads into the metadata's "persistent".
    static constexpr ::llvm::StringLiteral getPersistentAttrName() {
      return "tilegpu.persistent";
    }
    /// Name of the module attribute (i32) the lowering of
    /// tilegpu.stream_k_store sets: the bytes of one CTA's partial
    /// accumulator in the workspace; tilec reads it into the metadata's
    /// "stream_k_partial_bytes".
    static constexpr ::llvm::StringLiteral getStreamKPartialBytesAttrName() {
      return "tilegpu.stream_k_partial_bytes";
    }

    /// Name of the attribute (i32) of an op that takes scratch shared
    /// memory: where its scratch starts, after the buffers live during the
    /// op. The lowering's assignSharedOffsets writes it; getSharedMemoryBase
    /// reads it as the op is lowered.
    static constexpr ::llvm::StringLiteral getScratchOffsetAttrName() {
      return "tilegpu.scratch_offset";
    }
    /// Name of the attribute (i64) of a tilegpu.local_alloc: its buffer's
    /// byte offset in the kernel's dynamic shared memory. The lowering's
    /// assignSharedOffsets writes it; the local_alloc's lowering reads it.
    static constexpr ::llvm::StringLiteral getSharedOffsetAttrName() {
      return "tilegpu.offset";
    }
  }];
}

class TileGPU_Op<string mnemonic, list<Trait> traits = []>
    : Op<TileGPU_Dialect, mnemonic, traits>;

#endif // TILEC_DIALECT_TILEGPU_IR_TILEGPUDIALECT_TD
