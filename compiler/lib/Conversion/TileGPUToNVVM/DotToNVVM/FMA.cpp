//===- FMA.cpp - tl.dot on the CUDA cores ---------------------------------===//
//
// The dot for what no tensor-core instruction takes (f64, exact f32, tiles
// with M or N of 1): the accumulator keeps its blocked layout. K by K, each
// thread reads the values of the rows of A and columns of B its accumulator
// elements need ("slots"), from a shared-memory buffer (after
// tilegpu-pipeline) or from the registers of dot_op tensors of the blocked
// parent, and every product is an FMA. K runs over the real extent only:
// padding never enters a sum. Narrow floats accumulate in f32 and round once at the
// end, integers in i32; tf32 rounds its inputs first, as the tensor cores
// would (tf32x3 is exact here, which is what it approximates).
//
//===----------------------------------------------------------------------===//

#include "SharedMemory.h"

#include "tilec/Conversion/TileGPUToNVVM/TileGPUToNVVM.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

using namespace mlir;
using namespace mlir::tilegpu;

namespace {

/// `v` rounded to tf32 (nearest, ties away), still an f32.
Value roundToTF32(OpBuilder &b, Location loc, Value v) {
  return LLVM::BitcastOp::create(b, loc, b.getF32Type(),
                                 emitTF32Bits(b, loc, v));
}

/// `v` in the type products are summed in.
Value widen(OpBuilder &b, Location loc, Value v, Type compute) {
  Type type = v.getType();
  if (type == compute)
    return v;
  if (isa<FloatType>(type))
    return LLVM::FPExtOp::create(b, loc, compute, v);
  return LLVM::SExtOp::create(b, loc, compute, v);
}

Value narrow(OpBuilder &b, Location loc, Value v, Type type) {
  if (v.getType() == type)
    return v;
  if (isa<FloatType>(type))
    return LLVM::FPTruncOp::create(b, loc, type, v);
  return LLVM::TruncOp::create(b, loc, type, v);
}

/// An FMA dot operand, K position by K position: each thread needs, at
/// each K, the operand's values for the rows (A) or columns (B) of the
/// accumulator elements it holds: its "slots". From registers (a dot_op
/// tensor of the blocked parent) or loaded from a shared-memory buffer.
class OperandValues {
public:
  OperandValues(OpBuilder &b, Location loc, Value operand, ValueRange converted,
                const ThreadLayout &acc, unsigned opIdx)
      : acc(acc) {
    rank = acc.getRootRank();
    kDim = opIdx == 0 ? rank - 1 : rank - 2;
    otherDim = opIdx == 0 ? rank - 1 : rank - 2; // acc's N for A, M for B
    if (auto memdesc = dyn_cast<MemDescType>(operand.getType())) {
      tile = SharedTile::get(converted.front(), memdesc);
      // B's columns come in runs the accumulator holds contiguously, which
      // the swizzle keeps contiguous too: one vector load each, up to 16
      // bytes. (Slots number the batch first: only with one batch per
      // thread are a run's slots consecutive.)
      if (opIdx == 1 && acc.getTensorDim(acc.getFastestDim()) == int(rank) - 1 &&
          tile.encoding.getOrder().front() == rank - 1 &&
          (rank == 2 || acc.getLocalCount(0) == 1)) {
        unsigned slotBytes = std::max(1u, tile.slotType.getIntOrFloatBitWidth() / 8);
        run = std::min<unsigned>({acc.getContiguity(), tile.encoding.getVec(),
                                  16 / slotBytes});
        run = std::max(1u, run);
      }
      // Each slot's position: an accumulator element with that slot.
      SmallVector<SmallVector<Value>> indices = emitElementIndices(b, loc, acc);
      for (unsigned e = 0; e < acc.getNumElems(); ++e) {
        SmallVector<int64_t> local = acc.getLocalIndex(e);
        if (local[otherDim] != 0)
          continue;
        unsigned s = slot(local);
        if (positions.size() <= s)
          positions.resize(s + 1);
        positions[s] = indices[e];
      }
      return;
    }
    layout = getThreadLayout(operand.getType());
    values.assign(converted.begin(), converted.end());
  }

  /// The slot of an accumulator element's local index.
  unsigned slot(ArrayRef<int64_t> local) const {
    SmallVector<int64_t> other(local);
    other[otherDim] = 0;
    unsigned s = 0, stride = 1;
    for (unsigned d = 0; d < rank; ++d) {
      if (d == otherDim)
        continue;
      s += other[d] * stride;
      stride *= acc.getLocalCount(d);
    }
    return s;
  }

