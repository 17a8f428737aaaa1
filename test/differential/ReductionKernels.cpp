//===- ReductionKernels.cpp - tl.sum/max/min and a row softmax ------------===//
//
// reduce: a [BM, BN] tile of an M x N matrix (row- or column-major), an
// ExprBuilder computation of it, the masked positions replaced by the
// reduction's identity (tl.where, or the load's `other=` when the value is
// the load itself), and tl.sum / tl.max / tl.min along axis 1 or 0 (kept
// dims or not) or over the whole tile. One block may span the reduced
// extent, or a `for` loop over it with a runtime bound accumulates
// (acc + tl.sum, tl.maximum(acc, tl.max)). Sums of floats run in their own
// dtype, through .to(tl.float32), or with dtype=tl.float32.
//
// The reference reduces tile by tile as the kernel does (the identity in
// the padding included), so that NaNs, which max and min pass over, land
// as they do in the kernel.
//
// softmax: rows of up to 2048 in one block: max, exp(x - max), sum, divide,
// with the reductions broadcast back (`m[:, None]`).
//
//===----------------------------------------------------------------------===//

#include "CaseBuilder.h"
#include "ExprBuilder.h"
#include "Families.h"

#include <algorithm>
#include <cmath>
#include <sstream>

using namespace difftest;

namespace {

enum class Kind { Sum, Max, Min };

/// The identity of the reduction for a value of dtype `dt`.
double identity(Kind kind, DType dt) {
  if (kind == Kind::Sum)
    return 0;
  double big = isFloat(dt) ? INFINITY : double(info(dt).max);
  double small = isFloat(dt) ? -INFINITY : double(info(dt).min);
  return kind == Kind::Max ? small : big;
}

double combine(Kind kind, double a, double b) {
  switch (kind) {
  case Kind::Sum:
    return a + b;
  case Kind::Max:
    return std::isnan(a) ? b : std::isnan(b) ? a : std::max(a, b);
  default:
    return std::isnan(a) ? b : std::isnan(b) ? a : std::min(a, b);
  }
}

double wrap32(double v) { return double(int32_t(uint32_t(int64_t(v)))); }

} // namespace

