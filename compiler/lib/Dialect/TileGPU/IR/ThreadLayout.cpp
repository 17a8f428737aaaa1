//===- ThreadLayout.cpp - Which thread holds which element ----------------===//

#include "tilec/Dialect/TileGPU/IR/ThreadLayout.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::tilegpu;

std::optional<ThreadLayout> ThreadLayout::get(RankedTensorType type) {
  // Peel slices down to the root blocked layout, remembering which
  // dimensions of each parent were removed.
  SmallVector<unsigned> removedInParent; // outermost slice first
  Attribute encoding = type.getEncoding();
  while (auto slice = dyn_cast_or_null<SliceEncodingAttr>(encoding)) {
    removedInParent.push_back(slice.getDim());
    encoding = slice.getParent();
  }
  auto blocked = dyn_cast_or_null<BlockedEncodingAttr>(encoding);
  if (!blocked)
    return std::nullopt;
  unsigned rootRank = blocked.getOrder().size();
  if (rootRank != type.getRank() + removedInParent.size())
    return std::nullopt;

  // Rebuild the root shape: the outermost slice's dimension (the first
  // peeled) indexes its parent, one rank up from the tensor; then inward.
  SmallVector<int64_t> shape(type.getShape());
  SmallVector<bool> sliced(type.getRank(), false);
  for (unsigned dim : removedInParent) {
    if (dim > shape.size())
      return std::nullopt;
    shape.insert(shape.begin() + dim, 1);
    sliced.insert(sliced.begin() + dim, true);
  }

  ThreadLayout layout;
  layout.blocked = blocked;
  layout.extent = shape;
  for (int64_t &s : shape)
    s = llvm::PowerOf2Ceil(s);
  layout.shape = shape;
  for (unsigned d = 0; d < rootRank; ++d) {
    if (sliced[d])
      layout.slicedDims.push_back(d);
    int64_t spt = blocked.getSizePerThread()[d];
    int64_t extent = layout.getTileExtent(d);
    layout.localCount.push_back(shape[d] >= extent
                                    ? spt * (shape[d] / extent)
                                    : std::min<int64_t>(spt, shape[d]));
  }
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

unsigned ThreadLayout::getNumElems() const {
  unsigned n = 1;
  for (int64_t c : localCount)
    n *= c;
  return n;
}

int64_t ThreadLayout::getTileExtent(unsigned d) const {
  return int64_t(blocked.getSizePerThread()[d]) * blocked.getThreadsPerWarp()[d] *
         blocked.getWarpsPerCTA()[d];
}

SmallVector<int64_t> ThreadLayout::getLocalIndex(unsigned e) const {
  SmallVector<int64_t> local(shape.size(), 0);
  for (unsigned d : blocked.getOrder()) {
    local[d] = e % localCount[d];
    e /= localCount[d];
  }
  return local;
}

unsigned ThreadLayout::linearize(ArrayRef<int64_t> local) const {
  unsigned e = 0, stride = 1;
  for (unsigned d : blocked.getOrder()) {
    e += local[d] * stride;
    stride *= localCount[d];
  }
  return e;
}

SmallVector<int64_t> ThreadLayout::getElemOffset(unsigned e) const {
  SmallVector<int64_t> local = getLocalIndex(e);
  SmallVector<int64_t> offset(shape.size());
  for (unsigned d = 0; d < shape.size(); ++d) {
    int64_t spt = blocked.getSizePerThread()[d];
    offset[d] = (local[d] / spt) * getTileExtent(d) + local[d] % spt;
  }
  return offset;
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
