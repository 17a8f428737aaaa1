//===- GlobalAccess.cpp - Which ops may touch global memory ---------------===//

#include "tilec/Dialect/TileGPU/IR/GlobalAccess.h"

#include "tilec/Dialect/TileGPU/IR/TileGPU.h"

#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace mlir::tilegpu;

bool mlir::tilegpu::mayAccessGlobalMemory(Operation *op, GlobalProxy proxy) {
  if (op->hasTrait<OpTrait::HasRecursiveMemoryEffects>() ||
      isMemoryEffectFree(op))
    return false;
  // The copy engine's reads of global memory into shared memory.
  if (isa<AsyncTMACopyOp, TensorMapPrefetchOp>(op))
    return proxy == GlobalProxy::Any;
  return !isa<LocalAllocOp, AsyncCommitGroupOp, AsyncWaitOp,
              WarpgroupDotWaitOp, FenceAsyncSharedOp, TensorMapAcquireOp,
              BarrierInitOp, BarrierExpectOp, BarrierArriveOp, BarrierWaitOp,
              BarrierInvalOp, tile::DebugBarrierOp>(op);
}

/// Whether `op` or an op nested in it may access global memory.
static bool mayAccessGlobalMemoryWithin(Operation *op, GlobalProxy proxy) {
  return op
      ->walk([&](Operation *nested) {
        return mayAccessGlobalMemory(nested, proxy) ? WalkResult::interrupt()
                                                    : WalkResult::advance();
      })
      .wasInterrupted();
}

bool mlir::tilegpu::mayAccessGlobalMemory(Block::iterator begin,
                                          Block::iterator end,
                                          GlobalProxy proxy) {
  return llvm::any_of(llvm::make_range(begin, end), [&](Operation &op) {
    return mayAccessGlobalMemoryWithin(&op, proxy);
  });
}

bool mlir::tilegpu::mayAccessGlobalMemoryAfter(Operation *op,
                                               GlobalProxy proxy) {
  for (Operation *at = op; !isa<FunctionOpInterface>(at);
       at = at->getParentOp()) {
    if (mayAccessGlobalMemory(std::next(at->getIterator()),
                              at->getBlock()->end(), proxy))
      return true;
    Operation *parent = at->getParentOp();
    if (isa<LoopLikeOpInterface>(parent) &&
        mayAccessGlobalMemoryWithin(parent, proxy))
      return true;
  }
  return false;
}