  /// Every slot's value at K position `i`, through `prepare`.
  SmallVector<Value> at(OpBuilder &b, Location loc, int64_t i,
                        function_ref<Value(Value)> prepare) {
    SmallVector<Value> result;
    if (tile.base) {
      for (unsigned s = 0; s < positions.size(); s += run) {
        SmallVector<Value> index(positions[s]);
        // The tensor's indices are the accumulator's, K in place of the
        // other operand's dimension.
        index[kDim] = i32Constant(b, loc, i);
        // A batch the layout pads to a power of two reads the last real one
        // (its results are padding, never stored).
        if (rank == 3 && acc.getRootShape()[0] > tile.shape[0]) {
          Value last = i32Constant(b, loc, tile.shape[0] - 1);
          index[0] = LLVM::SelectOp::create(
              b, loc,
              LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::ult, index[0],
                                   last),
              index[0], last);
        }
        Value address = tile.getAddress(b, loc, index);
        Value loaded =
            run == 1
                ? LLVM::LoadOp::create(b, loc, tile.slotType, address)
                : LLVM::LoadOp::create(
                      b, loc, VectorType::get(run, tile.slotType), address,
                      run * tile.slotType.getIntOrFloatBitWidth() / 8);
        for (Value v : unpackVector(b, loc, loaded, run))
          result.push_back(prepare(v));
      }
      return result;
    }
    SmallVector<int64_t> local(rank, 0);
    unsigned count = 1;
    for (unsigned d = 0; d < rank; ++d)
      if (d != otherDim)
        count *= acc.getLocalCount(d);
    for (unsigned s = 0; s < count; ++s) {
      // The slot's local index, K in place of the other dimension.
      unsigned rest = s;
      for (unsigned d = 0; d < rank; ++d) {
        int64_t n = d == otherDim ? 1 : acc.getLocalCount(d);
        local[d] = rest % n;
        rest /= n;
      }
      local[kDim] = i;
      result.push_back(prepare(values[layout->linearize(local)]));
    }
    return result;
  }

private:
  const ThreadLayout &acc;
  unsigned rank, kDim, otherDim;
  std::optional<ThreadLayout> layout;
  SmallVector<Value> values;
  SharedTile tile;
  SmallVector<SmallVector<Value>> positions;
  unsigned run = 1; // slots loaded as one vector from shared memory
};

struct FMADotToLLVM : OpConversionPattern<tile::DotOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(tile::DotOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!isa<BlockedEncodingAttr>(op.getType().getEncoding()))
      return rewriter.notifyMatchFailure(op, "not an FMA dot");
    if (tile::isFP8(op.getA().getType()))
      return op.emitError("tl.dot of fp8 tiles needs fp8 tensor cores: sm_89 "
                          "or newer (compile for --arch sm_89 or sm_90)");
    Location loc = op.getLoc();
    ThreadLayout acc = getThreadLayout(op.getType());
    unsigned rank = acc.getRootRank();
    int64_t k = op.getA().getType().getShape()[rank - 1];

    Type accType = adaptor.getAcc().front().getType();
    Type compute = accType;
    if (isa<FloatType>(accType) && accType.getIntOrFloatBitWidth() < 32)
      compute = rewriter.getF32Type();
    bool tf32 = op.getPrecision() == tile::InputPrecision::TF32 &&
                op.getA().getType().getElementType().isF32();
    auto prepare = [&](Value v) {
      if (tf32)
        v = roundToTF32(rewriter, loc, v);
      return widen(rewriter, loc, v, compute);
    };

    // The operand values of row/column `local` (A: acc's M, B: acc's N) at
    // K position `i`, from registers or from shared memory.
    auto operandValues = [&](Value operand, ValueRange converted,
                             unsigned opIdx) {
      return OperandValues(rewriter, loc, operand, converted, acc, opIdx);
    };
    OperandValues aValues = operandValues(op.getA(), adaptor.getA(), 0);
    OperandValues bValues = operandValues(op.getB(), adaptor.getB(), 1);

    SmallVector<Value> sums;
    for (Value v : adaptor.getAcc())
      sums.push_back(widen(rewriter, loc, v, compute));
    for (int64_t i = 0; i < k; ++i) {
      // This K position's values of every row (A) and column (B) held.
      SmallVector<Value> aK = aValues.at(rewriter, loc, i, prepare);
      SmallVector<Value> bK = bValues.at(rewriter, loc, i, prepare);
      for (unsigned e = 0; e < acc.getNumElems(); ++e) {
        SmallVector<int64_t> local = acc.getLocalIndex(e);
        Value x = aK[aValues.slot(local)];
        Value y = bK[bValues.slot(local)];
        sums[e] = isa<FloatType>(compute)
                      ? (Value)LLVM::FMAOp::create(rewriter, loc, x, y, sums[e])
                      : (Value)LLVM::AddOp::create(
                            rewriter, loc, sums[e],
                            LLVM::MulOp::create(rewriter, loc, x, y));
      }
    }
    SmallVector<Value> results;
    for (Value v : sums)
      results.push_back(narrow(rewriter, loc, v, accType));
    rewriter.replaceOpWithMultiple(op, {results});
    return success();
  }
};

} // namespace

void mlir::tilegpu::populateFMADotToLLVMPatterns(
    const TileGPUTypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<FMADotToLLVM>(converter, patterns.getContext());
}
