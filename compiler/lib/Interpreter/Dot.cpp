//===- Dot.cpp - tile.dot on the interpreter ------------------------------===//
//
// The interpreter multiplies in the GPU's numeric classes, so that a test
// comparing the two can hold them to a few ulps of the accumulator instead
// of to the distance between two different algorithms:
//
// - f16, bf16: every product is exact in f32 (11- and 8-bit significands),
//   summed in f32. An f16 accumulator is widened, summed in f32 and rounded
//   to f16 once, at the end.
// - f32, tf32: each input is rounded to tf32 first, to nearest with ties
//   away from zero, keeping 10 mantissa bits (PTX cvt.rna.tf32.f32; NaN and
//   infinity pass through); the products are then exact in f32 and summed
//   in f32.
// - f32, tf32x3: x = big + small with big = tf32(x), small = tf32(x - big)
//   (0 where big is not finite). For each k, small_a * big_b, then
//   big_a * small_b, then big_a * big_b are added in f32; a correction
//   product that is NaN (0 times an infinite big part) is skipped, as
//   Triton's decomposition zeroes NaN corrections, so infinities survive.
// - f32, ieee: fmaf(a, b, acc) for each k.
// - i8: products summed in i32, wrapping. f64: fma in double.
//
// In every class k ascends and the accumulator operand is added first.
// Batched dots run the same loops once per batch.
//
//===----------------------------------------------------------------------===//

#include "Executor.h"

#include "tilec/Dialect/Tile/IR/Tile.h"

#include <cmath>
#include <cstring>

using namespace mlir;
using namespace tilec::interp;

/// `x` rounded to tf32 as cvt.rna.tf32.f32 does, kept in an f32.
static float roundToTF32(float x) {
  uint32_t bits;
  std::memcpy(&bits, &x, 4);
  if ((bits & 0x7f800000u) == 0x7f800000u)
    return x; // NaN or infinity
  // Adding half of the 13 dropped bits' weight to the magnitude rounds ties
  // away from zero; a carry into the exponent is the correct rounding too.
  bits = (bits + 0x1000u) & 0xffffe000u;
  std::memcpy(&x, &bits, 4);
  return x;
}

namespace {
/// What one dot multiplies: extents, and the operands' storage.
struct DotShape {
  int64_t batch, m, n, k;
};

/// f16, bf16 and f32 operands as f32, per precision: a row-major (M, K)
/// and, for contiguous k loops, a transposed (N, K) per batch; tf32x3 adds
/// the small parts after the big ones.
void loadF32Operands(const DotShape &s, const TValue &a, const TValue &b,
                     tile::InputPrecision precision, bool isF32,
                     std::vector<float> &out) {
  size_t aSize = size_t(s.batch * s.m * s.k),
         bSize = size_t(s.batch * s.k * s.n);
  bool split = isF32 && precision == tile::InputPrecision::TF32x3;
  out.resize((aSize + bSize) * (split ? 2 : 1));
  float *big = out.data(),
        *small = split ? out.data() + aSize + bSize : nullptr;
  auto put = [&](size_t i, double v) {
    float x = float(v); // exact: the values are already of their type
    if (!isF32 || precision == tile::InputPrecision::IEEE) {
      big[i] = x;
      return;
    }
    float hi = roundToTF32(x);
    big[i] = hi;
    if (split)
      small[i] = std::isfinite(hi) ? roundToTF32(x - hi) : 0.0f;
  };
  for (size_t i = 0; i < aSize; ++i)
    put(i, a.floats[i]);
  for (int64_t p = 0; p < s.batch; ++p)
    for (int64_t kk = 0; kk < s.k; ++kk)
      for (int64_t j = 0; j < s.n; ++j)
        put(aSize + size_t((p * s.n + j) * s.k + kk),
            b.floats[size_t((p * s.k + kk) * s.n + j)]);
}
} // namespace

