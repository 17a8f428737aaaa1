//===- ExprBuilder.cpp - Random elementwise computations ------------------===//
//
// Each operation is chosen, typed, checked against the caps and the
// exactness rules (ExprBuilder.h), and only then emitted; an operation that
// does not fit its operands is dropped and another drawn.
//
//===----------------------------------------------------------------------===//

#include "ExprBuilder.h"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>

using namespace difftest;

namespace {

const double kF32Ulp = 0x1p-23;

/// An fp32 subnormal as a zero of its sign: tl.floor, tl.ceil, tl.exp2 and
/// tl.sqrt are single flush-to-zero instructions on the GPU (as in Triton,
/// under nvvm-reflect-ftz), for their inputs and their results. 16-bit
/// floats compute in f32, where their subnormals are normal.
double flushSubnormal(DType dt, double v) {
  return dt == DType::F32 && std::fabs(v) < 0x1p-126 ? std::copysign(0.0, v)
                                                     : v;
}

double intRange(DType dt) {
  return dt == DType::I8 ? 128.0 : dt == DType::I32 ? 2147483648.0 : 1.0;
}

/// Integer results wrap: past the range, any value of the type.
void finishInt(Node &n) {
  n.q = 0;
  n.err = 0;
  n.fusable = 0;
  if (n.mag > intRange(n.dt))
    n.mag = intRange(n.dt);
}

/// An integer result: the low bits of a 64-bit two's-complement value.
double wrapInt(DType dt, uint64_t bits) {
  if (dt == DType::I8)
    return double(int8_t(uint8_t(bits)));
  return double(int32_t(uint32_t(bits)));
}

/// The smallest q such that v is a multiple of 2^-q (up to 8), or -1.
int gridOf(double v) {
  for (int q = 0; q <= 8; ++q)
    if (std::ldexp(v, q) == std::trunc(std::ldexp(v, q)))
      return q;
  return -1;
}

int joinGrid(int a, int b) { return a < 0 || b < 0 ? -1 : std::max(a, b); }

bool mixesHalves(DType a, DType b) {
  return (a == DType::F16 && b == DType::BF16) ||
         (a == DType::BF16 && b == DType::F16);
}

const char *spelling(Op op) {
  switch (op) {
  case Op::Add:
    return "+";
  case Op::Sub:
    return "-";
  case Op::Mul:
    return "*";
  case Op::Div:
    return "/";
  case Op::FloorDiv:
    return "//";
  case Op::Mod:
    return "%";
  case Op::And:
    return "&";
  case Op::Or:
    return "|";
  case Op::Xor:
    return "^";
  case Op::Shl:
    return "<<";
  case Op::Shr:
    return ">>";
  case Op::Lt:
    return "<";
  case Op::Le:
    return "<=";
  case Op::Gt:
    return ">";
  case Op::Ge:
    return ">=";
  case Op::Eq:
    return "==";
  case Op::Ne:
    return "!=";
  case Op::LogicalAnd:
    return "&";
  case Op::LogicalOr:
    return "|";
  default:
    return "?";
  }
}

const char *mathName(Op op) {
  switch (op) {
  case Op::Exp:
    return "tl.exp";
  case Op::Exp2:
    return "tl.exp2";
  case Op::Log:
    return "tl.log";
  case Op::Log2:
    return "tl.log2";
  case Op::Sqrt:
    return "tl.sqrt";
  case Op::SqrtRn:
    return "tl.sqrt_rn";
  case Op::Sigmoid:
    return "tl.sigmoid";
  case Op::Floor:
    return "tl.floor";
  case Op::Ceil:
    return "tl.ceil";
  default:
    return "?";
  }
}

} // namespace

std::string difftest::literal(double v, bool isFloat) {
  char buffer[64];
  if (!isFloat) {
    std::snprintf(buffer, sizeof buffer, "%" PRId64, int64_t(v));
  } else if (std::isnan(v)) {
    return "float('nan')";
  } else if (std::isinf(v)) {
    return v > 0 ? "float('inf')" : "float('-inf')";
  } else if (v == std::trunc(v) && std::fabs(v) < 1e15) {
    std::snprintf(buffer, sizeof buffer, "%.1f", v);
  } else {
    std::snprintf(buffer, sizeof buffer, "%.17g", v);
  }
  std::string s = buffer;
  return v < 0 ? "(" + s + ")" : s;
}

double ExprBuilder::cap(DType dt) {
  switch (dt) {
  case DType::F16:
    return 1e4;
  case DType::F32:
  case DType::BF16:
    return 1e18;
  default:
    return intRange(dt);
  }
}

