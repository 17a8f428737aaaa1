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

SharedTile SharedTile::get(Value base, MemDescType type) {
  SharedTile tile;
  tile.base = base;
  tile.encoding = cast<SharedEncodingAttr>(type.getEncoding());
  tile.shape = getSharedAllocShape(type);
  tile.slotType = getMemoryType(type.getElementType());
  return tile;
}

SharedTile SharedTile::transposed() const {
  // Two dimensions: the contiguous one and the rows, whichever way round.
  SharedTile tile = *this;
  std::swap(tile.shape[0], tile.shape[1]);
  SmallVector<unsigned> order;
  for (unsigned d : encoding.getOrder())
    order.push_back(1 - d);
  tile.encoding = SharedEncodingAttr::get(
      encoding.getContext(), encoding.getVec(), encoding.getPerPhase(),
      encoding.getMaxPhase(), order);
  return tile;
}

int64_t SharedTile::getBytes() const {
  return ShapedType::getNumElements(shape) *
         (getMemoryBits(slotType) / 8);
}

Value SharedTile::getAddress(OpBuilder &b, Location loc,
                             ArrayRef<Value> index) const {
  // The row: every dimension but the contiguous one, row-major.
  unsigned fast = encoding.getOrder().front();
  SmallVector<Value> rowIndex(index);
  SmallVector<int64_t> rowShape(shape);
  rowIndex.erase(rowIndex.begin() + fast);
  rowShape.erase(rowShape.begin() + fast);
  Value row = linearizeRowMajor(b, loc, rowIndex, rowShape);
  Value col = index[fast];
  unsigned vec = encoding.getVec();
  // Rows longer than a panel (SharedLayout.h): the matrix and the panel
  // come first, then the row and the column within the panel.
  SharedPanels panels = getSharedPanels(encoding, shape);
  Value start;
  if (panels.width < panels.rowLength) {
    auto shr = [&](Value v, int64_t by) {
      return LLVM::LShrOp::create(b, loc, v,
                                  i32Constant(b, loc, llvm::Log2_64(by)));
    };
    auto mask = [&](Value v, int64_t to) {
      return LLVM::AndOp::create(b, loc, v, i32Constant(b, loc, to - 1));
    };
    auto mul = [&](Value v, int64_t by) {
      return LLVM::MulOp::create(b, loc, v, i32Constant(b, loc, by));
    };
    start = LLVM::AddOp::create(
        b, loc,
        LLVM::AddOp::create(
            b, loc, mul(shr(row, panels.rows), panels.rows * panels.rowLength),
            mul(shr(col, panels.width), panels.rows * panels.width)),
        mul(mask(row, panels.rows), panels.width));
    col = mask(col, panels.width);
  }
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
      start ? start
            : LLVM::MulOp::create(b, loc, row, i32Constant(b, loc, shape[fast])),
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
  // A batch the layout pads past the buffer (3 -> 4) is not stored: those
  // elements go one by one, each predicated on lying inside.
  SmallVector<int64_t> padded = layout.getPaddedTensorShape();
  bool guarded = false;
  for (auto [have, want] : llvm::zip(tile.shape, padded))
    guarded |= want > have;
  if (guarded) {
    for (auto [e, index] : llvm::enumerate(indices)) {
      Value inside;
      for (auto [d, i] : llvm::enumerate(index)) {
        if (padded[d] <= tile.shape[d])
          continue;
        Value below = LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::ult, i,
                                           i32Constant(b, loc, tile.shape[d]));
        inside = inside ? LLVM::AndOp::create(b, loc, inside, below) : below;
      }
      Value v = toMemoryForm(b, loc, values[e]);
      Value word = LLVM::BitcastOp::create(
          b, loc, b.getIntegerType(getMemoryBits(tile.slotType)), v);
      emitPredicatedSharedStore(b, loc, tile.getAddress(b, loc, index), word,
                                inside);
    }
    return;
  }
  for (unsigned e = 0; e < values.size(); e += width) {
    Value address = tile.getAddress(b, loc, indices[e]);
    if (width == 1) {
      LLVM::StoreOp::create(b, loc, toMemoryForm(b, loc, values[e]), address);
      continue;
    }
    SmallVector<Value> slots;
    for (unsigned i = 0; i < width; ++i)
      slots.push_back(toMemoryForm(b, loc, values[e + i]));
    LLVM::StoreOp::create(b, loc, packVector(b, loc, slots), address,
                          width * slotBytes);
  }
}

