//===- ThreadLayout.cpp - Which thread holds which element ----------------===//
//
// Each encoding lists the moves of its register, lane and warp bits as if
// the shape were unbounded; clipping them to the padded shape then gives
// the layout: a register bit that would move past the shape does not
// exist, and a lane or warp bit that would moves nowhere (its threads hold
// copies). That one rule is the wrap of a blocked layout over a small tile,
// the slice of any layout (a sliced dimension has size 1), and the
// replication of a dot operand over the warps of the other operand.
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/TileGPU/IR/ThreadLayout.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/MathExtras.h"

#include <map>

using namespace mlir;
using namespace mlir::tilegpu;

namespace {

/// The unclipped moves of an encoding's bits.
struct Bases {
  SmallVector<LayoutBasis> reg, lane, warp;
};

/// `count` bits moving along `dim` by first, 2 first, 4 first, ...
void appendRun(SmallVector<LayoutBasis> &bases, int dim, int64_t first,
               unsigned count) {
  for (unsigned i = 0; i < count; ++i)
    bases.push_back({dim, first << i});
}

/// `count` bits that move nowhere.
void appendZeros(SmallVector<LayoutBasis> &bases, unsigned count) {
  bases.append(count, LayoutBasis{});
}

/// Register bits repeating a pattern of `period` along `dim` until it covers
/// `size`.
void appendRepeats(SmallVector<LayoutBasis> &bases, int dim, int64_t period,
                   int64_t size) {
  for (int64_t offset = period; offset < size; offset *= 2)
    bases.push_back({dim, offset});
}

unsigned log2(unsigned n) { return llvm::Log2_32(n); }

/// The moves of a 2-D layout with its two dimensions exchanged, bit for
/// bit: a swapped mma layout's from its instruction's.
Bases exchangeDims(Bases b) {
  for (auto *list : {&b.reg, &b.lane, &b.warp})
    for (LayoutBasis &basis : *list)
      if (!basis.isZero())
        basis.dim = 1 - basis.dim;
  return b;
}

SmallVector<int64_t> reversed(ArrayRef<int64_t> shape) {
  return {shape.rbegin(), shape.rend()};
}

Bases blockedBases(BlockedEncodingAttr blocked, ArrayRef<int64_t> shape) {
  Bases b;
  for (unsigned d : blocked.getOrder()) {
    int64_t spt = blocked.getSizePerThread()[d];
    int64_t tpw = blocked.getThreadsPerWarp()[d];
    int64_t wpc = blocked.getWarpsPerCTA()[d];
    appendRun(b.reg, d, 1, log2(spt));
    appendRepeats(b.reg, d, spt * tpw * wpc, shape[d]);
    appendRun(b.lane, d, spt, log2(tpw));
    appendRun(b.warp, d, spt * tpw, log2(wpc));
  }
  return b;
}

/// mma.sync's m16n8 accumulator: registers (n + 1, m + 8), lanes (n + 2,
/// n + 4, m + 1, m + 2, m + 4), warps over N, M, batch; then repetitions
/// over N, M, batch.
Bases mmaBases(MmaEncodingAttr mma, ArrayRef<int64_t> shape) {
  if (mma.getSwapped())
    return exchangeDims(mmaBases(mma.getInstructionLayout(), reversed(shape)));
  unsigned rank = shape.size();
  int m = rank - 2, n = rank - 1;
  ArrayRef<unsigned> warps = mma.getWarpsPerCTA();
  Bases b;
  if (mma.getVersion() == 3) {
    // wgmma's m64nN: registers (n + 1, m + 8, n + 8, n + 16, ... within
    // the instruction), then more instructions over N, then over M; lanes
    // as mma.sync's; warps (m + 16, m + 32) in the group, then the groups.
    int64_t instrN = mma.getInstrShape()[1];
    unsigned groupsM = warps[0] / 4, groupsN = warps[1];
    b.reg = {{n, 1}, {m, 8}};
    appendRepeats(b.reg, n, 8, instrN);
    appendRepeats(b.reg, n, instrN * groupsN, shape[n]);
    appendRepeats(b.reg, m, 64 * groupsM, shape[m]);
    b.lane = {{n, 2}, {n, 4}, {m, 1}, {m, 2}, {m, 4}};
    b.warp = {{m, 16}, {m, 32}};
    appendRun(b.warp, m, 64, log2(groupsM));
    appendRun(b.warp, n, instrN, log2(groupsN));
    return b;
  }
  b.reg = {{n, 1}, {m, 8}};
  appendRepeats(b.reg, n, 8 * warps[n], shape[n]);
  appendRepeats(b.reg, m, 16 * warps[m], shape[m]);
  if (rank == 3)
    appendRepeats(b.reg, 0, warps[0], shape[0]);
  b.lane = {{n, 2}, {n, 4}, {m, 1}, {m, 2}, {m, 4}};
  appendRun(b.warp, n, 8, log2(warps[n]));
  appendRun(b.warp, m, 16, log2(warps[m]));
  if (rank == 3)
    appendRun(b.warp, 0, 1, log2(warps[0]));
  return b;
}

/// mma.sync's operand fragments, `kWidth` K elements per 32-bit register:
/// A (M x K) in registers (k..., m + 8, k + 4 kWidth), B (K x N) in
/// (k..., k + 4 kWidth); lanes (k + kWidth, k + 2 kWidth) and then three
/// bits of M or N. Warps are the accumulator's, those of the other operand's
/// dimension holding copies.
///
/// wgmma reads A from registers in these fragments too, each warp of a
/// warpgroup 16 of the instruction's 64 rows; its warps number M before N
/// (see mmaBases), mma.sync's N before M. B it reads from shared memory
/// only (tilegpu-pipeline stages it there).
Bases mmaOperandBases(MmaEncodingAttr mma, unsigned opIdx, unsigned kWidth,
                      ArrayRef<int64_t> shape) {
  // A swapped layout's A is its instruction's B, transposed, and B its A.
  if (mma.getSwapped())
    return exchangeDims(mmaOperandBases(mma.getInstructionLayout(), 1 - opIdx,
                                        kWidth, reversed(shape)));
  unsigned rank = shape.size();
  ArrayRef<unsigned> warps = mma.getWarpsPerCTA();
  int k = opIdx == 0 ? rank - 1 : rank - 2;
  int mn = opIdx == 0 ? rank - 2 : rank - 1; // M of A, N of B
  Bases b;
  appendRun(b.reg, k, 1, log2(kWidth));
  if (opIdx == 0)
    b.reg.push_back({mn, 8});
  b.reg.push_back({k, 4 * kWidth});
  appendRepeats(b.reg, k, 8 * kWidth, shape[k]);
  appendRepeats(b.reg, mn, opIdx == 0 ? 16 * warps[mn] : 8 * warps[mn],
                shape[mn]);
  if (rank == 3)
    appendRepeats(b.reg, 0, warps[0], shape[0]);
  b.lane = {{k, kWidth}, {k, 2 * kWidth}, {mn, 1}, {mn, 2}, {mn, 4}};
  unsigned nBits = log2(warps[rank - 1]), mBits = log2(warps[rank - 2]);
  if (mma.getVersion() == 3) {
    if (opIdx == 0) {
      appendRun(b.warp, mn, 16, mBits);
      appendZeros(b.warp, nBits);
    } else {
      appendZeros(b.warp, mBits);
      appendRun(b.warp, mn, mma.getInstrShape()[1], nBits);
    }
  } else if (opIdx == 0) {
    appendZeros(b.warp, nBits);
    appendRun(b.warp, mn, 16, mBits);
  } else {
    appendRun(b.warp, mn, 8, nBits);
    appendZeros(b.warp, mBits);
  }
  if (rank == 3)
    appendRun(b.warp, 0, 1, log2(warps[0]));
  return b;
}

/// The FMA dot's operands: the parent's moves with the other operand's
/// dimension left out (its threads hold copies), and all of K in registers.
Bases blockedOperandBases(BlockedEncodingAttr parent, unsigned opIdx,
                          ArrayRef<int64_t> shape) {
  unsigned rank = shape.size();
  int k = opIdx == 0 ? rank - 1 : rank - 2;
  SmallVector<int64_t> parentShape(shape);
  parentShape[k] = 1; // N of A, M of B: clipped out below
  Bases b = blockedBases(parent, parentShape);
  for (auto *list : {&b.reg, &b.lane, &b.warp})
    for (LayoutBasis &basis : *list)
      if (basis.dim == k)
        basis = LayoutBasis{};
  SmallVector<LayoutBasis> reg;
  appendRepeats(reg, k, 1, shape[k]);
  for (LayoutBasis basis : b.reg)
    if (!basis.isZero())
      reg.push_back(basis);
  b.reg = std::move(reg);
  return b;
}

/// The smallest padded extent the encoding allows along root dimension `d`
/// of a tile whose extent there is `extent`.
int64_t minimumExtent(Attribute root, unsigned d, unsigned rank,
                      int64_t extent) {
  // A swapped layout's dimension d is its instruction's 1 - d.
  if (auto mma = dyn_cast<MmaEncodingAttr>(root))
    // Dimensions of one element stay 1, as broadcasts expect of them; the
    // layout passes use mma only for dots whose M and N exceed 1.
    return extent > 1 ? mma.getInstrShape()[mma.getSwapped() ? 1 - d : d] : 1;
  auto operand = dyn_cast<DotOperandEncodingAttr>(root);
  if (!operand || !isa<MmaEncodingAttr>(operand.getParent()) || d + 2 < rank)
    return 1;
  auto parent = cast<MmaEncodingAttr>(operand.getParent());
  unsigned opIdx = operand.getOpIdx();
  if (parent.getSwapped()) {
    opIdx = 1 - opIdx;
    d = 1 - d;
  }
  bool isK = (opIdx == 0) == (d == rank - 1);
  if (isK)
    return 8 * operand.getKWidth();
  if (parent.getVersion() == 3)
    return opIdx == 0 ? 64 : parent.getInstrShape()[1];
  return opIdx == 0 ? 16 : 8;
}

/// The rank of the tensors a distributed root encoding lays out; nothing
/// for anything else.
std::optional<unsigned> getEncodingRank(Attribute encoding) {
  if (auto blocked = dyn_cast_or_null<BlockedEncodingAttr>(encoding))
    return blocked.getOrder().size();
  if (auto mma = dyn_cast_or_null<MmaEncodingAttr>(encoding))
    return mma.getWarpsPerCTA().size();
  if (auto operand = dyn_cast_or_null<DotOperandEncodingAttr>(encoding))
    return getEncodingRank(operand.getParent());
  if (auto linear = dyn_cast_or_null<LinearEncodingAttr>(encoding))
    return linear.getRank();
  return std::nullopt;
}

} // namespace

