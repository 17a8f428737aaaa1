//===- TestAxisInfo.cpp - Prints the axis analysis for lit tests ----------===//

#include "tilec/Dialect/Tile/Analysis/AxisInfo.h"
#include "tilec/Dialect/Tile/Transforms/Passes.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/DebugLog.h"

#define DEBUG_TYPE "tile-test-axis-info"

namespace mlir::tile {
#define GEN_PASS_DEF_TILETESTAXISINFO
#include "tilec/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {
struct TileTestAxisInfo : tile::impl::TileTestAxisInfoBase<TileTestAxisInfo> {
  void runOnOperation() override {
    AxisInfoAnalysis analysis(getOperation());
    int64_t remarks = 0;
    getOperation()->walk([&](Operation *op) {
      if (op->getNumResults() != 1)
        return;
      Type element = getElementTypeOrSelf(op->getResult(0).getType());
      if (!element.isInteger() && !isa<PointerType>(element))
        return;
      std::string text;
      llvm::raw_string_ostream os(text);
      analysis.get(op->getResult(0)).print(os);
      op->emitRemark() << text;
      ++remarks;
    });
    LDBG() << remarks << " integer and pointer results analyzed";
  }
};
} // namespace
