//===- CaseBuilder.cpp - What every kernel family draws alike -------------===//

#include "CaseBuilder.h"

#include <algorithm>
#include <cmath>
#include <sstream>

using namespace difftest;

int difftest::nextPow2(int v) {
  int p = 1;
  while (p < v)
    p *= 2;
  return p;
}

int difftest::randomPow2(Rng &rng, int lo, int hi) {
  int steps = 0;
  for (int p = lo; p < hi; p *= 2)
    ++steps;
  return lo << rng.range(0, steps);
}

int difftest::randomExtent(Rng &rng, int maxValue) {
  static const std::vector<int> primes = {
      2,   3,   5,    7,    11,   13,   17,   19,   23,   29,   31,   37,
      41,  43,  47,   53,   59,   61,   67,   71,   73,   79,   83,   89,
      97,  101, 127,  131,  157,  191,  211,  251,  257,  293,  331,  509,
      521, 761, 1021, 1031, 1543, 2039, 2053, 3067, 4093, 4099, 6143, 8191};
  for (;;) {
    int v;
    switch (rng.weighted({1, 3, 1.5, 1.5, 3})) {
    case 0:
      return 1;
    case 1:
      v = rng.pick(primes);
      break;
    case 2:
      v = 1 << rng.range(1, 13);
      break;
    case 3:
      v = (1 << rng.range(2, 13)) + (rng.chance(0.5) ? 1 : -1);
      break;
    default:
      // Log-uniform, so that small extents are as common as large.
      v = int(std::exp(rng.real() * std::log(double(maxValue)))) + 1;
      break;
    }
    if (v >= 1 && v <= maxValue)
      return v;
  }
}

DataKind difftest::randomKind(Rng &rng, bool allowSpecial) {
  if (allowSpecial && rng.chance(0.15))
    return DataKind::Special;
  switch (rng.weighted({3, 2, 5})) {
  case 0:
    return DataKind::SmallInt;
  case 1:
    return DataKind::Dyadic;
  default:
    return DataKind::Uniform;
  }
}

Data difftest::randomData(Rng &rng, DType dt, size_t n, DataKind kind) {
  Data d;
  d.values.resize(n);
  if (!isFloat(dt)) {
    // Integers: small, medium or the whole range.
    int64_t lo = info(dt).min, hi = info(dt).max;
    switch (rng.weighted({2, 2, 1})) {
    case 0:
      lo = -9, hi = 9;
      break;
    case 1:
      if (dt == DType::I32)
        lo = -30000, hi = 30000;
      break;
    default:
      break;
    }
    for (double &v : d.values)
      v = double(rng.range(lo, hi));
    d.mag = double(std::max(-lo, hi));
    d.q = 0;
    return d;
  }
  switch (kind) {
  case DataKind::SmallInt: {
    int r = rng.pick({1, 3, 8, 32});
    for (double &v : d.values)
      v = double(rng.range(-r, r));
    d.mag = r;
    d.q = 0;
    break;
  }
  case DataKind::Dyadic:
    for (double &v : d.values)
      v = double(rng.range(-32, 32)) / 8;
    d.mag = 4;
    d.q = 3;
    break;
  case DataKind::Uniform:
  case DataKind::Special: {
    double a = kind == DataKind::Special ? 4.0 : rng.pick({1.0, 4.0, 100.0});
    for (double &v : d.values)
      v = roundTo(dt, (2 * rng.real() - 1) * a);
    d.mag = a;
    d.q = -1;
    if (kind == DataKind::Special) {
      double tiny = dt == DType::F16 ? 0x1p-20 : 0x1p-130;
      for (double &v : d.values) {
        if (!rng.chance(0.12))
          continue;
        v = rng.pick({double(INFINITY), -double(INFINITY), double(NAN), -0.0,
                      0.0, tiny, -3 * tiny});
      }
      d.special = true;
    }
    break;
  }
  }
  return d;
}

DType difftest::randomDType(Rng &rng, bool ints) {
  if (!ints)
    return rng.pick({DType::F32, DType::F32, DType::F16, DType::BF16});
  switch (rng.weighted({3, 2, 2, 2, 1})) {
  case 0:
    return DType::F32;
  case 1:
    return DType::F16;
  case 2:
    return DType::BF16;
  case 3:
    return DType::I32;
  default:
    return DType::I8;
  }
}

double difftest::randomOther(Rng &rng, DType dt, bool special) {
  if (!isFloat(dt))
    return rng.pick({0.0, 1.0, -1.0, 7.0});
  if (special && rng.chance(0.3))
    return rng.pick({double(INFINITY), -double(INFINITY), double(NAN)});
  return rng.pick({0.0, 1.0, -2.0, 0.5, 3.0});
}

size_t CaseBuilder::buffer(const std::string &name, DType dt,
                           std::vector<double> init, bool output) {
  Buffer b;
  b.name = name;
  b.dtype = dt;
  b.init = std::move(init);
  b.output = output;
  if (rng.chance(0.15))
    b.offset = unsigned(rng.range(1, 7));
  c.buffers.push_back(std::move(b));
  c.params.push_back({true, c.buffers.size() - 1});
  names.push_back(name);
  return c.buffers.size() - 1;
}

size_t CaseBuilder::output(const std::string &name, DType dt, size_t n) {
  Data d = randomData(rng, dt, n, DataKind::Uniform);
  return buffer(name, dt, std::move(d.values), true);
}

void CaseBuilder::scalarInt(const std::string &name, int32_t value) {
  Scalar s;
  s.name = name;
  s.i = value;
  c.scalars.push_back(s);
  c.params.push_back({false, c.scalars.size() - 1});
  names.push_back(name);
}

void CaseBuilder::scalarFloat(const std::string &name, float value) {
  Scalar s;
  s.name = name;
  s.isFloat = true;
  s.f = value;
  c.scalars.push_back(s);
  c.params.push_back({false, c.scalars.size() - 1});
  names.push_back(name);
}

void CaseBuilder::constexprInt(const std::string &name, int64_t value) {
  c.constexprs.push_back({name, value});
}

void CaseBuilder::finish(const std::string &kernel,
                         const std::vector<std::string> &body) {
  c.kernel = kernel;
  std::ostringstream s;
  s << "import triton\nimport triton.language as tl\n\n\n@triton.jit\ndef "
    << kernel << "(";
  std::string sep;
  for (const std::string &name : names) {
    s << sep << name;
    sep = ", ";
  }
  for (const auto &[name, value] : c.constexprs) {
    s << sep << name << ": tl.constexpr";
    sep = ", ";
  }
  s << "):\n";
  for (const std::string &line : body)
    s << line << "\n";
  c.source = s.str();
}

void CaseBuilder::randomTarget() {
  c.numWarps = unsigned(rng.pick({1, 2, 4, 4, 8}));
  switch (rng.weighted({6, 2, 2})) {
  case 0:
    c.arch = "sm_90a";
    break;
  case 1:
    c.arch = "sm_90";
    break;
  default:
    c.arch = "sm_80";
    break;
  }
}