std::optional<ThreadLayout> ThreadLayout::get(RankedTensorType type) {
  // Peel slices down to the root encoding, remembering which dimensions of
  // each parent were removed.
  SmallVector<unsigned> removedInParent; // outermost slice first
  Attribute encoding = type.getEncoding();
  while (auto slice = dyn_cast_or_null<SliceEncodingAttr>(encoding)) {
    removedInParent.push_back(slice.getDim());
    encoding = slice.getParent();
  }
  unsigned rootRank = type.getRank() + removedInParent.size();
  // Dot operands are never sliced.
  std::optional<unsigned> encodingRank = getEncodingRank(encoding);
  if (!encodingRank || *encodingRank != rootRank ||
      (isa<DotOperandEncodingAttr>(encoding) && !removedInParent.empty()))
    return std::nullopt;

  // Rebuild the root shape: the outermost slice's dimension (the first
  // peeled) indexes its parent, one rank up from the tensor; then inward.
  SmallVector<int64_t> extent(type.getShape());
  SmallVector<bool> sliced(type.getRank(), false);
  for (unsigned dim : removedInParent) {
    if (dim > extent.size())
      return std::nullopt;
    extent.insert(extent.begin() + dim, 1);
    sliced.insert(sliced.begin() + dim, true);
  }

  ThreadLayout layout;
  layout.root = encoding;
  layout.extent = extent;
  for (unsigned d = 0; d < rootRank; ++d) {
    int64_t padded = llvm::PowerOf2Ceil(extent[d]);
    if (sliced[d])
      layout.slicedDims.push_back(d);
    else
      padded = std::max(padded, minimumExtent(encoding, d, rootRank, extent[d]));
    layout.shape.push_back(padded);
  }

  Bases bases;
  if (auto blocked = dyn_cast<BlockedEncodingAttr>(encoding))
    bases = blockedBases(blocked, layout.shape);
  else if (auto mma = dyn_cast<MmaEncodingAttr>(encoding))
    bases = mmaBases(mma, layout.shape);
  else if (auto linear = dyn_cast<LinearEncodingAttr>(encoding))
    bases = {linear.getRegBases(), linear.getLaneBases(), linear.getWarpBases()};
  else {
    auto operand = cast<DotOperandEncodingAttr>(encoding);
    if (auto parent = dyn_cast<MmaEncodingAttr>(operand.getParent()))
      bases = mmaOperandBases(parent, operand.getOpIdx(), operand.getKWidth(),
                              layout.shape);
    else
      bases = blockedOperandBases(cast<BlockedEncodingAttr>(operand.getParent()),
                                  operand.getOpIdx(), layout.shape);
  }

  // Clip to the padded shape.
  auto outside = [&](LayoutBasis basis) {
    return basis.isZero() || basis.offset >= layout.shape[basis.dim];
  };
  for (LayoutBasis basis : bases.reg)
    if (!outside(basis))
      layout.regBases.push_back(basis);
  for (auto [from, to] : {std::pair(&bases.lane, &layout.laneBases),
                          std::pair(&bases.warp, &layout.warpBases)})
    for (LayoutBasis basis : *from)
      to->push_back(outside(basis) ? LayoutBasis{} : basis);
  if (layout.laneBases.size() != 5)
    return std::nullopt;
  // A linear layout is made for one shape: it must reach every position.
  if (isa<LinearEncodingAttr>(encoding))
    for (unsigned d = 0; d < rootRank; ++d)
      for (int64_t offset = 1; offset < layout.shape[d]; offset *= 2)
        if (!llvm::is_contained(layout.regBases, LayoutBasis{int(d), offset}) &&
            !llvm::is_contained(layout.laneBases, LayoutBasis{int(d), offset}) &&
            !llvm::is_contained(layout.warpBases, LayoutBasis{int(d), offset}))
          return std::nullopt;
  return layout;
}

