//===- BulkCopy.cpp - A load's tile brought by the copy engine ------------===//

#include "BulkCopy.h"

#include "RingSlots.h"

#include "tilec/Dialect/Tile/IR/Tile.h"
#include "tilec/Dialect/TileGPU/IR/SharedLayout.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"

using namespace mlir;
using namespace mlir::tilegpu;

SmallVector<Value> BulkCopy::getMapOperands() const {
  SmallVector<Value> operands = {box.base, box.strides[dims[1]]};
  for (unsigned d : dims) {
    if (box.extents[d]) {
      operands.push_back(box.extents[d]);
      continue;
    }
    if (box.offsets[d])
      operands.push_back(box.offsets[d]);
    if (box.advances[d]) {
      scf::ForOp forOp = loop; // its accessors are not const
      operands.append(
          {forOp.getLowerBound(), forOp.getUpperBound(), forOp.getStep()});
    }
  }
  return operands;
}

Value BulkCopy::emitExtent(OpBuilder &b, Location loc, unsigned d) const {
  if (box.extents[d])
    return box.extents[d];
  Type i32 = b.getI32Type();
  auto constant = [&](int64_t value) -> Value {
    return arith::ConstantOp::create(b, loc, b.getIntegerAttr(i32, value));
  };
  Value end = constant(shape[d]);
  if (box.offsets[d])
    end = arith::AddIOp::create(b, loc, box.offsets[d], end);
  if (!box.advances[d])
    return end;
  scf::ForOp forOp = loop;
  Value trips = arith::CeilDivSIOp::create(
      b, loc,
      arith::SubIOp::create(b, loc, forOp.getUpperBound(),
                            forOp.getLowerBound()),
      forOp.getStep());
  Value last = arith::SubIOp::create(b, loc, toI32(b, loc, trips), constant(1));
  return arith::AddIOp::create(
      b, loc, end,
      arith::MulIOp::create(b, loc, last, constant(box.advances[d])));
}

std::optional<BulkCopy>
mlir::tilegpu::planBulkCopy(LocalAllocOp alloc, tile::LoadOp load,
                            scf::ForOp loop, tile::AxisInfoAnalysis &axis) {
  MemDescType type = alloc.getType();
  auto encoding = dyn_cast<SharedEncodingAttr>(type.getEncoding());
  if (!encoding || type.getRank() != 2 ||
      ArrayRef<int64_t>(getSharedAllocShape(type)) != type.getShape())
    return std::nullopt;
  unsigned elementBytes = type.getElementType().getIntOrFloatBitWidth() / 8;
  std::optional<int32_t> swizzle = getSwizzleBytes(encoding, elementBytes);
  SharedPanels panels = getSharedPanels(encoding, type.getShape());
  if (!swizzle || panels.width * elementBytes != *swizzle || panels.rows > 256)
    return std::nullopt;
  std::optional<TensorBox> box = matchTensorBox(load, loop);
  if (!box)
    return std::nullopt;
  unsigned inner = encoding.getOrder()[0], outer = 1 - inner;
  if (box->strides[inner] || !box->strides[outer])
    return std::nullopt;
  BulkCopy copy;
  copy.box = *box;
  copy.loop = loop;
  copy.shape = llvm::to_vector(type.getShape());
  copy.dims = {inner, outer};
  copy.boxShape = {int32_t(panels.width), int32_t(panels.rows)};
  copy.swizzle = *swizzle;
  if (!llvm::all_of(copy.getMapOperands(),
                    [&](Value v) { return loop.isDefinedOutsideOfLoop(v); }) ||
      !isAligned(axis, box->base, elementBytes, 16) ||
      !isAligned(axis, box->strides[outer], elementBytes, 16))
    return std::nullopt;
  copy.batchOffset = matchBatchOffset(box->base, axis, elementBytes);
  copy.elementBytes = elementBytes;
  copy.rowsOffSectors = !isAligned(axis, box->strides[outer], elementBytes, 32);
  return copy;
}

Value mlir::tilegpu::emitCoordinate(OpBuilder &b, Location loc,
                                    const TensorBox &box, unsigned d,
                                    scf::ForOp loop) {
  Value offset = box.offsets[d];
  if (!offset)
    offset = arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(0));
  if (!box.advances[d])
    return offset;
  Value iteration = toI32(b, loc, emitIteration(b, loc, loop));
  if (box.shift)
    iteration = arith::AddIOp::create(b, loc, iteration, box.shift);
  Value advance = arith::ConstantOp::create(
      b, loc, b.getI32IntegerAttr(int32_t(box.advances[d])));
  return arith::AddIOp::create(
      b, loc, offset, arith::MulIOp::create(b, loc, iteration, advance));
}

