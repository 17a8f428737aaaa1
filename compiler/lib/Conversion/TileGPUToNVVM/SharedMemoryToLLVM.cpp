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
// synchronously instead: where a thread's runs of elements fill 4- to
// 16-byte vectors, all of its loads, then its stores, one a vector; else
// each element's store after its load. Either way a run of consecutive
// elements is addressed from its first one's pointer.
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

/// The same address: the view's type carries the transposition.
struct MemDescTransToLLVM : OpConversionPattern<MemDescTransOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(MemDescTransOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, adaptor.getSrc());
    return success();
  }
};

/// A load of `bits` (8 or 16) from global `src` into a 16-bit register
/// (PTX's narrowest), zero where `pred` (may be null) is off: narrower than
/// cp.async goes.
Value emitNarrowLoad(OpBuilder &b, Location loc, Value src, Value pred,
                     unsigned bits) {
  if (!pred)
    pred = LLVM::ConstantOp::create(b, loc, b.getI1Type(), b.getBoolAttr(true));
  std::string asmText = llvm::formatv(
      "mov.b16 $0, 0;\n\t@$2 ld.global.b{0} $0, [ $1 + 0 ];", bits);
  return emitPTX(b, loc, asmText, "=h,l,b", ValueRange{src, pred},
                 {b.getI16Type()}, /*hasSideEffects=*/true)
      .front();
}

/// Copies narrower than cp.async's 4 bytes (rows of 4097 bf16: 2-byte
/// aligned), `width` elements of `elemBytes` a load. Where runs of the
/// thread's elements fill 4- to 16-byte vectors within one chunk of the
/// swizzle (AssignLayouts gives a dot operand's threads such runs), all
/// the loads come first, then the vectors' stores, so that the loads'
/// latencies overlap (4097^3 bf16, 128 x 128 x 64 on 8 warps, H200: 127.3
/// TFLOP/s, against 73.9 with each vector's loads just before its store:
/// ptxas kept them there). Otherwise each element is stored as it is
/// loaded: a thread's pointers, one an element, leave no registers to hold
/// its loads (all of them first: 53.9 TFLOP/s against 81.2 at 128 x 256 x
/// 64, spilling).
void emitNarrowCopies(OpBuilder &b, Location loc, const SharedTile &tile,
                      ValueRange ptrs, ValueRange mask,
                      ArrayRef<SmallVector<Value>> indices, unsigned width,
                      unsigned run, unsigned elemBytes) {
  unsigned bits = width * elemBytes * 8;
  auto load = [&](unsigned g) {
    return emitNarrowLoad(b, loc,
                          getRunAddress(b, loc, ptrs, g, run, elemBytes),
                          mask.empty() ? Value() : mask[g], bits);
  };
  // Elements a store: a run's, within a swizzle chunk, at most 16 bytes.
  unsigned pack = std::min({run, tile.encoding.getVec(), 16 / elemBytes});
  unsigned packBytes = pack * elemBytes;
  if (packBytes < 4 || packBytes % 4) {
    for (unsigned g = 0; g < ptrs.size(); g += width) {
      Value v = load(g);
      if (bits == 8)
        v = LLVM::TruncOp::create(b, loc, b.getI8Type(), v);
      LLVM::StoreOp::create(b, loc, v, tile.getAddress(b, loc, indices[g]));
    }
    return;
  }
  Type i32 = b.getI32Type();
  unsigned words = packBytes / 4, perWord = 32 / bits;
  auto vectorType = VectorType::get({int64_t(words)}, i32);
  SmallVector<Value> loaded;
  for (unsigned g = 0; g < ptrs.size(); g += width)
    loaded.push_back(load(g));
  for (unsigned g = 0; g < ptrs.size(); g += pack) {
    ArrayRef<Value> parts = ArrayRef(loaded).slice(g / width, pack / width);
    Value vector = LLVM::UndefOp::create(b, loc, vectorType);
    for (unsigned w = 0; w < words; ++w) {
      Value word = i32Constant(b, loc, 0);
      for (unsigned k = 0; k < perWord; ++k) {
        Value part = LLVM::ZExtOp::create(b, loc, i32, parts[w * perWord + k]);
        if (bits == 8)
          part = LLVM::AndOp::create(b, loc, part, i32Constant(b, loc, 0xFF));
        if (k)
          part = LLVM::ShlOp::create(b, loc, part,
                                     i32Constant(b, loc, int32_t(k * bits)));
        word = LLVM::OrOp::create(b, loc, word, part);
      }
      vector = LLVM::InsertElementOp::create(b, loc, vector, word,
                                             i32Constant(b, loc, int32_t(w)));
    }
    LLVM::StoreOp::create(b, loc, vector, tile.getAddress(b, loc, indices[g]),
                          /*alignment=*/packBytes);
  }
}

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
    unsigned width = 1, run = 1;
    auto it = widths.find(op);
    if (it != widths.end() && layout.getTensorDim(layout.getFastestDim()) ==
                                  int(tile.encoding.getOrder().front())) {
      width = std::min(
          {it->second.vector, layout.getContiguity(), tile.encoding.getVec()});
      run = clampGroupWidth(op.getPtrs(), it->second.contiguous, ptrs.size());
    }
    while (width > 1 && ptrs.size() % width)
      width /= 2;
    run = std::max(run, width);
    unsigned bytes = width * elemBytes;
    if (bytes < 4 && owned.empty()) {
      emitNarrowCopies(rewriter, loc, tile, ptrs, mask, indices, width, run,
                       elemBytes);
      rewriter.eraseOp(op);
      return success();
    }
    for (unsigned g = 0; g < ptrs.size(); g += width) {
      Value pred = mask.empty() ? Value() : mask[g];
      Value dst = tile.getAddress(rewriter, loc, indices[g]);
      Value src = getRunAddress(rewriter, loc, ptrs, g, run, elemBytes);
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
                  ValueRange{address, src, srcSize, owned[g]}, {},
                  /*hasSideEffects=*/true);
          continue;
        }
        NVVM::CpAsyncOp::create(
            rewriter, loc, dst, src, rewriter.getI32IntegerAttr(bytes),
            NVVM::LoadCacheModifierKindAttr::get(
                getContext(), bytes == 16 ? NVVM::LoadCacheModifierKind::CG
                                          : NVVM::LoadCacheModifierKind::CA),
            srcSize);
        continue;
      }
      // A replicated layout's owners store one by one; nobody reads
      // padding, which may lie past the tensor.
      Value reads =
          pred ? LLVM::AndOp::create(rewriter, loc, pred, owned[g]).getResult()
               : owned[g];
      Value loaded = emitNarrowLoad(rewriter, loc, src, reads, bytes * 8);
      emitPredicatedSharedStore(rewriter, loc, dst, loaded, owned[g], bytes * 8);
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
  patterns.add<LocalAllocToLLVM, MemDescIndexToLLVM, MemDescTransToLLVM,
               AsyncCommitGroupToLLVM, AsyncWaitToLLVM>(converter, context);
  patterns.add<AsyncCopyToLLVM>(converter, context, widths);
}
