//===- ElementwiseKernels.cpp - Random elementwise kernels ----------------===//
//
// 1-D: `offs = pid * BLOCK + arange`, masked loads (contiguous, strided by
// a runtime stride, reversed) with `other=`, an ExprBuilder computation and
// masked stores of one or two of its values, each cast to an output dtype.
// Variants: an early `return` for the programs past n (a grid with spare
// programs), a grid-stride `for` loop over the blocks, and an unmasked
// store into an output padded to whole blocks, where the masked lanes'
// `other=` values show, and a tl.static_range loop over UNROLL blocks per
// program.
//
// 2-D: a [BM, BN] tile of matrices in row-major, column-major or padded
// layouts (runtime strides, some equal to 1), row vectors broadcast as
// `r[None, :]` and column vectors as `c[:, None]`, a 2-D grid or a 1-D one
// split with // and %.
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

struct Input {
  size_t buffer = 0;
  std::string var;
  DType dt = DType::F32;
  Data data;
  double other = 0;
  int leaf = -1;
  // 1-D
  int stride = 1;
  bool strideParam = false;
  bool reversed = false;
  // 2-D: 0 a tile, 1 a row vector (by column), 2 a column vector (by row)
  int shape = 0;
  int64_t sm = 0, sn = 0;
};

std::string otherText(DType dt, double v) { return literal(v, isFloat(dt)); }

/// An output dtype for a value: inexact floats stay floats (a cast of them
/// to an integer is a step function of a last-bit difference).
DType outputDType(Rng &rng, const Node &v) {
  if (rng.chance(0.4))
    return v.dt;
  if (isFloat(v.dt) && (v.err > 0 || v.special)) {
    if (v.dt == DType::F16)
      return rng.pick({DType::F32, DType::F16});
    if (v.dt == DType::BF16)
      return rng.pick({DType::F32, DType::BF16});
    return rng.pick({DType::F32, DType::F16, DType::BF16});
  }
  return randomDType(rng);
}

/// Whether value `id` depends on leaf node `leafId`.
bool dependsOn(const ExprBuilder &e, int id, int leafId) {
  if (id < 0)
    return false;
  if (id == leafId)
    return true;
  const Node &n = e.node(id);
  if (n.op == Op::Leaf || n.op == Op::Const)
    return false;
  return dependsOn(e, n.a, leafId) || dependsOn(e, n.b, leafId) ||
         dependsOn(e, n.c, leafId);
}

struct Scalars {
  int alphaLeaf = -1, kLeaf = -1;
  float alpha = 0;
  int32_t k = 0;
};

/// Optional runtime scalars as leaves: an fp32 `alpha`, an int32 `k`.
Scalars addScalars(Rng &rng, CaseBuilder &cb, ExprBuilder &e,
                   const std::vector<Input> &inputs) {
  Scalars s;
  bool anyF32 = false, anyI32 = false;
  for (const Input &in : inputs) {
    anyF32 |= in.dt == DType::F32;
    anyI32 |= in.dt == DType::I32;
  }
  if (anyF32 && rng.chance(0.5)) {
    s.alpha = float(rng.pick({0.5, -1.5, 2.0, 0.25, 3.0, 1.0}));
    cb.scalarFloat("alpha", s.alpha);
    s.alphaLeaf = e.leaf("alpha", DType::F32, std::fabs(s.alpha), 2, false,
                         /*scalar=*/true);
  }
  if (anyI32 && rng.chance(0.5)) {
    s.k = int32_t(rng.pick({1, 1, 2, 3, 7, 16, -5, 1000}));
    cb.scalarInt("k", s.k);
    s.kLeaf = e.leaf("k", DType::I32, std::fabs(double(s.k)), 0, false, true);
  }
  return s;
}

void scalarLeafValues(const Scalars &s, std::vector<double> &leafValues,
                      const ExprBuilder &e) {
  if (s.alphaLeaf >= 0)
    leafValues[size_t(e.node(s.alphaLeaf).leaf)] = s.alpha;
  if (s.kLeaf >= 0)
    leafValues[size_t(e.node(s.kLeaf).leaf)] = s.k;
}

struct Output {
  size_t buffer;
  int node;
};

/// One or two values of the computation as outputs, cast to their dtypes.
std::vector<int> chooseResults(Rng &rng, ExprBuilder &e, int result) {
  std::vector<int> results = {result};
  if (rng.chance(0.3)) {
    // Another value along the way.
    std::vector<int> others;
    for (size_t i = 0; i < e.size(); ++i)
      if (e.node(int(i)).op != Op::Const && e.node(int(i)).dt != DType::I1 &&
          !e.node(int(i)).scalar && int(i) != result)
        others.push_back(int(i));
    if (!others.empty())
      results.push_back(rng.pick(others));
  }
  std::vector<int> casted;
  for (int r : results) {
    int out = e.castTo(r, outputDType(rng, e.node(r)));
    casted.push_back(out >= 0 ? out : r);
  }
  return casted;
}

