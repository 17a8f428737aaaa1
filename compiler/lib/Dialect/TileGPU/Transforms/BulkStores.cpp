//===- BulkStores.cpp - Epilogue stores by the copy engine ----------------===//
//
// A tile that leaves a tensor-core accumulator for global memory already
// goes through shared memory: the conversion to the store's coalesced
// layout writes it there and reads it back. Where the store writes a box
// of a tensor (TensorBox.h: `base + (o + arange) * stride` under
// `index < extent` masks, as a descriptor's store or the tutorials'
// epilogues write it), the copy engine can do the second half: the
// accumulator's registers go into a buffer laid out as the engine reads
// it (with stmatrix where the fragments allow), and thread 0 issues one
// bulk tensor copy per 128-byte column panel, which writes only what lies
// inside the tensor. The read-back and the per-thread global stores and
// their address and mask arithmetic disappear.
//
// Only where the launcher builds the map (HostTensorMaps.h): a map the
// kernel built itself would cost each program a microsecond for one copy.
// Not in kernels with atomics: the copy engine's writes are in the async
// proxy, which the atomics' fences do not order. Where the program may
// touch global memory after the store, it waits for the writes.
//
//===----------------------------------------------------------------------===//

#include "HostTensorMaps.h"
#include "TensorBox.h"

#include "tilec/Dialect/Tile/Analysis/AxisInfo.h"
#include "tilec/Dialect/TileGPU/IR/GlobalAccess.h"
#include "tilec/Dialect/TileGPU/IR/SharedLayout.h"
#include "tilec/Dialect/TileGPU/IR/Target.h"
#include "tilec/Dialect/TileGPU/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/Support/DebugLog.h"

#define DEBUG_TYPE "tilegpu-bulk-stores"

namespace mlir::tilegpu {
#define GEN_PASS_DEF_TILEGPUBULKSTORES
#include "tilec/Dialect/TileGPU/Transforms/Passes.h.inc"
} // namespace mlir::tilegpu

using namespace mlir;
using namespace mlir::tilegpu;