void mlir::tilegpu::zeroShared(OpBuilder &b, Location loc,
                               const SharedTile &tile, unsigned numThreads) {
  int64_t chunks = (tile.getBytes() + 15) / 16;
  auto chunkType = VectorType::get({4}, b.getI32Type());
  Value zero = LLVM::ZeroOp::create(b, loc, chunkType);
  Value tid = NVVM::ThreadIdXOp::create(b, loc, b.getI32Type());
  for (int64_t first = 0; first < chunks; first += numThreads) {
    Value chunk = LLVM::AddOp::create(b, loc, tid, i32Constant(b, loc, first));
    Value address = LLVM::GEPOp::create(b, loc, tile.base.getType(), chunkType,
                                        tile.base, ValueRange{chunk});
    if (first + numThreads <= chunks) {
      LLVM::StoreOp::create(b, loc, zero, address, 16);
      continue;
    }
    // The last round: threads past the end store nothing.
    Value inside = LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::ult, chunk,
                                        i32Constant(b, loc, chunks));
    Value address64 =
        LLVM::PtrToIntOp::create(b, loc, b.getI64Type(), address);
    emitPTX(b, loc, "@$1 st.shared.v4.b32 [ $0 + 0 ], { 0, 0, 0, 0 };", "l,b",
            ValueRange{address64, inside}, {}, /*hasSideEffects=*/true);
  }
}

MmaFragmentLoader::MmaFragmentLoader(OpBuilder &b, Location loc,
                                     const SharedTile &tile,
                                     const ThreadLayout &layout,
                                     Type elementType)
    : tile(tile), layout(layout), elementType(elementType) {
  auto operand = cast<DotOperandEncodingAttr>(layout.getRootEncoding());
  opIdx = operand.getOpIdx();
  kWidth = operand.getKWidth();
  rank = layout.getRootRank();
  kDim = opIdx == 0 ? rank - 1 : rank - 2;
  mnDim = opIdx == 0 ? rank - 2 : rank - 1;
  unsigned fast = tile.encoding.getOrder().front();
  trans = fast != kDim;
  unsigned bits = elementType.getIntOrFloatBitWidth();
  ldmatrix = !(trans && bits != 16) && (fast == kDim || fast == mnDim) &&
             tile.encoding.getVec() * bits == 128;
  int64_t reps = opIdx == 0 ? layout.getLocalCount(mnDim) / 2
                            : layout.getLocalCount(mnDim);
  repsPerLoad = opIdx == 0 ? 1 : std::min<int64_t>(2, reps);
  if (ldmatrix) {
    Value tid = NVVM::ThreadIdXOp::create(b, loc, b.getI32Type());
    Value lane = LLVM::URemOp::create(b, loc, tid, i32Constant(b, loc, 32));
    row = LLVM::AndOp::create(b, loc, lane, i32Constant(b, loc, 7));
    Value matrix = LLVM::LShrOp::create(b, loc, lane, i32Constant(b, loc, 3));
    matrixLow = LLVM::AndOp::create(b, loc, matrix, i32Constant(b, loc, 1));
    matrixHigh = LLVM::LShrOp::create(b, loc, matrix, i32Constant(b, loc, 1));
    warpBase = emitWarpBase(b, loc, layout);
  } else {
    threadBase = emitThreadBase(b, loc, layout);
  }
}

Value mlir::tilegpu::packRegister(OpBuilder &b, Location loc,
                                  ArrayRef<Value> elems) {
  return LLVM::BitcastOp::create(b, loc, b.getI32Type(),
                                 packVector(b, loc, elems));
}

SmallVector<int64_t> mlir::tilegpu::getMmaFragmentLocal(
    unsigned opIdx, unsigned kWidth, unsigned rank, int64_t batch, int64_t rep,
    int64_t kStep, unsigned i) {
  // Element i of the fragment: its low bits run along K within a register,
  // then (A only) one bit of M + 8, then one of K + 4 kWidth.
  unsigned kDim = opIdx == 0 ? rank - 1 : rank - 2;
  unsigned mnDim = opIdx == 0 ? rank - 2 : rank - 1;
  unsigned kBits = llvm::Log2_32(kWidth);
  unsigned rest = i >> kBits;
  SmallVector<int64_t> local(rank, 0);
  if (rank == 3)
    local[0] = batch;
  int64_t half = opIdx == 0 ? rest & 1 : 0;
  int64_t kHigh = opIdx == 0 ? rest >> 1 : rest;
  local[kDim] = (i & (kWidth - 1)) | kHigh << kBits | kStep << (kBits + 1);
  local[mnDim] = opIdx == 0 ? half | rep << 1 : rep;
  return local;
}

