//===- BulkCopyToLLVM.cpp - Tensor maps, bulk tensor copies, mbarriers ----===//
//
// Thread 0 does everything a bulk copy needs but the wait: it builds the
// tensor maps the launcher does not pass (with tensormap.replace on a
// zeroed map in shared memory, which the first warp copies into the
// program's part of the kernel's global scratch, fenced for the tensor-map
// proxy) and prefetches them all,
// initializes the mbarriers, arrives on them expecting the copies' bytes
// and issues the copies (cp.async.bulk.tensor, one per 128-byte column
// panel of the buffer, see SharedPanels). Every thread waits on the
// mbarrier before it reads the buffer. In a warp-specialized kernel the
// producer's first thread issues the copies instead (emitIsFirstThread),
// and the consumer warps release each buffer on an mbarrier of their own.
// A bulk store (tilegpu.async_tma_store) goes the other way, from a
// buffer every thread wrote, and completes in a bulk group that thread 0
// waits on.
//
//===----------------------------------------------------------------------===//

#include "SharedMemory.h"
#include "Utility.h"

#include "tile/Metadata.h"
#include "tilec/Conversion/TileGPUToNVVM/TileGPUToNVVM.h"
#include "tilec/Dialect/TileGPU/IR/SharedLayout.h"
#include "tilec/Dialect/TileGPU/IR/Target.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::tilegpu;