KernelCase difftest::reduceCase(Rng &rng) {
  KernelCase c;
  c.family = "reduce";
  CaseBuilder cb(rng, c);
  int M = randomExtent(rng, 400), N = randomExtent(rng, 2500);
  while (int64_t(M) * N > 60000)
    (M > N ? M : N) /= 2;
  Kind kind = Kind(rng.weighted({2, 1, 1}));
  // axis 1, axis 0, or the whole tile (-1)
  int axis = int(rng.weighted({4, 3, 1.5})) == 2 ? -1 : int(rng.range(0, 1));
  bool keepDims = axis >= 0 && rng.chance(0.25);
  DType xdt = randomDType(rng);
  bool special = isFloat(xdt) && rng.chance(0.1);
  bool twoInputs = rng.chance(0.3);

  // Extents along the kept and the reduced axes.
  int kept = axis == 0 ? N : M, reduced = axis == 0 ? M : N;
  int BK = randomPow2(rng, 1, 64); // along the kept axis
  int BR;                          // along the reduced axis
  bool loop;
  if (axis < 0) {
    BR = randomPow2(rng, 1, 128);
    loop = false;
  } else if (reduced <= 2048 && rng.chance(0.45)) {
    BR = nextPow2(reduced);
    loop = false;
  } else {
    BR = randomPow2(rng, 1, 256);
    loop = true;
  }
  while (BK * BR > 8192)
    BK /= 2;
  int BM = axis == 0 ? BR : BK, BN = axis == 0 ? BK : BR;

  // Inputs: x (and y) of M x N, row- or column-major.
  bool colMajor = rng.chance(0.3);
  int64_t sm = colMajor ? 1 : N, sn = colMajor ? M : 1;
  DataKind dataKind = randomKind(rng, special);
  Data x = randomData(rng, xdt, size_t(M) * size_t(N), dataKind);
  cb.buffer("x_ptr", xdt, x.values, false);
  DType ydt = xdt;
  Data y;
  if (twoInputs) {
    ydt = isFloat(xdt) ? (xdt == DType::F32 ? randomDType(rng) : xdt)
                       : rng.pick({DType::I32, DType::I8});
    y = randomData(rng, ydt, size_t(M) * size_t(N), randomKind(rng, special));
    cb.buffer("y_ptr", ydt, y.values, false);
  }

  std::vector<std::string> exprLines;
  std::string in = loop ? "        " : "    ";
  ExprBuilder e(rng, exprLines, in, "t", {});
  int xLeaf = e.leaf("x", xdt, x.mag, x.q, x.special);
  int yLeaf = twoInputs ? e.leaf("y", ydt, y.mag, y.q, y.special) : -1;
  int ops = twoInputs         ? int(rng.range(1, 5))
            : rng.chance(0.4) ? 0
                              : int(rng.range(1, 4));
  int value = ops == 0 ? xLeaf : e.random(ops);
  const Node &v = e.node(value);
  DType vdt = v.dt;
  bool viaOther = ops == 0 && rng.chance(0.5);
  double ident = identity(kind, vdt);
  double other = viaOther ? ident : randomOther(rng, xdt, special);

  // What tl.sum / tl.max return, and how the kernel calls them.
  enum { Native, CastFirst, DTypeArg } sumForm = Native;
  DType result;
  if (kind == Kind::Sum) {
    if (isFloat(vdt)) {
      sumForm = decltype(Native)(rng.weighted({1, 1, 1}));
      // An fp16 sum must not overflow in any order.
      if (sumForm == Native && vdt == DType::F16 && v.mag * BR > 3e4)
        sumForm = CastFirst;
      result = sumForm == Native ? vdt : DType::F32;
    } else {
      result = DType::I32;
    }
  } else {
    // Triton's max and min work in fp32 / int32 below 32 bits.
    result = isFloat(vdt) ? DType::F32 : DType::I32;
  }
  // The accumulator across the loop: fp32 for floats, int32 for integers.
  DType accDt = isFloat(result) ? DType::F32 : DType::I32;
  DType finalDt = loop ? accDt : result;
  DType outDt = finalDt;
  double R = reduced;
  if (axis < 0)
    R = double(BM) * BN;
  if (isFloat(finalDt)) {
    bool smallEnough = v.mag * R <= 3e4 || kind != Kind::Sum;
    if (rng.chance(0.4))
      outDt = rng.pick({DType::F32, DType::BF16});
    if (smallEnough && rng.chance(0.25))
      outDt = DType::F16;
    if (outDt == DType::F16 && vdt == DType::BF16)
      outDt = DType::F32;
  } else if (kind != Kind::Sum && vdt == DType::I8 && rng.chance(0.5)) {
    outDt = DType::I8; // max/min of int8 fits back
  }

  size_t outSize =
      axis < 0 ? size_t(cdiv(M, BM)) * size_t(cdiv(N, BN)) : size_t(kept);
  size_t out = cb.output("out_ptr", outDt, outSize);
  cb.scalarInt("M", M);
  cb.scalarInt("N", N);
  cb.scalarInt("stride_m", int32_t(sm));
  cb.scalarInt("stride_n", int32_t(sn));

  // The kernel.
  const char *fn = kind == Kind::Sum   ? "tl.sum"
                   : kind == Kind::Max ? "tl.max"
                                       : "tl.min";
  std::vector<std::string> body;
  std::string s = "    ";
  std::string identText = literal(ident, isFloat(vdt));
  std::string reducedAxis = axis == 0 ? "0" : "1";
  auto reduceCall = [&](const std::string &operand) {
    std::string arg = operand;
    std::string extra;
    if (kind == Kind::Sum && sumForm == CastFirst)
      arg = operand + ".to(tl.float32)";
    if (axis >= 0)
      extra += ", axis=" + reducedAxis;
    if (keepDims)
      extra += ", keep_dims=True";
    if (kind == Kind::Sum && sumForm == DTypeArg)
      extra += ", dtype=tl.float32";
    return std::string(fn) + "(" + arg + extra + ")";
  };
  std::string keptShape = keepDims ? (axis == 0 ? "(1, BN)" : "(BM, 1)")
                                   : (axis == 0 ? "(BN,)" : "(BM,)");
  if (axis < 0) {
    body.push_back(s + "pid_m = tl.program_id(0)");
    body.push_back(s + "pid_n = tl.program_id(1)");
    body.push_back(s + "rm = pid_m * BM + tl.arange(0, BM)");
    body.push_back(s + "rn = pid_n * BN + tl.arange(0, BN)");
  } else if (axis == 1) {
    body.push_back(s + "pid = tl.program_id(0)");
    body.push_back(s + "rm = pid * BM + tl.arange(0, BM)");
  } else {
    body.push_back(s + "pid = tl.program_id(0)");
    body.push_back(s + "rn = pid * BN + tl.arange(0, BN)");
  }
  if (loop) {
    if (kind == Kind::Sum)
      body.push_back(s + "acc = tl.zeros(" + keptShape +
                     ", dtype=" + tlName(accDt) + ")");
    else
      body.push_back(s + "acc = tl.full(" + keptShape + ", " +
                     literal(identity(kind, accDt), isFloat(accDt)) + ", " +
                     tlName(accDt) + ")");
    if (axis == 1) {
      body.push_back(s + "for n0 in range(0, N, BN):");
      body.push_back(s + "    rn = n0 + tl.arange(0, BN)");
    } else {
      body.push_back(s + "for m0 in range(0, M, BM):");
      body.push_back(s + "    rm = m0 + tl.arange(0, BM)");
    }
  } else if (axis == 1) {
    body.push_back(s + "rn = tl.arange(0, BN)");
  } else if (axis == 0) {
    body.push_back(s + "rm = tl.arange(0, BM)");
  }
  body.push_back(in + "mask = (rm[:, None] < M) & (rn[None, :] < N)");
  body.push_back(in +
                 "x = tl.load(x_ptr + rm[:, None] * stride_m + rn[None, :] "
                 "* stride_n, mask=mask, other=" +
                 literal(other, isFloat(xdt)) + ")");
  if (twoInputs)
    body.push_back(in +
                   "y = tl.load(y_ptr + rm[:, None] * stride_m + rn[None, "
                   ":] * stride_n, mask=mask, other=" +
                   literal(randomOther(rng, ydt, false), isFloat(ydt)) + ")");
  body.insert(body.end(), exprLines.begin(), exprLines.end());
  std::string operand = v.text;
  if (!viaOther) {
    body.push_back(in + "v = tl.where(mask, " + v.text + ", " + identText +
                   ")");
    operand = "v";
  }
  std::string keptMask = axis == 0 ? "rn < N" : "rm < M";
  std::string keptOffsets = axis == 0 ? "rn" : "rm";
  if (keepDims) {
    keptMask = axis == 0 ? "rn[None, :] < N" : "rm[:, None] < M";
    keptOffsets = axis == 0 ? "rn[None, :]" : "rm[:, None]";
  }
  std::string castOut =
      outDt == finalDt ? "" : std::string(".to(") + tlName(outDt) + ")";
  if (axis < 0) {
    body.push_back(s + "total = " + reduceCall(operand));
    body.push_back(s +
                   "tl.store(out_ptr + pid_m * tl.num_programs(1) + pid_n, "
                   "total" +
                   castOut + ")");
  } else if (loop) {
    if (kind == Kind::Sum)
      body.push_back(in + "acc = acc + " + reduceCall(operand));
    else
      body.push_back(
          in + "acc = " + (kind == Kind::Max ? "tl.maximum" : "tl.minimum") +
          "(acc, " + reduceCall(operand) + ")");
    body.push_back(s + "tl.store(out_ptr + " + keptOffsets + ", acc" + castOut +
                   ", mask=" + keptMask + ")");
  } else {
    body.push_back(s + "r = " + reduceCall(operand));
    body.push_back(s + "tl.store(out_ptr + " + keptOffsets + ", r" + castOut +
                   ", mask=" + keptMask + ")");
  }
  cb.constexprInt("BM", BM);
  cb.constexprInt("BN", BN);
  cb.finish("reduce_kernel", body);
  cb.randomTarget();
  if (axis < 0) {
    c.grid[0] = unsigned(cdiv(M, BM));
    c.grid[1] = unsigned(cdiv(N, BN));
  } else {
    c.grid[0] = unsigned(cdiv(kept, BK));
  }

  // The reference: each output reduces its (padded) extent chunk by chunk.
  Buffer &o = c.buffers[out];
  o.expected = o.init;
  o.tolerance.assign(o.size(), 0);
  std::vector<double> leaves(e.leafCount()), regs;
  auto valueAt = [&](int64_t r, int64_t col) {
    if (r >= M || col >= N)
      return ident;
    size_t at = size_t(r * sm + col * sn);
    leaves[size_t(e.node(xLeaf).leaf)] = x.values[at];
    if (twoInputs)
      leaves[size_t(e.node(yLeaf).leaf)] = y.values[at];
    e.evaluate(leaves, regs);
    return regs[size_t(value)];
  };
  double uSum = kind == Kind::Sum && sumForm == Native
                    ? unitRoundoff(vdt)
                    : unitRoundoff(DType::F32);
  int precision = kind == Kind::Sum && sumForm == Native
                      ? (isFloat(vdt) ? info(vdt).precision : 0)
                      : 24;
  auto finish = [&](size_t index, const std::vector<double> &chunks,
                    double magnitudes, double count) {
    double r;
    if (!isFloat(result)) {
      // Integers: wrapped sums (order does not matter) or exact max/min.
      double total = kind == Kind::Sum ? 0 : identity(kind, DType::I32);
      for (double chunk : chunks)
        total = kind == Kind::Sum ? wrap32(total + chunk)
                                  : combine(kind, total, chunk);
      r = roundTo(outDt, total);
      o.expected[index] = r;
      return;
    }
    double total = loop ? identity(kind, DType::F32) : chunks[0];
    if (loop)
      for (double chunk : chunks)
        total = combine(kind, total, chunk);
    r = roundTo(outDt, total);
    o.expected[index] = r;
    double tolerance = 0;
    if (kind == Kind::Sum) {
      bool exact = v.err == 0 && v.q >= 0 && v.q <= 20 &&
                   std::ldexp(magnitudes, v.q) <= std::ldexp(1.0, precision);
      if (!exact)
        tolerance =
            count * v.err + 8 * uSum * (std::sqrt(count) + 2) * magnitudes;
    } else {
      tolerance = v.err;
    }
    if (tolerance > 0 && outDt != DType::F32)
      tolerance += roundingBound(outDt, std::fabs(total));
    o.tolerance[index] = 2 * tolerance;
  };
  // Reduces [r0, r0 + rows) x [c0, c0 + cols) along `along` (0: rows).
  auto reduceBlock = [&](int64_t r0, int64_t c0, int64_t rows, int64_t cols,
                         double &magnitudes) {
    double total = kind == Kind::Sum ? 0 : identity(kind, DType::F32);
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j) {
        double t = valueAt(r0 + i, c0 + j);
        if (std::isfinite(t))
          magnitudes += std::fabs(t);
        total = combine(kind, total, t);
      }
    if (kind == Kind::Sum && isFloat(result) && sumForm == Native)
      total = roundTo(vdt, total); // the chunk's sum is of the value's dtype
    return total;
  };
  if (axis < 0) {
    for (int64_t pm = 0; pm < cdiv(M, BM); ++pm)
      for (int64_t pn = 0; pn < cdiv(N, BN); ++pn) {
        double magnitudes = 0;
        double t = reduceBlock(pm * BM, pn * BN, BM, BN, magnitudes);
        finish(size_t(pm * cdiv(N, BN) + pn), {t}, magnitudes, R);
      }
  } else {
    for (int64_t k = 0; k < kept; ++k) {
      std::vector<double> chunks;
      double magnitudes = 0;
      for (int64_t r0 = 0; r0 < (loop ? reduced : 1); r0 += BR) {
        int64_t extent = BR;
        chunks.push_back(axis == 1 ? reduceBlock(k, r0, 1, extent, magnitudes)
                                   : reduceBlock(r0, k, extent, 1, magnitudes));
      }
      finish(size_t(k), chunks, magnitudes, R);
    }
  }
  c.reference = true;

  std::ostringstream d;
  const char *kinds[] = {"sum", "max", "min"};
  d << kinds[int(kind)] << " "
    << (axis < 0    ? "whole tile"
        : axis == 0 ? "axis 0"
                    : "axis 1")
    << (keepDims ? " keep_dims" : "") << (loop ? " loop" : " one block")
    << ", M=" << M << " N=" << N << ", BM=" << BM << " BN=" << BN << ", "
    << sigName(xdt) << (twoInputs ? std::string("+") + sigName(ydt) : "")
    << (colMajor ? " column-major" : "") << " -> " << sigName(vdt) << " -> "
    << sigName(outDt) << ", " << ops << " ops";
  c.summary = d.str();
  return c;
}

