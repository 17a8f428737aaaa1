//===- DotLayouts.cpp - Which instruction a dot runs on -------------------===//
//
// mma.sync (m16n8k16 for f16 and bf16, m16n8k8 for tf32, m16n8k32 for i8)
// runs on sm_80 and sm_90 alike; on sm_90a, f16, bf16, fp8 and tf32 dots
// whose tiles split into whole warpgroup instructions run on wgmma (tf32
// with its operands swapped). Warps split the accumulator where it has
// the most instruction tiles left, as Triton's warpsPerTile does, so each
// warp's share of A and B is as square as the tile allows; a batched dot
// spreads warps over the batch first. Dots on FMAs get a blocked
// accumulator shaped for register tiling.
//
//===----------------------------------------------------------------------===//

#include "DotLayouts.h"

#include "tilec/Dialect/TileGPU/IR/Target.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::tilegpu;

static bool hasTensorCoreInstruction(tile::DotOp dot) {
  Type input = dot.getA().getType().getElementType();
  Type acc = dot.getAcc().getType().getElementType();
  if (input.isF16())
    return acc.isF32() || acc.isF16();
  if (input.isBF16())
    return acc.isF32();
  if (input.isF32())
    return acc.isF32() && dot.getPrecision() != tile::InputPrecision::IEEE;
  if (input.isInteger(8))
    return acc.isInteger(32);
  // fp8 mma.sync (m16n8k32) exists from sm_89.
  if (tile::isFP8(input))
    return (acc.isF32() || acc.isF16()) && getComputeCapability(dot) >= 89;
  return false;
}

/// The wgmma layout of an m x n x k dot on `numWarps` warps (the
/// instruction's m x n: the tile's n x m where `swapped`): warpgroups along
/// M while M has 64 rows for each, then along N; one instruction as wide as
/// a group's share of N, up to 256 columns. None where the tile does not
/// split into whole m64nN instructions (K steps of `kStep`).
static MmaEncodingAttr getWgmmaEncoding(MLIRContext *context, int64_t m,
                                        int64_t n, int64_t k, int64_t kStep,
                                        unsigned numWarps, bool swapped) {
  if (m % 64 != 0 || k % kStep != 0 || n % 8 != 0)
    return {};
  unsigned groups = numWarps / 4;
  unsigned groupsM = std::min<int64_t>(groups, llvm::bit_floor(uint64_t(m / 64)));
  unsigned groupsN = groups / groupsM;
  if (n % (8 * groupsN) != 0)
    return {};
  int64_t share = n / groupsN;
  int64_t instrN = share <= 256 ? share : 256;
  if (share % instrN != 0)
    return {};
  return MmaEncodingAttr::get(context, 3, {4 * groupsM, groupsN},
                              {64, unsigned(instrN)}, swapped);
}

/// wgmma (sm_90a) for f16, bf16 and fp8 (e4m3, e5m2, mixed) dots into f32,
/// and f32 dots at tf32 precision (K steps of 32 bytes: 16 halves, 8
/// floats, 32 fp8).
///
/// tf32 swaps its operands (C^T = B^T A^T) where the tile's N splits into
/// the instruction's M: wgmma reads tf32 K-major only, which a row-major B
/// is not, but it takes its A from registers, where B can be loaded in any
/// order; and a row-major A is K-major for its B. Other tf32 tiles copy B
/// into K rows.
///
/// Any type swaps where the tile's M is too short for the instruction's 64
/// rows but its N is not (M of 8 to 32 against a layer's weights, the
/// decode and small-batch shapes): the weights fill the instruction's M,
/// the few rows of A its N, both read from shared memory, rather than
/// mma.sync with its operands through registers.
static MmaEncodingAttr chooseWgmmaEncoding(tile::DotOp dot, unsigned numWarps) {
  Type input = dot.getA().getType().getElementType();
  Type acc = dot.getAcc().getType().getElementType();
  ArrayRef<int64_t> shape = dot.getType().getShape();
  Type bInput = dot.getB().getType().getElementType();
  bool tf32 = input.isF32() && dot.getPrecision() == tile::InputPrecision::TF32;
  bool fp8 = tile::isFP8(input) && tile::isFP8(bInput);
  if (!hasWgmma(dot) || shape.size() != 2 || numWarps % 4 != 0 ||
      !(input.isF16() || input.isBF16() || tf32 || fp8) || !acc.isF32() ||
      (bInput != input && !fp8))
    return {};
  int64_t k = dot.getA().getType().getShape()[1];
  int64_t kStep = 256 / input.getIntOrFloatBitWidth();
  if (tf32 || shape[0] % 64 != 0)
    if (MmaEncodingAttr swapped = getWgmmaEncoding(
            dot.getContext(), shape[1], shape[0], k, kStep, numWarps, true))
      return swapped;
  return getWgmmaEncoding(dot.getContext(), shape[0], shape[1], k, kStep,
                          numWarps, false);
}