bool ExprBuilder::onGrid(DType dt, double mag, int q) {
  if (!isFloat(dt))
    return true;
  return q >= 0 && q <= 20 &&
         std::ldexp(mag, q) <= std::ldexp(1.0, info(dt).precision);
}

ExprBuilder::ExprBuilder(Rng &rng, std::vector<std::string> &lines,
                         std::string indent, std::string prefix,
                         Options options)
    : rng(rng), lines(lines), indent(std::move(indent)),
      prefix(std::move(prefix)), options(options) {}

int ExprBuilder::leaf(const std::string &text, DType dt, double mag, int q,
                      bool special, bool scalar) {
  Node n;
  n.op = Op::Leaf;
  n.dt = dt;
  n.text = text;
  n.mag = mag;
  n.q = isFloat(dt) ? q : 0;
  n.leaf = int(leaves++);
  n.special = special;
  n.scalar = scalar;
  nodes.push_back(n);
  return int(nodes.size()) - 1;
}

int ExprBuilder::constant(DType dt, double value) {
  Node n;
  n.op = Op::Const;
  n.dt = dt;
  n.k = roundTo(dt, value);
  n.text = literal(n.k, isFloat(dt));
  n.mag = std::fabs(n.k);
  n.q = isFloat(dt) ? gridOf(n.k) : 0;
  nodes.push_back(n);
  return int(nodes.size()) - 1;
}

int ExprBuilder::emit(Node n, const std::string &expr) {
  if (n.q > 20)
    n.q = -1;
  n.leaf = -1;
  n.text = prefix + std::to_string(temps++);
  lines.push_back(indent + n.text + " = " + expr);
  nodes.push_back(n);
  return int(nodes.size()) - 1;
}

int ExprBuilder::clamp(int ia, double lo, double hi) {
  Node c = node(ia);
  std::string text = c.text;
  c.op = Op::Clamp;
  c.a = ia;
  c.b = c.c = -1;
  c.k = lo;
  c.k2 = hi;
  c.mag = std::min(c.mag, std::max(-lo, hi));
  // The bounds are integers or halves.
  c.q = c.q < 0 ? -1 : std::max(c.q, 1);
  c.fusable = 0;
  return emit(c, "tl.clamp(" + text + ", " + literal(lo, true) + ", " +
                     literal(hi, true) + ")");
}

int ExprBuilder::randomConstantFor(int other) {
  DType dt = node(other).dt;
  if (isFloat(dt))
    return constant(dt, rng.pick({0.5, 1.5, 2.0, -1.0, 0.25, 3.0, -2.5, 0.375,
                                  -0.125, 1.75, 5.0, -4.0}));
  return constant(dt, double(rng.range(-9, 9)));
}

int ExprBuilder::pickValue(bool (*filter)(const Node &), bool preferRecent) {
  std::vector<int> candidates;
  for (size_t i = 0; i < nodes.size(); ++i)
    if (nodes[i].op != Op::Const && filter(nodes[i]))
      candidates.push_back(int(i));
  if (candidates.empty())
    return -1;
  if (preferRecent) {
    // Mostly extend the latest value, so that computations form chains.
    double x = rng.real();
    if (x < 0.45)
      return candidates.back();
    if (x < 0.7 && candidates.size() > 3)
      return candidates[candidates.size() - 1 - size_t(rng.range(0, 2))];
  }
  return rng.pick(candidates);
}

int ExprBuilder::toFloat32(int a) {
  if (a < 0 || node(a).dt == DType::F32)
    return a;
  return castTo(a, DType::F32);
}