KernelCase difftest::softmaxCase(Rng &rng) {
  KernelCase c;
  c.family = "softmax";
  CaseBuilder cb(rng, c);
  int M = randomExtent(rng, 300), N = randomExtent(rng, 2048);
  while (int64_t(M) * N > 60000)
    M = std::max(1, M / 2);
  int BN = nextPow2(N);
  enum {
    OneRow,
    Rows,
    GridStride
  } mode = decltype(OneRow)(rng.weighted({2, 2, 1}));
  int BM = mode == Rows ? randomPow2(rng, 1, std::max(1, 8192 / BN)) : 1;
  bool keepDims = mode == Rows && rng.chance(0.4);
  DType xdt = randomDType(rng, false);
  DType outDt = rng.chance(0.5) ? DType::F32 : xdt;
  double a = rng.pick({1.0, 4.0, 20.0});
  if (xdt == DType::F16)
    a = std::min(a, 4.0);
  std::vector<double> xs(size_t(M) * size_t(N));
  int64_t ld = N + (rng.chance(0.3) ? rng.range(1, 4) : 0);
  xs.resize(size_t(M - 1) * size_t(ld) + size_t(N));
  for (double &v : xs)
    v = roundTo(xdt, (2 * rng.real() - 1) * a);
  cb.buffer("x_ptr", xdt, xs, false);
  size_t out = cb.output("out_ptr", outDt, size_t(M) * size_t(N));
  c.buffers[out].cols = size_t(N);
  cb.scalarInt("M", M);
  cb.scalarInt("N", N);
  cb.scalarInt("stride_xm", int32_t(ld));
  cb.scalarInt("stride_om", N);

  std::vector<std::string> body;
  std::string s = "    ", cast = outDt == DType::F32 ? ""
                                                     : std::string(".to(") +
                                                           tlName(outDt) + ")";
  if (mode == Rows) {
    body.push_back(s + "rows = tl.program_id(0) * BM + tl.arange(0, BM)");
    body.push_back(s + "cols = tl.arange(0, BN)");
    body.push_back(s + "mask = (rows[:, None] < M) & (cols[None, :] < N)");
    body.push_back(s + "x = tl.load(x_ptr + rows[:, None] * stride_xm + "
                       "cols[None, :], mask=mask, other=float('-inf'))"
                       ".to(tl.float32)");
    if (keepDims) {
      body.push_back(s + "m = tl.max(x, axis=1, keep_dims=True)");
      body.push_back(s + "e = tl.exp(x - m)");
      body.push_back(s + "z = tl.sum(e, axis=1, keep_dims=True)");
      body.push_back(s + "y = e / z");
    } else {
      body.push_back(s + "m = tl.max(x, axis=1)");
      body.push_back(s + "e = tl.exp(x - m[:, None])");
      body.push_back(s + "z = tl.sum(e, axis=1)");
      body.push_back(s + "y = e / z[:, None]");
    }
    body.push_back(s +
                   "tl.store(out_ptr + rows[:, None] * stride_om + "
                   "cols[None, :], y" +
                   cast + ", mask=mask)");
  } else {
    std::string in = s;
    if (mode == GridStride) {
      body.push_back(s + "for row in range(tl.program_id(0), M, "
                         "tl.num_programs(0)):");
      in += "    ";
    } else {
      body.push_back(s + "row = tl.program_id(0)");
    }
    body.push_back(in + "cols = tl.arange(0, BN)");
    body.push_back(in + "mask = cols < N");
    body.push_back(in + "x = tl.load(x_ptr + row * stride_xm + cols, "
                        "mask=mask, other=float('-inf')).to(tl.float32)");
    body.push_back(in + "m = tl.max(x, axis=0)");
    body.push_back(in + "e = tl.exp(x - m)");
    body.push_back(in + "z = tl.sum(e, axis=0)");
    body.push_back(in + "y = e / z");
    body.push_back(in + "tl.store(out_ptr + row * stride_om + cols, y" + cast +
                   ", mask=mask)");
  }
  if (mode == Rows)
    cb.constexprInt("BM", BM);
  cb.constexprInt("BN", BN);
  cb.finish("softmax_kernel", body);
  cb.randomTarget();
  c.grid[0] = unsigned(mode == Rows     ? cdiv(M, BM)
                       : mode == OneRow ? M
                                        : int(rng.range(1, 16)));

  Buffer &o = c.buffers[out];
  o.expected = o.init;
  o.tolerance.assign(o.size(), 0);
  // exp: ex2.approx of (x - m) log2(e), |x - m| <= 2a; the sum and the
  // division add their roundings.
  double rel = 2 * (4 + 8 * a) * 0x1p-23 + (N + 8) * 0x1p-23;
  for (int64_t r = 0; r < M; ++r) {
    double m = -INFINITY, z = 0;
    for (int64_t j = 0; j < N; ++j)
      m = std::max(m, xs[size_t(r * ld + j)]);
    for (int64_t j = 0; j < N; ++j)
      z += std::exp(xs[size_t(r * ld + j)] - m);
    for (int64_t j = 0; j < N; ++j) {
      double yv = std::exp(xs[size_t(r * ld + j)] - m) / z;
      size_t at = size_t(r * N + j);
      o.expected[at] = roundTo(outDt, yv);
      o.tolerance[at] = rel * yv + roundingBound(outDt, yv);
    }
  }
  c.reference = true;
  std::ostringstream d;
  const char *modes[] = {"one row per program", "BM rows per program",
                         "grid-stride rows"};
  d << modes[mode] << (keepDims ? " keep_dims" : "") << ", M=" << M
    << " N=" << N << ", BM=" << BM << " BN=" << BN << ", " << sigName(xdt)
    << " -> " << sigName(outDt) << ", |x| <= " << a;
  c.summary = d.str();
  return c;
}
