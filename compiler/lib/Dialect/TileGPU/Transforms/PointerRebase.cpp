//===- PointerRebase.cpp - A loop's pointer tiles from a moving scalar ----===//
//
// The carried tile at iteration i is its initial value plus i times the
// advance, element by element; every element is the scalar base plus its
// own offsets, so it is also the same chain of ops applied to the base plus
// i times the advance. The offsets stay loop-invariant 32-bit values; the
// advance is computed in 64 bits, as the pointers added it.
//
//===----------------------------------------------------------------------===//

#include "PointerRebase.h"

#include "RingSlots.h"

#include "tilec/Dialect/TileGPU/IR/ThreadLayout.h"
#include "tilec/Dialect/TileGPU/IR/TileGPU.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "llvm/Support/DebugLog.h"

// A helper of tilegpu-pipeline: its debug output goes with the pass's.
#define DEBUG_TYPE "tilegpu-pipeline"

using namespace mlir;
using namespace mlir::tilegpu;

bool mlir::tilegpu::loadsSingleElements(tile::LoadOp load) {
  auto type = dyn_cast<RankedTensorType>(load.getPtr().getType());
  std::optional<ThreadLayout> layout =
      type ? ThreadLayout::get(type) : std::nullopt;
  return layout && layout->getContiguity() == 1;
}

bool mlir::tilegpu::rebaseCarriedPointers(scf::ForOp loop, tile::LoadOp load) {
  auto carried = dyn_cast<BlockArgument>(load.getPtr());
  if (!carried || carried.getOwner() != loop.getBody() ||
      carried.getArgNumber() < loop.getNumInductionVars())
    return false;
  unsigned index = carried.getArgNumber() - loop.getNumInductionVars();
  auto advance = loop.getYieldedValues()[index].getDefiningOp<tile::AddPtrOp>();
  if (!advance || advance.getPtr() != carried)
    return false;
  // The advance: a splat of a value from outside the loop, or a splat
  // constant.
  Value step;
  SplatElementsAttr constant;
  if (auto splat = advance.getOffset().getDefiningOp<tile::SplatOp>())
    step = splat.getSrc();
  if (step ? !loop.isDefinedOutsideOfLoop(step)
           : !matchPattern(advance.getOffset(),
                           m_Constant<SplatElementsAttr>(&constant)))
    return false;

  // The ops from the scalar pointer to the initial tile, each taking the
  // pointers as its first operand; the others are loop-invariant offsets.
  SmallVector<Operation *> chain;
  Value scalar;
  for (Value value = loop.getInitArgs()[index]; !scalar;) {
    Operation *def = value.getDefiningOp();
    if (!def || !isa<tile::SplatOp, tile::AddPtrOp, tile::BroadcastOp,
                     tile::ExpandDimsOp, ConvertLayoutOp>(def))
      return false;
    chain.push_back(def);
    value = def->getOperand(0);
    if (isa<tile::SplatOp>(def))
      scalar = value;
  }
  if (!isa<tile::PointerType>(scalar.getType()))
    return false;

  OpBuilder b(load);
  Location loc = load.getLoc();
  if (!step)
    step = arith::ConstantOp::create(b, loc, constant.getSplatValue<TypedAttr>());
  auto wide = [&](Value v) -> Value {
    return v.getType().isInteger(64)
               ? v
               : arith::ExtSIOp::create(b, loc, b.getI64Type(), v);
  };
  Value offset = arith::MulIOp::create(
      b, loc, wide(emitIteration(b, loc, loop)), wide(step));
  Value rebuilt =
      tile::AddPtrOp::create(b, loc, scalar.getType(), scalar, offset);
  for (Operation *op : llvm::reverse(chain)) {
    IRMapping map;
    map.map(op->getOperand(0), rebuilt);
    rebuilt = b.clone(*op, map)->getResult(0);
  }
  load.getPtrMutable().assign(rebuilt);
  LDBG() << "load at " << loc
         << ": its pointers rebuilt each iteration from their scalar base";
  return true;
}
