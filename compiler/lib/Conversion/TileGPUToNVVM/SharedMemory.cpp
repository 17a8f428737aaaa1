//===- SharedMemory.cpp - Tiles in swizzled shared memory -----------------===//
//
// Stores go in 16-byte vectors where a thread's registers are contiguous
// along a row: the swizzle moves whole 16-byte chunks, so a vector never
// straddles two. mma operands come back with ldmatrix: each lane names one
// 16-byte row of one of four 8 x 8 matrices (of 16-bit elements; a row of
// 4 tf32 or 16 i8 reads the same), and the lanes receive exactly the
// fragment registers mma.sync wants, in order. When the operand's K
// dimension is contiguous in shared memory the matrices are read as they
// lie; otherwise (B stored row-major, A column-major) `.trans` turns them,
// which only exists for 16-bit elements.
//
//===----------------------------------------------------------------------===//

#include "SharedMemory.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::tilegpu;

int64_t SharedTile::getBytes() const {
  return ShapedType::getNumElements(shape) *
         (getMemoryBits(slotType) / 8);
}

Value SharedTile::getAddress(OpBuilder &b, Location loc,
                             ArrayRef<Value> index) const {
  unsigned fast = encoding.getOrder().front();
  Value row = i32Constant(b, loc, 0);
  for (unsigned d = 0; d < shape.size(); ++d)
    if (d != fast)
      row = LLVM::AddOp::create(
          b, loc, LLVM::MulOp::create(b, loc, row, i32Constant(b, loc, shape[d])),
          index[d]);
  Value col = index[fast];
  unsigned vec = encoding.getVec();
  Value chunk =
      LLVM::LShrOp::create(b, loc, col, i32Constant(b, loc, llvm::Log2_32(vec)));
  if (encoding.getMaxPhase() > 1) {
    Value phase = LLVM::AndOp::create(
        b, loc,
        LLVM::LShrOp::create(
            b, loc, row,
            i32Constant(b, loc, llvm::Log2_32(encoding.getPerPhase()))),
        i32Constant(b, loc, encoding.getMaxPhase() - 1));
    chunk = LLVM::XOrOp::create(b, loc, chunk, phase);
  }
  Value offset = LLVM::AddOp::create(
      b, loc,
      LLVM::MulOp::create(b, loc, row, i32Constant(b, loc, shape[fast])),
      LLVM::OrOp::create(
          b, loc,
          LLVM::ShlOp::create(b, loc, chunk,
                              i32Constant(b, loc, llvm::Log2_32(vec))),
          LLVM::AndOp::create(b, loc, col, i32Constant(b, loc, vec - 1))));
  return LLVM::GEPOp::create(b, loc, base.getType(), slotType, base,
                             ValueRange{offset});
}

void mlir::tilegpu::storeToShared(OpBuilder &b, Location loc,
                                  const SharedTile &tile,
                                  const ThreadLayout &layout,
                                  ValueRange values) {
  SmallVector<SmallVector<Value>> indices = emitElementIndices(b, loc, layout);
  unsigned slotBytes = getMemoryBits(tile.slotType) / 8;
  // Consecutive registers along the tile's rows, no more than a chunk.
  unsigned width = 1;
  int fastDim = layout.getTensorDim(layout.getFastestDim());
  if (fastDim == int(tile.encoding.getOrder().front()))
    width = std::min<unsigned>(layout.getContiguity(), tile.encoding.getVec());
  for (unsigned e = 0; e < values.size(); e += width) {
    Value address = tile.getAddress(b, loc, indices[e]);
    if (width == 1) {
      LLVM::StoreOp::create(b, loc, toMemoryForm(b, loc, values[e]), address);
      continue;
    }
    auto vecType = VectorType::get({int64_t(width)}, tile.slotType);
    Value vec = LLVM::UndefOp::create(b, loc, vecType);
    for (unsigned i = 0; i < width; ++i)
      vec = LLVM::InsertElementOp::create(b, loc, vec,
                                          toMemoryForm(b, loc, values[e + i]),
                                          i32Constant(b, loc, i));
    LLVM::StoreOp::create(b, loc, vec, address, width * slotBytes);
  }
}