LogicalResult tilec::interp::executeDot(Executor &ex, Operation *op) {
  auto dot = cast<tile::DotOp>(op);
  const TValue &a = ex.get(dot.getA());
  const TValue &b = ex.get(dot.getB());
  const TValue &c = ex.get(dot.getAcc());
  TValue &result = ex.define(dot.getResult());
  size_t rank = a.shape.size();
  if ((rank != 2 && rank != 3) || b.shape.size() != rank)
    return ex.fail(op, "tl.dot of tiles of rank " + llvm::Twine(rank) +
                           " and " + llvm::Twine(b.shape.size()));
  DotShape s{rank == 3 ? a.shape[0] : 1, a.shape[rank - 2], b.shape[rank - 1],
             a.shape[rank - 1]};
  size_t outSize = size_t(s.batch * s.m * s.n);
  if (a.size() != size_t(s.batch * s.m * s.k) ||
      b.size() != size_t(s.batch * s.k * s.n) || c.size() != outSize ||
      result.size() != outSize)
    return ex.fail(op, "tl.dot of tiles of " + llvm::Twine(a.size()) + ", " +
                           llvm::Twine(b.size()) + " and " +
                           llvm::Twine(c.size()) + " elements at " +
                           ex.program());

  // Element (p, i, j) of the result; `row` and `col` are where row i of a
  // and column j of b start, each with stride 1 along k.
  auto forEach = [&](auto &&body) {
    for (int64_t p = 0; p < s.batch; ++p)
      for (int64_t i = 0; i < s.m; ++i)
        for (int64_t j = 0; j < s.n; ++j)
          body(size_t((p * s.m + i) * s.n + j), size_t((p * s.m + i) * s.k),
               size_t((p * s.n + j) * s.k), p, i, j);
  };

  ElemKind in = a.kind;
  if (in == ElemKind::I8) {
    forEach([&](size_t out, size_t, size_t, int64_t p, int64_t i, int64_t j) {
      uint32_t acc = uint32_t(c.ints[out]);
      for (int64_t kk = 0; kk < s.k; ++kk)
        acc += uint32_t(a.ints[size_t((p * s.m + i) * s.k + kk)] *
                        b.ints[size_t((p * s.k + kk) * s.n + j)]);
      result.ints[out] = int32_t(acc);
    });
    return success();
  }
  if (in == ElemKind::F64) {
    forEach([&](size_t out, size_t, size_t, int64_t p, int64_t i, int64_t j) {
      double acc = c.floats[out];
      for (int64_t kk = 0; kk < s.k; ++kk)
        acc = std::fma(a.floats[size_t((p * s.m + i) * s.k + kk)],
                       b.floats[size_t((p * s.k + kk) * s.n + j)], acc);
      result.floats[out] = acc;
    });
    return success();
  }
  // fp8 products are exact in fp32, as fp16's are.
  if (!isSmallFloat(in) && in != ElemKind::F32)
    return ex.fail(op, llvm::Twine("the interpreter has no dot of ") +
                           kindName(in) + " tiles");

  tile::InputPrecision precision = dot.getPrecision();
  bool isF32 = in == ElemKind::F32;
  std::vector<float> &operands = ex.dotScratch;
  loadF32Operands(s, a, b, precision, isF32, operands);
  size_t bOffset = size_t(s.batch * s.m * s.k);
  size_t smallOffset = bOffset + size_t(s.batch * s.k * s.n);
  const float *big = operands.data();
  bool split = isF32 && precision == tile::InputPrecision::TF32x3;
  ElemKind out = result.kind; // f32, or f16 for f16 inputs
  forEach([&](size_t o, size_t row, size_t col, int64_t, int64_t, int64_t) {
    // Products of f16, bf16 and tf32 values are exact in f32, so fmaf is
    // one rounding of the sum, as for ieee.
    float acc = float(c.floats[o]);
    const float *x = big + row, *y = big + bOffset + col;
    if (split) {
      const float *xs = big + smallOffset + row;
      const float *ys = big + smallOffset + bOffset + col;
      for (int64_t kk = 0; kk < s.k; ++kk) {
        float lo1 = xs[kk] * y[kk], lo2 = x[kk] * ys[kk];
        if (!std::isnan(lo1))
          acc += lo1;
        if (!std::isnan(lo2))
          acc += lo2;
        acc = std::fmaf(x[kk], y[kk], acc);
      }
    } else {
      for (int64_t kk = 0; kk < s.k; ++kk)
        acc = std::fmaf(x[kk], y[kk], acc);
    }
    result.floats[o] = roundFloat(double(acc), out);
  });
  return success();
}