namespace {

constexpr unsigned kSharedClusterAddressSpace = 7;
constexpr int64_t kTensorMapBytes = 128;

/// True in thread 0 of the CTA (and where `pred` holds, if given).
Value emitThreadZero(OpBuilder &b, Location loc, Value pred = Value()) {
  Value first = emitIsFirstThread(b, loc);
  return pred ? LLVM::AndOp::create(b, loc, first, pred) : first;
}

/// The address `bytes` past the shared-memory address `base`.
Value offsetShared(OpBuilder &b, Location loc, Value base, int64_t bytes) {
  if (!bytes)
    return base;
  return LLVM::GEPOp::create(b, loc, base.getType(), b.getI8Type(), base,
                             ArrayRef<LLVM::GEPArg>{int32_t(bytes)});
}

/// The address of each mbarrier of a ring of `type` at `base`, 8 bytes apart.
SmallVector<Value> getBarrierAddresses(OpBuilder &b, Location loc, Value base,
                                       MemDescType type) {
  SmallVector<Value> addresses;
  for (int64_t s = 0; s < type.getShape().front(); ++s)
    addresses.push_back(offsetShared(b, loc, base, 8 * s));
  return addresses;
}

/// `instruction` on the mbarrier at `barrier` where `pred` holds, in a form
/// (a sink destination, a predicate) that NVVM's ops do not offer.
void emitOnBarrier(OpBuilder &b, Location loc, StringRef instruction,
                   Value barrier, Value pred) {
  emitPTX(b, loc, ("@$1 " + instruction + " [ $0 ];").str(), "r,b",
          {LLVM::PtrToIntOp::create(b, loc, b.getI32Type(), barrier), pred}, {},
          /*hasSideEffects=*/true);
}

/// The program's number among all of the grid's: x fastest.
Value emitProgramIndex(OpBuilder &b, Location loc) {
  Type i32 = b.getI32Type();
  Value x = NVVM::BlockIdXOp::create(b, loc, i32);
  Value y = NVVM::BlockIdYOp::create(b, loc, i32);
  Value z = NVVM::BlockIdZOp::create(b, loc, i32);
  Value nx = NVVM::GridDimXOp::create(b, loc, i32);
  Value ny = NVVM::GridDimYOp::create(b, loc, i32);
  Value yz = LLVM::AddOp::create(b, loc, y, LLVM::MulOp::create(b, loc, z, ny));
  return LLVM::AddOp::create(b, loc, x, LLVM::MulOp::create(b, loc, yz, nx));
}

struct TensorMapCreateToLLVM : OpConversionPattern<TensorMapCreateOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(TensorMapCreateOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto module = op->getParentOfType<ModuleOp>();
    auto count = module->getAttrOfType<IntegerAttr>(
        TileGPUDialect::getTensorMapCountAttrName());
    if (!count)
      return rewriter.notifyMatchFailure(op, "the module counts no tensor maps");
    // Slot `index` of this program's maps.
    Type i64 = rewriter.getI64Type();
    Value program = LLVM::ZExtOp::create(rewriter, loc, i64,
                                         emitProgramIndex(rewriter, loc));
    Value slot = LLVM::AddOp::create(
        rewriter, loc,
        LLVM::MulOp::create(rewriter, loc, program,
                            LLVM::ConstantOp::create(rewriter, loc, i64,
                                                     count.getInt())),
        LLVM::ConstantOp::create(rewriter, loc, i64, op.getIndex()));
    Value byteOffset = LLVM::MulOp::create(
        rewriter, loc, slot,
        LLVM::ConstantOp::create(rewriter, loc, i64, kTensorMapBytes));
    Value map = LLVM::GEPOp::create(rewriter, loc, adaptor.getScratch().getType(),
                                    rewriter.getI8Type(), adaptor.getScratch(),
                                    ValueRange{byteOffset});

    auto pointee = cast<mlir::tile::PointerType>(op.getBase().getType()).getPointeeType();
    unsigned elementBytes = std::max(1u, pointee.getIntOrFloatBitWidth() / 8);
    ArrayRef<int32_t> box = op.getBox();
    unsigned rank = box.size();
    // Operands: $0 the map, $1 thread 0, $2 the base, $3 the staging
    // buffer, $4 the first warp, then the extents, then the strides in
    // bytes.
    Type i32 = rewriter.getI32Type();
    Value firstWarp = LLVM::ICmpOp::create(
        rewriter, loc, LLVM::ICmpPredicate::ult,
        NVVM::ThreadIdXOp::create(rewriter, loc, i32), i32Constant(rewriter, loc, 32));
    SmallVector<Value> operands = {
        map, emitThreadZero(rewriter, loc), adaptor.getBase(),
        LLVM::PtrToIntOp::create(rewriter, loc, i32, adaptor.getStaging()),
        firstWarp};
    llvm::append_range(operands, adaptor.getDims());
    Value elementSize = LLVM::ConstantOp::create(rewriter, loc, i64, elementBytes);
    for (Value stride : adaptor.getStrides())
      operands.push_back(LLVM::MulOp::create(rewriter, loc, stride, elementSize));
    constexpr unsigned kFirstDim = 5;
    std::string ptx;
    llvm::raw_string_ostream os(ptx);
    for (int64_t at = 0; at < kTensorMapBytes; at += 16)
      os << "@$1 st.shared.v4.b32 [ $3 + " << at << " ], { 0, 0, 0, 0 };\n";
    auto replace = [&](StringRef field, StringRef type, std::string args) {
      os << "@$1 tensormap.replace.tile." << field << ".shared::cta.b1024."
         << type << " [ $3 ], " << args << ";\n";
    };
    replace("global_address", "b64", "$2");
    replace("rank", "b32", std::to_string(rank - 1));
    for (unsigned d = 0; d < rank; ++d) {
      replace("box_dim", "b32", llvm::formatv("{0}, {1}", d, box[d]).str());
      replace("global_dim", "b32",
              llvm::formatv("{0}, ${1}", d, kFirstDim + d).str());
      replace("element_stride", "b32", llvm::formatv("{0}, 1", d).str());
    }
    for (unsigned d = 0; d + 1 < rank; ++d)
      replace("global_stride", "b64",
              llvm::formatv("{0}, ${1}", d, kFirstDim + rank + d).str());
    replace("elemtype", "b32", std::to_string(::tile::getTensorMapDataType(elementBytes)));
    replace("interleave_layout", "b32", "0");
    replace("swizzle_mode", "b32", std::to_string(::tile::getTensorMapSwizzle(op.getSwizzle())));
    replace("fill_mode", "b32", "0");
    // The first warp copies the map out (a warp-wide instruction: its
    // other lanes must see thread 0's writes first), releasing it to the
    // tensor-map proxy, through which the copies that read it (issued by
    // thread 0) go after the acquire.
    os << "bar.warp.sync -1;\n";
    os << "@$4 tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic"
          ".release.gpu.sync.aligned [ $0 ], [ $3 ], 128;\n";
    os << "@$1 fence.proxy.tensormap::generic.acquire.gpu [ $0 ], 128;\n";
    // The copy engine fetches the map now rather than at the first copy.
    os << "@$1 prefetch.tensormap [ $0 ];";
    std::string constraints = "l,b,l,r,b";
    for (unsigned d = 0; d < rank; ++d)
      constraints += ",r";
    for (unsigned d = 0; d + 1 < rank; ++d)
      constraints += ",l";
    emitPTX(rewriter, loc, ptx, constraints, operands, {}, /*hasSideEffects=*/true);
    requirePTXVersion(op, 83);
    rewriter.replaceOpWithNewOp<LLVM::AddrSpaceCastOp>(
        op, LLVM::LLVMPointerType::get(rewriter.getContext()), map);
    return success();
  }
};