namespace {

/// The kernel's global-scratch parameter (the bytes its tensor maps live
/// in, see TensorMapCreateOp), added on first use after the user's
/// parameters and tensor maps, before a stream-K kernel's own (the order
/// launchers pass them in).
Value getGlobalScratch(func::FuncOp func) {
  unsigned n = func.getNumArguments();
  for (unsigned i = 0; i < n; ++i)
    if (func.getArgAttr(i, TileGPUDialect::getGlobalScratchAttrName()))
      return func.getArgument(i);
  while (n && func.getArgAttr(n - 1, TileGPUDialect::getLaunchParamAttrName()))
    --n;
  MLIRContext *context = func.getContext();
  auto type = tile::PointerType::get(context, IntegerType::get(context, 8));
  NamedAttrList attrs;
  attrs.append(TileGPUDialect::getGlobalScratchAttrName(),
               UnitAttr::get(context));
  attrs.append(mlir::tile::TileDialect::getParamNameAttrName(),
               StringAttr::get(context, "global_scratch"));
  (void)func.insertArgument(n, type, attrs.getDictionary(context),
                            func.getLoc());
  return func.getArgument(n);
}

} // namespace

Value mlir::tilegpu::createTensorMap(const BulkCopy &copy,
                                     SmallVector<Value> &outerCoords,
                                     bool hostOnly) {
  scf::ForOp loop = copy.loop;
  auto func = loop->getParentOfType<func::FuncOp>();
  ModuleOp module = func->getParentOfType<ModuleOp>();
  const TensorBox &box = copy.box;
  SmallVector<Value> operands = copy.getMapOperands();
  Operation *at = loop;
  for (auto outer = at->getParentOfType<scf::ForOp>(); outer;
       outer = outer->getParentOfType<scf::ForOp>()) {
    if (!llvm::all_of(operands,
                      [&](Value v) { return outer.isDefinedOutsideOfLoop(v); }))
      break;
    at = outer;
  }
  OpBuilder b(at);
  Location loc = loop.getLoc();
  TensorMapFields fields;
  fields.base = box.base;
  for (unsigned d : copy.dims)
    fields.dims.push_back(copy.emitExtent(b, loc, d));
  Value stride = box.strides[copy.dims[1]];
  if (!stride.getType().isInteger(64))
    stride = arith::ExtSIOp::create(b, loc, b.getI64Type(), stride);
  fields.strides.push_back(stride);
  fields.box = copy.boxShape;
  fields.swizzle = copy.swizzle;
  fields.batchOffset = copy.batchOffset;
  if (!module->hasAttr(TileGPUDialect::getDeviceTensorMapsAttrName())) {
    if (std::optional<HostTensorMap> host = addHostTensorMap(func, fields)) {
      TensorMapPrefetchOp::create(b, loc, host->map);
      outerCoords = host->outerCoords;
      return host->map;
    }
  }
  if (hostOnly)
    return Value();

  Value scratch = getGlobalScratch(func);
  auto count = module->getAttrOfType<IntegerAttr>(
      TileGPUDialect::getTensorMapCountAttrName());
  int32_t index = count ? int32_t(count.getInt()) : 0;
  module->setAttr(
      TileGPUDialect::getTensorMapCountAttrName(),
      IntegerAttr::get(IntegerType::get(module.getContext(), 32), index + 1));
  // Written in shared memory, where tensormap.replace is cheap, then copied
  // out with the tensor-map proxy's release in one instruction.
  MLIRContext *context = b.getContext();
  auto staging = LocalAllocOp::create(
      b, loc,
      MemDescType::get(context, {16}, b.getI64Type(),
                       SharedEncodingAttr::get(context, 1, 1, 1, {0})),
      Value());
  return TensorMapCreateOp::create(
      b, loc, TensorMapType::get(context), scratch, box.base, fields.dims,
      fields.strides, staging, b.getDenseI32ArrayAttr(copy.boxShape),
      b.getI32IntegerAttr(copy.swizzle), b.getI32IntegerAttr(index));
}
