//===- RemoveLayoutConversions.cpp - Avoids shared-memory round trips -----===//

#include "tilec/Dialect/TileGPU/Transforms/Passes.h"
#include "tilec/Dialect/TileGPU/IR/ThreadLayout.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Iterators.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/Support/DebugLog.h"

#define DEBUG_TYPE "tilegpu-remove-layout-conversions"

namespace mlir::tilegpu {
#define GEN_PASS_DEF_TILEGPUREMOVELAYOUTCONVERSIONS
#include "tilec/Dialect/TileGPU/Transforms/Passes.h.inc"
} // namespace mlir::tilegpu

using namespace mlir;
using namespace mlir::tilegpu;

namespace {

constexpr unsigned kMaxDepth = 16;

RankedTensorType withEncoding(Type type, Attribute encoding) {
  auto tensor = cast<RankedTensorType>(type);
  return RankedTensorType::get(tensor.getShape(), tensor.getElementType(),
                               encoding);
}

/// Recomputes a value in another layout from the values it is made of,
/// when all of them are cheap (no memory access, no cross-thread work).
class Rematerializer {
public:
  explicit Rematerializer(OpBuilder &builder) : builder(builder) {}

  /// True when `value` can be recomputed with `encoding`.
  bool canRecompute(Value value, Attribute encoding, unsigned depth = 0) {
    auto type = dyn_cast<RankedTensorType>(value.getType());
    if (!type)
      return true; // scalars are shared as they are
    if (type.getEncoding() == encoding)
      return true;
    // A layout threads cannot hold a value in (a slice of a dot operand's,
    // reached through expand_dims) ends the recomputation here.
    if (!ThreadLayout::get(withEncoding(type, encoding)))
      return false;
    Operation *op = value.getDefiningOp();
    if (!op || depth > kMaxDepth)
      return false;
    if (isa<tile::MakeRangeOp, tile::SplatOp, arith::ConstantOp>(op))
      return true;
    if (auto convert = dyn_cast<ConvertLayoutOp>(op))
      return canRecompute(convert.getSrc(), encoding, depth + 1);
    if (auto expand = dyn_cast<tile::ExpandDimsOp>(op))
      return canRecompute(expand.getSrc(),
                          SliceEncodingAttr::get(op->getContext(),
                                                 expand.getAxis(), encoding),
                          depth + 1);
    bool elementwise = op->hasTrait<OpTrait::Elementwise>() ||
                       isa<tile::BroadcastOp>(op);
    if (!elementwise || op->getNumResults() != 1 || op->getNumRegions() != 0 ||
        !isMemoryEffectFree(op))
      return false;
    return llvm::all_of(op->getOperands(), [&](Value operand) {
      return canRecompute(operand, encoding, depth + 1);
    });
  }

  /// Recomputes `value` with `encoding`; canRecompute must hold.
  Value recompute(Value value, Attribute encoding) {
    auto type = dyn_cast<RankedTensorType>(value.getType());
    if (!type || type.getEncoding() == encoding)
      return value;
    Operation *op = value.getDefiningOp();
    if (auto convert = dyn_cast<ConvertLayoutOp>(op))
      return recompute(convert.getSrc(), encoding);
    IRMapping mapping;
    for (Value operand : op->getOperands()) {
      Attribute operandEncoding = encoding;
      if (auto expand = dyn_cast<tile::ExpandDimsOp>(op))
        operandEncoding = SliceEncodingAttr::get(op->getContext(),
                                                 expand.getAxis(), encoding);
      mapping.map(operand, recompute(operand, operandEncoding));
    }
    Operation *clone = builder.clone(*op, mapping);
    clone->getResult(0).setType(withEncoding(value.getType(), encoding));
    if (auto constant = dyn_cast<arith::ConstantOp>(clone))
      constant.setValueAttr(cast<DenseElementsAttr>(constant.getValue())
                                .reshape(cast<ShapedType>(constant.getType())));
    return clone->getResult(0);
  }

private:
  OpBuilder &builder;
};

struct TileGPURemoveLayoutConversions
    : tilegpu::impl::TileGPURemoveLayoutConversionsBase<TileGPURemoveLayoutConversions> {
  void runOnOperation() override {
    SmallVector<ConvertLayoutOp> converts;
    getOperation()->walk([&](ConvertLayoutOp op) { converts.push_back(op); });
    OpBuilder builder(&getContext());
    Rematerializer rematerializer(builder);
    int64_t removed = 0;
    for (ConvertLayoutOp convert : converts) {
      Attribute encoding = convert.getType().getEncoding();
      builder.setInsertionPoint(convert);
      Value replacement;
      if (rematerializer.canRecompute(convert.getSrc(), encoding)) {
        LDBG() << "conversion at " << convert.getLoc() << " to " << encoding
               << ": its source is recomputed in it";
        replacement = rematerializer.recompute(convert.getSrc(), encoding);
      } else if (auto inner =
                     convert.getSrc().getDefiningOp<ConvertLayoutOp>()) {
        LDBG() << "conversion at " << convert.getLoc() << " to " << encoding
               << ": folded into the conversion before it";
        replacement = ConvertLayoutOp::create(builder, convert.getLoc(),
                                              convert.getType(), inner.getSrc());
      }
      if (!replacement) {
        LDBG() << "conversion at " << convert.getLoc() << " to " << encoding
               << " stays: its source ("
               << (convert.getSrc().getDefiningOp()
                       ? convert.getSrc().getDefiningOp()->getName().getStringRef()
                       : StringRef("a block argument"))
               << ") is not computed from cheap ops alone";
        continue;
      }
      convert.getResult().replaceAllUsesWith(replacement);
      convert.erase();
      ++removed;
    }
    LDBG() << removed << " of " << converts.size() << " conversions removed";
    // The producers left without users die here, not in a later pass.
    SmallVector<Operation *> ops;
    getOperation()->walk<WalkOrder::PostOrder, ReverseIterator>(
        [&](Operation *op) { ops.push_back(op); });
    for (Operation *op : ops)
      if (isOpTriviallyDead(op))
        op->erase();
  }
};

} // namespace
