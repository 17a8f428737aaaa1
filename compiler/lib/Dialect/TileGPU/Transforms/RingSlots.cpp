//===- RingSlots.cpp - Where an iteration stands in a ring of buffers -----===//

#include "RingSlots.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace mlir::tilegpu;

Value mlir::tilegpu::emitIteration(OpBuilder &b, Location loc, scf::ForOp loop,
                                   Value base) {
  Value iv = loop.getInductionVar();
  Value iteration = arith::DivSIOp::create(
      b, loc, arith::SubIOp::create(b, loc, iv, loop.getLowerBound()),
      loop.getStep());
  return base ? arith::AddIOp::create(b, loc, base, iteration) : iteration;
}

Value mlir::tilegpu::toI32(OpBuilder &b, Location loc, Value value) {
  if (value.getType().isInteger(32))
    return value;
  return arith::TruncIOp::create(b, loc, b.getI32Type(), value);
}

Value mlir::tilegpu::emitSlot(OpBuilder &b, Location loc, scf::ForOp loop,
                              int64_t stages, int64_t back, Value base) {
  Value iteration = emitIteration(b, loc, loop, base);
  Type type = iteration.getType();
  // Iterations count from 0: `stages - back` keeps the sum non-negative.
  if (back)
    iteration = arith::AddIOp::create(
        b, loc, iteration,
        arith::ConstantOp::create(b, loc, b.getIntegerAttr(type, stages - back)));
  Value slot = arith::RemSIOp::create(
      b, loc, iteration,
      arith::ConstantOp::create(b, loc, b.getIntegerAttr(type, stages)));
  return toI32(b, loc, slot);
}

MemDescType mlir::tilegpu::getBarrierType(MLIRContext *context,
                                          std::optional<int64_t> stages) {
  auto encoding = SharedEncodingAttr::get(context, 1, 1, 1, {1, 0});
  SmallVector<int64_t> shape = {1};
  if (stages)
    shape.insert(shape.begin(), *stages);
  return MemDescType::get(context, shape, IntegerType::get(context, 64),
                          encoding);
}

Value mlir::tilegpu::emitPhase(OpBuilder &b, Location loc, scf::ForOp loop,
                               int64_t stages, Value base) {
  Value iteration = emitIteration(b, loc, loop, base);
  Type type = iteration.getType();
  Value round = arith::DivSIOp::create(
      b, loc, iteration,
      arith::ConstantOp::create(b, loc, b.getIntegerAttr(type, stages)));
  Value parity = arith::AndIOp::create(
      b, loc, round, arith::ConstantOp::create(b, loc, b.getIntegerAttr(type, 1)));
  return toI32(b, loc, parity);
}
