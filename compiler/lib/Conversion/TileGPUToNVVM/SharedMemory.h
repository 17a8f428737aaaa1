//===- SharedMemory.h - Tiles in swizzled shared memory ---------*- C++ -*-===//

#ifndef TILEC_LIB_CONVERSION_TILEGPUTONVVM_SHAREDMEMORY_H
#define TILEC_LIB_CONVERSION_TILEGPUTONVVM_SHAREDMEMORY_H

#include "Utility.h"

#include "tilec/Dialect/TileGPU/IR/SharedLayout.h"

#include <map>

namespace mlir::tilegpu {

/// A tile in shared memory laid out as `encoding` says (see SharedLayout.h).
struct SharedTile {
  Value base; ///< !llvm.ptr<3>
  SharedEncodingAttr encoding;
  SmallVector<int64_t> shape; ///< as allocated (padded)
  Type slotType;              ///< the elements' memory form

  /// The tile of a `!tilegpu.memdesc` whose address is `base`.
  static SharedTile get(Value base, MemDescType type);

  /// The same 2-D tile indexed the other way round: element (i, j) of the
  /// result is (j, i) of this one, at the same address.
  SharedTile transposed() const;

  int64_t getBytes() const;
  /// The address of the element at `index` (one i32 per dimension).
  Value getAddress(OpBuilder &b, Location loc, ArrayRef<Value> index) const;
};

/// Zeroes the whole tile, every thread a share, in 16-byte stores.
void zeroShared(OpBuilder &b, Location loc, const SharedTile &tile,
                unsigned numThreads);

/// Writes this thread's elements of a tensor in `layout` into `tile`, in
/// vectors of up to 16 bytes where its registers run along the tile's rows.
void storeToShared(OpBuilder &b, Location loc, const SharedTile &tile,
                   const ThreadLayout &layout, ValueRange values);

/// Where each lane of a warp points when the warp stores `layout`'s
/// registers with stmatrix (16-bit elements, rank 2): register pairs 2j,
/// 2j + 1 are matrix j, its rows along lane bits 2-4 and its 8 columns
/// over register bit 0 and lane bits 0-1, as mma accumulators hold them;
/// lane l gives the address of row l % 8 of matrix l / 8 of each four,
/// so lane bits 3 and 4 move as register bits 1 and 2. None when the
/// layout holds its elements otherwise.
std::optional<SmallVector<LayoutBasis>>
getMatrixStoreLanes(const ThreadLayout &layout, unsigned slotBytes);

/// Stores this thread's elements of `src` with stmatrix (x4: eight
/// registers, four matrices, per instruction), its lanes pointing as
/// `lanes` says; `slotAddress` maps a tensor index to the address of its
/// 16-byte row, which must hold the 8 elements from that index on.
void storeMatrices(OpBuilder &b, Location loc, const ThreadLayout &src,
                   ArrayRef<LayoutBasis> lanes, ValueRange values,
                   function_ref<Value(ArrayRef<Value>)> slotAddress);

/// `elems` (32 bits together: 1 f32 or i32, 2 of 16 bits, 4 of 8) packed
/// into one i32 register, the first in the low bits.
Value packRegister(OpBuilder &b, Location loc, ArrayRef<Value> elems);

/// The local index (see ThreadLayout) of element `i` of the mma.sync
/// fragment of operand `opIdx` (A: 4 registers, B: 2, of `kWidth` elements)
/// at batch `batch`, M or N repetition `rep` and K step `kStep`, in a dot_op
/// layout of root rank `rank`.
SmallVector<int64_t> getMmaFragmentLocal(unsigned opIdx, unsigned kWidth,
                                         unsigned rank, int64_t batch,
                                         int64_t rep, int64_t kStep,
                                         unsigned i);

/// The 32-bit registers (i32) of that fragment, packed from `values`, the
/// elements of a dot_op tensor in `layout`: 4 for A, 2 for B.
SmallVector<Value> packMmaFragment(OpBuilder &b, Location loc,
                                   const ThreadLayout &layout,
                                   ArrayRef<Value> values, unsigned opIdx,
                                   unsigned kWidth, int64_t batch, int64_t rep,
                                   int64_t kStep);

/// Reads mma.sync operand fragments from a shared tile, one instruction
/// tile at a time: with ldmatrix where the tile's layout allows it (K
/// contiguous, or 16-bit elements), element by element otherwise.
class MmaFragmentLoader {
public:
  /// `layout` is the operand's dot_op layout (an mma parent); `elementType`
  /// its element type.
  MmaFragmentLoader(OpBuilder &b, Location loc, const SharedTile &tile,
                    const ThreadLayout &layout, Type elementType);

  /// The 32-bit registers (i32) of the fragment of batch `batch`, M or N
  /// repetition `rep` and K step `kStep`: 4 for A, 2 for B.
  SmallVector<Value> load(OpBuilder &b, Location loc, int64_t batch,
                          int64_t rep, int64_t kStep);

private:
  /// The local index (see ThreadLayout) of fragment element `i`.
  SmallVector<int64_t> fragmentLocal(int64_t batch, int64_t rep, int64_t kStep,
                                     unsigned i) const;
  SmallVector<Value> loadMatrices(OpBuilder &b, Location loc, int64_t batch,
                                  int64_t rep, int64_t kStep);
  SmallVector<Value> loadElements(OpBuilder &b, Location loc, int64_t batch,
                                  int64_t rep, int64_t kStep);
  Value clampBatch(OpBuilder &b, Location loc, Value index) const;

  const SharedTile &tile;
  const ThreadLayout &layout;
  Type elementType;
  unsigned opIdx, kWidth, kDim, mnDim, rank;
  bool ldmatrix, trans;
  unsigned repsPerLoad;
  Value row, matrixLow, matrixHigh;
  SmallVector<Value> warpBase, threadBase;
  /// B's second repetition of a paired ldmatrix, until asked for.
  std::map<std::tuple<int64_t, int64_t, int64_t>, SmallVector<Value>> pending;
};

} // namespace mlir::tilegpu

#endif // TILEC_LIB_CONVERSION_TILEGPUTONVVM_SHAREDMEMORY_H
