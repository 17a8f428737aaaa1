//===- SharedLayout.cpp - Where a tile's elements sit in shared memory ----===//

#include "tilec/Dialect/TileGPU/IR/SharedLayout.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::tilegpu;

SharedEncodingAttr mlir::tilegpu::chooseSharedEncoding(
    MLIRContext *context, ArrayRef<int64_t> shape, ArrayRef<unsigned> order,
    unsigned elementBits) {
  unsigned elementBytes = std::max(1u, elementBits / 8);
  unsigned vec = std::max(1u, 16 / elementBytes);
  int64_t rowBytes = shape[order.front()] * elementBytes;
  // Bank groups repeat every 128 bytes: rows shorter than that share a
  // phase with their neighbours (perPhase), and a row of C chunks has at
  // most C phases to give.
  unsigned perPhase = std::max<int64_t>(1, 128 / rowBytes);
  unsigned maxPhase = std::clamp<int64_t>(rowBytes / 16, 1, 8);
  if (shape[order.front()] < vec) {
    vec = llvm::bit_floor(uint64_t(shape[order.front()]));
    maxPhase = 1;
  }
  return SharedEncodingAttr::get(context, vec, perPhase, maxPhase, order);
}

MemDescType mlir::tilegpu::getTransposedType(MemDescType type) {
  SmallVector<int64_t> shape(llvm::reverse(type.getShape()));
  Attribute encoding = type.getEncoding();
  if (auto shared = dyn_cast_or_null<SharedEncodingAttr>(encoding)) {
    SmallVector<unsigned> order(llvm::reverse(shared.getOrder()));
    encoding = SharedEncodingAttr::get(type.getContext(), shared.getVec(),
                                       shared.getPerPhase(),
                                       shared.getMaxPhase(), order);
  }
  return MemDescType::get(type.getContext(), shape, type.getElementType(),
                          encoding);
}

bool mlir::tilegpu::isBarrierRing(MemDescType type) {
  return type.getElementType().isInteger(64) && type.getRank() <= 2 &&
         type.getShape().back() == 1;
}

SmallVector<int64_t> mlir::tilegpu::getSharedAllocShape(MemDescType type) {
  SmallVector<int64_t> shape(type.getShape());
  if (isBarrierRing(type))
    return shape;
  unsigned bits = type.getElementType().getIntOrFloatBitWidth();
  int64_t least = std::max<int64_t>(16, 256 / std::max(bits, 1u));
  for (size_t d = shape.size() >= 2 ? shape.size() - 2 : 0; d < shape.size(); ++d)
    shape[d] = std::max<int64_t>(llvm::PowerOf2Ceil(shape[d]), least);
  return shape;
}

int64_t mlir::tilegpu::getSharedAllocBytes(MemDescType type) {
  return ShapedType::getNumElements(getSharedAllocShape(type)) *
         std::max(1u, type.getElementType().getIntOrFloatBitWidth() / 8);
}

std::pair<int64_t, int64_t>
mlir::tilegpu::getSharedRowAndColumn(SharedEncodingAttr encoding,
                                     ArrayRef<int64_t> shape,
                                     ArrayRef<int64_t> index) {
  unsigned fast = encoding.getOrder().front();
  int64_t row = 0;
  for (unsigned d = 0; d < shape.size(); ++d)
    if (d != fast)
      row = row * shape[d] + index[d];
  return {row, index[fast]};
}

SharedPanels mlir::tilegpu::getSharedPanels(SharedEncodingAttr encoding,
                                           ArrayRef<int64_t> shape) {
  unsigned fast = encoding.getOrder().front();
  SharedPanels panels;
  panels.rowLength = shape[fast];
  panels.width = std::min<int64_t>(8 * encoding.getVec(), panels.rowLength);
  // The rows of one matrix: the innermost dimension but the contiguous one.
  for (int d = int(shape.size()) - 1; d >= 0; --d)
    if (unsigned(d) != fast) {
      panels.rows = shape[d];
      break;
    }
  return panels;
}

int64_t mlir::tilegpu::getSharedOffset(SharedEncodingAttr encoding,
                                       ArrayRef<int64_t> shape,
                                       ArrayRef<int64_t> index) {
  auto [row, col] = getSharedRowAndColumn(encoding, shape, index);
  SharedPanels panels = getSharedPanels(encoding, shape);
  int64_t vec = encoding.getVec();
  int64_t phase = (row / encoding.getPerPhase()) % encoding.getMaxPhase();
  int64_t within = col % panels.width;
  return (row / panels.rows) * panels.rows * panels.rowLength +
         (col / panels.width) * panels.rows * panels.width +
         (row % panels.rows) * panels.width + ((within / vec) ^ phase) * vec +
         within % vec;
}