struct AsyncTMACopyToLLVM : OpConversionPattern<AsyncTMACopyOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(AsyncTMACopyOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MemDescType type = op.getDst().getType();
    auto encoding = cast<SharedEncodingAttr>(type.getEncoding());
    SharedPanels panels = getSharedPanels(encoding, type.getShape());
    unsigned elementBytes =
        std::max(1u, type.getElementType().getIntOrFloatBitWidth() / 8);
    int64_t panelBytes = panels.rows * panels.width * elementBytes;
    Value pred = emitThreadZero(rewriter, loc, adaptor.getPred());
    auto clusterPtr = LLVM::LLVMPointerType::get(rewriter.getContext(),
                                                 kSharedClusterAddressSpace);
    // The copy engine writes shared::cluster addresses; a CTA's own shared
    // memory is part of its cluster's.
    Value map = adaptor.getTensormap();
    SmallVector<Value> coords(adaptor.getCoords());
    Value innermost = coords.front();
    int64_t count = panels.rowLength / panels.width;
    // Shared with the cluster's other CTA: the panels of the first half by
    // rank 0, the others by rank 1, each multicast to both (mask 0b11);
    // where the CTAs do not share, each copies all of them alone.
    Value shared = adaptor.getShared(), rank, both, alone;
    if (shared) {
      Type i1 = rewriter.getI1Type();
      rank = NVVM::ClusterId::create(rewriter, loc, rewriter.getI32Type());
      both = LLVM::ConstantOp::create(rewriter, loc, rewriter.getI16Type(),
                                      rewriter.getI16IntegerAttr(0b11));
      Value notShared = LLVM::XOrOp::create(
          rewriter, loc, shared,
          LLVM::ConstantOp::create(rewriter, loc, i1,
                                   rewriter.getBoolAttr(true)));
      alone = LLVM::AndOp::create(rewriter, loc, pred, notShared);
    }
    for (int64_t p = 0; p < count; ++p) {
      coords.front() = LLVM::AddOp::create(
          rewriter, loc, innermost, i32Constant(rewriter, loc, p * panels.width));
      Value dst = LLVM::AddrSpaceCastOp::create(
          rewriter, loc, clusterPtr,
          offsetShared(rewriter, loc, adaptor.getDst(), p * panelBytes));
      auto copy = [&](Value mask, Value when) {
        NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp::create(
            rewriter, loc, dst, map, coords, adaptor.getBarrier(),
            /*im2colOffsets=*/ValueRange(), mask,
            /*l2CacheHint=*/Value(), NVVM::TMALoadMode::TILE,
            /*isCTAOnly=*/false, /*group=*/NVVM::CTAGroupKindAttr(), when);
      };
      if (!shared) {
        copy(Value(), pred);
        continue;
      }
      copy(Value(), alone);
      Value owner =
          LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::eq, rank,
                               i32Constant(rewriter, loc, p / (count / 2)));
      copy(both, LLVM::AndOp::create(
                     rewriter, loc, pred,
                     LLVM::AndOp::create(rewriter, loc, shared, owner)));
    }
    rewriter.eraseOp(op);
    return success();
  }
};