int ExprBuilder::binary(Op op, int ia, int ib) {
  if (ia < 0 || ib < 0)
    return -1;
  const Node &A = node(ia), &B = node(ib);
  if (A.dt == DType::I1 || B.dt == DType::I1)
    return -1;
  // fp16 with bf16 computes in fp16 (both compilers), where a bf16 value
  // may overflow; the generator stays out (promotions.tl checks the type).
  if (mixesHalves(A.dt, B.dt))
    return -1;
  // A runtime scalar meets only tiles of its dtype.
  if ((A.scalar && B.op != Op::Const && B.dt != A.dt) ||
      (B.scalar && A.op != Op::Const && A.dt != B.dt))
    return -1;
  bool special = A.special || B.special;
  DType R = promote(A.dt, B.dt);
  bool fp = isFloat(R);
  if ((op == Op::Div || op == Op::DivRn) && (!fp || bytesOf(R) == 2)) {
    R = DType::F32;
    fp = true;
  }
  bool intOnly = op == Op::FloorDiv || op == Op::Mod || op == Op::And ||
                 op == Op::Or || op == Op::Xor || op == Op::Shl ||
                 op == Op::Shr;
  if (intOnly && (isFloat(A.dt) || isFloat(B.dt)))
    return -1;
  if (special && (op == Op::Div || op == Op::DivRn))
    return -1;
  if (op == Op::DivRn && (A.dt != DType::F32 || B.dt != DType::F32))
    return -1;

  Node n;
  n.op = op;
  n.dt = R;
  n.a = ia;
  n.b = ib;
  n.special = special;
  n.scalar = A.scalar && (B.scalar || B.op == Op::Const);
  double ma = A.mag, mb = B.mag, ea = A.err, eb = B.err;
  switch (op) {
  case Op::Add:
  case Op::Sub:
    n.mag = ma + mb;
    n.q = joinGrid(A.q, B.q);
    if (fp) {
      double propagated = ea + eb + A.fusable + B.fusable;
      bool exact = onGrid(R, n.mag, n.q);
      n.err = propagated > 0 && !exact ? propagated + roundingBound(R, n.mag)
                                       : propagated;
    }
    break;
  case Op::Mul:
    n.mag = ma * mb;
    n.q = A.q < 0 || B.q < 0 ? -1 : A.q + B.q;
    if (fp) {
      double propagated = ea * mb + eb * ma + ea * eb;
      bool exact = onGrid(R, n.mag, n.q);
      n.err = propagated > 0 && !exact ? propagated + roundingBound(R, n.mag)
                                       : propagated;
      n.fusable = exact ? 0 : roundingBound(R, n.mag);
    }
    break;
  case Op::Div:
  case Op::DivRn:
    // The divisor is >= 1 in magnitude (the caller made it so).
    n.mag = ma;
    n.q = -1;
    n.err = ea + ma * eb;
    if (op == Op::Div)
      n.err += 2 * roundingBound(R, n.mag);
    else if (n.err > 0)
      n.err += roundingBound(R, n.mag);
    break;
  case Op::FloorDiv:
    n.mag = ma;
    break;
  case Op::Mod:
    n.mag = std::min(ma, 7.0);
    break;
  case Op::And:
    if (B.op == Op::Const && B.k >= 0)
      n.mag = B.k;
    else
      n.mag = std::exp2(std::ceil(std::log2(std::max(ma, mb) + 1)));
    break;
  case Op::Or:
  case Op::Xor:
    n.mag = std::exp2(std::ceil(std::log2(std::max(ma, mb) + 1)));
    break;
  case Op::Shl:
    n.mag = ma * 128;
    break;
  case Op::Shr:
    n.mag = ma;
    break;
  case Op::Max:
  case Op::Min:
    n.mag = std::max(ma, mb);
    n.q = joinGrid(A.q, B.q);
    n.err = std::max(ea, eb);
    // max(p, p) folds to p: a product may still reach an add.
    n.fusable = std::max(A.fusable, B.fusable);
    break;
  default:
    return -1;
  }
  // x * 1.0 folds to x and x * -1.0 to -x: the product stays fusable.
  if (op == Op::Mul && fp && (B.op == Op::Const && std::fabs(B.k) == 1))
    n.fusable = std::max(n.fusable, A.fusable);
  if (!fp)
    finishInt(n);
  else if (n.mag > cap(R))
    return -1;
  std::string expr;
  if (op == Op::Max || op == Op::Min)
    expr = std::string(op == Op::Max ? "tl.maximum(" : "tl.minimum(") + A.text +
           ", " + B.text + ")";
  else if (op == Op::DivRn)
    expr = "tl.div_rn(" + A.text + ", " + B.text + ")";
  else
    expr = A.text + " " + spelling(op) + " " + B.text;
  return emit(n, expr);
}

