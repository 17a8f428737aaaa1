//===- Utility.h - Helpers shared by the TileGPU lowering patterns -*- C++ -*-===//

#ifndef TILEC_LIB_CONVERSION_TILEGPUTONVVM_UTILITY_H
#define TILEC_LIB_CONVERSION_TILEGPUTONVVM_UTILITY_H

#include "tilec/Dialect/TileGPU/IR/ThreadLayout.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"

#include <algorithm>
#include <string>

namespace mlir::tilegpu {

/// An i32 constant.
Value i32Constant(OpBuilder &b, Location loc, int64_t value);

/// Whether this is the first thread of the threads that run the code at
/// `b`'s insertion point: the one that prints, does a scalar atomic, or
/// issues the bulk copies for all of them. That is the program's thread 0,
/// except in a tilegpu.warp_specialize producer, whose first thread follows
/// the consumers'.
Value emitIsFirstThread(OpBuilder &b, Location loc);

/// The shared::cluster address (i64) of the i64 shared::cta `address` in
/// the shared memory of the cluster's CTA of rank `cta` (i32): mapa.
Value emitClusterAddress(OpBuilder &b, Location loc, Value address, Value cta);

/// The rank of the other CTA of a cluster of two where `paired` (i1)
/// holds, else this CTA's own.
Value emitPairedRank(OpBuilder &b, Location loc, Value paired);

/// The id along `axis` (0 to 2) of the program `from` belongs to
/// (tl.program_id): its CTA's, or where programs run as clusters
/// (tilegpu.cluster_split), its cluster's.
Value emitProgramId(OpBuilder &b, Location loc, Operation *from, unsigned axis);
/// The number of programs along `axis` (tl.num_programs), likewise.
Value emitNumPrograms(OpBuilder &b, Location loc, Operation *from,
                      unsigned axis);

/// A barrier of the threads that run the code at `b`'s insertion point:
/// the whole CTA (bar.sync 0), or, in a tilegpu.warp_specialize consumer,
/// the consumers alone (bar.sync 1 with their count), since the producer
/// never gets there.
void emitBarrier(OpBuilder &b, Location loc);

/// Per tensor dimension, the index of each element this thread holds:
/// result[e][d]; indices of padding lie past the extent.
SmallVector<SmallVector<Value>> emitElementIndices(OpBuilder &b, Location loc,
                                                   const ThreadLayout &layout);

/// The row-major linear index of `index` in `shape` (0 for no dimension).
Value linearizeRowMajor(OpBuilder &b, Location loc, ArrayRef<Value> index,
                        ArrayRef<int64_t> shape);

/// The layout of a tensor type, which the layout passes guarantee.
ThreadLayout getThreadLayout(Type tensorType);

/// Bits an element takes in memory (i1 is stored as a byte).
unsigned getMemoryBits(Type elementType);

/// The memory form of an element type: i1 travels as an i8 byte, a pointer
/// as an i64, anything else as itself.
Type getMemoryType(Type elementType);
/// `v` in its memory form (i1 zero-extended, pointers as integers).
Value toMemoryForm(OpBuilder &b, Location loc, Value v);
/// A value of `elementType` back from its memory form `v` (any nonzero byte
/// is true).
Value fromMemoryForm(OpBuilder &b, Location loc, Value v, Type elementType);

/// The address of `op`'s scratch space in the kernel's dynamic shared
/// memory (its `tilegpu.scratch_offset`, 0 without one; scratch users
/// synchronize the CTA before they write), recording in the module
/// attribute `tilegpu.shared_bytes` that `op` needs `bytes` of it.
Value getSharedMemoryBase(OpBuilder &b, Location loc, Operation *op,
                          int64_t bytes);
/// The address `offset` bytes into the kernel's dynamic shared memory,
/// recording that `bytes` from there are used.
Value getSharedMemoryAt(OpBuilder &b, Location loc, Operation *op,
                        int64_t offset, int64_t bytes);

/// `elems` (of one type) as one LLVM vector, or the element itself when
/// it is alone.
Value packVector(OpBuilder &b, Location loc, ArrayRef<Value> elems);
/// The `count` elements of the LLVM vector `v`, or `v` itself for one.
SmallVector<Value> unpackVector(OpBuilder &b, Location loc, Value v,
                                unsigned count);

/// Calls the external function `symbol`, declaring it in `from`'s module on
/// first use (CUDA's vprintf and __assertfail, which ptxas resolves).
LLVM::CallOp callExternal(OpBuilder &b, Location loc, Operation *from,
                          StringRef symbol, Type resultType, ValueRange args);

/// Calls `symbol`, a function of libdevice (resolved when the PTX emitter
/// links its bitcode), declaring it in `from`'s module on first use.
Value callLibdevice(OpBuilder &b, Location loc, Operation *from,
                    StringRef symbol, Type resultType, ValueRange args);

/// `{ $first, $first+1, ... }` for `count` consecutive inline-asm operands
/// (a PTX vector), or `$first` alone.
std::string getPTXOperandList(unsigned first, unsigned count);

/// Chunk j of a thread's `size` 32-bit registers, as the layout-free copies
/// of a whole accumulator move them (ClusterToLLVM.cpp, StreamKToLLVM.cpp):
/// 4 of them, the last chunk fewer, stored and loaded as `count` (.v3 does
/// not exist: 3 travel as 4, the fourth never read).
struct RegisterChunk {
  int64_t n;
  unsigned count;
  std::string vector; ///< "", ".v2" or ".v4"

