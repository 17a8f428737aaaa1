//===- SharedMemoryToLLVM.cpp - Buffers and async copies ------------------===//
//
// Every tilegpu.local_alloc owns its bytes of the kernel's dynamic shared
// memory at the offset assignSharedOffsets gave it; a buffer is its
// address. A tile stored into a buffer is bracketed by barriers (earlier
// readers are done, later ones see all of it); padding (see
// getSharedAllocShape) is zeroed first, so that dots may read it.
//
// tilegpu.async_copy is cp.async: each thread copies its elements of the
// tile in groups of up to 16 bytes (the axis analysis's vector width),
// masked-off and padding elements as zero-fill (a source size of 0).
// Groups narrower than 4 bytes, which cp.async cannot copy, load and store
// synchronously instead.
//
//===----------------------------------------------------------------------===//

#include "SharedMemory.h"

#include "tilec/Conversion/TileGPUToNVVM/TileGPUToNVVM.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::tilegpu;

namespace {

int64_t getOffset(Operation *op) {
  auto offset =
      op->getAttrOfType<IntegerAttr>(TileGPUDialect::getSharedOffsetAttrName());
  assert(offset && "local_alloc without an offset: run the allocation first");
  return offset.getInt();
}

bool isPadded(MemDescType type) {
  return getSharedAllocShape(type) != type.getShape();
}

struct LocalAllocToLLVM : OpConversionPattern<LocalAllocOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(LocalAllocOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MemDescType type = op.getType();
    SharedTile tile = SharedTile::get(Value(), type);
    tile.base =
        getSharedMemoryAt(rewriter, loc, op, getOffset(op), tile.getBytes());
    unsigned threads = getNumWarps(op) * 32;
    bool padded = isPadded(type);
    if (op.getSrc() || padded)
      emitBarrier(rewriter, loc);
    if (padded)
      zeroShared(rewriter, loc, tile, threads);
    if (Value src = op.getSrc()) {
      if (padded)
        emitBarrier(rewriter, loc);
      storeToShared(rewriter, loc, tile, getThreadLayout(src.getType()),
                    adaptor.getSrc());
    }
    if (op.getSrc() || padded)
      emitBarrier(rewriter, loc);
    rewriter.replaceOp(op, tile.base);
    return success();
  }
};

struct MemDescIndexToLLVM : OpConversionPattern<MemDescIndexOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(MemDescIndexOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    int64_t sliceBytes = getSharedAllocBytes(op.getType());
    Value offset = LLVM::MulOp::create(rewriter, loc, adaptor.getIndex(),
                                       i32Constant(rewriter, loc, sliceBytes));
    rewriter.replaceOp(op, LLVM::GEPOp::create(
                               rewriter, loc, adaptor.getSrc().getType(),
                               rewriter.getI8Type(), adaptor.getSrc(),
                               ValueRange{offset}));
    return success();
  }
};

struct AsyncCopyToLLVM : OpConversionPattern<AsyncCopyOp> {
  AsyncCopyToLLVM(const TypeConverter &converter, MLIRContext *context,
                  const VectorWidths &widths)
      : OpConversionPattern(converter, context), widths(widths) {}

