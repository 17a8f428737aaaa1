//===- MMAv2.cpp - tl.dot on mma.sync -------------------------------------===//
//
// The accumulator (mma encoding) and the operands (dot_op encodings of it)
// already sit in the registers mma.sync reads and writes (see
// ThreadLayout), so the dot is a loop over instruction tiles: for each
// batch, 16-row and 8-column repetition, and 16 x kWidth-wide step of K, one
// m16n8k(8 kWidth) mma.sync takes 4 registers of A, 2 of B and the 4
// accumulator values. K padding (tiles whose K is no multiple of the
// instruction's) is zeroed first, in both operands, so that it adds
// nothing even where the other operand holds garbage; M and N padding only
// reaches accumulator rows and columns that are never stored.
//
// f32 inputs are rounded to tf32 (cvt.rna, as Triton); tf32x3 splits each
// into a tf32 head and a tf32 tail and sums three products, small ones
// first. i8 accumulates with wrapping, as the interpreter does; an f16
// accumulator in f32, rounded once at the end.
//
//===----------------------------------------------------------------------===//

#include "Utility.h"

#include "tilec/Conversion/TileGPUToNVVM/TileGPUToNVVM.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

using namespace mlir;
using namespace mlir::tilegpu;

namespace {

/// The bits of `v` (f32) rounded to tf32, as an i32 register.
Value toTF32(OpBuilder &b, Location loc, Value v) {
  return NVVM::ConvertFloatToTF32Op::create(
      b, loc, b.getI32Type(), v, NVVM::FPRoundingMode::RNA,
      NVVM::SaturationMode::NONE, /*relu=*/false);
}

/// Packs `elems` into one 32-bit register of the type mma.sync takes:
/// vector<2xf16> for f16, i32 otherwise.
Value packRegister(OpBuilder &b, Location loc, ArrayRef<Value> elems) {
  Type element = elems.front().getType();
  if (elems.size() == 1)
    return element.isInteger(32)
               ? elems.front()
               : (Value)LLVM::BitcastOp::create(b, loc, b.getI32Type(),
                                                elems.front());
  auto vecType = VectorType::get({int64_t(elems.size())}, element);
  Value vec = LLVM::UndefOp::create(b, loc, vecType);
  for (auto [i, e] : llvm::enumerate(elems))
    vec = LLVM::InsertElementOp::create(b, loc, vec, e, i32Constant(b, loc, i));
  if (element.isF16())
    return vec;
  return LLVM::BitcastOp::create(b, loc, b.getI32Type(), vec);
}

NVVM::MMATypes getPtxType(Type element, bool tf32) {
  if (element.isF16())
    return NVVM::MMATypes::f16;
  if (element.isBF16())
    return NVVM::MMATypes::bf16;
  if (element.isInteger(8))
    return NVVM::MMATypes::s8;
  assert(element.isF32() && tf32 && "mma.sync operand type");
  return NVVM::MMATypes::tf32;
}

/// One operand's registers, by instruction tile.
class Fragments {
public:
  /// `values` are one thread's elements of the operand in `layout` (K
  /// padding already zero).
  Fragments(const ThreadLayout &layout, ArrayRef<Value> values, unsigned opIdx,
            unsigned kWidth)
      : layout(layout), values(values), opIdx(opIdx), kWidth(kWidth) {}

  /// The 4 (A) or 2 (B) registers of the tile at batch `batch`, M or N
  /// repetition `rep` and K step `kStep`, as elements, kWidth per register.
  SmallVector<SmallVector<Value>> get(int64_t batch, int64_t rep,
                                      int64_t kStep) const {
    unsigned rank = layout.getRootRank();
    unsigned kDim = opIdx == 0 ? rank - 1 : rank - 2;
    unsigned mnDim = opIdx == 0 ? rank - 2 : rank - 1;
    unsigned kBits = llvm::Log2_32(kWidth);
    unsigned count = (opIdx == 0 ? 4 : 2) * kWidth;
    SmallVector<SmallVector<Value>> registers;
    for (unsigned i = 0; i < count; ++i) {
      // Element i of the fragment: its low bits run along K within the
      // register, then (A only) one bit of M + 8, then one of K + 4 kWidth.
      unsigned rest = i >> kBits;
      int64_t half = opIdx == 0 ? rest & 1 : 0;
      int64_t kHigh = opIdx == 0 ? rest >> 1 : rest;
      SmallVector<int64_t> local(rank, 0);
      if (rank == 3)
        local[0] = batch;
      local[kDim] = (i & (kWidth - 1)) | kHigh << kBits | kStep << (kBits + 1);
      local[mnDim] = opIdx == 0 ? half | rep << 1 : rep;
      if (i % kWidth == 0)
        registers.emplace_back();
      registers.back().push_back(values[layout.linearize(local)]);
    }
    return registers;
  }

private:
  const ThreadLayout &layout;
  ArrayRef<Value> values;
  unsigned opIdx, kWidth;
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
    ThreadLayout aLayout = getThreadLayout(op.getA().getType());
    ThreadLayout bLayout = getThreadLayout(op.getB().getType());
    auto operandEncoding =
        cast<DotOperandEncodingAttr>(op.getA().getType().getEncoding());
    unsigned kWidth = operandEncoding.getKWidth();
    unsigned rank = acc.getRootRank();
    Type input = op.getA().getType().getElementType();
    Type accElement = op.getType().getElementType();
    tile::InputPrecision precision = op.getPrecision();
    bool tf32 = input.isF32();
    bool split = tf32 && precision == tile::InputPrecision::TF32x3;