MmaEncodingAttr mlir::tilegpu::chooseMmaEncoding(tile::DotOp dot,
                                                 unsigned numWarps) {
  if (!hasTensorCoreInstruction(dot))
    return {};
  if (MmaEncodingAttr wgmma = chooseWgmmaEncoding(dot, numWarps))
    return wgmma;
  ArrayRef<int64_t> shape = dot.getType().getShape();
  unsigned rank = shape.size();
  int64_t m = shape[rank - 2], n = shape[rank - 1];
  if (m < 2 || n < 2)
    return {};
  SmallVector<unsigned> warps(rank, 1);
  unsigned left = numWarps;
  if (rank == 3) {
    warps[0] = std::min<uint64_t>(left, llvm::PowerOf2Ceil(shape[0]));
    left /= warps[0];
  }
  // Instruction tiles of 16 x 8 left per warp along M and N.
  int64_t tilesM = std::max<int64_t>(1, llvm::PowerOf2Ceil(m) / 16);
  int64_t tilesN = std::max<int64_t>(1, llvm::PowerOf2Ceil(n) / 8);
  unsigned &wm = warps[rank - 2], &wn = warps[rank - 1];
  while (left > 1) {
    int64_t roomM = tilesM / wm, roomN = tilesN / wn;
    if (roomM >= roomN && roomM > 1)
      wm *= 2;
    else if (roomN > 1)
      wn *= 2;
    else
      wm *= 2; // more warps than tiles: the extra ones hold copies
    left /= 2;
  }
  SmallVector<unsigned> instr(rank, 1);
  instr[rank - 2] = 16;
  instr[rank - 1] = 8;
  return MmaEncodingAttr::get(dot.getContext(), 2, warps, instr);
}

BlockedEncodingAttr mlir::tilegpu::chooseFmaEncoding(tile::DotOp dot,
                                                     unsigned numWarps) {
  SmallVector<int64_t> shape;
  for (int64_t extent : dot.getType().getShape())
    shape.push_back(llvm::PowerOf2Ceil(extent));
  unsigned rank = shape.size();
  int64_t m = shape[rank - 2], n = shape[rank - 1];
  Type bType = dot.getB().getType().getElementType();
  unsigned bytes = std::max(1u, bType.getIntOrFloatBitWidth() / 8);
  int64_t vec = std::min<int64_t>(n, 16 / bytes);
  unsigned batchWarps = 1;
  if (rank == 3)
    batchWarps = std::min<uint64_t>(numWarps, shape[0]);
  unsigned left = numWarps / batchWarps;

  // Per K, a thread loads one value of A per row it holds (lanes sharing
  // a row share the load) and one vector of B per run of columns: spread
  // lanes and warps to make rows + runs smallest. Their layout wraps, so a
  // thread's rows and runs are strided, and a warp's loads of B are 16-byte
  // runs side by side. Least replication first (small tiles), then fewest
  // loads, then more lanes along N.
  std::tuple<int64_t, int64_t, int64_t> best = {INT64_MAX, 0, 0};
  unsigned bestLanesN = 1, bestWarpsN = 1;
  for (unsigned lanesN = 1; lanesN <= 32; lanesN *= 2)
    for (unsigned warpsN = 1; warpsN <= left; warpsN *= 2) {
      int64_t coverM = int64_t(32 / lanesN) * (left / warpsN);
      int64_t coverN = int64_t(lanesN) * warpsN * vec;
      int64_t replication =
          std::max<int64_t>(1, coverM / m) * std::max<int64_t>(1, coverN / n);
      int64_t loads = llvm::divideCeil(m, coverM) + llvm::divideCeil(n, coverN);
      std::tuple<int64_t, int64_t, int64_t> cost = {replication, loads,
                                                    -int64_t(lanesN)};
      if (cost < best) {
        best = cost;
        bestLanesN = lanesN;
        bestWarpsN = warpsN;
      }
    }
  SmallVector<unsigned> sizePerThread(rank, 1), lanes(rank, 1), warps(rank, 1),
      order;
  sizePerThread[rank - 1] = vec;
  lanes[rank - 2] = 32 / bestLanesN;
  lanes[rank - 1] = bestLanesN;
  warps[rank - 2] = left / bestWarpsN;
  warps[rank - 1] = bestWarpsN;
  if (rank == 3)
    warps[0] = batchWarps;
  for (int d = rank - 1; d >= 0; --d)
    order.push_back(d);
  return BlockedEncodingAttr::get(dot.getContext(), sizePerThread, lanes, warps,
                                  order);
}

DotOperandEncodingAttr mlir::tilegpu::getDotOperandEncoding(unsigned opIdx,
                                                            Attribute parent,
                                                            Type elementType) {
  // An mma fragment packs 32 bits of K into each register.
  unsigned kWidth = isa<MmaEncodingAttr>(parent)
                        ? 32 / elementType.getIntOrFloatBitWidth()
                        : 0;
  return DotOperandEncodingAttr::get(parent.getContext(), opIdx, parent, kWidth);
}