KernelCase elementwise1D(Rng &rng) {
  KernelCase c;
  c.family = "elementwise";
  CaseBuilder cb(rng, c);
  int n = randomExtent(rng, 6000);
  int block = randomPow2(rng, 1, 1024);
  if (cdiv(n, block) > 2000)
    block = nextPow2(cdiv(n, 2000));
  enum {
    Plain,
    EarlyReturn,
    Persistent,
    PadOut,
    Unrolled
  } mode = decltype(Plain)(rng.weighted({4, 1.5, 2, 1.5, 1}));
  int unroll = mode == Unrolled ? int(rng.range(2, 4)) : 1;
  int blocks = cdiv(n, block * unroll);
  bool special = rng.chance(0.15);

  std::vector<std::string> body;
  std::string in = "    ";
  body.push_back(in + "pid = tl.program_id(0)");
  if (mode == EarlyReturn) {
    body.push_back(in + "if pid * BLOCK >= n:");
    body.push_back(in + "    return");
  }
  if (mode == Persistent) {
    body.push_back(in + "for start in range(pid * BLOCK, n, "
                        "tl.num_programs(0) * BLOCK):");
    in += "    ";
    body.push_back(in + "offs = start + tl.arange(0, BLOCK)");
  } else if (mode == Unrolled) {
    body.push_back(in + "for u in tl.static_range(UNROLL):");
    in += "    ";
    body.push_back(in +
                   "offs = (pid * UNROLL + u) * BLOCK + tl.arange(0, BLOCK)");
  } else {
    body.push_back(in + "offs = pid * BLOCK + tl.arange(0, BLOCK)");
  }
  body.push_back(in + "mask = offs < n");

  std::vector<Input> inputs(size_t(rng.range(1, 3)));
  for (size_t i = 0; i < inputs.size(); ++i) {
    Input &x = inputs[i];
    x.var = "x" + std::to_string(i);
    x.dt = randomDType(rng);
    x.reversed = rng.chance(0.15);
    x.stride = rng.chance(0.2) ? int(rng.range(1, 3)) : 1;
    x.strideParam = x.stride != 1 || rng.chance(0.1);
    size_t size = size_t(n - 1) * size_t(x.stride) + 1;
    x.data = randomData(rng, x.dt, size, randomKind(rng, special));
    x.other = randomOther(rng, x.dt, x.data.special);
    x.buffer = cb.buffer(x.var + "_ptr", x.dt, x.data.values, false);
  }

  std::vector<std::string> exprLines;
  ExprBuilder e(rng, exprLines, in, "t", {});
  for (Input &x : inputs) {
    double mag = x.data.mag;
    int q = x.data.q;
    if (mode == PadOut) { // the other= values reach the output
      mag = std::max(mag, std::isfinite(x.other) ? std::fabs(x.other) : 0.0);
      q = q < 0 ? -1 : std::max(q, 1);
    }
    x.leaf =
        e.leaf(x.var, x.dt, mag, q, x.data.special || !std::isfinite(x.other));
  }
  Scalars scalars = addScalars(rng, cb, e, inputs);
  int size = int(rng.weighted({1, 3, 3, 2}));
  int result = e.random(size == 0   ? 1
                        : size == 1 ? int(rng.range(2, 4))
                        : size == 2 ? int(rng.range(4, 7))
                                    : int(rng.range(7, 12)));
  std::vector<int> results = chooseResults(rng, e, result);

  size_t outSize = mode == PadOut ? size_t(blocks) * size_t(block) : size_t(n);
  std::vector<size_t> outs;
  for (size_t i = 0; i < results.size(); ++i)
    outs.push_back(cb.output("out" + std::to_string(i) + "_ptr",
                             e.node(results[i]).dt, outSize));
  cb.scalarInt("n", n);
  for (Input &x : inputs)
    if (x.strideParam)
      cb.scalarInt("s" + x.var.substr(1), x.stride);

  for (Input &x : inputs) {
    std::string index = x.reversed ? "(n - 1 - offs)" : "offs";
    if (x.strideParam)
      index += " * s" + x.var.substr(1);
    body.push_back(in + x.var + " = tl.load(" + x.var + "_ptr + " + index +
                   ", mask=mask, other=" + otherText(x.dt, x.other) + ")");
  }
  body.insert(body.end(), exprLines.begin(), exprLines.end());
  for (size_t i = 0; i < results.size(); ++i) {
    std::string o = "out" + std::to_string(i) + "_ptr";
    body.push_back(in + "tl.store(" + o + " + offs, " +
                   e.node(results[i]).text +
                   (mode == PadOut ? ")" : ", mask=mask)"));
  }
  cb.constexprInt("BLOCK", block);
  if (mode == Unrolled)
    cb.constexprInt("UNROLL", unroll);
  cb.finish("elementwise_kernel", body);
  cb.randomTarget();

  unsigned grid = unsigned(blocks);
  if (mode == EarlyReturn)
    grid += unsigned(rng.range(1, 3));
  if (mode == Persistent)
    grid = unsigned(std::min<int64_t>(blocks, rng.range(1, 8)));
  c.grid[0] = grid;

  // The reference.
  std::vector<double> leafValues(e.leafCount()), regs;
  for (size_t i = 0; i < outs.size(); ++i) {
    Buffer &out = c.buffers[outs[i]];
    out.expected = out.init;
    out.tolerance.assign(out.size(), 2 * e.node(results[i]).err);
  }
  for (size_t idx = 0; idx < outSize; ++idx) {
    bool valid = idx < size_t(n);
    for (const Input &x : inputs) {
      size_t at = (x.reversed ? size_t(n) - 1 - idx : idx) * size_t(x.stride);
      leafValues[size_t(e.node(x.leaf).leaf)] =
          valid ? x.data.values[at] : x.other;
    }
    scalarLeafValues(scalars, leafValues, e);
    e.evaluate(leafValues, regs);
    for (size_t i = 0; i < outs.size(); ++i)
      c.buffers[outs[i]].expected[idx] = regs[size_t(results[i])];
  }
  c.reference = true;

  std::ostringstream s;
  const char *modes[] = {"plain", "early return", "grid-stride loop",
                         "unmasked padded store", "tl.static_range"};
  s << "1-D " << modes[mode] << ", n=" << n << ", BLOCK=" << block << ", "
    << inputs.size() << " inputs (";
  for (size_t i = 0; i < inputs.size(); ++i)
    s << (i ? " " : "") << sigName(inputs[i].dt)
      << (inputs[i].reversed ? " reversed" : "")
      << (inputs[i].stride != 1 ? " strided" : "");
  s << "), " << e.size() << " nodes";
  c.summary = s.str();
  return c;
}

