//===- AtomicKernels.cpp - Atomics whose result the order cannot change ---===//
//
// Each program takes a masked block of keys x and values v (an ExprBuilder
// computation cast to the atomic's dtype) and:
//
//   bins:    tl.atomic_<op>(bins + ((x % nbins) + nbins) % nbins, v, mask=)
//            with op add (a count, int32 or float weights), max, min (int32,
//            fp32), and, or, xor (int32);
//   partial: tl.atomic_add(out + pid % nbins, tl.sum(where(mask, v, 0)))
//            (a scalar atomic per program);
//   unique:  old = tl.atomic_<op>(out + offs, v, mask=) with one lane per
//            address (add, xchg, max, min), the old values stored; or
//            tl.atomic_cas, which has no mask, on outputs padded to whole
//            blocks.
//
// Integer results and max/min are independent of the order in which the
// GPU's atomics land, so they compare exactly; float sums get a bound of
// sqrt(count) roundings of the bin's magnitude (exact when the values lie
// on a grid that fits). `sem=` is drawn among Triton's orders.
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

enum class Variant { Bins, Partial, Unique, Cas };
enum class AtomicOp { Add, Max, Min, And, Or, Xor, Xchg };

const char *opName(AtomicOp op) {
  switch (op) {
  case AtomicOp::Add:
    return "tl.atomic_add";
  case AtomicOp::Max:
    return "tl.atomic_max";
  case AtomicOp::Min:
    return "tl.atomic_min";
  case AtomicOp::And:
    return "tl.atomic_and";
  case AtomicOp::Or:
    return "tl.atomic_or";
  case AtomicOp::Xor:
    return "tl.atomic_xor";
  case AtomicOp::Xchg:
    return "tl.atomic_xchg";
  }
  return "?";
}

double apply(AtomicOp op, DType dt, double old, double v) {
  int64_t a = int64_t(old), b = int64_t(v);
  auto wrap = [](int64_t x) { return double(int32_t(uint32_t(x))); };
  switch (op) {
  case AtomicOp::Add:
    return isFloat(dt) ? old + v : wrap(a + b);
  case AtomicOp::Max:
    return std::max(old, v);
  case AtomicOp::Min:
    return std::min(old, v);
  case AtomicOp::And:
    return wrap(a & b);
  case AtomicOp::Or:
    return wrap(a | b);
  case AtomicOp::Xor:
    return wrap(a ^ b);
  case AtomicOp::Xchg:
    return v;
  }
  return v;
}

} // namespace

