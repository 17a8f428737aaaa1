//===- MMAv2.cpp - tl.dot on mma.sync -------------------------------------===//
//
// The accumulator (mma encoding) sits in the registers mma.sync reads and
// writes (see ThreadLayout), so the dot is a loop over instruction tiles:
// for each batch and 16 x kWidth-wide step of K (outermost, so that only
// one step of the operands is live), for each 16-row and 8-column
// repetition, one m16n8k(8 kWidth) mma.sync takes 4 registers of A, 2 of B
// and the 4 accumulator values. Operands come from shared-memory buffers
// (after tilegpu-pipeline), read with ldmatrix one K step at a time, or
// from the registers of dot_op tensors. K padding (tiles whose K is no
// multiple of the instruction's) is zero in both: buffers are zeroed there,
// registers are zeroed here; M and N padding only reaches accumulator rows
// and columns that are never stored.
//
// f32 inputs are rounded to tf32 (cvt.rna, as Triton); tf32x3 splits each
// into a tf32 head and a tf32 tail and sums three products, small ones
// first. i8 accumulates with wrapping, as the interpreter does; an f16
// accumulator in f32, rounded once at the end.
//
//===----------------------------------------------------------------------===//

#include "SharedMemory.h"

#include "tilec/Conversion/TileGPUToNVVM/TileGPUToNVVM.h"
#include "tilec/Dialect/TileGPU/IR/Target.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

using namespace mlir;
using namespace mlir::tilegpu;

namespace {

NVVM::MMATypes getPtxType(Type element) {
  if (element.isF16())
    return NVVM::MMATypes::f16;
  if (element.isBF16())
    return NVVM::MMATypes::bf16;
  if (element.isInteger(8))
    return NVVM::MMATypes::s8;
  if (isa<Float8E4M3FNType>(element))
    return NVVM::MMATypes::e4m3;
  if (isa<Float8E5M2Type>(element))
    return NVVM::MMATypes::e5m2;
  return NVVM::MMATypes::tf32;
}

/// The registers mma.sync takes for one instruction tile of an operand.
struct OperandTile {
  SmallVector<Value> head; ///< the operand (tf32: rounded)
  SmallVector<Value> tail; ///< tf32x3 only: the rounded remainder
};

/// One operand's instruction tiles, from the registers of a dot_op tensor
/// or, loaded as they are needed, from a shared-memory buffer. 32-bit
/// registers come out as mma.sync wants them: vector<2xf16> for f16, i32
/// otherwise; f32 rounded to tf32, and split for tf32x3.
class OperandSource {
public:
  OperandSource(OpBuilder &b, Location loc, Value operand, ValueRange values,
                Value shared, MmaEncodingAttr mma, unsigned opIdx, bool split)
      : split(split), opIdx(opIdx) {
    auto shaped = cast<ShapedType>(operand.getType());
    element = shaped.getElementType();
    kWidth = 32 / element.getIntOrFloatBitWidth();
    auto encoding = DotOperandEncodingAttr::get(b.getContext(), opIdx, mma, kWidth);
    layout = *ThreadLayout::get(
        RankedTensorType::get(shaped.getShape(), element, encoding));
    if (auto memdesc = dyn_cast<MemDescType>(operand.getType())) {
      tile = SharedTile::get(shared, memdesc);
      loader.emplace(b, loc, tile, layout, element);
      return;
    }
    // Registers: K padding zeroed (shared buffers hold zeros there).
    registers = replacePadding(
        b, loc, layout, values,
        LLVM::ZeroOp::create(b, loc, values.front().getType()));
  }

  const ThreadLayout &getLayout() const { return layout; }
  unsigned getKWidth() const { return kWidth; }