int ThreadLayout::getTensorDim(unsigned rootDim) const {
  int dim = 0;
  for (unsigned d = 0; d < rootDim; ++d)
    if (!llvm::is_contained(slicedDims, d))
      ++dim;
  return llvm::is_contained(slicedDims, rootDim) ? -1 : dim;
}

SmallVector<int64_t> ThreadLayout::getPaddedTensorShape() const {
  SmallVector<int64_t> result;
  for (unsigned d = 0; d < shape.size(); ++d)
    if (!llvm::is_contained(slicedDims, d))
      result.push_back(shape[d]);
  return result;
}

int64_t ThreadLayout::getLocalCount(unsigned d) const {
  return int64_t(1) << llvm::count_if(
             regBases, [&](LayoutBasis b) { return b.dim == int(d); });
}

bool ThreadLayout::isReplicated() const {
  return llvm::any_of(laneBases, [](LayoutBasis b) { return b.isZero(); }) ||
         llvm::any_of(warpBases, [](LayoutBasis b) { return b.isZero(); });
}

unsigned ThreadLayout::getFastestDim() const {
  // A blocked layout says which: registers repeating along a slower
  // dimension may come first in the numbering.
  if (auto blocked = dyn_cast<BlockedEncodingAttr>(root))
    return blocked.getOrder().front();
  if (!regBases.empty() && regBases.front().offset == 1)
    return regBases.front().dim;
  for (LayoutBasis b : laneBases)
    if (b.offset == 1)
      return b.dim;
  return shape.size() - 1;
}

