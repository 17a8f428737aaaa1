//===- OrderAtomics.cpp - Floating-point atomic adds in a fixed order -----===//
//
// A floating-point sum depends on its order, and atomics add in whatever
// order the programs reach them: split-K's C differs in its last bits from
// run to run. Under `tilec --deterministic` the programs that add into the
// same tile take turns. The turn is ordered along the grid's last axis with
// more than one program, which is where split-K puts its splits; each
// position on the other axes (an output tile) has a turnstile of its own,
// so different tiles still add in parallel:
//
//   ... the program's work, in parallel with every other program ...
//   tilegpu.turnstile_wait %turnstiles     // before the first such atomic
//   tile.atomic_rmw add ...                // programs 0, 1, 2, ... in turn
//   tilegpu.turnstile_signal %turnstiles   // before the return
//
// The wait goes before the top-level op that holds the first such atomic,
// so every program waits and signals exactly once, whatever its control
// flow does. A program waits only on lower ids along the ordering axis,
// which the GPU starts first, so the turns cannot deadlock (CUTLASS's
// serial split-K relies on the same order).
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/TileGPU/Transforms/Passes.h"

#include "tilec/Dialect/Tile/IR/Tile.h"
#include "tilec/Dialect/TileGPU/IR/Target.h"
#include "tilec/Dialect/TileGPU/IR/TileGPU.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/Support/DebugLog.h"

#define DEBUG_TYPE "tilegpu-order-atomics"

namespace mlir::tilegpu {
#define GEN_PASS_DEF_TILEGPUORDERATOMICS
#include "tilec/Dialect/TileGPU/Transforms/Passes.h.inc"
} // namespace mlir::tilegpu

using namespace mlir;
using namespace mlir::tilegpu;

namespace {

/// Whether the memory `op` leaves depends on the order the programs reach
/// it in: a floating-point add rounds differently in another order. Integer
/// adds, max, min and the bitwise ops commute exactly.
bool isOrderDependent(tile::AtomicRMWOp op) {
  return op.getKind() == tile::AtomicRMWKind::Add &&
         isa<FloatType>(getElementTypeOrSelf(op.getVal().getType()));
}

/// The kernel's turnstiles parameter, appended after every other.
Value appendTurnstiles(func::FuncOp func) {
  MLIRContext *context = func.getContext();
  auto type = tile::PointerType::get(context, IntegerType::get(context, 32));
  NamedAttrList attrs;
  attrs.append(TileGPUDialect::getTurnstilesAttrName(), UnitAttr::get(context));
  attrs.append(mlir::tile::TileDialect::getParamNameAttrName(), StringAttr::get(context, "turnstiles"));
  unsigned n = func.getNumArguments();
  (void)func.insertArgument(n, type, attrs.getDictionary(context),
                            func.getLoc());
  return func.getArgument(n);
}

struct OrderAtomics
    : public tilegpu::impl::TileGPUOrderAtomicsBase<OrderAtomics> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (!module->hasAttr(TileGPUDialect::getDeterministicAttrName())) {
      LDBG() << "module not deterministic: atomics left in any order";
      return;
    }
    for (auto func : module.getOps<func::FuncOp>()) {
      if (func.isExternal())
        continue;
      tile::AtomicRMWOp first;
      func.walk<WalkOrder::PreOrder>([&](tile::AtomicRMWOp op) {
        if (!isOrderDependent(op))
          return WalkResult::advance();
        first = op;
        return WalkResult::interrupt();
      });
      if (!first) {
        LDBG() << "@" << func.getSymName()
               << ": no floating-point atomic add";
        continue;
      }
      bool specialized =
          func.walk([](WarpSpecializeOp) { return WalkResult::interrupt(); })
              .wasInterrupted();
      if (specialized) {
        first.emitError("deterministic atomics are not supported in a "
                        "warp-specialized kernel (tl.range(..., "
                        "warp_specialize=True))");
        return signalPassFailure();
      }
      Value turnstiles = appendTurnstiles(func);
      Block &entry = func.getBody().front();
      Operation *top = entry.findAncestorOpInBlock(*first);
      LDBG() << "@" << func.getSymName() << ": turnstile wait before the "
             << top->getName() << " at " << top->getLoc()
             << " (first floating-point atomic add at " << first.getLoc()
             << "), signal before the return";
      OpBuilder b(top);
      TurnstileWaitOp::create(b, first.getLoc(), turnstiles);
      b.setInsertionPoint(entry.getTerminator());
      TurnstileSignalOp::create(b, first.getLoc(), turnstiles);
    }
  }
};

} // namespace