int ExprBuilder::unary(Op op, int ia) {
  if (ia < 0)
    return -1;
  const Node &A = node(ia);
  if (A.dt == DType::I1)
    return -1;
  Node n;
  n.op = op;
  n.dt = A.dt;
  n.a = ia;
  n.special = A.special;
  n.scalar = A.scalar;
  n.mag = A.mag;
  n.q = A.q;
  n.err = A.err;
  bool fp = isFloat(A.dt);
  std::string expr;
  switch (op) {
  case Op::Neg:
    n.fusable = A.fusable; // -(a * b) + c is an fma too
    expr = "-" + A.text;
    break;
  case Op::Abs:
    expr = "tl.abs(" + A.text + ")";
    break;
  case Op::Not:
    if (fp)
      return -1;
    n.mag = A.mag + 1;
    expr = "~" + A.text;
    break;
  case Op::Exp:
  case Op::Exp2: {
    if (A.dt != DType::F32 || A.special || A.mag > (op == Op::Exp ? 10 : 14))
      return -1;
    n.mag = op == Op::Exp ? std::exp(A.mag) : std::exp2(A.mag);
    double rel = (4 + 4 * A.mag) * kF32Ulp;
    n.err = n.mag * (A.err * (op == Op::Exp ? 1.0 : 0.7) + rel);
    n.q = -1;
    expr = std::string(mathName(op)) + "(" + A.text + ")";
    break;
  }
  case Op::Log:
  case Op::Log2:
    // The operand is >= 1 (the caller made it |x| + 1).
    if (A.dt != DType::F32 || A.special)
      return -1;
    n.mag = op == Op::Log ? std::log(A.mag) : std::log2(A.mag);
    n.err = A.err * 1.45 + 16 * kF32Ulp * (1 + n.mag);
    n.q = -1;
    expr = std::string(mathName(op)) + "(" + A.text + ")";
    break;
  case Op::Sqrt:
  case Op::SqrtRn:
    // The operand is >= 0, and >= 1 where it carries an error.
    if (A.dt != DType::F32 || A.special)
      return -1;
    n.mag = std::sqrt(A.mag);
    n.err = 0.5 * A.err;
    if (op == Op::Sqrt)
      n.err += 4 * kF32Ulp * n.mag;
    else if (n.err > 0)
      n.err += 2 * kF32Ulp * n.mag;
    n.q = -1;
    expr = std::string(mathName(op)) + "(" + A.text + ")";
    break;
  case Op::Sigmoid:
    if (A.dt != DType::F32 || A.special)
      return -1;
    n.mag = 1;
    n.err = 0.25 * A.err + 20 * kF32Ulp;
    n.q = -1;
    expr = "tl.sigmoid(" + A.text + ")";
    break;
  case Op::Floor:
  case Op::Ceil:
    if (A.dt != DType::F32 || A.err > 0)
      return -1;
    n.mag = std::ceil(A.mag);
    n.q = 0;
    expr = std::string(mathName(op)) + "(" + A.text + ")";
    break;
  default:
    return -1;
  }
  if (!fp)
    finishInt(n);
  else if (n.mag > cap(n.dt))
    return -1;
  return emit(n, expr);
}

int ExprBuilder::castTo(int ia, DType to) {
  if (ia < 0)
    return -1;
  if (node(ia).dt == to)
    return ia;
  DType from = node(ia).dt;
  if (mixesHalves(from, to)) {
    // Through fp32 (exact), then one rounding.
    return castTo(castTo(ia, DType::F32), to);
  }
  if (isFloat(from) && isInt(to)) {
    if (node(ia).err > 0 || node(ia).special)
      return -1;
    double limit = to == DType::I8 ? 100 : 1e9;
    if (node(ia).mag >= limit)
      ia = clamp(ia, -limit, limit);
  }
  if (isFloat(to) && node(ia).mag > cap(to)) {
    double limit = cap(to);
    if (isFloat(from)) {
      ia = clamp(ia, -limit, limit);
    } else {
      ia = binary(Op::Max, ia, constant(from, -limit));
      ia = ia < 0 ? -1 : binary(Op::Min, ia, constant(from, limit));
      if (ia < 0)
        return -1;
    }
  }
  const Node &A = node(ia);
  Node n;
  n.op = Op::Cast;
  n.dt = to;
  n.a = ia;
  n.special = A.special;
  n.scalar = A.scalar;
  n.mag = A.mag;
  n.q = A.q;
  n.err = 0;
  if (from == DType::I1) {
    n.mag = 1;
    n.q = 0;
  } else if (isFloat(from) && isFloat(to)) {
    bool narrower = info(to).precision < info(from).precision;
    bool exact = onGrid(to, n.mag, n.q);
    n.err = A.err;
    if (narrower && !exact && A.err > 0)
      n.err += roundingBound(to, n.mag);
    if (!narrower)
      n.fusable = A.fusable; // fpext(a * b) + c may become an fma
  } else if (isFloat(to)) {
    n.q = 0; // from an integer: rounded alike everywhere
  } else if (isFloat(from)) {
    n.mag = std::floor(A.mag);
    n.q = 0;
  }
  if (isInt(to))
    finishInt(n);
  std::string text = A.text;
  return emit(n, text + ".to(" + tlName(to) + ")");
}

