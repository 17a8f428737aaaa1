//===- SharedMemoryAllocation.cpp - Offsets in dynamic shared memory ------===//
//
// Buffers (tilegpu.local_alloc) take their own bytes for the whole kernel,
// except tiles stored once and read by dots that finish in place: two of
// those whose lives do not overlap share bytes (attention's K tile and its
// P tile, a loop's first dot operand and its second), so that a kernel's
// footprint is what is live at once, as in Triton. Scratch space (layout
// conversions, reductions, atomics that share old values, bulk stores' buffers)
// is needed only during its op: it starts after the buffers that are live
// there, so that an epilogue's conversion reuses the pipeline's ring once the
// loop is done with it. A buffer is live from its alloc to the last op that
// uses it or a view of it (memdesc_index results, loop-carried views), a whole
// loop when the use is inside one; a warp-specialized producer's copies count
// as the consumers' waits for them. Reuse is safe because every writer of
// shared memory synchronizes the CTA (or the consumers) before it writes
// (earlier readers are done) and async copies land in rings that are live until
// the wait after their loop. Writers in the other CTA of a cluster too: a
// shared copy's multicast lands in rings, and cluster_pair_equal writes
// the other CTA's scratch between two cluster barriers.
//
//===----------------------------------------------------------------------===//

#include "Utility.h"

#include "tilec/Conversion/TileGPUToNVVM/TileGPUToNVVM.h"
#include "tilec/Dialect/TileGPU/IR/SharedLayout.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/DebugLog.h"

// A step of convert-tilegpu-to-nvvm: its debug output goes with the pass's.
#define DEBUG_TYPE "convert-tilegpu-to-nvvm"

using namespace mlir;
using namespace mlir::tilegpu;