  LogicalResult
  matchAndRewrite(AsyncCopyOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto ptrType = cast<RankedTensorType>(op.getPtrs().getType());
    ThreadLayout layout = getThreadLayout(ptrType);
    SharedTile tile =
        SharedTile::get(adaptor.getDst().front(), op.getDst().getType());
    ValueRange ptrs = adaptor.getPtrs();
    ValueRange mask = adaptor.getMask();
    // Which thread issues each copy: where threads hold copies of elements,
    // only the owner (the others' identical writes would race,
    // compute-sanitizer says so); padding, nobody (it may lie past the
    // buffer, a batch of 3 padded to 4, and inside it is zero already).
    SmallVector<Value> owned = layout.isReplicated()
                                   ? emitOwnership(rewriter, loc, layout)
                                   : emitValidity(rewriter, loc, layout);
    SmallVector<SmallVector<Value>> indices =
        emitElementIndices(rewriter, loc, layout);
    unsigned elemBytes = getMemoryBits(tile.slotType) / 8;
    // Groups: the vector width the axis analysis allows, within the
    // thread's contiguous registers along the tile's rows, and within one
    // 16-byte chunk of the swizzle.
    unsigned width = 1;
    auto it = widths.find(op);
    if (it != widths.end() &&
        layout.getTensorDim(layout.getFastestDim()) ==
            int(tile.encoding.getOrder().front()))
      width = std::min({it->second, layout.getContiguity(),
                        tile.encoding.getVec()});
    while (width > 1 && ptrs.size() % width)
      width /= 2;
    for (unsigned g = 0; g < ptrs.size(); g += width) {
      Value pred = mask.empty() ? Value() : mask[g];
      Value dst = tile.getAddress(rewriter, loc, indices[g]);
      unsigned bytes = width * elemBytes;
      if (bytes >= 4) {
        Value srcSize = i32Constant(rewriter, loc, bytes);
        if (pred)
          srcSize = LLVM::SelectOp::create(rewriter, loc, pred, srcSize,
                                           i32Constant(rewriter, loc, 0));
        if (!owned.empty()) {
          // The NVVM op has no predicate: issue it from PTX.
          std::string asmText = llvm::formatv(
              "@$3 cp.async.{0}.shared.global [ $0 ], [ $1 ], {1}, $2;",
              bytes == 16 ? "cg" : "ca", bytes);
          Value address = LLVM::PtrToIntOp::create(
              rewriter, loc, rewriter.getI64Type(), dst);
          emitPTX(rewriter, loc, asmText, "l,l,r,b",
                  ValueRange{address, ptrs[g], srcSize, owned[g]}, {},
                  /*hasSideEffects=*/true);
          continue;
        }
        NVVM::CpAsyncOp::create(
            rewriter, loc, dst, ptrs[g], rewriter.getI32IntegerAttr(bytes),
            NVVM::LoadCacheModifierKindAttr::get(
                getContext(), bytes == 16 ? NVVM::LoadCacheModifierKind::CG
                                          : NVVM::LoadCacheModifierKind::CA),
            srcSize);
        continue;
      }
      // Narrower than cp.async goes: a predicated load (into a 16-bit
      // register, PTX's narrowest), zero if off.
      unsigned bits = bytes * 8;
      if (!pred)
        pred = LLVM::ConstantOp::create(rewriter, loc, rewriter.getI1Type(),
                                        rewriter.getBoolAttr(true));
      std::string asmText = llvm::formatv(
          "mov.b16 $0, 0;\n\t@$2 ld.global.b{0} $0, [ $1 + 0 ];", bits);
      Value loaded = emitPTX(rewriter, loc, asmText, "=h,l,b",
                             ValueRange{ptrs[g], pred}, {rewriter.getI16Type()},
                             /*hasSideEffects=*/true)
                         .front();
      if (!owned.empty()) {
        emitPredicatedSharedStore(rewriter, loc, dst, loaded, owned[g], bits);
        continue;
      }
      if (bits == 8)
        loaded = LLVM::TruncOp::create(rewriter, loc, rewriter.getI8Type(), loaded);
      LLVM::StoreOp::create(rewriter, loc, loaded, dst);
    }
    rewriter.eraseOp(op);
    return success();
  }

  const VectorWidths &widths;
};

struct AsyncCommitGroupToLLVM : OpConversionPattern<AsyncCommitGroupOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(AsyncCommitGroupOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    NVVM::CpAsyncCommitGroupOp::create(rewriter, op.getLoc());
    rewriter.eraseOp(op);
    return success();
  }
};

struct AsyncWaitToLLVM : OpConversionPattern<AsyncWaitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(AsyncWaitOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    NVVM::CpAsyncWaitGroupOp::create(rewriter, op.getLoc(), op.getPending());
    emitBarrier(rewriter, op.getLoc());
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void mlir::tilegpu::populateSharedMemoryToLLVMPatterns(
    const TileGPUTypeConverter &converter, const VectorWidths &widths,
    RewritePatternSet &patterns) {
  MLIRContext *context = patterns.getContext();
  patterns.add<LocalAllocToLLVM, MemDescIndexToLLVM, AsyncCommitGroupToLLVM,
               AsyncWaitToLLVM>(converter, context);
  patterns.add<AsyncCopyToLLVM>(converter, context, widths);
}