int ExprBuilder::compareOp(Op op, int ia, int ib) {
  if (ia < 0 || ib < 0)
    return -1;
  const Node &A = node(ia), &B = node(ib);
  if (A.dt == DType::I1 || B.dt == DType::I1 || A.err > 0 || B.err > 0)
    return -1;
  if (mixesHalves(A.dt, B.dt))
    return -1;
  if ((A.scalar && B.op != Op::Const && B.dt != A.dt) ||
      (B.scalar && A.op != Op::Const && A.dt != B.dt))
    return -1;
  Node n;
  n.op = op;
  n.dt = DType::I1;
  n.a = ia;
  n.b = ib;
  n.mag = 1;
  n.q = 0;
  n.scalar = A.scalar && (B.scalar || B.op == Op::Const);
  return emit(n, A.text + " " + spelling(op) + " " + B.text);
}

int ExprBuilder::tryOp(int kind) {
  auto any = [](const Node &n) { return n.dt != DType::I1 && !n.scalar; };
  auto anyOrScalar = [](const Node &n) { return n.dt != DType::I1; };
  auto ints = [](const Node &n) { return isInt(n.dt) && !n.scalar; };
  auto intsOrScalar = [](const Node &n) { return isInt(n.dt); };
  auto floats = [](const Node &n) { return isFloat(n.dt) && !n.scalar; };
  auto plainFloats = [](const Node &n) {
    return isFloat(n.dt) && !n.scalar && !n.special;
  };
  auto plainFloatsOrScalar = [](const Node &n) {
    return isFloat(n.dt) && !n.special;
  };
  auto exact = [](const Node &n) {
    return n.dt != DType::I1 && !n.scalar && n.err == 0;
  };
  auto exactOrScalar = [](const Node &n) {
    return n.dt != DType::I1 && n.err == 0;
  };
  auto second = [&](int a, bool (*filter)(const Node &)) {
    if (rng.chance(0.3))
      return randomConstantFor(a);
    return pickValue(filter, false);
  };
  switch (kind) {
  case 0:
  case 1:
  case 2: { // + - *
    Op op = kind == 0 ? Op::Add : kind == 1 ? Op::Sub : Op::Mul;
    int a = pickValue(any);
    if (a < 0)
      return -1;
    return binary(op, a, second(a, anyOrScalar));
  }
  case 3:
  case 4: { // a / (|b| + 1), tl.div_rn
    if (!options.math)
      return -1;
    int a = pickValue(kind == 3 ? any : plainFloats);
    int b = pickValue(kind == 3 ? anyOrScalar : plainFloatsOrScalar, false);
    if (a < 0 || b < 0 || node(a).special || node(b).special)
      return -1;
    if (kind == 4) {
      a = toFloat32(a);
      b = toFloat32(b);
      if (a < 0 || b < 0)
        return -1;
    }
    DType bt = node(b).dt;
    int divisor;
    if (isFloat(bt))
      divisor = binary(Op::Add, unary(Op::Abs, b), constant(bt, 1.0));
    else
      divisor =
          binary(Op::Add, binary(Op::And, b, constant(bt, 7)), constant(bt, 1));
    return binary(kind == 3 ? Op::Div : Op::DivRn, a, divisor);
  }
  case 5:
  case 6: { // // %, by (b & 7) + 1
    if (!options.bitwise)
      return -1;
    int a = pickValue(ints), b = pickValue(intsOrScalar, false);
    if (a < 0 || b < 0)
      return -1;
    DType bt = node(b).dt;
    int divisor =
        binary(Op::Add, binary(Op::And, b, constant(bt, 7)), constant(bt, 1));
    return binary(kind == 5 ? Op::FloorDiv : Op::Mod, a, divisor);
  }
  case 7: { // & | ^
    if (!options.bitwise)
      return -1;
    int a = pickValue(ints);
    if (a < 0)
      return -1;
    Op op = rng.pick({Op::And, Op::Or, Op::Xor});
    return binary(op, a, second(a, intsOrScalar));
  }
  case 8: { // << >> by (b & 7)
    if (!options.bitwise)
      return -1;
    int a = pickValue(ints), b = pickValue(intsOrScalar, false);
    if (a < 0 || b < 0)
      return -1;
    int amount = rng.chance(0.3) ? constant(node(a).dt, double(rng.range(0, 7)))
                                 : binary(Op::And, b, constant(node(b).dt, 7));
    return binary(rng.chance(0.5) ? Op::Shl : Op::Shr, a, amount);
  }
  case 9: { // tl.maximum, tl.minimum
    int a = pickValue(any);
    if (a < 0)
      return -1;
    return binary(rng.chance(0.5) ? Op::Max : Op::Min, a,
                  second(a, anyOrScalar));
  }
  case 10: // -x
    return unary(Op::Neg, pickValue(any));
  case 11: { // tl.abs: the most negative integer has no absolute value
    int a = pickValue(any);
    if (a < 0 || (isInt(node(a).dt) && node(a).mag >= intRange(node(a).dt)))
      return -1;
    return unary(Op::Abs, a);
  }
  case 12: // ~x
    return options.bitwise ? unary(Op::Not, pickValue(ints)) : -1;
  case 13: { // tl.where(a cmp b [& / | another], x, y)
    std::vector<int> conds;
    for (size_t i = 0; i < nodes.size(); ++i)
      if (nodes[i].dt == DType::I1 && !nodes[i].scalar)
        conds.push_back(int(i));
    int cond;
    if (!conds.empty() && rng.chance(0.3)) {
      cond = rng.pick(conds);
    } else {
      int a = pickValue(exact);
      if (a < 0)
        return -1;
      int b = rng.chance(0.4) ? randomConstantFor(a)
                              : pickValue(exactOrScalar, false);
      Op op = rng.pick({Op::Lt, Op::Le, Op::Gt, Op::Ge, Op::Eq, Op::Ne});
      cond = compareOp(op, a, b);
    }
    if (cond < 0)
      return -1;
    if (!conds.empty() && rng.chance(0.25)) {
      int other = rng.pick(conds);
      if (other == cond)
        return -1;
      Node n;
      n.op = rng.chance(0.5) ? Op::LogicalAnd : Op::LogicalOr;
      n.dt = DType::I1;
      n.a = cond;
      n.b = other;
      n.mag = 1;
      n.q = 0;
      cond = emit(n, node(cond).text + " " + spelling(n.op) + " " +
                         node(other).text);
    }
    int x = pickValue(any);
    if (x < 0)
      return -1;
    int y =
        rng.chance(0.3) ? randomConstantFor(x) : pickValue(anyOrScalar, false);
    if (y < 0)
      return -1;
    const Node &X = node(x), &Y = node(y);
    if (mixesHalves(X.dt, Y.dt) || (Y.scalar && Y.dt != X.dt))
      return -1;
    Node n;
    n.op = Op::Where;
    n.dt = promote(X.dt, Y.dt);
    n.a = cond;
    n.b = x;
    n.c = y;
    n.mag = std::max(X.mag, Y.mag);
    n.q = joinGrid(X.q, Y.q);
    n.err = std::max(X.err, Y.err);
    // A condition the compiler folds (x < x) leaves one operand, maybe a
    // product that then fuses into an add.
    n.fusable = std::max(X.fusable, Y.fusable);
    n.special = X.special || Y.special;
    if (isFloat(n.dt) && n.mag > cap(n.dt))
      return -1;
    if (isInt(n.dt))
      finishInt(n);
    return emit(n, "tl.where(" + node(cond).text + ", " + X.text + ", " +
                       Y.text + ")");
  }
  case 14: { // .to(dtype)
    if (!options.casts)
      return -1;
    int a = pickValue(any);
    if (a < 0)
      return -1;
    DType to =
        rng.pick({DType::F32, DType::F16, DType::BF16, DType::I32, DType::I8});
    return castTo(a, to);
  }
  case 15: { // math, on fp32
    if (!options.math)
      return -1;
    int a = toFloat32(pickValue(plainFloats));
    if (a < 0)
      return -1;
    Op op = rng.pick({Op::Exp, Op::Exp2, Op::Log, Op::Log2, Op::Sqrt,
                      Op::SqrtRn, Op::Sigmoid});
    if (op == Op::Log || op == Op::Log2 ||
        ((op == Op::Sqrt || op == Op::SqrtRn) && node(a).err > 0))
      a = binary(Op::Add, unary(Op::Abs, a), constant(DType::F32, 1.0));
    else if (op == Op::Sqrt || op == Op::SqrtRn)
      a = unary(Op::Abs, a);
    else if ((op == Op::Exp || op == Op::Exp2) && node(a).mag > 10)
      a = clamp(a, -8, 8); // into exp's range first
    return unary(op, a);
  }
  case 16: { // tl.floor, tl.ceil of exact values
    int a = pickValue(floats);
    if (a < 0 || node(a).err > 0)
      return -1;
    return unary(rng.chance(0.5) ? Op::Floor : Op::Ceil, toFloat32(a));
  }
  case 17: { // tl.fma on fp32
    if (!options.math)
      return -1;
    int a = toFloat32(pickValue(plainFloats));
    int b = toFloat32(pickValue(plainFloats, false));
    int c = toFloat32(pickValue(plainFloats, false));
    if (a < 0 || b < 0 || c < 0)
      return -1;
    const Node &A = node(a), &B = node(b), &C = node(c);
    Node n;
    n.op = Op::Fma;
    n.dt = DType::F32;
    n.a = a;
    n.b = b;
    n.c = c;
    n.mag = A.mag * B.mag + C.mag;
    if (n.mag > cap(DType::F32))
      return -1;
    n.q = A.q < 0 || B.q < 0 || C.q < 0 ? -1 : std::max(A.q + B.q, C.q);
    double propagated = A.err * B.mag + B.err * A.mag + A.err * B.err + C.err;
    bool isExact = onGrid(DType::F32, n.mag, n.q);
    n.err = propagated > 0 && !isExact
                ? propagated + roundingBound(DType::F32, n.mag)
                : propagated;
    return emit(n, "tl.fma(" + A.text + ", " + B.text + ", " + C.text + ")");
  }
  case 18: { // tl.clamp
    int a = pickValue(floats);
    if (a < 0)
      return -1;
    return clamp(a, -double(rng.range(1, 8)) / 2, double(rng.range(1, 8)) / 2);
  }
  }
  return -1;
}