unsigned ThreadLayout::getContiguity() const {
  int fast = getFastestDim();
  unsigned n = 1;
  for (LayoutBasis b : regBases) {
    if (b.dim != fast || b.offset != int64_t(n))
      break;
    n *= 2;
  }
  return n;
}

SmallVector<int64_t> ThreadLayout::getLocalIndex(unsigned e) const {
  SmallVector<int64_t> local(shape.size(), 0);
  SmallVector<unsigned> bit(shape.size(), 0);
  for (auto [i, b] : llvm::enumerate(regBases)) {
    if (e >> i & 1)
      local[b.dim] |= int64_t(1) << bit[b.dim];
    ++bit[b.dim];
  }
  return local;
}

unsigned ThreadLayout::linearize(ArrayRef<int64_t> local) const {
  unsigned e = 0;
  SmallVector<unsigned> bit(shape.size(), 0);
  for (auto [i, b] : llvm::enumerate(regBases)) {
    if (local[b.dim] >> bit[b.dim] & 1)
      e |= 1u << i;
    ++bit[b.dim];
  }
  return e;
}

SmallVector<int64_t> ThreadLayout::getElemOffset(unsigned e) const {
  SmallVector<int64_t> offset(shape.size(), 0);
  for (auto [i, b] : llvm::enumerate(regBases))
    if (e >> i & 1)
      offset[b.dim] += b.offset;
  return offset;
}