KernelCase difftest::atomicCase(Rng &rng) {
  KernelCase c;
  c.family = "atomic";
  CaseBuilder cb(rng, c);
  int n = randomExtent(rng, 5000);
  int block = randomPow2(rng, 1, 1024);
  if (cdiv(n, block) > 2000)
    block = nextPow2(cdiv(n, 2000));
  int blocks = cdiv(n, block);
  Variant variant = Variant(rng.weighted({4, 1.5, 2, 1}));
  AtomicOp op = AtomicOp::Add;
  DType dt = DType::I32; // the atomic's
  switch (variant) {
  case Variant::Bins:
    op = AtomicOp(rng.weighted({3, 1, 1, 0.5, 0.5, 0.5}));
    if (op == AtomicOp::Add)
      dt = rng.pick({DType::I32, DType::F32, DType::F32, DType::F16});
    else if (op == AtomicOp::Max || op == AtomicOp::Min)
      dt = rng.pick({DType::I32, DType::F32});
    break;
  case Variant::Partial:
    dt = rng.pick({DType::I32, DType::F32});
    break;
  case Variant::Unique:
    op =
        rng.pick({AtomicOp::Add, AtomicOp::Xchg, AtomicOp::Max, AtomicOp::Min});
    dt = rng.pick({DType::I32, DType::F32});
    break;
  case Variant::Cas:
    break;
  }
  bool count = variant == Variant::Bins && op == AtomicOp::Add &&
               dt == DType::I32 && rng.chance(0.4);
  int nbins = randomExtent(rng, 64);
  std::string sem;
  if (rng.chance(0.4))
    sem = std::string(", sem=\"") +
          rng.pick({"relaxed", "acquire", "release", "acq_rel"}) + "\"";
  // Padded (cas has no mask: every lane's address must be in bounds).
  size_t lanes =
      variant == Variant::Cas ? size_t(blocks) * size_t(block) : size_t(n);

  // Inputs: keys (bins), values.
  DType keyDt = rng.pick({DType::I32, DType::I8});
  Data keys;
  if (variant == Variant::Bins) {
    keys = randomData(rng, keyDt, size_t(n), DataKind::Uniform);
    cb.buffer("x_ptr", keyDt, keys.values, false);
  }
  DType wDt = randomDType(rng);
  if (dt == DType::I32 && isFloat(wDt) && rng.chance(0.5))
    wDt = DType::I32;
  DataKind kind = randomKind(rng, false);
  Data w = randomData(rng, wDt, size_t(n), kind);
  double wOther = randomOther(rng, wDt, false);
  if (!count)
    cb.buffer("w_ptr", wDt, w.values, false);
  Data cmp;
  if (variant == Variant::Cas) {
    cmp = randomData(rng, DType::I32, size_t(n), DataKind::Uniform);
  }

  std::vector<std::string> exprLines;
  std::string s = "    ";
  ExprBuilder::Options options;
  ExprBuilder e(rng, exprLines, s, "t", options);
  int value = -1;
  if (!count) {
    int leaf = e.leaf("w", wDt, std::max(w.mag, std::fabs(wOther)),
                      w.q < 0 ? -1 : std::max(w.q, 1));
    value = rng.chance(0.4) ? leaf : e.random(int(rng.range(1, 3)));
    // fp16 sums must stay finite in any order.
    if (dt == DType::F16 && (e.node(value).mag + 100) * n > 3e4)
      dt = DType::F32;
    int casted = e.castTo(value, dt);
    if (casted < 0) // an inexact float for an integer atomic
      casted = e.castTo(leaf, dt);
    if (casted < 0)
      casted = e.castTo(e.castTo(leaf, DType::F32), dt);
    value = casted;
  }
  double err = value >= 0 ? e.node(value).err : 0;
  int q = value >= 0 ? e.node(value).q : 0;

  // Outputs.
  size_t outSize = variant == Variant::Bins || variant == Variant::Partial
                       ? size_t(nbins)
                       : lanes;
  DataKind initKind = isFloat(dt) && kind != DataKind::Uniform
                          ? DataKind::SmallInt
                          : DataKind::Uniform;
  Data init = randomData(rng, dt, outSize, initKind);
  if (dt == DType::I32 && variant != Variant::Cas && rng.chance(0.5))
    for (double &v : init.values)
      v = double(rng.range(-1000, 1000));
  if (isFloat(dt)) // the sums start from the initial values
    q = q < 0 || init.q < 0 ? -1 : std::max(q, init.q);
  size_t out = cb.buffer("out_ptr", dt, init.values, true);
  size_t old = 0;
  bool storeOld = variant == Variant::Cas ||
                  (variant == Variant::Unique && rng.chance(0.7));
  if (storeOld)
    old = cb.output("old_ptr", dt, lanes);
  if (variant == Variant::Cas) {
    // Half the expected values match memory.
    for (size_t i = 0; i < size_t(n); ++i)
      if (rng.chance(0.5))
        cmp.values[i] = init.values[i];
    cb.buffer("cmp_ptr", DType::I32, cmp.values, false);
  }
  cb.scalarInt("n", n);
  if (variant == Variant::Bins || variant == Variant::Partial)
    cb.scalarInt("nbins", nbins);

  std::vector<std::string> body;
  body.push_back(s + "pid = tl.program_id(0)");
  body.push_back(s + "offs = pid * BLOCK + tl.arange(0, BLOCK)");
  body.push_back(s + "mask = offs < n");
  if (variant == Variant::Bins)
    body.push_back(s + "x = tl.load(x_ptr + offs, mask=mask, other=0)");
  if (!count)
    body.push_back(s + "w = tl.load(w_ptr + offs, mask=mask, other=" +
                   literal(wOther, isFloat(wDt)) + ")");
  body.insert(body.end(), exprLines.begin(), exprLines.end());
  std::string v = count ? "1" : e.node(value).text;
  switch (variant) {
  case Variant::Bins:
    body.push_back(s + "idx = ((x % nbins) + nbins) % nbins");
    body.push_back(s + opName(op) + "(out_ptr + idx, " + v + ", mask=mask" +
                   sem + ")");
    break;
  case Variant::Partial: {
    std::string zero = isFloat(dt) ? "0.0" : "0";
    body.push_back(s + "total = tl.sum(tl.where(mask, " + v + ", " + zero +
                   "), axis=0)");
    body.push_back(s + "tl.atomic_add(out_ptr + pid % nbins, total" + sem +
                   ")");
    break;
  }
  case Variant::Unique:
    body.push_back(s + (storeOld ? "old = " : "") + opName(op) +
                   "(out_ptr + offs, " + v + ", mask=mask" + sem + ")");
    if (storeOld)
      body.push_back(s + "tl.store(old_ptr + offs, old, mask=mask)");
    break;
  case Variant::Cas:
    body.push_back(s + "cmp = tl.load(cmp_ptr + offs, mask=mask, other=0)");
    body.push_back(s + "old = tl.atomic_cas(out_ptr + offs, cmp, " + v + sem +
                   ")");
    body.push_back(s + "tl.store(old_ptr + offs, old)");
    break;
  }
  cb.constexprInt("BLOCK", block);
  cb.finish("atomic_kernel", body);
  cb.randomTarget();
  c.grid[0] = unsigned(blocks);

  // The reference.
  Buffer &o = c.buffers[out];
  o.expected = o.init;
  o.tolerance.assign(o.size(), 0);
  std::vector<double> leaves(std::max<size_t>(1, e.leafCount())), regs;
  auto valueOf = [&](size_t i) {
    if (count)
      return 1.0;
    leaves[0] = i < size_t(n) ? w.values[i] : wOther;
    e.evaluate(leaves, regs);
    return regs[size_t(value)];
  };
  double u = unitRoundoff(dt);
  // Per output element: the sum of |values| added, and how many were.
  std::vector<std::pair<double, double>> added(o.size());
  for (size_t i = 0; i < lanes; ++i) {
    double vi = valueOf(i);
    size_t at = i;
    if (variant == Variant::Bins) {
      int64_t key = int64_t(keys.values[i]);
      at = size_t(((key % nbins) + nbins) % nbins);
    } else if (variant == Variant::Partial) {
      at = size_t(int64_t(i) / block % nbins);
    }
    if (variant == Variant::Cas) {
      double expectedCmp = i < size_t(n) ? cmp.values[i] : 0;
      c.buffers[old].expected.resize(lanes);
      c.buffers[old].expected[i] = o.expected[at];
      if (o.expected[at] == expectedCmp)
        o.expected[at] = vi;
      continue;
    }
    if (storeOld) {
      Buffer &ob = c.buffers[old];
      if (ob.expected.empty())
        ob.expected = ob.init;
      ob.expected[i] = o.expected[at];
    }
    o.expected[at] = apply(op, dt, o.expected[at], vi);
    added[at].first += std::fabs(vi);
    added[at].second += 1;
  }
  if (isFloat(dt) && op == AtomicOp::Add) {
    for (size_t k = 0; k < o.size(); ++k) {
      double m = added[k].first + std::fabs(o.init[k]);
      double count = added[k].second;
      bool exact = err == 0 && q >= 0 && q <= 20 &&
                   std::ldexp(m, q) <= std::ldexp(1.0, info(dt).precision);
      double total = o.expected[k];
      o.expected[k] = roundTo(dt, total);
      if (!exact)
        o.tolerance[k] = 2 * (count * err + 8 * u * (std::sqrt(count) + 2) * m);
    }
  } else if (isFloat(dt) && err > 0) {
    // max, min, xchg: one of the values, each within err.
    o.tolerance.assign(o.size(), 2 * err);
  }
  if (storeOld) {
    Buffer &ob = c.buffers[old];
    ob.tolerance.clear();
  }
  c.reference = true;

  std::ostringstream d;
  const char *variants[] = {"bins", "per-program partial sums",
                            "one address per lane", "atomic_cas"};
  d << variants[int(variant)] << ", "
    << (variant == Variant::Cas       ? "tl.atomic_cas"
        : variant == Variant::Partial ? "tl.atomic_add"
                                      : opName(op))
    << " " << sigName(dt) << (count ? " count" : "") << ", n=" << n
    << ", BLOCK=" << block;
  if (variant == Variant::Bins || variant == Variant::Partial)
    d << ", nbins=" << nbins;
  if (!sem.empty())
    d << sem;
  c.summary = d.str();
  return c;
}