int ExprBuilder::random(int ops) {
  int last = -1;
  for (int i = 0; i < ops; ++i) {
    for (int attempt = 0; attempt < 30; ++attempt) {
      int kind = int(rng.weighted({3, 2, 3, 1, 0.4, 0.6, 0.6, 1, 0.7, 1.5, 0.5,
                                   0.7, 0.3, 1.5, 1.5, 1.5, 0.5, 0.5, 0.5}));
      size_t before = nodes.size(), linesBefore = lines.size();
      int tempsBefore = temps;
      int id = tryOp(kind);
      if (id >= 0 && node(id).dt != DType::I1) {
        last = id;
        break;
      }
      // Undo what a failed attempt emitted on the way.
      nodes.resize(before);
      lines.resize(linesBefore);
      temps = tempsBefore;
    }
  }
  // Fold values nothing uses (leaves too) into the result, so that most
  // of what was computed reaches memory.
  if (last >= 0) {
    std::vector<bool> used(nodes.size());
    for (const Node &n : nodes)
      for (int operand : {n.a, n.b, n.c})
        if (operand >= 0)
          used[size_t(operand)] = true;
    for (size_t i = 0, end = used.size(); i < end; ++i) {
      const Node &n = nodes[i];
      if (used[i] || int(i) == last || n.op == Op::Const || n.scalar ||
          n.dt == DType::I1 || !rng.chance(0.7))
        continue;
      size_t before = nodes.size(), linesBefore = lines.size();
      int tempsBefore = temps;
      int folded =
          binary(rng.pick({Op::Add, Op::Sub, Op::Max, Op::Min, Op::Mul}), last,
                 int(i));
      if (folded < 0) {
        nodes.resize(before);
        lines.resize(linesBefore);
        temps = tempsBefore;
        continue;
      }
      last = folded;
    }
  }
  if (last < 0) {
    // Nothing fitted: the first tile leaf itself.
    for (size_t i = 0; i < nodes.size(); ++i)
      if (nodes[i].op == Op::Leaf && !nodes[i].scalar)
        return int(i);
  }
  return last;
}

