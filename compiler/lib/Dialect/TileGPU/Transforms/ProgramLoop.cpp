//===- ProgramLoop.cpp - A kernel run as a loop over programs -------------===//

#include "ProgramLoop.h"

#include "tilec/Dialect/Tile/IR/Tile.h"
#include "tilec/Dialect/TileGPU/IR/TileGPU.h"

using namespace mlir;
using namespace mlir::tilegpu;

KernelBody KernelBody::get(func::FuncOp func) {
  KernelBody body;
  for (Operation &op : func.getBody().front().without_terminator())
    body.ops.push_back(&op);
  func.walk([&](Operation *op) {
    if (isa<tile::ProgramIdOp, tile::NumProgramsOp>(op))
      body.programQueries.push_back(op);
  });
  return body;
}

void KernelBody::moveInto(Operation *point, ArrayRef<Value> ids,
                          ArrayRef<Value> extents) {
  for (Operation *op : ops)
    op->moveBefore(point);
  for (Operation *op : programQueries) {
    if (auto id = dyn_cast<tile::ProgramIdOp>(op))
      op->getResult(0).replaceAllUsesWith(ids[id.getAxis()]);
    else
      op->getResult(0).replaceAllUsesWith(
          extents[cast<tile::NumProgramsOp>(op).getAxis()]);
    op->erase();
  }
}

Value mlir::tilegpu::appendLaunchParam(func::FuncOp func, StringRef name,
                                       Type type, NamedAttrList attrs) {
  MLIRContext *context = func.getContext();
  attrs.append(TileGPUDialect::getLaunchParamAttrName(),
               UnitAttr::get(context));
  attrs.append(mlir::tile::TileDialect::getParamNameAttrName(),
               StringAttr::get(context, name));
  unsigned n = func.getNumArguments();
  (void)func.insertArgument(n, type, attrs.getDictionary(context),
                            func.getLoc());
  return func.getArgument(n);
}
