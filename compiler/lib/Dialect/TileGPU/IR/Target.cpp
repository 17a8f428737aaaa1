//===- Target.cpp - What the GPU a module is compiled for offers ----------===//

#include "tilec/Dialect/TileGPU/IR/Target.h"

#include "tilec/Dialect/TileGPU/IR/TileGPU.h"

#include "mlir/IR/BuiltinOps.h"

using namespace mlir;
using namespace mlir::tilegpu;

namespace {

IntegerAttr getModuleAttr(Operation *op, StringRef name) {
  auto module = isa<ModuleOp>(op) ? cast<ModuleOp>(op)
                                  : op->getParentOfType<ModuleOp>();
  return module ? module->getAttrOfType<IntegerAttr>(name) : IntegerAttr();
}

} // namespace

unsigned mlir::tilegpu::getComputeCapability(Operation *op) {
  IntegerAttr attr =
      getModuleAttr(op, TileGPUDialect::getComputeCapabilityAttrName());
  return attr ? attr.getInt() : 90;
}

bool mlir::tilegpu::hasWgmma(Operation *op) {
  auto module = isa<ModuleOp>(op) ? cast<ModuleOp>(op)
                                  : op->getParentOfType<ModuleOp>();
  return module && module->hasAttr(TileGPUDialect::getArchSpecificAttrName()) &&
         getComputeCapability(op) == 90;
}

void mlir::tilegpu::requirePTXVersion(Operation *op, unsigned version) {
  auto module = isa<ModuleOp>(op) ? cast<ModuleOp>(op)
                                  : op->getParentOfType<ModuleOp>();
  if (module && getMinPTXVersion(module) < version)
    module->setAttr(
        TileGPUDialect::getMinPTXVersionAttrName(),
        IntegerAttr::get(IntegerType::get(op->getContext(), 32), version));
}

unsigned mlir::tilegpu::getMinPTXVersion(Operation *module) {
  IntegerAttr attr =
      getModuleAttr(module, TileGPUDialect::getMinPTXVersionAttrName());
  return attr ? unsigned(attr.getInt()) : 81;
}

int64_t mlir::tilegpu::getSharedMemoryLimit(Operation *op) {
  if (IntegerAttr attr =
          getModuleAttr(op, TileGPUDialect::getSharedLimitAttrName()))
    return attr.getInt();
  return getComputeCapability(op) >= 90 ? 232448 : 166912;
}

unsigned mlir::tilegpu::getMaxAtomicAddBytes(Type element,
                                             unsigned computeCapability) {
  unsigned bytes = std::max(1u, element.getIntOrFloatBitWidth() / 8);
  if (computeCapability >= 90 &&
      (element.isF32() || element.isF16() || element.isBF16()))
    return 16;
  return bytes;
}