    // Operand elements with K padding zeroed; tf32 operands as their
    // rounded bits (and, split, the rounded remainders too).
    auto prepare = [&](const ThreadLayout &layout, ValueRange values,
                       SmallVector<Value> &head, SmallVector<Value> &tail) {
      Type type = values.front().getType();
      Value zero = LLVM::ZeroOp::create(rewriter, loc, type);
      SmallVector<Value> real = replacePadding(rewriter, loc, layout, values, zero);
      for (Value v : real) {
        if (!tf32) {
          head.push_back(v);
          continue;
        }
        Value big = toTF32(rewriter, loc, v);
        head.push_back(big);
        if (split) {
          Value bigF = LLVM::BitcastOp::create(rewriter, loc, type, big);
          tail.push_back(
              toTF32(rewriter, loc, LLVM::FSubOp::create(rewriter, loc, v, bigF)));
        }
      }
    };
    SmallVector<Value> aHead, aTail, bHead, bTail;
    prepare(aLayout, adaptor.getA(), aHead, aTail);
    prepare(bLayout, adaptor.getB(), bHead, bTail);

    // An f16 accumulator is summed in f32 and rounded once per dot, as the
    // interpreter does: mma.sync's f32 accumulation runs at the same rate.
    bool f16Acc = accElement.isF16();
    Type accRegType = f16Acc ? rewriter.getF32Type()
                             : adaptor.getAcc().front().getType();
    unsigned accRegs = 4;
    Type resultType = LLVM::LLVMStructType::getLiteral(
        getContext(), SmallVector<Type>(accRegs, accRegType));
    NVVM::MMATypes ptxType = getPtxType(input, tf32);
    std::optional<NVVM::MMAIntOverflow> overflow;
    if (input.isInteger(8))
      overflow = NVVM::MMAIntOverflow::wrapped;
    int64_t instrK = 8 * kWidth;
    std::array<int64_t, 3> shape = {16, 8, instrK};

    auto mmaSync = [&](ArrayRef<Value> a, ArrayRef<Value> b,
                       ArrayRef<Value> c) -> SmallVector<Value> {
      auto op = NVVM::MmaOp::create(
          rewriter, loc, resultType, a, b, c, shape, /*b1Op=*/std::nullopt,
          overflow,
          std::array<NVVM::MMATypes, 2>{ptxType, ptxType},
          std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                         NVVM::MMALayout::col});
      SmallVector<Value> d;
      for (unsigned i = 0; i < accRegs; ++i)
        d.push_back(LLVM::ExtractValueOp::create(rewriter, loc, op.getRes(), i));
      return d;
    };
    auto packAll = [&](ArrayRef<SmallVector<Value>> registers) {
      SmallVector<Value> packed;
      for (ArrayRef<Value> r : registers)
        packed.push_back(packRegister(rewriter, loc, r));
      return packed;
    };

    Fragments aHeads(aLayout, aHead, 0, kWidth), bHeads(bLayout, bHead, 1, kWidth);
    Fragments aTails(aLayout, aTail, 0, kWidth), bTails(bLayout, bTail, 1, kWidth);
    int64_t batches = rank == 3 ? acc.getLocalCount(0) : 1;
    int64_t mReps = acc.getLocalCount(rank - 2) / 2;
    int64_t nReps = acc.getLocalCount(rank - 1) / 2;
    int64_t kSteps = aLayout.getLocalCount(rank - 1) / (2 * kWidth);
    SmallVector<Value> results(adaptor.getAcc());
    for (int64_t batch = 0; batch < batches; ++batch)
      for (int64_t m = 0; m < mReps; ++m)
        for (int64_t n = 0; n < nReps; ++n) {
          // The four accumulator elements of this tile: (row, column)
          // offsets (0, 0), (0, 1), (8, 0), (8, 1).
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
          SmallVector<Value> c;
          for (unsigned e : elems)
            c.push_back(f16Acc ? (Value)LLVM::FPExtOp::create(
                                     rewriter, loc, accRegType, results[e])
                               : results[e]);
          for (int64_t k = 0; k < kSteps; ++k) {
            SmallVector<Value> a = packAll(aHeads.get(batch, m, k));
            SmallVector<Value> b = packAll(bHeads.get(batch, n, k));
            if (split) {
              c = mmaSync(packAll(aTails.get(batch, m, k)), b, c);
              c = mmaSync(a, packAll(bTails.get(batch, n, k)), c);
            }
            c = mmaSync(a, b, c);
          }
          for (unsigned i = 0; i < 4; ++i)
            results[elems[i]] =
                f16Acc ? (Value)LLVM::FPTruncOp::create(rewriter, loc,
                                                        accElement, c[i])
                       : c[i];
        }
    rewriter.replaceOpWithMultiple(op, {results});
    return success();
  }
};

} // namespace

void mlir::tilegpu::populateMMAv2DotToLLVMPatterns(
    const TileGPUTypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<MMAv2DotToLLVM>(converter, patterns.getContext());
}