SmallVector<Value> mlir::tilegpu::packMmaFragment(
    OpBuilder &b, Location loc, const ThreadLayout &layout,
    ArrayRef<Value> values, unsigned opIdx, unsigned kWidth, int64_t batch,
    int64_t rep, int64_t kStep) {
  SmallVector<Value> registers, elems;
  for (unsigned i = 0; i < (opIdx == 0 ? 4 : 2) * kWidth; ++i) {
    elems.push_back(values[layout.linearize(getMmaFragmentLocal(
        opIdx, kWidth, layout.getRootRank(), batch, rep, kStep, i))]);
    if (elems.size() < kWidth)
      continue;
    registers.push_back(packRegister(b, loc, elems));
    elems.clear();
  }
  return registers;
}

SmallVector<int64_t> MmaFragmentLoader::fragmentLocal(int64_t batch, int64_t rep,
                                                      int64_t kStep,
                                                      unsigned i) const {
  return getMmaFragmentLocal(opIdx, kWidth, rank, batch, rep, kStep, i);
}

Value MmaFragmentLoader::clampBatch(OpBuilder &b, Location loc,
                                    Value index) const {
  // A batch the layout pads to a power of two reads the last real one.
  int64_t batches = tile.shape[tile.shape.size() - 3];
  if (batches == layout.getRootShape()[0])
    return index;
  Value last = i32Constant(b, loc, batches - 1);
  return LLVM::SelectOp::create(
      b, loc,
      LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::ult, index, last),
      index, last);
}

SmallVector<Value> MmaFragmentLoader::load(OpBuilder &b, Location loc,
                                           int64_t batch, int64_t rep,
                                           int64_t kStep) {
  if (!ldmatrix)
    return loadElements(b, loc, batch, rep, kStep);
  auto key = std::make_tuple(batch, rep, kStep);
  auto it = pending.find(key);
  if (it != pending.end()) {
    SmallVector<Value> regs = std::move(it->second);
    pending.erase(it);
    return regs;
  }
  SmallVector<Value> regs = loadMatrices(b, loc, batch, rep, kStep);
  if (opIdx == 1 && repsPerLoad == 2) {
    // One x4 load serves this repetition and the next.
    pending[std::make_tuple(batch, rep + 1, kStep)] = {regs[2], regs[3]};
    regs.resize(2);
  }
  return regs;
}

SmallVector<Value> MmaFragmentLoader::loadMatrices(OpBuilder &b, Location loc,
                                                   int64_t batch, int64_t rep,
                                                   int64_t kStep) {
  // A takes its four 8 x (16 bytes) matrices from one repetition, (M half,
  // K half) = (j % 2, j / 2); B from two at once, (K half, repetition) =
  // (j % 2, j / 2), or from one (x2).
  bool pair = opIdx == 1 && repsPerLoad == 2;
  unsigned numMatrices = opIdx == 0 ? 4 : (pair ? 4 : 2);
  SmallVector<int64_t> first =
      layout.getElemOffset(layout.linearize(fragmentLocal(batch, rep, kStep, 0)));
  Value mnStart = LLVM::AddOp::create(b, loc, warpBase[mnDim],
                                      i32Constant(b, loc, first[mnDim]));
  if (pair) {
    SmallVector<int64_t> second = layout.getElemOffset(
        layout.linearize(fragmentLocal(batch, rep + 1, kStep, 0)));
    Value repOfLane =
        LLVM::AndOp::create(b, loc, matrixHigh, i32Constant(b, loc, 1));
    mnStart = LLVM::AddOp::create(
        b, loc, mnStart,
        LLVM::MulOp::create(b, loc, repOfLane,
                            i32Constant(b, loc, second[mnDim] - first[mnDim])));
  }
  Value kHalf = opIdx == 0 ? matrixHigh : matrixLow;
  if (opIdx == 0)
    mnStart = LLVM::AddOp::create(
        b, loc, mnStart,
        LLVM::MulOp::create(b, loc, matrixLow, i32Constant(b, loc, 8)));
  Value kStart = LLVM::AddOp::create(
      b, loc, i32Constant(b, loc, first[kDim]),
      LLVM::MulOp::create(b, loc, kHalf, i32Constant(b, loc, 4 * kWidth)));
  // The lane's row: along M/N as the matrices lie, along K when turned.
  SmallVector<Value> index(rank);
  if (rank == 3)
    index[0] = clampBatch(
        b, loc,
        LLVM::AddOp::create(b, loc, warpBase[0], i32Constant(b, loc, first[0])));
  index[mnDim] = trans ? mnStart : LLVM::AddOp::create(b, loc, mnStart, row);
  index[kDim] = trans ? LLVM::AddOp::create(b, loc, kStart, row) : kStart;
  Type i32 = b.getI32Type();
  Type resultType = LLVM::LLVMStructType::getLiteral(
      b.getContext(), SmallVector<Type>(numMatrices, i32));
  Value loaded = NVVM::LdMatrixOp::create(
      b, loc, resultType, tile.getAddress(b, loc, index), numMatrices,
      trans ? NVVM::MMALayout::col : NVVM::MMALayout::row,
      NVVM::LdStMatrixShapeAttr::get(b.getContext(), 8, 8),
      NVVM::LdStMatrixEltType::B16);
  SmallVector<Value> regs;
  for (unsigned j = 0; j < numMatrices; ++j)
    regs.push_back(LLVM::ExtractValueOp::create(b, loc, loaded, j));
  return regs;
}