SmallVector<int64_t> ThreadLayout::getPosition(unsigned e, unsigned lane,
                                               unsigned warp) const {
  SmallVector<int64_t> position = getElemOffset(e);
  for (auto [bases, id] : {std::pair(ArrayRef(laneBases), lane),
                           std::pair(ArrayRef(warpBases), warp)})
    for (auto [i, b] : llvm::enumerate(bases))
      if (!b.isZero() && (id >> i & 1))
        position[b.dim] += b.offset;
  return position;
}

unsigned mlir::tilegpu::getNumWarps(Operation *op) {
  auto module = isa<ModuleOp>(op) ? cast<ModuleOp>(op)
                                  : op->getParentOfType<ModuleOp>();
  if (module)
    if (auto attr = module->getAttrOfType<IntegerAttr>(
            TileGPUDialect::getNumWarpsAttrName()))
      return attr.getInt();
  return 4;
}

unsigned mlir::tilegpu::getNumThreads(Operation *op) {
  auto module = isa<ModuleOp>(op) ? cast<ModuleOp>(op)
                                  : op->getParentOfType<ModuleOp>();
  unsigned producers = 0;
  if (module)
    if (auto attr = module->getAttrOfType<IntegerAttr>(
            TileGPUDialect::getProducerWarpsAttrName()))
      producers = attr.getInt();
  return 32 * (getNumWarps(op) + producers);
}