/// tilegpu.async_tma_store: every thread writes its registers into the
/// op's scratch space (stmatrix where they hold mma fragments of 16-bit elements) and
/// fences them for the async proxy; after a barrier thread 0 issues one
/// bulk copy per 128-byte column panel, commits them and waits until the
/// engine has read the buffer, so that its bytes may serve again once the
/// next barrier has passed.
struct AsyncTMAStoreToLLVM : OpConversionPattern<AsyncTMAStoreOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(AsyncTMAStoreOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MemDescType type = op.getBuffer();
    SharedTile tile = SharedTile::get(Value(), type);
    Value base = getSharedMemoryBase(rewriter, loc, op, tile.getBytes());
    tile.base = base;
    ThreadLayout layout = getThreadLayout(op.getSrc().getType());
    ValueRange values = adaptor.getSrc();
    // Whoever read these bytes before is done.
    emitBarrier(rewriter, loc);
    unsigned slotBytes = getMemoryBits(tile.slotType) / 8;
    // stmatrix writes 8 consecutive elements of a row (tensor dimension 1)
    // to one 16-byte row address: only where the tile keeps them together,
    // its rows contiguous and swizzled in units of 8 or more. A tile stored
    // transposed (dimension 0 contiguous, as for an output whose stride 1
    // is along M) takes the element-wise path: stmatrix there faulted with
    // misaligned shared addresses.
    bool rowsTogether =
        tile.encoding.getOrder().front() == 1 &&
        (tile.encoding.getMaxPhase() == 1 || tile.encoding.getVec() >= 8);
    std::optional<SmallVector<LayoutBasis>> lanes;
    if (rowsTogether)
      lanes = getMatrixStoreLanes(layout, slotBytes);
    if (lanes)
      storeMatrices(rewriter, loc, layout, *lanes, values,
                    [&](ArrayRef<Value> index) {
                      return tile.getAddress(rewriter, loc, index);
                    });
    else
      storeToShared(rewriter, loc, tile, layout, values);
    MLIRContext *context = rewriter.getContext();
    NVVM::FenceProxyOp::create(
        rewriter, loc, NVVM::ProxyKindAttr::get(context, NVVM::ProxyKind::async_shared),
        NVVM::SharedSpaceAttr::get(context, NVVM::SharedSpace::shared_cta));
    emitBarrier(rewriter, loc);

    auto encoding = cast<SharedEncodingAttr>(type.getEncoding());
    SharedPanels panels = getSharedPanels(encoding, type.getShape());
    int64_t panelBytes = panels.rows * panels.width * slotBytes;
    Value pred = emitThreadZero(rewriter, loc);
    Value map = adaptor.getTensormap().front();
    SmallVector<Value> coords;
    for (ValueRange coord : adaptor.getCoords())
      coords.push_back(coord.front());
    Value innermost = coords.front();
    for (int64_t p = 0; p < panels.rowLength / panels.width; ++p) {
      coords.front() = LLVM::AddOp::create(
          rewriter, loc, innermost, i32Constant(rewriter, loc, p * panels.width));
      NVVM::CpAsyncBulkTensorSharedCTAToGlobalOp::create(
          rewriter, loc, map, offsetShared(rewriter, loc, base, p * panelBytes),
          coords, /*l2CacheHint=*/Value(), NVVM::TMAStoreMode::TILE, pred);
    }
    // Threads without copies commit and wait on empty groups. The buffer
    // may be reused once the engine has read it; what the program does
    // next with global memory must wait for the writes (a bulk group's
    // completion makes them visible to the thread that waited, and the
    // barrier to the others).
    NVVM::CpAsyncBulkCommitGroupOp::create(rewriter, loc);
    NVVM::CpAsyncBulkWaitGroupOp::create(
        rewriter, loc, rewriter.getI32IntegerAttr(0),
        op.getComplete() ? UnitAttr() : rewriter.getUnitAttr());
    if (op.getComplete())
      emitBarrier(rewriter, loc);
    rewriter.eraseOp(op);
    return success();
  }
};

struct BarrierInitToLLVM : OpConversionPattern<BarrierInitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(BarrierInitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value pred = emitThreadZero(rewriter, loc);
    for (Value barrier : getBarrierAddresses(rewriter, loc, adaptor.getBarriers(),
                                             op.getBarriers().getType()))
      NVVM::MBarrierInitOp::create(rewriter, loc, barrier,
                                   i32Constant(rewriter, loc, op.getCount()),
                                   pred);
    // The copy engine completes them through the async proxy.
    MLIRContext *context = rewriter.getContext();
    NVVM::FenceProxyOp::create(
        rewriter, loc, NVVM::ProxyKindAttr::get(context, NVVM::ProxyKind::async_shared),
        NVVM::SharedSpaceAttr::get(context, NVVM::SharedSpace::shared_cta));
    rewriter.eraseOp(op);
    return success();
  }
};

struct BarrierExpectToLLVM : OpConversionPattern<BarrierExpectOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(BarrierExpectOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    NVVM::MBarrierArriveExpectTxOp::create(
        rewriter, loc, /*res=*/Type(), adaptor.getBarrier(),
        i32Constant(rewriter, loc, op.getBytes()), NVVM::MemScopeKind::CTA,
        /*relaxed=*/false, emitThreadZero(rewriter, loc, adaptor.getPred()));
    rewriter.eraseOp(op);
    return success();
  }
};