namespace {

/// A store the copy engine can do.
struct BulkStore {
  tile::StoreOp store;
  Value src;         ///< the tile in its accumulator layout
  TensorBox box;
  MemDescType type;  ///< the buffer's
  unsigned inner = 1, outer = 0;
  SharedPanels panels;
  int32_t swizzle = 0;
  std::optional<BatchOffset> batchOffset;
};

/// The buffer for a 2-D tile of `type` with rows along `inner`, swizzled as
/// the copy engine and stmatrix want.
MemDescType getStoreBufferType(RankedTensorType type, unsigned inner) {
  MLIRContext *context = type.getContext();
  SmallVector<unsigned> order = {inner, 1 - inner};
  auto encoding = chooseSharedEncoding(
      context, type.getShape(), order,
      type.getElementType().getIntOrFloatBitWidth());
  return MemDescType::get(context, type.getShape(), type.getElementType(),
                          encoding);
}

/// The bulk store that can replace `store`, or nullopt: a 2-D tile of 16-
/// or 32-bit elements converted out of an mma accumulator, written to a
/// box of a tensor with 16-byte aligned rows, unit-stride along them, whose
/// mask along the rows (if any) ends on a 16-byte boundary: the engine
/// clips a row at the 16-byte granule that holds the extent, so it would
/// write the masked-off elements up to the next boundary (found on the H100
/// by tile-difftest; the same holds for Triton's descriptor stores).
std::optional<BulkStore> planBulkStore(tile::StoreOp store,
                                       tile::AxisInfoAnalysis &axis) {
  auto type = dyn_cast<RankedTensorType>(store.getValue().getType());
  auto convert = store.getValue().getDefiningOp<ConvertLayoutOp>();
  if (!type || type.getRank() != 2 || !convert ||
      !isa<MmaEncodingAttr>(convert.getSrc().getType().getEncoding()))
    return std::nullopt;
  auto stays = [&](StringRef why) {
    LDBG() << "store at " << store.getLoc() << " stays: " << why;
    return std::nullopt;
  };
  unsigned bits = type.getElementType().getIntOrFloatBitWidth();
  if (bits != 16 && bits != 32)
    return stays("elements of neither 16 nor 32 bits");
  std::optional<TensorBox> box = matchTensorBox(store);
  if (!box)
    return stays("it writes no box of a tensor");
  BulkStore plan;
  plan.store = store;
  plan.src = convert.getSrc();
  plan.box = *box;
  // Rows run along the unit-stride dimension.
  if (box->strides[0] && !box->strides[1])
    plan.inner = 1;
  else if (box->strides[1] && !box->strides[0])
    plan.inner = 0;
  else
    return stays("no unit-stride dimension");
  plan.outer = 1 - plan.inner;
  unsigned elementBytes = bits / 8;
  Value rowExtent = box->extents[plan.inner];
  if (!isAligned(axis, box->base, elementBytes, 16) ||
      !isAligned(axis, box->strides[plan.outer], elementBytes, 16) ||
      (rowExtent && !isAligned(axis, rowExtent, elementBytes, 16)))
    return stays("base, row stride or row mask not on 16 bytes");
  plan.type = getStoreBufferType(type, plan.inner);
  auto encoding = cast<SharedEncodingAttr>(plan.type.getEncoding());
  std::optional<int32_t> swizzle = getSwizzleBytes(encoding, elementBytes);
  plan.panels = getSharedPanels(encoding, plan.type.getShape());
  if (ArrayRef<int64_t>(getSharedAllocShape(plan.type)) != type.getShape() ||
      !swizzle || plan.panels.width * elementBytes != *swizzle ||
      plan.panels.rows > 256)
    return stays("no buffer layout the copy engine reads");
  plan.swizzle = *swizzle;
  plan.batchOffset = matchBatchOffset(box->base, axis, elementBytes);
  return plan;
}

/// The tensor's extent along `d`: the mask's bound, or where the box ends.
Value emitExtent(OpBuilder &b, Location loc, const BulkStore &plan,
                 unsigned d) {
  if (Value extent = plan.box.extents[d])
    return extent;
  Value end = arith::ConstantOp::create(
      b, loc, b.getI32IntegerAttr(int32_t(plan.type.getShape()[d])));
  if (Value offset = plan.box.offsets[d])
    end = arith::AddIOp::create(b, loc, offset, end);
  return end;
}

/// `plan`'s store as a tilegpu.async_tma_store through a map the launcher
/// builds; false (nothing changed) where it cannot build it.
bool rewrite(const BulkStore &plan, func::FuncOp func) {
  tile::StoreOp store = plan.store;
  Location loc = store.getLoc();
  OpBuilder b(store);
  TensorMapFields fields;
  fields.base = plan.box.base;
  for (unsigned d : {plan.inner, plan.outer})
    fields.dims.push_back(emitExtent(b, loc, plan, d));
  Value stride = plan.box.strides[plan.outer];
  if (!stride.getType().isInteger(64))
    stride = arith::ExtSIOp::create(b, loc, b.getI64Type(), stride);
  fields.strides.push_back(stride);
  SmallVector<int32_t> boxShape = {int32_t(plan.panels.width),
                                   int32_t(plan.panels.rows)};
  fields.box = boxShape;
  fields.swizzle = plan.swizzle;
  fields.batchOffset = plan.batchOffset;
  std::optional<HostTensorMap> host = addHostTensorMap(func, fields);
  LDBG() << "store at " << loc
         << (host ? ": bulk tensor store through " : " stays: the launcher "
                                                     "cannot build the map of ")
         << plan.panels.width << "x" << plan.panels.rows << " boxes, "
         << plan.swizzle << "-byte swizzle";
  if (!host) {
    for (Value field : fields.dims)
      if (Operation *def = field.getDefiningOp(); def && def->use_empty())
        def->erase();
    if (Operation *def = stride.getDefiningOp(); def && def->use_empty())
      def->erase();
    return false;
  }
  // The map is fetched while the kernel runs up to the store.
  OpBuilder entry = OpBuilder::atBlockBegin(&func.getBody().front());
  TensorMapPrefetchOp::create(entry, loc, host->map);

  SmallVector<Value> coords;
  for (unsigned d : {plan.inner, plan.outer})
    coords.push_back(plan.box.offsets[d]
                         ? plan.box.offsets[d]
                         : (Value)arith::ConstantOp::create(
                               b, loc, b.getI32IntegerAttr(0)));
  llvm::append_range(coords, host->outerCoords);
  auto bulk =
      AsyncTMAStoreOp::create(b, loc, host->map, coords, plan.src, plan.type);
  Operation *convert = store.getValue().getDefiningOp();
  store.erase();
  if (convert->use_empty())
    convert->erase();
  bulk.setComplete(mayAccessGlobalMemoryAfter(bulk, GlobalProxy::Any));
  return true;
}

struct TileGPUBulkStores
    : tilegpu::impl::TileGPUBulkStoresBase<TileGPUBulkStores> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (!hasBulkTensorCopies(module) ||
        module->hasAttr(TileGPUDialect::getDeviceTensorMapsAttrName())) {
      LDBG() << "no bulk stores: no copy engine, or --device-tensor-maps";
      return;
    }
    for (auto func : llvm::make_early_inc_range(module.getOps<func::FuncOp>())) {
      SmallVector<BulkStore, 1> plans;
      if (func.walk([](Operation *op) {
                return isa<tile::AtomicRMWOp, tile::AtomicCASOp>(op)
                           ? WalkResult::interrupt()
                           : WalkResult::advance();
              }).wasInterrupted()) {
        LDBG() << "@" << func.getSymName()
               << ": no bulk stores in a kernel with atomics";
        continue;
      }
      {
        tile::AxisInfoAnalysis axis(func);
        func.walk([&](tile::StoreOp store) {
          if (std::optional<BulkStore> plan = planBulkStore(store, axis))
            plans.push_back(*plan);
        });
      }
      for (const BulkStore &plan : plans)
        (void)rewrite(plan, func);
    }
  }
};

} // namespace