double ExprBuilder::eval(const Node &n, const std::vector<double> &regs,
                         const std::vector<double> &leafValues) const {
  auto conv = [&](int id, DType to) {
    const Node &x = nodes[size_t(id)];
    double v = regs[size_t(id)];
    if (x.dt == DType::I1 || x.dt == to)
      return v;
    return roundTo(to, v);
  };
  auto arg = [&](int id) { return regs[size_t(id)]; };
  DType R = n.dt;
  switch (n.op) {
  case Op::Leaf:
    return leafValues[size_t(n.leaf)];
  case Op::Const:
    return n.k;
  case Op::Add:
  case Op::Sub:
  case Op::Mul:
  case Op::Div:
  case Op::DivRn:
  case Op::Max:
  case Op::Min:
  case Op::FloorDiv:
  case Op::Mod:
  case Op::And:
  case Op::Or:
  case Op::Xor:
  case Op::Shl:
  case Op::Shr: {
    double a = conv(n.a, R), b = conv(n.b, R);
    if (isFloat(R)) {
      // Exact in double, then one rounding: correct for + - * / in every
      // float type here (53 >= 2p + 2).
      switch (n.op) {
      case Op::Add:
        return roundTo(R, a + b);
      case Op::Sub:
        return roundTo(R, a - b);
      case Op::Mul:
        return roundTo(R, a * b);
      case Op::Div:
      case Op::DivRn:
        return roundTo(R, a / b);
      case Op::Max:
        return std::fmax(a, b); // maxnum: a NaN loses
      case Op::Min:
        return std::fmin(a, b);
      default:
        return NAN;
      }
    }
    int64_t x = int64_t(a), y = int64_t(b);
    switch (n.op) {
    case Op::Add:
      return wrapInt(R, uint64_t(x) + uint64_t(y));
    case Op::Sub:
      return wrapInt(R, uint64_t(x) - uint64_t(y));
    case Op::Mul:
      return wrapInt(R, uint64_t(x) * uint64_t(y));
    case Op::Max:
      return double(std::max(x, y));
    case Op::Min:
      return double(std::min(x, y));
    case Op::FloorDiv:
      return wrapInt(R, uint64_t(x / y));
    case Op::Mod:
      return wrapInt(R, uint64_t(x % y));
    case Op::And:
      return wrapInt(R, uint64_t(x & y));
    case Op::Or:
      return wrapInt(R, uint64_t(x | y));
    case Op::Xor:
      return wrapInt(R, uint64_t(x ^ y));
    case Op::Shl:
      return wrapInt(R, uint64_t(x) << y);
    case Op::Shr:
      return wrapInt(R, uint64_t(x >> y));
    default:
      return NAN;
    }
  }
  case Op::Neg:
    return isFloat(R) ? -arg(n.a) : wrapInt(R, -uint64_t(int64_t(arg(n.a))));
  case Op::Abs:
    return isFloat(R) ? std::fabs(arg(n.a))
                      : wrapInt(R, uint64_t(std::llabs(int64_t(arg(n.a)))));
  case Op::Not:
    return wrapInt(R, ~uint64_t(int64_t(arg(n.a))));
  case Op::Cast:
    return conv(n.a, R);
  case Op::Exp:
    return roundTo(R, std::exp(arg(n.a)));
  case Op::Exp2:
    return flushSubnormal(R, roundTo(R, std::exp2(flushSubnormal(R, arg(n.a)))));
  case Op::Log:
    return roundTo(R, std::log(arg(n.a)));
  case Op::Log2:
    return roundTo(R, std::log2(arg(n.a)));
  case Op::Sqrt:
    return roundTo(R, std::sqrt(flushSubnormal(R, arg(n.a))));
  case Op::SqrtRn:
    return roundTo(R, std::sqrt(arg(n.a)));
  case Op::Sigmoid:
    return roundTo(R, 1.0 / (1.0 + std::exp(-arg(n.a))));
  case Op::Floor:
    return std::floor(flushSubnormal(R, arg(n.a)));
  case Op::Ceil:
    return std::ceil(flushSubnormal(R, arg(n.a)));
  case Op::Fma:
    return double(std::fma(float(arg(n.a)), float(arg(n.b)), float(arg(n.c))));
  case Op::Clamp:
    return std::fmin(std::fmax(arg(n.a), roundTo(R, n.k)), roundTo(R, n.k2));
  case Op::Where:
    return arg(n.a) != 0 ? conv(n.b, R) : conv(n.c, R);
  case Op::Lt:
  case Op::Le:
  case Op::Gt:
  case Op::Ge:
  case Op::Eq:
  case Op::Ne: {
    DType work = promote(nodes[size_t(n.a)].dt, nodes[size_t(n.b)].dt);
    double a = conv(n.a, work), b = conv(n.b, work);
    switch (n.op) {
    case Op::Lt:
      return a < b;
    case Op::Le:
      return a <= b;
    case Op::Gt:
      return a > b;
    case Op::Ge:
      return a >= b;
    case Op::Eq:
      return a == b;
    default:
      return a != b;
    }
  }
  case Op::LogicalAnd:
    return arg(n.a) != 0 && arg(n.b) != 0;
  case Op::LogicalOr:
    return arg(n.a) != 0 || arg(n.b) != 0;
  }
  return NAN;
}

void ExprBuilder::evaluate(const std::vector<double> &leafValues,
                           std::vector<double> &regs) const {
  regs.resize(nodes.size());
  for (size_t i = 0; i < nodes.size(); ++i)
    regs[i] = eval(nodes[i], regs, leafValues);
}