namespace {

/// The tilegpu.warp_specialize whose producer runs `op`, or null. Its uses
/// of a buffer do not extend the buffer's life: the producer only fills
/// buffers that the consumers wait for before they read them.
WarpSpecializeOp getProducerSplit(Operation *op) {
  for (Region *region = op->getParentRegion(); region;
       region = region->getParentRegion())
    if (auto split = dyn_cast<WarpSpecializeOp>(region->getParentOp()))
      if (region == &split.getProducer())
        return split;
  return nullptr;
}

/// The ops that use the alloc's buffer, directly or through a view.
SmallVector<Operation *> getUsers(LocalAllocOp alloc) {
  SmallVector<Operation *> users;
  WarpSpecializeOp producerOnly;
  SmallVector<Value> worklist = {alloc.getResult()};
  llvm::DenseSet<Value> seen;
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    if (!seen.insert(value).second)
      continue;
    for (OpOperand &use : value.getUses()) {
      Operation *user = use.getOwner();
      if (WarpSpecializeOp split = getProducerSplit(user))
        producerOnly = split;
      else
        users.push_back(user);
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
  // A buffer that only the producer uses lives through the whole split.
  if (users.empty() && producerOnly)
    users.push_back(producerOnly);
  return users;
}

/// Whether `user` may run after `op` starts (or is `op`): it follows `op`
/// in their innermost common block, contains it or is in it, or a loop
/// inside `outer` (the buffer's block) runs both again.
bool mayRunAfter(Operation *user, Operation *op, Block *outer) {
  for (Block *block = op->getBlock(); block; ) {
    Operation *mine = block->findAncestorOpInBlock(*op);
    if (Operation *theirs = block->findAncestorOpInBlock(*user)) {
      if (theirs == mine || !theirs->isBeforeInBlock(mine))
        return true;
      for (Block *b = block; b != outer; b = b->getParentOp()->getBlock())
        if (isa<LoopLikeOpInterface>(b->getParentOp()))
          return true;
      return false;
    }
    if (block == outer)
      return false;
    block = block->getParentOp()->getBlock();
  }
  return false;
}

/// Ops whose lowering takes scratch space (getSharedMemoryBase).
bool usesScratch(Operation *op) {
  return isa<ConvertLayoutOp, tile::ReduceOp, tile::ReduceWithOp, tile::ScanOp,
             tile::ButterflyOp, tile::HistogramOp, tile::GatherOp,
             tile::AtomicRMWOp, tile::AtomicCASOp, AsyncTMAStoreOp,
             ClusterSumOp, ClusterPairEqualOp>(op);
}

struct Buffer {
  LocalAllocOp alloc;
  SmallVector<Operation *> users;
  bool sharable;
  int64_t offset;
  int64_t end; // offset + bytes
};

/// Whether the buffer can share bytes with others outside its life: a tile
/// stored by its local_alloc and read only by dots. A dot's wgmma reads
/// until its warpgroup_dot_wait, which joins the users; one left in flight
/// across iterations (pending > 0), and rings, barriers and staging filled
/// or drained by asynchronous copies keep their bytes.
bool isSharable(LocalAllocOp alloc, SmallVector<Operation *> &users) {
  // A warp-specialized producer and its consumers run at once: liveness
  // in program order says nothing between them.
  if (!alloc.getSrc() || alloc->getParentOfType<WarpSpecializeOp>())
    return false;
  SmallVector<Operation *> waits;
  for (Operation *user : users) {
    auto dot = dyn_cast<tile::DotOp>(user);
    if (!dot)
      return false;
    for (Operation *dotUser : dot->getUsers())
      if (auto wait = dyn_cast<WarpgroupDotWaitOp>(dotUser)) {
        if (wait.getPending() != 0)
          return false;
        waits.push_back(wait);
      }
  }
  users.append(waits);
  return true;
}

/// Whether `buffer` is live while `op` runs: allocated before it and used
/// by something that may run after it starts.
bool isLiveAt(const Buffer &buffer, Operation *op) {
  Block *block = buffer.alloc->getBlock();
  Operation *ancestor = block->findAncestorOpInBlock(*op);
  return ancestor && buffer.alloc->isBeforeInBlock(ancestor) &&
         llvm::any_of(buffer.users, [&](Operation *user) {
           return mayRunAfter(user, op, block);
         });
}

/// The lowest offset aligned to `alignment` where `bytes` fit below or
/// between the sorted byte ranges `taken`.
int64_t getLowestGap(ArrayRef<std::pair<int64_t, int64_t>> taken,
                     int64_t alignment, int64_t bytes) {
  int64_t offset = 0;
  for (auto [start, end] : taken) {
    if (bytes <= start - llvm::alignTo(offset, alignment))
      break;
    offset = std::max(offset, end);
  }
  return llvm::alignTo(offset, alignment);
}

} // namespace

void mlir::tilegpu::assignSharedOffsets(ModuleOp module) {
  MLIRContext *context = module.getContext();
  // Each buffer aligned to its swizzle's pattern, 8 rows of up to 128
  // bytes: bank groups repeat every 128 bytes, and wgmma and bulk copies
  // want the pattern to start on its own boundary (1024 bytes for 128-byte
  // rows). The most aligned come first, so that small buffers (mbarriers)
  // pack after the tiles instead of opening a hole before the next one: a
  // kilobyte can decide whether two CTAs fit on a multiprocessor.
  auto getAlignment = [](MemDescType type) -> int64_t {
    auto encoding = dyn_cast_or_null<SharedEncodingAttr>(type.getEncoding());
    return 128 * (encoding ? std::max(1u, encoding.getMaxPhase()) : 1);
  };
  SmallVector<LocalAllocOp> allocs;
  module.walk([&](LocalAllocOp alloc) { allocs.push_back(alloc); });
  // Ties in program order (llvm::sort with the position as the last key:
  // libstdc++'s stable_sort uses a deprecated buffer clang warns of).
  llvm::DenseMap<Operation *, size_t> position;
  for (auto [i, alloc] : llvm::enumerate(allocs))
    position[alloc] = i;
  llvm::sort(allocs, [&](LocalAllocOp a, LocalAllocOp b) {
    return std::make_pair(-getAlignment(a.getType()), position[a]) <
           std::make_pair(-getAlignment(b.getType()), position[b]);
  });
  SmallVector<Buffer> buffers;
  for (LocalAllocOp alloc : allocs) {
    Buffer buffer{alloc, getUsers(alloc), false, 0, 0};
    buffer.sharable = isSharable(alloc, buffer.users);
    // The bytes of the buffers placed already that this one may not
    // overlap; it takes the lowest aligned gap between them.
    SmallVector<std::pair<int64_t, int64_t>> taken;
    for (const Buffer &placed : buffers)
      if (!buffer.sharable || !placed.sharable ||
          isLiveAt(placed, alloc) || isLiveAt(buffer, placed.alloc))
        taken.push_back({placed.offset, placed.end});
    llvm::sort(taken);
    int64_t bytes = getSharedAllocBytes(alloc.getType());
    buffer.offset = getLowestGap(taken, getAlignment(alloc.getType()), bytes);
    buffer.end = buffer.offset + bytes;
    alloc->setAttr(TileGPUDialect::getSharedOffsetAttrName(),
                   IntegerAttr::get(IntegerType::get(context, 64),
                                    buffer.offset));
    LDBG() << "buffer at " << alloc.getLoc() << ": shared memory ["
           << buffer.offset << ", " << buffer.end << ")"
           << (buffer.sharable ? ", shared outside its life, " : ", ")
           << alloc.getType();
    buffers.push_back(std::move(buffer));
  }
  if (buffers.empty())
    return;
  module.walk([&](Operation *op) {
    if (!usesScratch(op))
      return;
    SmallVector<std::pair<int64_t, int64_t>> taken;
    for (const Buffer &buffer : buffers)
      if (isLiveAt(buffer, op))
        taken.push_back({buffer.offset, buffer.end});
    llvm::sort(taken);
    // A bulk store's buffer starts on its swizzle pattern's boundary, as
    // the copy engine wants (1024 bytes for 128-byte rows), and, its size
    // known here, takes the lowest gap it fits between the live buffers:
    // a persistent attention program's output tile goes where its Q tile
    // was, the rings live around it (32 KB of 256). Other scratch starts
    // after them all.
    int64_t alignment = 16, bytes = std::numeric_limits<int64_t>::max();
    if (auto store = dyn_cast<AsyncTMAStoreOp>(op)) {
      alignment = getAlignment(store.getBuffer());
      bytes = getSharedAllocBytes(store.getBuffer());
    }
    int64_t start = getLowestGap(taken, alignment, bytes);
    op->setAttr(TileGPUDialect::getScratchOffsetAttrName(),
                IntegerAttr::get(IntegerType::get(context, 32), start));
    LDBG() << op->getName() << " at " << op->getLoc() << ": scratch space from "
           << start;
  });
}