SmallVector<Value> MmaFragmentLoader::loadElements(OpBuilder &b, Location loc,
                                                   int64_t batch, int64_t rep,
                                                   int64_t kStep) {
  unsigned count = (opIdx == 0 ? 4 : 2) * kWidth;
  SmallVector<Value> regs, elems;
  for (unsigned i = 0; i < count; ++i) {
    SmallVector<int64_t> offset =
        layout.getElemOffset(layout.linearize(fragmentLocal(batch, rep, kStep, i)));
    SmallVector<Value> index;
    for (unsigned d = 0; d < rank; ++d)
      index.push_back(LLVM::OrOp::create(b, loc, threadBase[d],
                                         i32Constant(b, loc, offset[d])));
    if (rank == 3)
      index[0] = clampBatch(b, loc, index[0]);
    elems.push_back(LLVM::LoadOp::create(b, loc, tile.slotType,
                                         tile.getAddress(b, loc, index)));
    if (elems.size() < kWidth)
      continue;
    regs.push_back(packRegister(b, loc, elems));
    elems.clear();
  }
  return regs;
}

std::optional<SmallVector<LayoutBasis>>
mlir::tilegpu::getMatrixStoreLanes(const ThreadLayout &layout, unsigned slotBytes) {
  ArrayRef<LayoutBasis> reg = layout.getRegBases();
  ArrayRef<LayoutBasis> lane = layout.getLaneBases();
  if (slotBytes != 2 || layout.getRootRank() != 2 ||
      !layout.getSlicedDims().empty() || reg.size() < 3)
    return std::nullopt;
  LayoutBasis expected[] = {{1, 2}, {1, 4}, {0, 1}, {0, 2}, {0, 4}};
  if (!(reg[0] == LayoutBasis{1, 1}) || lane != ArrayRef<LayoutBasis>(expected))
    return std::nullopt;
  return SmallVector<LayoutBasis>{{0, 1}, {0, 2}, {0, 4}, reg[1], reg[2]};
}

void mlir::tilegpu::storeMatrices(OpBuilder &b, Location loc, const ThreadLayout &src,
                   ArrayRef<LayoutBasis> lanes, ValueRange values,
                   function_ref<Value(ArrayRef<Value>)> slotAddress) {
  SmallVector<Value> base = emitThreadBase(b, loc, src, lanes);
  for (unsigned g = 0; g < src.getNumElems(); g += 8) {
    // Register bits 3 and up: moves disjoint from the lanes' (an or).
    SmallVector<int64_t> offset = src.getElemOffset(g);
    SmallVector<Value> index;
    for (auto [d, start] : llvm::enumerate(base))
      index.push_back(offset[d] ? (Value)LLVM::OrOp::create(
                                      b, loc, start,
                                      i32Constant(b, loc, offset[d]))
                                : start);
    SmallVector<Value> registers;
    for (unsigned j = 0; j < 4; ++j)
      registers.push_back(packRegister(
          b, loc,
          {toMemoryForm(b, loc, values[g + 2 * j]),
           toMemoryForm(b, loc, values[g + 2 * j + 1])}));
    NVVM::StMatrixOp::create(b, loc, slotAddress(index), registers,
                             NVVM::MMALayout::row,
                             NVVM::LdStMatrixShapeAttr::get(b.getContext(), 8, 8),
                             NVVM::LdStMatrixEltType::B16);
  }
}
