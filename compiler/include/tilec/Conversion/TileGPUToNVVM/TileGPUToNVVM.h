//===- TileGPUToNVVM.h - Patterns lowering laid-out tiles -------*- C++ -*-===//

#ifndef TILEC_CONVERSION_TILEGPUTONVVM_TILEGPUTONVVM_H
#define TILEC_CONVERSION_TILEGPUTONVVM_TILEGPUTONVVM_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Operation.h"
#include "mlir/Transforms/DialectConversion.h"
#include "llvm/ADT/DenseMap.h"

namespace mlir::tilegpu {

/// `!tile.ptr<T>` -> `!llvm.ptr<1>`; a laid-out tensor -> the values one
/// thread holds of it (1:N); scalars stay as they are.
class TileGPUTypeConverter : public TypeConverter {
public:
  explicit TileGPUTypeConverter(MLIRContext *context);
};

/// How the axis analysis lets a tile.load, tile.store, tile.atomic_rmw or
/// async copy group a thread's elements along its layout's fastest
/// dimension: `vector` elements as one access, and runs of `contiguous`
/// elements at consecutive addresses, a run's elements addressed from its
/// first one's pointer (rows 2 bytes aligned: no vector, but one pointer
/// for each of a thread's runs of 8).
struct AccessWidth {
  unsigned vector = 1;
  unsigned contiguous = 1;
};
using VectorWidths = llvm::DenseMap<Operation *, AccessWidth>;

/// For elementwise ops whose result the axis analysis proves constant in
/// runs along the layout's fastest dimension: how many of a thread's
/// consecutive registers (a power of two) hold one value, so that each run
/// is computed once (`x < n` on a contiguous range: one compare per vector,
/// as Triton's deduplication).
using ConstantRuns = llvm::DenseMap<Operation *, unsigned>;

/// tile.print and tile.assert: CUDA's vprintf and __assertfail.
void populateDebugToLLVMPatterns(const TileGPUTypeConverter &converter,
                                 RewritePatternSet &patterns);
/// Elementwise arith/math ops and tile.addptr on tensors, one op per element
/// (per run of equal elements, where `runs` has the op).
void populateElementwiseToLLVMPatterns(const TileGPUTypeConverter &converter,
                                       const ConstantRuns &runs,
                                       RewritePatternSet &patterns);
/// program_id, num_programs, make_range, splat, broadcast, expand_dims and
/// tensor constants.
void populateShapeToLLVMPatterns(const TileGPUTypeConverter &converter,
                                 RewritePatternSet &patterns);
/// tile.load and tile.store as predicated, vectorized PTX accesses.
void populateLoadStoreToLLVMPatterns(const TileGPUTypeConverter &converter,
                                     const VectorWidths &widths,
                                     RewritePatternSet &patterns);
/// The fences around an atomic's relaxed atoms that its memory order needs
/// (AtomicToLLVM.cpp says why they are not on each atom).
struct AtomicFences {
  bool release = true; ///< before the atoms
  bool acquire = true; ///< after the atoms
};
using AtomicFenceMap = llvm::DenseMap<Operation *, AtomicFences>;

/// Every tile.atomic_rmw's and tile.atomic_cas's fences, from the IR before
/// lowering: a fence is left out where its order has nothing to act on.
AtomicFenceMap computeAtomicFences(ModuleOp module);

/// tilegpu.cluster_rank and tilegpu.cluster_sum (ClusterToLLVM.cpp).
void populateClusterToLLVMPatterns(const TileGPUTypeConverter &converter,
                                   RewritePatternSet &patterns);
/// tilegpu.stream_k_store and tilegpu.stream_k_add (StreamKToLLVM.cpp).
void populateStreamKToLLVMPatterns(const TileGPUTypeConverter &converter,
                                   RewritePatternSet &patterns);
/// tile.atomic_rmw as predicated PTX atomics, vectors where the target has
/// them, one per element and program.
void populateAtomicToLLVMPatterns(const TileGPUTypeConverter &converter,
                                  const VectorWidths &widths,
                                  const AtomicFenceMap &fences,
                                  RewritePatternSet &patterns);
/// tile.debug_barrier as a CTA barrier.
void populateBarrierToLLVMPatterns(const TileGPUTypeConverter &converter,
                                   RewritePatternSet &patterns);
/// Turnstiles of deterministic atomics (tilegpu.turnstile_wait/_signal).
void populateTurnstileToLLVMPatterns(const TileGPUTypeConverter &converter,
                                     RewritePatternSet &patterns);
/// Tensor maps, bulk tensor copies and their mbarriers (BulkCopyToLLVM.cpp).
void populateBulkCopyToLLVMPatterns(const TileGPUTypeConverter &converter,
                                    RewritePatternSet &patterns);
/// tile.hint (passed through) and tile.assume (llvm.assume).
void populateHintToLLVMPatterns(const TileGPUTypeConverter &converter,
                                RewritePatternSet &patterns);
/// tilegpu.convert_layout through shared memory.
void populateConvertLayoutToLLVMPatterns(const TileGPUTypeConverter &converter,
                                         RewritePatternSet &patterns);
/// tile.reduce and tile.reduce_with: in-thread, warp shuffles, then shared
/// memory across warps.
void populateReduceToLLVMPatterns(const TileGPUTypeConverter &converter,
                                  RewritePatternSet &patterns);
/// tile.scan: one bit of the position at a time, in registers, shuffles or
/// shared memory.
void populateScanToLLVMPatterns(const TileGPUTypeConverter &converter,
                                RewritePatternSet &patterns);
/// Conversions to and from fp8 (PTX's cvt on sm_89+) and fp8 constants:
/// fp8 travels as i8 bits.
void populateFP8ToLLVMPatterns(const TileGPUTypeConverter &converter,
                               RewritePatternSet &patterns);
/// tile.butterfly: registers swapped, a shuffle, or shared memory.
void populateButterflyToLLVMPatterns(const TileGPUTypeConverter &converter,
                                     RewritePatternSet &patterns);
/// tile.histogram: shared-memory atomics on the bins.
void populateHistogramToLLVMPatterns(const TileGPUTypeConverter &converter,
                                     RewritePatternSet &patterns);
/// tile.gather: the source through shared memory.
void populateGatherToLLVMPatterns(const TileGPUTypeConverter &converter,
                                  RewritePatternSet &patterns);
/// tile.dot on mma.sync, its operands and accumulator in the instruction's
/// registers (mma and dot_op encodings).
void populateMMAv2DotToLLVMPatterns(const TileGPUTypeConverter &converter,
                                    RewritePatternSet &patterns);
/// tile.dot on Hopper's wgmma (mma encoding version 3), its operands in
/// shared memory.
void populateWgmmaDotToLLVMPatterns(const TileGPUTypeConverter &converter,
                                    RewritePatternSet &patterns);
/// tile.dot as FMAs, on a blocked accumulator.
void populateFMADotToLLVMPatterns(const TileGPUTypeConverter &converter,
                                  RewritePatternSet &patterns);
/// tilegpu.warp_specialize as branches on the thread's number, with the
/// register hand-over (setmaxnreg) of each side. Runs with the scf to cf
/// conversion, once the ops inside have been lowered (their barriers and
/// first threads depend on the side they are on).
void populateWarpSpecializeToCFPatterns(RewritePatternSet &patterns);
/// Gives each tilegpu.local_alloc its bytes of shared memory (the
/// `tilegpu.offset` attribute), and each op that takes scratch space its
/// start (`tilegpu.scratch_offset`) after the buffers live during the op.
void assignSharedOffsets(ModuleOp module);
/// tilegpu.local_alloc, memdesc_index, and the async copies (cp.async).
void populateSharedMemoryToLLVMPatterns(const TileGPUTypeConverter &converter,
                                        const VectorWidths &widths,
                                        RewritePatternSet &patterns);
/// math.exp and math.log as the GPU's ex2/lg2 instructions; the rest of
/// `math` goes through MathToLLVM.
void populateMathToNVVMPatterns(RewritePatternSet &patterns);
/// 32- and 64-bit integers to bf16 rounded once before sm_90, where LLVM
/// would round them through f32 twice.
void populateIntToBF16Patterns(RewritePatternSet &patterns);

} // namespace mlir::tilegpu

#endif // TILEC_CONVERSION_TILEGPUTONVVM_TILEGPUTONVVM_H