  OperandTile get(OpBuilder &b, Location loc, int64_t batch, int64_t rep,
                  int64_t kStep) {
    SmallVector<Value> raw;
    if (loader)
      raw = loader->load(b, loc, batch, rep, kStep);
    else
      raw = packMmaFragment(b, loc, layout, registers, opIdx, kWidth, batch,
                            rep, kStep);
    OperandTile result;
    for (Value reg : raw) {
      if (!element.isF32()) {
        result.head.push_back(
            element.isF16()
                ? (Value)LLVM::BitcastOp::create(
                      b, loc, VectorType::get({2}, b.getF16Type()), reg)
                : reg);
        continue;
      }
      Value x = LLVM::BitcastOp::create(b, loc, b.getF32Type(), reg);
      Value big = emitTF32Bits(b, loc, x);
      result.head.push_back(big);
      if (split) {
        Value bigF = LLVM::BitcastOp::create(b, loc, b.getF32Type(), big);
        result.tail.push_back(
            emitTF32Bits(b, loc, LLVM::FSubOp::create(b, loc, x, bigF)));
      }
    }
    return result;
  }

private:
  bool split;
  unsigned opIdx;
  Type element;
  unsigned kWidth;
  ThreadLayout layout;
  SmallVector<Value> registers;
  SharedTile tile;
  std::optional<MmaFragmentLoader> loader;
};

struct MMAv2DotToLLVM : OpConversionPattern<tile::DotOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(tile::DotOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto mma = dyn_cast<MmaEncodingAttr>(op.getType().getEncoding());
    if (!mma || mma.getVersion() != 2)
      return rewriter.notifyMatchFailure(op, "not an mma.sync dot");
    Location loc = op.getLoc();
    ThreadLayout acc = getThreadLayout(op.getType());
    unsigned rank = acc.getRootRank();
    Type input = op.getA().getType().getElementType();
    Type accElement = op.getType().getElementType();
    bool split = input.isF32() && op.getPrecision() == tile::InputPrecision::TF32x3;
    auto sharedOf = [&](ValueRange converted) {
      return converted.size() == 1 ? converted.front() : Value();
    };
    OperandSource a(rewriter, loc, op.getA(), adaptor.getA(),
                    sharedOf(adaptor.getA()), mma, 0, split);
    OperandSource b(rewriter, loc, op.getB(), adaptor.getB(),
                    sharedOf(adaptor.getB()), mma, 1, split);
    unsigned kWidth = a.getKWidth();

    // An f16 accumulator is summed in f32 and rounded once per dot, as the
    // interpreter does: mma.sync's f32 accumulation runs at the same rate.
    bool f16Acc = accElement.isF16();
    Type accRegType = f16Acc ? rewriter.getF32Type()
                             : adaptor.getAcc().front().getType();
    Type resultType = LLVM::LLVMStructType::getLiteral(
        getContext(), SmallVector<Type>(4, accRegType));
    NVVM::MMATypes ptxType = getPtxType(input);
    std::optional<NVVM::MMAIntOverflow> overflow;
    if (input.isInteger(8))
      overflow = NVVM::MMAIntOverflow::wrapped;
    std::array<int64_t, 3> shape = {16, 8, 8 * kWidth};
    bool fp8 = tile::isFP8(input);
    if (fp8)
      requirePTXVersion(op, 84);
    auto mmaSync = [&](ArrayRef<Value> x, ArrayRef<Value> y,
                       ArrayRef<Value> c) -> SmallVector<Value> {
      if (fp8) {
        // NVVM's mma op has no fp8 shapes (MLIR 22): PTX's instruction
        // (sm_89+), fp8 in and f32 out.
        std::string type = ptxType == NVVM::MMATypes::e5m2 ? "e5m2" : "e4m3";
        std::string asmText =
            "mma.sync.aligned.m16n8k32.row.col.f32." + type + "." + type +
            ".f32 " + getPTXOperandList(0, 4) + ", " + getPTXOperandList(4, 4) +
            ", " + getPTXOperandList(8, 2) + ", " + getPTXOperandList(10, 4) + ";";
        SmallVector<Value> operands(x);
        llvm::append_range(operands, y);
        llvm::append_range(operands, c);
        return emitPTX(rewriter, loc, asmText,
                       "=f,=f,=f,=f,r,r,r,r,r,r,f,f,f,f", operands,
                       SmallVector<Type>(4, rewriter.getF32Type()),
                       /*hasSideEffects=*/false);
      }
      auto mmaOp = NVVM::MmaOp::create(
          rewriter, loc, resultType, x, y, c, shape, /*b1Op=*/std::nullopt,
          overflow, std::array<NVVM::MMATypes, 2>{ptxType, ptxType},
          std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                         NVVM::MMALayout::col});
      SmallVector<Value> d;
      for (unsigned i = 0; i < 4; ++i)
        d.push_back(LLVM::ExtractValueOp::create(rewriter, loc, mmaOp.getRes(), i));
      return d;
    };

    int64_t batches = rank == 3 ? acc.getLocalCount(0) : 1;
    int64_t mReps = acc.getLocalCount(rank - 2) / 2;
    int64_t nReps = acc.getLocalCount(rank - 1) / 2;
    int64_t kSteps = a.getLayout().getLocalCount(rank - 1) / (2 * kWidth);
    // The four accumulator elements of each tile: (row, column) offsets
    // (0, 0), (0, 1), (8, 0), (8, 1); in f32 for f16 accumulators.
    auto tileElems = [&](int64_t batch, int64_t m, int64_t n) {
      SmallVector<unsigned> elems;
      for (int64_t half = 0; half < 2; ++half)
        for (int64_t col = 0; col < 2; ++col) {
          SmallVector<int64_t> local(rank, 0);
          if (rank == 3)
            local[0] = batch;
          local[rank - 2] = half | m << 1;
          local[rank - 1] = col | n << 1;
          elems.push_back(acc.linearize(local));
        }
      return elems;
    };
    SmallVector<Value> sums;
    for (Value v : adaptor.getAcc())
      sums.push_back(f16Acc ? (Value)LLVM::FPExtOp::create(rewriter, loc,
                                                           accRegType, v)
                            : v);
    // K outermost: one K step of A and B fragments is live at a time.
    for (int64_t batch = 0; batch < batches; ++batch)
      for (int64_t k = 0; k < kSteps; ++k) {
        SmallVector<OperandTile> aTiles, bTiles;
        for (int64_t m = 0; m < mReps; ++m)
          aTiles.push_back(a.get(rewriter, loc, batch, m, k));
        for (int64_t n = 0; n < nReps; ++n)
          bTiles.push_back(b.get(rewriter, loc, batch, n, k));
        for (int64_t m = 0; m < mReps; ++m)
          for (int64_t n = 0; n < nReps; ++n) {
            SmallVector<unsigned> elems = tileElems(batch, m, n);
            SmallVector<Value> c;
            for (unsigned e : elems)
              c.push_back(sums[e]);
            if (split) {
              c = mmaSync(aTiles[m].tail, bTiles[n].head, c);
              c = mmaSync(aTiles[m].head, bTiles[n].tail, c);
            }
            c = mmaSync(aTiles[m].head, bTiles[n].head, c);
            for (unsigned i = 0; i < 4; ++i)
              sums[elems[i]] = c[i];
          }
      }
    SmallVector<Value> results;
    for (Value v : sums)
      results.push_back(f16Acc ? (Value)LLVM::FPTruncOp::create(rewriter, loc,
                                                                accElement, v)
                               : v);
    rewriter.replaceOpWithMultiple(op, {results});
    return success();
  }
};

} // namespace

void mlir::tilegpu::populateMMAv2DotToLLVMPatterns(
    const TileGPUTypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<MMAv2DotToLLVM>(converter, patterns.getContext());
}
