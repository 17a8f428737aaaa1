//===- SharedMemoryAllocation.cpp - Offsets in dynamic shared memory ------===//
//
// Buffers (tilegpu.local_alloc) are laid out one after the other, each at
// its own offset for the whole kernel. Scratch space (layout conversions,
// reductions, atomics that share old values) is needed only during its op:
// it starts after the buffers that are live there, so that an epilogue's
// conversion reuses the pipeline's ring once the loop is done with it. A
// buffer is live from its alloc to the last op of its block that uses it or
// a view of it (memdesc_index results, loop-carried views), a whole loop
// when the use is inside one. Reuse is safe because every writer of shared
// memory synchronizes the CTA before it writes (earlier readers are done)
// and async copies land in rings that are live until the wait after their
// loop.
//
//===----------------------------------------------------------------------===//

#include "Utility.h"

#include "tilec/Conversion/TileGPUToNVVM/TileGPUToNVVM.h"
#include "tilec/Dialect/TileGPU/IR/SharedLayout.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/DenseSet.h"

using namespace mlir;
using namespace mlir::tilegpu;

namespace {

/// The last op of the alloc's block that uses its buffer, directly or
/// through a view, or holds such a use in its regions.
Operation *getLastUse(LocalAllocOp alloc) {
  Block *block = alloc->getBlock();
  Operation *last = alloc;
  SmallVector<Value> worklist = {alloc.getResult()};
  llvm::DenseSet<Value> seen;
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    if (!seen.insert(value).second)
      continue;
    for (OpOperand &use : value.getUses()) {
      Operation *user = use.getOwner();
      if (Operation *ancestor = block->findAncestorOpInBlock(*user))
        if (last->isBeforeInBlock(ancestor))
          last = ancestor;
      for (Value result : user->getResults())
        if (isa<MemDescType>(result.getType()))
          worklist.push_back(result);
      // Views carried around a loop.
      if (auto loop = dyn_cast<scf::ForOp>(user)) {
        if (OpResult result = loop.getTiedLoopResult(&use)) {
          worklist.push_back(result);
          worklist.push_back(loop.getTiedLoopRegionIterArg(&use));
        }
      } else if (isa<scf::YieldOp>(user)) {
        if (auto loop = dyn_cast<scf::ForOp>(user->getParentOp())) {
          worklist.push_back(loop.getResult(use.getOperandNumber()));
          worklist.push_back(loop.getRegionIterArg(use.getOperandNumber()));
        }
      }
    }
  }
  return last;
}

/// Ops whose lowering takes scratch space (getSharedMemoryBase).
bool usesScratch(Operation *op) {
  return isa<ConvertLayoutOp, tile::ReduceOp, tile::ReduceWithOp,
             tile::ScanOp, tile::ButterflyOp, tile::HistogramOp,
             tile::AtomicRMWOp,
             tile::AtomicCASOp>(op);
}

struct Buffer {
  LocalAllocOp alloc;
  Operation *lastUse;
  int64_t end; // offset + bytes
};

/// Whether `buffer` is live while `op` runs.
bool isLiveAt(const Buffer &buffer, Operation *op) {
  Operation *ancestor = buffer.alloc->getBlock()->findAncestorOpInBlock(*op);
  return ancestor && buffer.alloc->isBeforeInBlock(ancestor) &&
         !buffer.lastUse->isBeforeInBlock(ancestor);
}

} // namespace

void mlir::tilegpu::assignSharedOffsets(ModuleOp module) {
  MLIRContext *context = module.getContext();
  SmallVector<Buffer> buffers;
  int64_t end = 0;
  module.walk([&](LocalAllocOp alloc) {
    // Aligned to the swizzle's pattern, 8 rows of up to 128 bytes: bank
    // groups repeat every 128 bytes, and wgmma and bulk copies want the
    // pattern to start on its own boundary (1024 bytes for 128-byte rows).
    auto encoding = dyn_cast_or_null<SharedEncodingAttr>(alloc.getType().getEncoding());
    int64_t align = 128 * (encoding ? std::max(1u, encoding.getMaxPhase()) : 1);
    int64_t offset = llvm::alignTo(end, align);
    alloc->setAttr(kSharedOffsetAttrName,
                   IntegerAttr::get(IntegerType::get(context, 64), offset));
    end = offset + getSharedAllocBytes(alloc.getType());
    buffers.push_back({alloc, getLastUse(alloc), end});
  });
  if (buffers.empty())
    return;
  module.walk([&](Operation *op) {
    if (!usesScratch(op))
      return;
    int64_t start = 0;
    for (const Buffer &buffer : buffers)
      if (isLiveAt(buffer, op))
        start = std::max(start, buffer.end);
    op->setAttr(kScratchOffsetAttrName,
                IntegerAttr::get(IntegerType::get(context, 32),
                                 llvm::alignTo(start, 16)));
  });
}
