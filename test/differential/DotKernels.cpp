//===- DotKernels.cpp - tl.dot in K loops ---------------------------------===//
//
// C = A @ B with M, N, K random (1, primes, anything) and blocks of 16 to
// 128: the tutorial's loop (pointers advanced by BK, `k < K - k * BK`
// masks), offsets recomputed from `range(0, K, BK)`, the tutorial's rows
// and columns wrapped modulo M and N with K-only masks, one block when BK
// covers K, and split-K (programs along z take every SPLIT_K-th block and
// tl.atomic_add into C). A and B row- or column-major (strides of 1 let
// the GPU side specialize them), a 2-D grid or the tutorial's grouped 1-D
// ordering, `acc += tl.dot`, `acc = tl.dot(a, b, acc)`, `tl.range` with
// num_stages. Operands fp16, bf16, fp32 (tf32 by default, tf32x3, ieee),
// fp32 cast to fp16/bf16 in the kernel, and int8 into int32; epilogues scale
// by a runtime alpha, add a broadcast bias and apply a relu.
//
// Operands on grids (small integers, dyadics) make every product and sum
// exact, so those dots are compared exactly; other dots get K-proportional
// bounds over sum |a_ik b_kj| (and tf32's input rounding, where wgmma
// truncates what mma.sync and the interpreter round).
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

enum class Operands { F16, BF16, F32, I8, F32ToF16, F32ToBF16 };
enum class Loop { Tutorial, Offsets, Wrapped, Single, SplitK };

/// Replaces `range(` with `tl.range(` and num_stages, for pipelining hints.
std::string withStages(const std::string &loop, int stages, bool specialize) {
  if (stages <= 0)
    return loop;
  std::string s = loop;
  size_t at = s.find("range(");
  size_t close = s.rfind("):");
  s = s.substr(0, close) + ", num_stages=" + std::to_string(stages) +
      (specialize ? ", warp_specialize=True" : "") + "):";
  return s.substr(0, at) + "tl." + s.substr(at);
}

} // namespace

