//===- ThreadLayout.h - Which thread holds which element --------*- C++ -*-===//
//
// The one place that turns an encoding into element positions. The layout
// passes use it to reason about cost; the conversion to NVVM uses it to
// compute each thread's indices, so both agree by construction.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_DIALECT_TILEGPU_IR_THREADLAYOUT_H
#define TILEC_DIALECT_TILEGPU_IR_THREADLAYOUT_H

#include "tilec/Dialect/TileGPU/IR/TileGPU.h"

#include "llvm/ADT/SmallVector.h"

#include <algorithm>
#include <array>

namespace mlir::tilegpu {

/// The elements a thread holds of a tensor with a distributed encoding
/// (blocked, mma, dot_op) or a (nested) slice of one. Positions are given in
/// the rank of the root encoding, where each sliced dimension has size 1 and
/// index 0.
///
/// Every such layout is linear in the bits of (register, lane, warp), as in
/// Triton's linear layouts: each bit moves an element by a power of two
/// along one dimension, or not at all, and the position of register r of
/// the thread in lane l of warp w is the sum of the moves of their set bits.
/// Distinct bits of one dimension move by distinct powers of two, so sums
/// never carry: positions are bit fields, and no position wraps.
///
/// A tile's extents need not be powers of two: the layout covers a padded
/// shape, each extent rounded up to a power of two (and, for tensor-core
/// encodings, up to the instruction's tile), and the positions at or past
/// the extent are padding. Registers, shuffles and shared memory work on
/// the padded shape; memory accesses, reductions and atomics leave the
/// padding out.
class ThreadLayout {
public:
  /// The layout of `type`, or an empty optional when its encoding is missing
  /// or not a distributed one.
  static std::optional<ThreadLayout> get(RankedTensorType type);

  /// The encoding under the slices (blocked, mma or dot_op).
  Attribute getRootEncoding() const { return root; }
  unsigned getRootRank() const { return shape.size(); }
  /// The padded shape, in root dimensions.
  ArrayRef<int64_t> getRootShape() const { return shape; }
  /// The tile's real extents, in root dimensions.
  ArrayRef<int64_t> getRootExtent() const { return extent; }
  /// True when positions along `d` past the extent are padding.
  bool isPadded(unsigned d) const { return extent[d] != shape[d]; }
  /// The padded shape of the tensor itself (sliced dimensions left out).
  SmallVector<int64_t> getPaddedTensorShape() const;
  /// Root dimensions that the tensor does not have, ascending.
  ArrayRef<unsigned> getSlicedDims() const { return slicedDims; }
  /// The tensor's dimension of a root dimension, or -1 for a sliced one.
  int getTensorDim(unsigned rootDim) const;

  /// The moves of each register bit (never zero), each lane bit (5) and
  /// each warp bit.
  ArrayRef<LayoutBasis> getRegBases() const { return regBases; }
  ArrayRef<LayoutBasis> getLaneBases() const { return laneBases; }
  ArrayRef<LayoutBasis> getWarpBases() const { return warpBases; }

  /// Number of elements each thread holds.
  unsigned getNumElems() const { return 1u << regBases.size(); }
  /// Elements each thread holds along a root dimension.
  int64_t getLocalCount(unsigned d) const;
  /// True when some lanes or warps hold copies of others' elements.
  bool isReplicated() const;

  /// The root dimension a thread's first elements run along (the one its
  /// accesses should vectorize along), and how many consecutive elements
  /// along it the thread holds in registers 0, 1, ...
  unsigned getFastestDim() const;
  unsigned getContiguity() const;

  /// Per root dimension, the position of element `e` in the thread's block:
  /// the bits of `e` that move along that dimension, lowest first.
  SmallVector<int64_t> getLocalIndex(unsigned e) const;
  /// The element number of a position in the thread's block.
  unsigned linearize(ArrayRef<int64_t> local) const;
  /// Per root dimension, the move of element `e` (add the thread's base).
  SmallVector<int64_t> getElemOffset(unsigned e) const;
  /// Per root dimension, the position of register `e` of lane `lane` in warp
  /// `warp` (for tests and compile-time reasoning).
  SmallVector<int64_t> getPosition(unsigned e, unsigned lane,
                                   unsigned warp) const;

private:
  Attribute root;
  SmallVector<int64_t> shape, extent;
  SmallVector<unsigned> slicedDims;
  SmallVector<LayoutBasis> regBases, laneBases, warpBases;
};

/// When `dst` places every element in the same thread as `src` (the same
/// lane and warp moves, the register moves reordered), the source register
/// of each of `dst`'s: converting between them needs no data movement, as
/// from an mma accumulator to the next wgmma's A operand.
std::optional<SmallVector<unsigned>>
getRegisterPermutation(const ThreadLayout &src, const ThreadLayout &dst);

/// How a conversion of 8-bit elements moves them within each warp by
/// shuffles of 32-bit words, where `dst`'s every four registers take two
/// pairs of registers (2p, 2p + 1) of `src`, each from one lane: an fp8
/// accumulator (two consecutive columns a thread) into wgmma's A operand
/// (four), as attention's P in fp8. Per destination word and pair, every
/// thread sends a word of two of its pairs, and thread l reads the word of
/// lane `lane(l)`, keeping its high half where `high(l)`; both functions
/// are affine in l's bits (the layouts are linear).
struct PairShuffle {
  /// The source pairs the sent word packs, low half then high half (the
  /// same pair twice where every lane reads one).
  unsigned lowPair, highPair;
  /// lane(l) = laneBase ^ (xor of laneMoves[b] over the set bits b of l).
  unsigned laneBase;
  SmallVector<unsigned, 5> laneMoves;
  /// high(l) = highBase ^ (parity of l & highMask).
  bool highBase;
  unsigned highMask;
};
/// Per destination word (registers 4w to 4w + 3), its two pairs' shuffles;
/// std::nullopt where the layouts do not move that way (or across warps).
std::optional<SmallVector<std::array<PairShuffle, 2>>>
getPairShuffles(const ThreadLayout &src, const ThreadLayout &dst);

/// The number of warps the module's layouts assume (`tilegpu.num_warps`).
unsigned getNumWarps(Operation *op);

/// The threads each program of the module of `op` is launched with: its
/// layouts' warps and its producer warps (`tilegpu.producer_warps`).
unsigned getNumThreads(Operation *op);

/// The registers each of `threads` threads gets of a CTA's register file
/// (64 K) shared evenly, in the units of 8 that ptxas and setmaxnreg use,
/// at most 255.
inline unsigned getEvenRegisterShare(unsigned threads) {
  return std::min(255u, 65536 / threads / 8 * 8);
}

/// K of one mma.sync instruction for operands of `elementBits` (8 for i8,
/// 16 for f16/bf16, 32 for tf32): 256 bits of each row.
inline int64_t getMmaInstrK(unsigned elementBits) { return 256 / elementBits; }

} // namespace mlir::tilegpu

#endif // TILEC_DIALECT_TILEGPU_IR_THREADLAYOUT_H