SmallVector<Value> mlir::tilegpu::loadFromShared(OpBuilder &b, Location loc,
                                                 const SharedTile &tile,
                                                 const ThreadLayout &layout,
                                                 Type elementType) {
  SmallVector<Value> values;
  for (ArrayRef<Value> index : emitElementIndices(b, loc, layout)) {
    Value v = LLVM::LoadOp::create(b, loc, tile.slotType,
                                   tile.getAddress(b, loc, index));
    values.push_back(fromMemoryForm(b, loc, v, elementType));
  }
  return values;
}

std::optional<SmallVector<Value>>
mlir::tilegpu::loadMmaOperand(OpBuilder &b, Location loc,
                              const SharedTile &tile,
                              const ThreadLayout &layout, Type elementType) {
  auto operand = cast<DotOperandEncodingAttr>(layout.getRootEncoding());
  unsigned opIdx = operand.getOpIdx(), kWidth = operand.getKWidth();
  unsigned rank = layout.getRootRank();
  unsigned kDim = opIdx == 0 ? rank - 1 : rank - 2;
  unsigned mnDim = opIdx == 0 ? rank - 2 : rank - 1;
  unsigned fast = tile.encoding.getOrder().front();
  bool trans = fast != kDim;
  unsigned bits = elementType.getIntOrFloatBitWidth();
  if ((trans && bits != 16) || (fast != kDim && fast != mnDim) ||
      tile.encoding.getVec() * bits != 128)
    return std::nullopt;
  unsigned kBits = llvm::Log2_32(kWidth);

  Value tid = NVVM::ThreadIdXOp::create(b, loc, b.getI32Type());
  Value lane = LLVM::URemOp::create(b, loc, tid, i32Constant(b, loc, 32));
  Value row = LLVM::AndOp::create(b, loc, lane, i32Constant(b, loc, 7));
  Value matrix = LLVM::LShrOp::create(b, loc, lane, i32Constant(b, loc, 3));
  Value matrixLow = LLVM::AndOp::create(b, loc, matrix, i32Constant(b, loc, 1));
  Value matrixHigh = LLVM::LShrOp::create(b, loc, matrix, i32Constant(b, loc, 1));
  SmallVector<Value> warpBase = emitWarpBase(b, loc, layout);

  auto i32 = b.getI32Type();
  SmallVector<Value> values(layout.getNumElems());
  int64_t batches = rank == 3 ? layout.getLocalCount(0) : 1;
  int64_t reps = opIdx == 0 ? layout.getLocalCount(mnDim) / 2
                            : layout.getLocalCount(mnDim);
  int64_t kSteps = layout.getLocalCount(kDim) / (2 * kWidth);
  // Per ldmatrix: A takes its four 8 x (16 bytes) matrices from one
  // repetition, (M half, K half) = (j % 2, j / 2); B from two repetitions
  // at once, (K half, repetition) = (j % 2, j / 2), or from one (x2).
  unsigned repsPerLoad = opIdx == 0 ? 1 : std::min<int64_t>(2, reps);
  unsigned numMatrices = opIdx == 0 ? 4 : 2 * repsPerLoad;
  Type resultType = LLVM::LLVMStructType::getLiteral(
      b.getContext(), SmallVector<Type>(numMatrices, i32));
  Value kHalf = opIdx == 0 ? matrixHigh : matrixLow;
  Value mnHalf = opIdx == 0 ? matrixLow : i32Constant(b, loc, 0);
  Value repOfLane = opIdx == 0 || repsPerLoad == 1
                        ? i32Constant(b, loc, 0)
                        : LLVM::AndOp::create(b, loc, matrixHigh,
                                              i32Constant(b, loc, 1));

  /// The local index of fragment element `i` of repetition `rep`.
  auto fragmentLocal = [&](int64_t batch, int64_t rep, int64_t kStep,
                           unsigned i) {
    unsigned rest = i >> kBits;
    SmallVector<int64_t> local(rank, 0);
    if (rank == 3)
      local[0] = batch;
    int64_t half = opIdx == 0 ? rest & 1 : 0;
    int64_t kHigh = opIdx == 0 ? rest >> 1 : rest;
    local[kDim] = (i & (kWidth - 1)) | kHigh << kBits | kStep << (kBits + 1);
    local[mnDim] = opIdx == 0 ? half | rep << 1 : rep;
    return local;
  };

  for (int64_t batch = 0; batch < batches; ++batch)
    for (int64_t rep = 0; rep < reps; rep += repsPerLoad)
      for (int64_t kStep = 0; kStep < kSteps; ++kStep) {
        // Where repetition `rep` (and `rep + 1`) and this K step start.
        SmallVector<int64_t> first =
            layout.getElemOffset(layout.linearize(fragmentLocal(batch, rep, kStep, 0)));
        Value mnStart = LLVM::AddOp::create(
            b, loc, warpBase[mnDim], i32Constant(b, loc, first[mnDim]));
        if (repsPerLoad == 2) {
          SmallVector<int64_t> second = layout.getElemOffset(
              layout.linearize(fragmentLocal(batch, rep + 1, kStep, 0)));
          mnStart = LLVM::AddOp::create(
              b, loc, mnStart,
              LLVM::MulOp::create(
                  b, loc, repOfLane,
                  i32Constant(b, loc, second[mnDim] - first[mnDim])));
        }
        mnStart = LLVM::AddOp::create(
            b, loc, mnStart,
            LLVM::MulOp::create(b, loc, mnHalf, i32Constant(b, loc, 8)));
        Value kStart = LLVM::AddOp::create(
            b, loc, i32Constant(b, loc, first[kDim]),
            LLVM::MulOp::create(b, loc, kHalf, i32Constant(b, loc, 4 * kWidth)));
        // The lane's row: along M/N as the matrices lie, along K turned.
        SmallVector<Value> index(rank);
        if (rank == 3)
          index[0] = LLVM::AddOp::create(b, loc, warpBase[0],
                                         i32Constant(b, loc, first[0]));
        index[mnDim] = trans ? mnStart : LLVM::AddOp::create(b, loc, mnStart, row);
        index[kDim] = trans ? LLVM::AddOp::create(b, loc, kStart, row) : kStart;
        Value load = NVVM::LdMatrixOp::create(
            b, loc, resultType, tile.getAddress(b, loc, index), numMatrices,
            trans ? NVVM::MMALayout::col : NVVM::MMALayout::row,
            NVVM::LdStMatrixShapeAttr::get(b.getContext(), 8, 8),
            NVVM::LdStMatrixEltType::B16);
        for (unsigned j = 0; j < numMatrices; ++j) {
          Value reg = LLVM::ExtractValueOp::create(b, loc, load, j);
          int64_t r = opIdx == 0 ? rep : rep + j / 2;
          unsigned fragmentReg = opIdx == 0 ? j : j % 2;
          SmallVector<Value> elems;
          if (kWidth == 1) {
            elems.push_back(LLVM::BitcastOp::create(b, loc, elementType, reg));
          } else {
            auto vecType = VectorType::get({int64_t(kWidth)}, elementType);
            Value vec = LLVM::BitcastOp::create(b, loc, vecType, reg);
            for (unsigned i = 0; i < kWidth; ++i)
              elems.push_back(LLVM::ExtractElementOp::create(
                  b, loc, vec, i32Constant(b, loc, i)));
          }
          for (unsigned i = 0; i < kWidth; ++i)
            values[layout.linearize(fragmentLocal(
                batch, r, kStep, fragmentReg * kWidth + i))] = elems[i];
        }
      }
  return values;
}