KernelCase difftest::dotCase(Rng &rng) {
  KernelCase c;
  c.family = "dot";
  CaseBuilder cb(rng, c);
  int M = randomExtent(rng, 200), N = randomExtent(rng, 200),
      K = randomExtent(rng, 400);
  // Multiples of 16: 16-byte aligned rows, the GPU's bulk copies and
  // stores.
  bool aligned = rng.chance(0.35);
  if (aligned) {
    M = 16 * int(rng.range(1, 12));
    N = 16 * int(rng.range(1, 12));
    K = 16 * int(rng.range(1, 20));
  }
  while (double(M) * N * K > 3e6) {
    int &biggest = M >= N && M >= K ? M : N >= K ? N : K;
    biggest = std::max(1, biggest / 2);
  }
  Operands ops = Operands(rng.weighted({3, 2, 3, 1.5, 0.5, 0.5}));
  DType loadDt, dotDt;
  switch (ops) {
  case Operands::F16:
    loadDt = dotDt = DType::F16;
    break;
  case Operands::BF16:
    loadDt = dotDt = DType::BF16;
    break;
  case Operands::F32:
    loadDt = dotDt = DType::F32;
    break;
  case Operands::I8:
    loadDt = dotDt = DType::I8;
    break;
  case Operands::F32ToF16:
    loadDt = DType::F32, dotDt = DType::F16;
    break;
  default:
    loadDt = DType::F32, dotDt = DType::BF16;
    break;
  }
  bool ints = dotDt == DType::I8;
  // fp32's precision: the default (tf32), or spelled out.
  std::string precision;
  enum { TF32, TF32x3, IEEE } prec = TF32;
  if (dotDt == DType::F32) {
    switch (rng.weighted({2, 1, 1, 1.5, 0.5})) {
    case 0:
      break;
    case 1:
      precision = ", input_precision=\"tf32\"";
      break;
    case 2:
      precision = ", input_precision=\"tf32x3\"", prec = TF32x3;
      break;
    case 3:
      precision = ", input_precision=\"ieee\"", prec = IEEE;
      break;
    default:
      precision = ", allow_tf32=False", prec = IEEE;
      break;
    }
  }
  bool accF16 = dotDt == DType::F16 && rng.chance(0.1);
  DType accDt = ints ? DType::I32 : accF16 ? DType::F16 : DType::F32;

  Loop loop = Loop(rng.weighted({3, 2, 1.5, 1, 1.5}));
  int BM = randomPow2(rng, 16, rng.chance(0.15) ? 256 : 128),
      BN = randomPow2(rng, 16, 128);
  while (BM * BN > 16384)
    (BM > BN ? BM : BN) /= 2;
  int BK = randomPow2(rng, ints ? 32 : 16, 64);
  if (loop == Loop::Single) {
    if (K <= 128)
      BK = std::max(nextPow2(K), ints ? 32 : 16);
    else
      loop = Loop::Offsets;
  }
  int splitK = loop == Loop::SplitK ? int(rng.range(2, 4)) : 1;
  if (loop == Loop::SplitK && accF16)
    accF16 = false, accDt = DType::F32;
  bool grouped = loop != Loop::SplitK && rng.chance(0.35);
  int groupM = grouped ? int(rng.pick({1, 2, 4, 8})) : 0;
  int stages = rng.chance(0.2) ? int(rng.range(1, 4)) : 0;
  // tl.range(..., warp_specialize=True): a producer warpgroup of copies on
  // sm_90a.
  bool specialize = stages > 0 && rng.chance(0.3);
  c.numStages = unsigned(rng.range(1, 4));

  // Data: grids (exact) or uniform.
  DataKind kind = ints ? DataKind::SmallInt : randomKind(rng, false);
  if (kind == DataKind::SmallInt && !ints && rng.chance(0.5))
    kind = DataKind::Dyadic;
  bool aColMajor = rng.chance(0.3), bColMajor = rng.chance(0.3);
  // Rows whose stride's largest power-of-two divisor is 2, 4 or 8 (the
  // JIT's i32:2 to i32:8): vector loads and bulk copies where the bytes
  // allow them, and, rows of fp16 16 bytes off 32-byte sectors, copies
  // that neighbouring programs of large tiles share.
  int64_t divisor = rng.chance(0.25) ? rng.pick({2, 4, 8}) : 0;
  auto exactly = [&](int64_t extent) {
    int64_t stride = (extent + divisor - 1) / divisor * divisor;
    return stride % (2 * divisor) ? stride : stride + divisor;
  };
  int64_t sam =
      aColMajor  ? 1
      : divisor ? exactly(K)
          : K + (rng.chance(0.15)
                     ? 16 * rng.range(0, 2) + (aligned ? 0 : rng.range(1, 8))
                     : 0);
  int64_t sak = aColMajor ? M : 1;
  int64_t sbk =
      bColMajor  ? 1
      : divisor ? exactly(N)
          : N + (rng.chance(0.15)
                     ? 16 * rng.range(0, 2) + (aligned ? 0 : rng.range(1, 8))
                     : 0);
  int64_t sbn = bColMajor ? K : 1;
  size_t aSize = size_t((M - 1) * sam + (K - 1) * sak + 1);
  size_t bSize = size_t((K - 1) * sbk + (N - 1) * sbn + 1);
  Data a = randomData(rng, loadDt, aSize, kind);
  Data b = randomData(rng, loadDt, bSize, kind);
  if (!ints && kind == DataKind::Uniform) {
    // Uniform operands of magnitude about 1.
    for (Data *d : {&a, &b})
      for (double &v : d->values)
        v = roundTo(loadDt, std::fmod(v, 1.0));
    a.mag = b.mag = 1;
  }
  // fp16 must hold every sum (an fp16 accumulator, an fp16 output).
  double largest = double(K) * a.mag * b.mag;
  if (accF16 && largest > 3e4) {
    accF16 = false;
    accDt = DType::F32;
  }
  cb.buffer("a_ptr", loadDt, a.values, false);
  cb.buffer("b_ptr", loadDt, b.values, false);

  // The epilogue (not with split-K, which adds the raw products).
  bool scale = !ints && loop != Loop::SplitK && rng.chance(0.3);
  bool bias = loop != Loop::SplitK && rng.chance(0.3);
  bool relu = loop != Loop::SplitK && rng.chance(0.3);
  DType outDt = accDt;
  if (!ints && loop != Loop::SplitK && rng.chance(0.5))
    outDt = dotDt == DType::BF16  ? DType::BF16
            : dotDt == DType::F16 ? DType::F16
                                  : rng.pick({DType::F16, DType::BF16});
  if (loop == Loop::SplitK)
    outDt = ints ? DType::I32 : DType::F32;
  if (outDt == DType::F16 && !accF16 && largest * std::fabs(2.0) + 100 > 3e4)
    outDt = DType::F32;

  // C column-major (stride 1 along M), as an output written transposed:
  // on sm_90a its bulk store's shared tile is M-contiguous.
  bool cColMajor = rng.chance(0.25);
  int64_t ld = (cColMajor ? M : N) +
               (rng.chance(0.3) ? (aligned ? 16 : rng.range(1, 5)) : 0);
  size_t cSize = size_t(cColMajor ? N : M) * size_t(ld);
  // Split-K adds into C: start it on the operands' grid.
  Data cInit = randomData(rng, outDt, cSize,
                          loop == Loop::SplitK && kind != DataKind::Uniform
                              ? DataKind::SmallInt
                              : DataKind::Uniform);
  size_t cOut = cb.buffer("c_ptr", outDt, cInit.values, true);
  c.buffers[cOut].cols = size_t(ld);
  Data biasData;
  DType biasDt = ints ? DType::I32 : DType::F32;
  if (bias) {
    biasData = randomData(rng, biasDt, size_t(N),
                          kind == DataKind::Uniform ? DataKind::Uniform
                                                    : DataKind::SmallInt);
    cb.buffer("bias_ptr", biasDt, biasData.values, false);
  }
  cb.scalarInt("M", M);
  cb.scalarInt("N", N);
  cb.scalarInt("K", K);
  cb.scalarInt("stride_am", int32_t(sam));
  cb.scalarInt("stride_ak", int32_t(sak));
  cb.scalarInt("stride_bk", int32_t(sbk));
  cb.scalarInt("stride_bn", int32_t(sbn));
  cb.scalarInt("stride_cm", cColMajor ? 1 : int32_t(ld));
  cb.scalarInt("stride_cn", cColMajor ? int32_t(ld) : 1);
  float alpha = scale ? float(rng.pick({0.5, 2.0, -1.5, 0.25})) : 1.0f;
  if (scale)
    cb.scalarFloat("alpha", alpha);

  // The kernel.
  std::vector<std::string> body;
  std::string s = "    ", in = "        ";
  if (grouped) {
    body.push_back(s + "pid = tl.program_id(0)");
    body.push_back(s + "num_pid_m = tl.cdiv(M, BM)");
    body.push_back(s + "num_pid_n = tl.cdiv(N, BN)");
    body.push_back(s + "num_pid_in_group = GROUP_M * num_pid_n");
    body.push_back(s + "group_id = pid // num_pid_in_group");
    body.push_back(s + "first_pid_m = group_id * GROUP_M");
    body.push_back(s + "group_size_m = min(num_pid_m - first_pid_m, GROUP_M)");
    body.push_back(s + "pid_m = first_pid_m + ((pid % num_pid_in_group) % "
                       "group_size_m)");
    body.push_back(s + "pid_n = (pid % num_pid_in_group) // group_size_m");
  } else {
    body.push_back(s + "pid_m = tl.program_id(0)");
    body.push_back(s + "pid_n = tl.program_id(1)");
  }
  if (loop == Loop::SplitK)
    body.push_back(s + "pid_k = tl.program_id(2)");
  body.push_back(s + "offs_m = pid_m * BM + tl.arange(0, BM)");
  body.push_back(s + "offs_n = pid_n * BN + tl.arange(0, BN)");
  body.push_back(s + "offs_k = tl.arange(0, BK)");
  body.push_back(s + "acc = tl.zeros((BM, BN), dtype=" + tlName(accDt) + ")");

  std::string other = ints ? "0" : "0.0";
  std::string cast =
      loadDt == dotDt ? "" : std::string(".to(") + tlName(dotDt) + ")";
  std::string outDtype = accF16 ? ", out_dtype=tl.float16" : "";
  std::string dotArgs = precision + outDtype;
  std::string dot;
  switch (rng.weighted({2, 1.5, 1})) {
  case 0:
    dot = "acc += tl.dot(a" + cast + ", b" + cast + dotArgs + ")";
    break;
  case 1:
    dot = "acc = tl.dot(a" + cast + ", b" + cast + ", acc" + dotArgs + ")";
    break;
  default:
    dot = "acc = acc + tl.dot(a" + cast + ", b" + cast + dotArgs + ")";
    break;
  }
  auto offsetLoads = [&](const std::string &ks, const std::string &indent) {
    body.push_back(indent +
                   "a = tl.load(a_ptr + offs_m[:, None] * stride_am + " + ks +
                   "[None, :] * stride_ak, mask=(offs_m[:, None] < M) & (" +
                   ks + "[None, :] < K), other=" + other + ")");
    body.push_back(indent + "b = tl.load(b_ptr + " + ks +
                   "[:, None] * stride_bk + offs_n[None, :] * stride_bn, "
                   "mask=(" +
                   ks +
                   "[:, None] < K) & (offs_n[None, :] < N), "
                   "other=" +
                   other + ")");
  };
  switch (loop) {
  case Loop::Tutorial:
    body.push_back(s + "a_ptrs = a_ptr + offs_m[:, None] * stride_am + "
                       "offs_k[None, :] * stride_ak");
    body.push_back(s + "b_ptrs = b_ptr + offs_k[:, None] * stride_bk + "
                       "offs_n[None, :] * stride_bn");
    body.push_back(withStages(s + "for k in range(0, tl.cdiv(K, BK)):", stages,
                              specialize));
    body.push_back(in +
                   "a = tl.load(a_ptrs, mask=(offs_m[:, None] < M) & "
                   "(offs_k[None, :] < K - k * BK), other=" +
                   other + ")");
    body.push_back(in +
                   "b = tl.load(b_ptrs, mask=(offs_k[:, None] < K - k * "
                   "BK) & (offs_n[None, :] < N), other=" +
                   other + ")");
    body.push_back(in + dot);
    body.push_back(in + "a_ptrs += BK * stride_ak");
    body.push_back(in + "b_ptrs += BK * stride_bk");
    break;
  case Loop::Wrapped:
    body.push_back(s + "offs_am = (pid_m * BM + tl.arange(0, BM)) % M");
    body.push_back(s + "offs_bn = (pid_n * BN + tl.arange(0, BN)) % N");
    body.push_back(s + "a_ptrs = a_ptr + (offs_am[:, None] * stride_am + "
                       "offs_k[None, :] * stride_ak)");
    body.push_back(s + "b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + "
                       "offs_bn[None, :] * stride_bn)");
    body.push_back(withStages(s + "for k in range(0, tl.cdiv(K, BK)):", stages,
                              specialize));
    body.push_back(in +
                   "a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BK, "
                   "other=" +
                   other + ")");
    body.push_back(in +
                   "b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BK, "
                   "other=" +
                   other + ")");
    body.push_back(in + dot);
    body.push_back(in + "a_ptrs += BK * stride_ak");
    body.push_back(in + "b_ptrs += BK * stride_bk");
    break;
  case Loop::Offsets:
    body.push_back(
        withStages(s + "for k0 in range(0, K, BK):", stages, specialize));
    body.push_back(in + "ks = k0 + offs_k");
    offsetLoads("ks", in);
    body.push_back(in + dot);
    break;
  case Loop::SplitK:
    body.push_back(withStages(
        s + "for k in range(pid_k, tl.cdiv(K, BK), SPLIT_K):", stages,
        specialize));
    body.push_back(in + "ks = k * BK + offs_k");
    offsetLoads("ks", in);
    body.push_back(in + dot);
    break;
  case Loop::Single:
    offsetLoads("offs_k", s);
    body.push_back(s + dot);
    break;
  }
  if (scale)
    body.push_back(s + "acc = acc * alpha");
  if (bias) {
    body.push_back(s +
                   "bias = tl.load(bias_ptr + offs_n, mask=offs_n < N, "
                   "other=" +
                   other + ")");
    body.push_back(s + "acc = acc + bias[None, :]");
  }
  if (relu)
    body.push_back(s + "acc = tl.maximum(acc, " + other + ")");
  body.push_back(s + "c_ptrs = c_ptr + stride_cm * offs_m[:, None] + stride_cn "
                     "* offs_n[None, :]");
  body.push_back(s + "c_mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)");
  std::string result = outDt == accDt || loop == Loop::SplitK
                           ? "acc"
                           : std::string("acc.to(") + tlName(outDt) + ")";
  if (accF16 && (scale || bias) && outDt == DType::F16)
    result = "acc.to(tl.float16)";
  if (loop == Loop::SplitK) {
    std::string sem =
        rng.chance(0.3) ? std::string(", sem=\"") +
                              rng.pick({"relaxed", "acq_rel", "release"}) + "\""
                        : "";
    body.push_back(s + "tl.atomic_add(c_ptrs, acc, mask=c_mask" + sem + ")");
  } else {
    body.push_back(s + "tl.store(c_ptrs, " + result + ", mask=c_mask)");
  }
  cb.constexprInt("BM", BM);
  cb.constexprInt("BN", BN);
  cb.constexprInt("BK", BK);
  if (grouped)
    cb.constexprInt("GROUP_M", groupM);
  if (loop == Loop::SplitK)
    cb.constexprInt("SPLIT_K", splitK);
  cb.finish("matmul_kernel", body);
  cb.randomTarget();
  // Programs run as clusters that split the K loop (sm_90+; kernels the
  // split does not take stay one CTA per program).
  if (c.arch != "sm_80" && rng.chance(0.3))
    c.clusterSplitK = unsigned(rng.pick({2, 4}));
  if (grouped) {
    c.grid[0] = unsigned(cdiv(M, BM) * cdiv(N, BN));
  } else {
    c.grid[0] = unsigned(cdiv(M, BM));
    c.grid[1] = unsigned(cdiv(N, BN));
  }
  c.grid[2] = unsigned(splitK);

  // The reference.
  Buffer &out = c.buffers[cOut];
  out.expected = out.init;
  out.tolerance.assign(out.size(), 0);
  auto operand = [&](const Data &d, size_t at) {
    return roundTo(dotDt, d.values[at]);
  };
  // tf32 reads the operands rounded (or truncated) to 10 mantissa bits:
  // exact when they are on a grid that fits.
  bool tf32 = dotDt == DType::F32 && prec != IEEE;
  bool operandsExact =
      !tf32 || (a.q >= 0 && b.q >= 0 &&
                std::ldexp(std::max(a.mag, b.mag), std::max(a.q, b.q)) <= 2048);
  int q = ints ? 0 : (a.q < 0 || b.q < 0 ? -1 : a.q + b.q);
  int accPrecision = accDt == DType::F16 ? 11 : 24;
  double uAcc = accDt == DType::F16 ? 0x1p-11 : 0x1p-24;
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      double sum = 0, magnitudes = 0;
      for (int64_t k = 0; k < K; ++k) {
        double p = operand(a, size_t(i * sam + k * sak)) *
                   operand(b, size_t(k * sbk + j * sbn));
        sum += p;
        magnitudes += std::fabs(p);
      }
      size_t at = size_t(cColMajor ? j * ld + i : i * ld + j);
      double init = loop == Loop::SplitK ? out.init[at] : 0;
      double tolerance = 0;
      if (ints) {
        double v = double(int32_t(uint32_t(int64_t(sum + init))));
        if (bias)
          v = double(
              int32_t(uint32_t(int64_t(v + biasData.values[size_t(j)]))));
        if (relu)
          v = std::max(v, 0.0);
        out.expected[at] = v;
        continue;
      }
      bool exact = operandsExact && q >= 0 && q <= 20 &&
                   std::ldexp(magnitudes + std::fabs(init), q) <=
                       std::ldexp(1.0, accPrecision);
      if (!exact) {
        tolerance = (K + 16) * 4 * uAcc * magnitudes;
        if (!operandsExact)
          tolerance += 0x1p-9 * magnitudes;
        if (prec == TF32x3)
          tolerance += 0x1p-17 * magnitudes;
        if (loop == Loop::SplitK)
          tolerance += 2 * (splitK + 1) * uAcc * (magnitudes + std::fabs(init));
      }
      double v = sum + init;
      if (accDt == DType::F16)
        v = roundTo(DType::F16, v);
      // The epilogue, in fp32: a step that rounds adds its rounding (a
      // scaled value and a bias may fuse into an fma).
      auto step = [&](double next, double fusable) {
        bool representable = roundTo(DType::F32, next) == next;
        if (tolerance > 0 || !representable)
          tolerance += 4 * 0x1p-24 * (std::fabs(next) + std::fabs(fusable));
        return roundTo(DType::F32, next);
      };
      double scaled = 0;
      if (scale) {
        tolerance *= std::fabs(alpha);
        v = step(v * alpha, 0);
        scaled = v;
      }
      if (bias)
        v = step(v + biasData.values[size_t(j)], scaled);
      if (relu)
        v = std::max(v, 0.0);
      out.expected[at] = roundTo(outDt, v);
      if (tolerance > 0 && outDt != DType::F32)
        tolerance += roundingBound(outDt, std::fabs(v));
      out.tolerance[at] = tolerance;
    }
  c.reference = true;

  std::ostringstream d;
  const char *loops[] = {"tutorial loop", "offsets loop", "wrapped rows loop",
                         "one block", "split-K"};
  const char *operandNames[] = {"fp16", "bf16",       "fp32",
                                "int8", "fp32->fp16", "fp32->bf16"};
  const char *precs[] = {"tf32", "tf32x3", "ieee"};
  d << loops[int(loop)] << (grouped ? " grouped" : "") << ", M=" << M
    << " N=" << N << " K=" << K << ", BM=" << BM << " BN=" << BN << " BK=" << BK
    << ", " << operandNames[int(ops)]
    << (dotDt == DType::F32 ? std::string(" ") + precs[prec] : "") << " -> "
    << sigName(accDt) << " -> " << sigName(outDt)
    << (aColMajor ? ", A column-major" : "")
    << (bColMajor ? ", B column-major" : "")
    << (cColMajor ? ", C column-major" : "") << (scale ? ", alpha" : "")
    << (bias ? ", bias" : "") << (relu ? ", relu" : "")
    << (kind == DataKind::Uniform ? ", uniform" : ", exact data");
  if (loop == Loop::SplitK)
    d << ", SPLIT_K=" << splitK;
  if (stages > 0)
    d << ", tl.range num_stages=" << stages
      << (specialize ? " warp_specialize" : "");
  c.summary = d.str();
  return c;
}