KernelCase elementwise2D(Rng &rng) {
  KernelCase c;
  c.family = "elementwise";
  CaseBuilder cb(rng, c);
  int M = randomExtent(rng, 300), N = randomExtent(rng, 300);
  while (int64_t(M) * N > 40000)
    (M > N ? M : N) /= 2;
  int BM = randomPow2(rng, 1, 64), BN = randomPow2(rng, 1, 128);
  while (BM * BN > 4096)
    BN /= 2;
  bool flatGrid = rng.chance(0.4);
  bool special = rng.chance(0.1);

  std::vector<Input> inputs(size_t(rng.range(1, 3)));
  for (size_t i = 0; i < inputs.size(); ++i) {
    Input &x = inputs[i];
    x.shape = i == 0 ? 0 : int(rng.weighted({2, 1, 1}));
    x.var = std::string(x.shape == 0   ? "x"
                        : x.shape == 1 ? "r"
                                       : "c") +
            std::to_string(i);
    x.dt = randomDType(rng);
    size_t size;
    if (x.shape == 0) {
      switch (rng.weighted({3, 2, 1})) {
      case 0: // row-major
        x.sm = N, x.sn = 1;
        break;
      case 1: // column-major
        x.sm = 1, x.sn = M;
        break;
      default: // padded rows
        x.sm = N + rng.range(1, 5), x.sn = 1;
        break;
      }
      size = size_t((M - 1) * x.sm + (N - 1) * x.sn + 1);
    } else {
      size = size_t(x.shape == 1 ? N : M);
    }
    x.data = randomData(rng, x.dt, size, randomKind(rng, special));
    x.other = randomOther(rng, x.dt, x.data.special);
    x.buffer = cb.buffer(x.var + "_ptr", x.dt, x.data.values, false);
  }

  std::vector<std::string> exprLines;
  std::string in = "    ";
  ExprBuilder e(rng, exprLines, in, "t", {});
  for (Input &x : inputs) {
    std::string text = x.shape == 0   ? x.var
                       : x.shape == 1 ? x.var + "[None, :]"
                                      : x.var + "[:, None]";
    x.leaf = e.leaf(text, x.dt, x.data.mag, x.data.q, x.data.special);
  }
  Scalars scalars = addScalars(rng, cb, e, inputs);
  int result = e.random(int(rng.range(1, 10)));
  std::vector<int> results = chooseResults(rng, e, result);

  int64_t ld = N + (rng.chance(0.3) ? rng.range(1, 3) : 0);
  std::vector<size_t> outs;
  for (size_t i = 0; i < results.size(); ++i) {
    outs.push_back(cb.output("out" + std::to_string(i) + "_ptr",
                             e.node(results[i]).dt, size_t(M * ld)));
    c.buffers[outs.back()].cols = size_t(ld);
  }
  cb.scalarInt("M", M);
  cb.scalarInt("N", N);
  for (Input &x : inputs)
    if (x.shape == 0) {
      cb.scalarInt("stride_" + x.var + "m", int32_t(x.sm));
      cb.scalarInt("stride_" + x.var + "n", int32_t(x.sn));
    }
  cb.scalarInt("stride_om", int32_t(ld));

  std::vector<std::string> body;
  if (flatGrid) {
    body.push_back(in + "pid = tl.program_id(0)");
    body.push_back(in + "num_n = tl.cdiv(N, BN)");
    body.push_back(in + "pid_m = pid // num_n");
    body.push_back(in + "pid_n = pid % num_n");
  } else {
    body.push_back(in + "pid_m = tl.program_id(0)");
    body.push_back(in + "pid_n = tl.program_id(1)");
  }
  body.push_back(in + "rm = pid_m * BM + tl.arange(0, BM)");
  body.push_back(in + "rn = pid_n * BN + tl.arange(0, BN)");
  body.push_back(in + "mask = (rm[:, None] < M) & (rn[None, :] < N)");
  for (Input &x : inputs) {
    std::string o = otherText(x.dt, x.other);
    if (x.shape == 0)
      body.push_back(in + x.var + " = tl.load(" + x.var +
                     "_ptr + rm[:, None] * stride_" + x.var +
                     "m + rn[None, :] * stride_" + x.var +
                     "n, mask=mask, other=" + o + ")");
    else if (x.shape == 1)
      body.push_back(in + x.var + " = tl.load(" + x.var +
                     "_ptr + rn, mask=rn < N, other=" + o + ")");
    else
      body.push_back(in + x.var + " = tl.load(" + x.var +
                     "_ptr + rm, mask=rm < M, other=" + o + ")");
  }
  body.insert(body.end(), exprLines.begin(), exprLines.end());
  for (size_t i = 0; i < results.size(); ++i) {
    std::string value = e.node(results[i]).text;
    if (!dependsOn(e, results[i], inputs[0].leaf))
      value = "tl.broadcast_to(" + value + ", (BM, BN))";
    body.push_back(in + "tl.store(out" + std::to_string(i) +
                   "_ptr + rm[:, None] * stride_om + rn[None, :], " + value +
                   ", mask=mask)");
  }
  cb.constexprInt("BM", BM);
  cb.constexprInt("BN", BN);
  cb.finish("elementwise2d_kernel", body);
  cb.randomTarget();
  if (flatGrid) {
    c.grid[0] = unsigned(cdiv(M, BM) * cdiv(N, BN));
  } else {
    c.grid[0] = unsigned(cdiv(M, BM));
    c.grid[1] = unsigned(cdiv(N, BN));
  }

  std::vector<double> leafValues(e.leafCount()), regs;
  for (size_t i = 0; i < outs.size(); ++i) {
    Buffer &out = c.buffers[outs[i]];
    out.expected = out.init;
    out.tolerance.assign(out.size(), 2 * e.node(results[i]).err);
  }
  for (int64_t r = 0; r < M; ++r)
    for (int64_t col = 0; col < N; ++col) {
      for (const Input &x : inputs) {
        size_t at = x.shape == 0   ? size_t(r * x.sm + col * x.sn)
                    : x.shape == 1 ? size_t(col)
                                   : size_t(r);
        leafValues[size_t(e.node(x.leaf).leaf)] = x.data.values[at];
      }
      scalarLeafValues(scalars, leafValues, e);
      e.evaluate(leafValues, regs);
      for (size_t i = 0; i < outs.size(); ++i)
        c.buffers[outs[i]].expected[size_t(r * ld + col)] =
            regs[size_t(results[i])];
    }
  c.reference = true;

  std::ostringstream s;
  s << "2-D " << (flatGrid ? "flat grid" : "2-D grid") << ", M=" << M
    << " N=" << N << ", BM=" << BM << " BN=" << BN << ", inputs (";
  for (size_t i = 0; i < inputs.size(); ++i)
    s << (i ? " " : "") << inputs[i].var << ":" << sigName(inputs[i].dt);
  s << "), " << e.size() << " nodes";
  c.summary = s.str();
  return c;
}

} // namespace

KernelCase difftest::elementwiseCase(Rng &rng) {
  return rng.chance(0.55) ? elementwise1D(rng) : elementwise2D(rng);
}