  RegisterChunk(int64_t j, int64_t size)
      : n(std::min<int64_t>(4, size - 4 * j)), count(n == 3 ? 4 : unsigned(n)),
        vector(count == 1 ? "" : ".v" + std::to_string(count)) {}
};

/// Runs PTX `asm` with LLVM inline-asm `constraints`; returns the results
/// (`resultTypes` may be empty).
SmallVector<Value> emitPTX(OpBuilder &b, Location loc, StringRef asmString,
                           StringRef constraints, ValueRange operands,
                           TypeRange resultTypes, bool hasSideEffects);

/// Stores the low `bits` (8, 16, 32 or 64; 0: all) of the integer `word`
/// at the shared-memory address `address` (!llvm.ptr<3>) where `pred`
/// holds: a predicated st.shared, which LLVM cannot express without
/// branches.
void emitPredicatedSharedStore(OpBuilder &b, Location loc, Value address,
                               Value word, Value pred, unsigned bits = 0);

/// The bits of the f32 `v` rounded to tf32 (to nearest, ties away, as
/// cvt.rna does), as an i32.
Value emitTF32Bits(OpBuilder &b, Location loc, Value v);

/// Per root dimension, the moves of this thread's lane and warp bits (see
/// ThreadLayout): where its elements sit before their registers' moves.
SmallVector<Value> emitThreadBase(OpBuilder &b, Location loc,
                                  const ThreadLayout &layout);

/// The same with this thread's lane bits moving as `laneBases` says instead
/// of the layout's: where a lane points for an instruction that takes one
/// address per lane for others' registers (stmatrix's row addresses).
SmallVector<Value> emitThreadBase(OpBuilder &b, Location loc,
                                  const ThreadLayout &layout,
                                  ArrayRef<LayoutBasis> laneBases);

/// Per root dimension, the moves of this thread's warp bits alone (where
/// its warp's share of the layout starts).
SmallVector<Value> emitWarpBase(OpBuilder &b, Location loc,
                                const ThreadLayout &layout);

/// Per element this thread holds, whether it is a real element rather than
/// padding (see ThreadLayout). Empty when the layout has no padding.
SmallVector<Value> emitValidity(OpBuilder &b, Location loc,
                                const ThreadLayout &layout);

/// `values` (one per element of `layout`) with every padding element
/// replaced by `fill`; unchanged when the layout has no padding.
SmallVector<Value> replacePadding(OpBuilder &b, Location loc,
                                  const ThreadLayout &layout, ValueRange values,
                                  Value fill);

/// Per element this thread holds, whether it owns the element: exactly one
/// thread owns each real element, the others hold copies (along a dimension
/// the layout wraps, or a sliced one), and nobody owns padding. Empty when
/// the thread owns every element it holds.
SmallVector<Value> emitOwnership(OpBuilder &b, Location loc,
                                 const ThreadLayout &layout);

/// Width of the groups of consecutive elements a thread accesses through
/// the tile of pointers `ptr` as one vector: `width` (what the axis analysis
/// proved contiguous, aligned and equally masked) clamped to what the
/// thread holds contiguously, and to divisors of the extent (so that a group
/// aligned to its width is all real elements or all padding) and of
/// `numElems`. 1 for a scalar pointer.
unsigned clampGroupWidth(Value ptr, unsigned width, unsigned numElems);

/// The address of element `i` of a thread's `ptrs` that lie in runs of
/// `run` consecutive elements of `elemBytes` (a clampGroupWidth of the axis
/// analysis's contiguity): its run's first pointer plus its place in the
/// run, so that a run of unaligned elements keeps one pointer live, not
/// one an element.
Value getRunAddress(OpBuilder &b, Location loc, ValueRange ptrs, unsigned i,
                    unsigned run, unsigned elemBytes);

} // namespace mlir::tilegpu

#endif // TILEC_LIB_CONVERSION_TILEGPUTONVVM_UTILITY_H