std::optional<SmallVector<unsigned>>
mlir::tilegpu::getRegisterPermutation(const ThreadLayout &src,
                                      const ThreadLayout &dst) {
  if (src.getRootShape() != dst.getRootShape() ||
      src.getSlicedDims() != dst.getSlicedDims() ||
      src.getLaneBases() != dst.getLaneBases() ||
      src.getWarpBases() != dst.getWarpBases() ||
      src.getNumElems() != dst.getNumElems())
    return std::nullopt;
  // The register bits must be the same moves, in any order.
  SmallVector<unsigned> srcBitOf;
  for (LayoutBasis basis : dst.getRegBases()) {
    const LayoutBasis *it = llvm::find(src.getRegBases(), basis);
    if (it == src.getRegBases().end())
      return std::nullopt;
    srcBitOf.push_back(it - src.getRegBases().begin());
  }
  SmallVector<unsigned> permutation;
  for (unsigned e = 0; e < dst.getNumElems(); ++e) {
    unsigned from = 0;
    for (auto [bit, srcBit] : llvm::enumerate(srcBitOf))
      if (e >> bit & 1)
        from |= 1u << srcBit;
    permutation.push_back(from);
  }
  return permutation;
}

std::optional<SmallVector<std::array<PairShuffle, 2>>>
mlir::tilegpu::getPairShuffles(const ThreadLayout &src,
                               const ThreadLayout &dst) {
  unsigned elems = src.getNumElems();
  if (src.getRootShape() != dst.getRootShape() ||
      src.getSlicedDims() != dst.getSlicedDims() ||
      src.getWarpBases() != dst.getWarpBases() || src.isReplicated() ||
      dst.isReplicated() || dst.getNumElems() != elems || elems % 4 != 0 ||
      src.getLaneBases().size() != 5)
    return std::nullopt;
  // Where each element of warp 0 is in the source: (lane, register).
  std::map<SmallVector<int64_t>, std::pair<unsigned, unsigned>> sourceOf;
  for (unsigned lane = 0; lane < 32; ++lane)
    for (unsigned e = 0; e < elems; ++e)
      sourceOf[src.getPosition(e, lane, 0)] = {lane, e};
  // True where `f` (over the 32 lanes) is f(0) ^ the moves of l's bits.
  auto isAffine = [](ArrayRef<unsigned> f) {
    for (unsigned l = 0; l < 32; ++l) {
      unsigned expected = f[0];
      for (unsigned b = 0; b < 5; ++b)
        if (l >> b & 1)
          expected ^= f[1u << b] ^ f[0];
      if (f[l] != expected)
        return false;
    }
    return true;
  };
  SmallVector<std::array<PairShuffle, 2>> words;
  for (unsigned w = 0; w < elems / 4; ++w) {
    std::array<PairShuffle, 2> word;
    for (unsigned half = 0; half < 2; ++half) {
      SmallVector<unsigned> lanes, pairs;
      for (unsigned lane = 0; lane < 32; ++lane) {
        auto first = sourceOf.find(dst.getPosition(4 * w + 2 * half, lane, 0));
        auto second =
            sourceOf.find(dst.getPosition(4 * w + 2 * half + 1, lane, 0));
        if (first == sourceOf.end() || second == sourceOf.end())
          return std::nullopt;
        auto [l0, r0] = first->second;
        auto [l1, r1] = second->second;
        if (l0 != l1 || r0 % 2 != 0 || r1 != r0 + 1)
          return std::nullopt;
        lanes.push_back(l0);
        pairs.push_back(r0 / 2);
      }
      PairShuffle &shuffle = word[half];
      shuffle.lowPair = *llvm::min_element(pairs);
      shuffle.highPair = *llvm::max_element(pairs);
      SmallVector<unsigned> high;
      for (unsigned pair : pairs) {
        if (pair != shuffle.lowPair && pair != shuffle.highPair)
          return std::nullopt;
        high.push_back(pair != shuffle.lowPair);
      }
      if (!isAffine(lanes) || !isAffine(high))
        return std::nullopt;
      shuffle.laneBase = lanes[0];
      for (unsigned b = 0; b < 5; ++b)
        shuffle.laneMoves.push_back(lanes[1u << b] ^ lanes[0]);
      shuffle.highBase = high[0];
      shuffle.highMask = 0;
      for (unsigned b = 0; b < 5; ++b)
        if (high[1u << b] != high[0])
          shuffle.highMask |= 1u << b;
    }
    words.push_back(word);
  }
  return words;
}