struct BarrierArriveToLLVM : OpConversionPattern<BarrierArriveOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(BarrierArriveOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    // Once per warp: the barrier counts warps. Every lane of the warp got
    // here (the op's code is not divergent), so lane 0's arrival releases
    // what the warp's waits before it saw complete.
    Location loc = op.getLoc();
    Value pred = LLVM::ICmpOp::create(
        rewriter, loc, LLVM::ICmpPredicate::eq,
        NVVM::LaneIdOp::create(rewriter, loc, rewriter.getI32Type()),
        i32Constant(rewriter, loc, 0));
    if (adaptor.getPred())
      pred = LLVM::AndOp::create(rewriter, loc, pred, adaptor.getPred());
    emitOnBarrier(rewriter, loc, "mbarrier.arrive.shared::cta.b64 _,",
                  adaptor.getBarrier(), pred);
    if (Value shared = adaptor.getShared()) {
      // Again, on the other CTA's barrier (its copies fill this CTA's
      // slot too) where the copies are shared, else on this one's.
      // (32-bit addresses, as every barrier op's here.)
      Type i32 = rewriter.getI32Type();
      Value target = emitPairedRank(rewriter, loc, shared);
      emitPTX(
          rewriter, loc,
          "{\n\t.reg .b32 %peer_barrier;\n\t"
          "mapa.shared::cluster.u32 %peer_barrier, $0, $2;\n\t"
          "@$1 mbarrier.arrive.shared::cluster.b64 _, [%peer_barrier];\n\t}",
          "r,b,r",
          {LLVM::PtrToIntOp::create(rewriter, loc, i32, adaptor.getBarrier()),
           pred, target},
          {}, /*hasSideEffects=*/true);
    }
    rewriter.eraseOp(op);
    return success();
  }
};

/// `ptx` on the tensor map `map` ($0), run by the copies' thread ($1).
void emitOnTensorMap(OpBuilder &b, Location loc, StringRef ptx, Value map) {
  emitPTX(b, loc, ptx, "l,b", {map, emitThreadZero(b, loc)}, {},
          /*hasSideEffects=*/true);
}

struct TensorMapAcquireToLLVM : OpConversionPattern<TensorMapAcquireOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(TensorMapAcquireOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    emitOnTensorMap(rewriter, op.getLoc(),
                    "@$1 fence.proxy.tensormap::generic.acquire.gpu [ $0 ], 128;\n"
                    "@$1 prefetch.tensormap [ $0 ];",
                    adaptor.getTensormap());
    rewriter.eraseOp(op);
    return success();
  }
};

struct TensorMapPrefetchToLLVM : OpConversionPattern<TensorMapPrefetchOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(TensorMapPrefetchOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    emitOnTensorMap(rewriter, op.getLoc(), "@$1 prefetch.tensormap [ $0 ];",
                    adaptor.getTensormap());
    rewriter.eraseOp(op);
    return success();
  }
};

struct BarrierWaitToLLVM : OpConversionPattern<BarrierWaitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(BarrierWaitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    // The instruction waits for a system-dependent time, then tells whether
    // the phase completed; without a suspend-time hint ptxas does not back
    // off with nanosleep between tries, which wakes a warp late once the
    // copy lands.
    Location loc = op.getLoc();
    emitPTX(rewriter, loc,
            "{\n.reg .pred done;\nwait_${:uid}:\n"
            "mbarrier.try_wait.parity.shared::cta.b64 done, [ $0 ], $1;\n"
            "@!done bra.uni wait_${:uid};\n}",
            "r,r",
            {LLVM::PtrToIntOp::create(rewriter, loc, rewriter.getI32Type(),
                                      adaptor.getBarrier()),
             adaptor.getPhase()},
            {}, /*hasSideEffects=*/true);
    rewriter.eraseOp(op);
    return success();
  }
};

struct BarrierInvalToLLVM : OpConversionPattern<BarrierInvalOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(BarrierInvalOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value pred = emitThreadZero(rewriter, loc);
    for (Value barrier : getBarrierAddresses(rewriter, loc, adaptor.getBarriers(),
                                             op.getBarriers().getType()))
      emitOnBarrier(rewriter, loc, "mbarrier.inval.shared::cta.b64", barrier,
                    pred);
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void mlir::tilegpu::populateBulkCopyToLLVMPatterns(
    const TileGPUTypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<TensorMapCreateToLLVM, AsyncTMACopyToLLVM, AsyncTMAStoreToLLVM,
               BarrierInitToLLVM,
               BarrierExpectToLLVM, BarrierArriveToLLVM, BarrierWaitToLLVM,
               BarrierInvalToLLVM, TensorMapAcquireToLLVM,
               TensorMapPrefetchToLLVM>(
      converter, patterns.getContext());
}
