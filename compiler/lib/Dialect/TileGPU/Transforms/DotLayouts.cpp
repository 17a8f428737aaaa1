//===- DotLayouts.cpp - Which instruction a dot runs on -------------------===//
//
// mma.sync (m16n8k16 for f16 and bf16, m16n8k8 for tf32, m16n8k32 for i8)
// runs on sm_80 and sm_90 alike. Warps split the accumulator where it has
// the most instruction tiles left, as Triton's warpsPerTile does, so each
// warp's share of A and B is as square as the tile allows; a batched dot
// spreads warps over the batch first.
//
//===----------------------------------------------------------------------===//

#include "DotLayouts.h"

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
  return false;
}

MmaEncodingAttr mlir::tilegpu::chooseMmaEncoding(tile::DotOp dot,
                                                 unsigned numWarps) {
  if (!hasTensorCoreInstruction(dot))
    return {};
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

DotOperandEncodingAttr mlir::tilegpu::getDotOperandEncoding(unsigned opIdx,
                                                            Attribute parent,
                                                            Type elementType) {
  // An mma fragment packs 32 bits of K into each register.
  unsigned kWidth = isa<MmaEncodingAttr>(parent)
                        ? 32 / elementType.getIntOrFloatBitWidth()
                        : 0;
  return DotOperandEncodingAttr::get(parent.getContext(), opIdx, parent, kWidth);
}
