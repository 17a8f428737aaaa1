//===- Libdevice.cpp - The libdevice functions kernels may call -----------===//

#include "tilec/Dialect/Tile/IR/Libdevice.h"

#include "llvm/ADT/STLExtras.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::tile;
using llvm::ArrayRef;
using llvm::StringRef;

namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr double kSqrt2 = 1.41421356237309504880;

/// The inverse of erf by Newton's method from a rough start; erf' is
/// 2/sqrt(pi) exp(-x^2).
double erfinv(double y) {
  if (y <= -1 || y >= 1)
    return y == 1    ? std::numeric_limits<double>::infinity()
           : y == -1 ? -std::numeric_limits<double>::infinity()
                     : std::numeric_limits<double>::quiet_NaN();
  double w = -std::log((1 - y) * (1 + y));
  double x = std::copysign(std::sqrt(std::sqrt(w * w + 8 * w / kPi) - w), y);
  for (int i = 0; i < 60; ++i) {
    double step = (std::erf(x) - y) / (2 / std::sqrt(kPi) * std::exp(-x * x));
    x -= step;
    if (std::fabs(step) <= 1e-17 * std::fabs(x))
      break;
  }
  return x;
}

/// exp(x^2) erfc(x) without overflow: the asymptotic series past 25.
double erfcx(double x) {
  if (x < 25)
    return std::exp(x * x) * std::erfc(x);
  double inv2 = 1 / (2 * x * x);
  return 1 / (x * std::sqrt(kPi)) * (1 - inv2 + 3 * inv2 * inv2);
}

template <double (*F)(double)>
double unary(ArrayRef<double> a) {
  return F(a[0]);
}
template <double (*F)(double, double)>
double binary(ArrayRef<double> a) {
  return F(a[0], a[1]);
}
double fma3(ArrayRef<double> a) { return std::fma(a[0], a[1], a[2]); }

double cospi(double x) { return std::cos(kPi * x); }
double sinpi(double x) { return std::sin(kPi * x); }
double exp10(double x) { return std::pow(10.0, x); }
double rcbrt(double x) { return 1 / std::cbrt(x); }
double rsqrt(double x) { return 1 / std::sqrt(x); }
double normcdf(double x) { return 0.5 * std::erfc(-x / kSqrt2); }
double erfcinv(double y) { return erfinv(1 - y); }
double normcdfinv(double p) { return -kSqrt2 * erfcinv(2 * p); }
double besselJ0(double x) { return ::j0(x); }
double besselJ1(double x) { return ::j1(x); }
double besselY0(double x) { return ::y0(x); }
double besselY1(double x) { return ::y1(x); }
// std::fmax and friends are overloaded; these pick the double ones.
double fmaxD(double x, double y) { return std::fmax(x, y); }
double fminD(double x, double y) { return std::fmin(x, y); }

// The arithmetic of the rounded functions: the result in double, rounded to
// nearest, and on which side of it the exact result lies.
double add(ArrayRef<double> a) { return a[0] + a[1]; }
double sub(ArrayRef<double> a) { return a[0] - a[1]; }
double mul(ArrayRef<double> a) { return a[0] * a[1]; }
double div(ArrayRef<double> a) { return a[0] / a[1]; }
double rcp(ArrayRef<double> a) { return 1 / a[0]; }
double sqrtOf(ArrayRef<double> a) { return std::sqrt(a[0]); }

int signOf(double v) { return (v > 0) - (v < 0); }
/// Knuth's TwoSum: s + its error is exactly a + b.
int sumSide(double a, double b, double s) {
  double bb = s - a;
  return signOf((a - (s - bb)) + (b - bb));
}
int addSide(ArrayRef<double> a, double s) { return sumSide(a[0], a[1], s); }
int subSide(ArrayRef<double> a, double s) { return sumSide(a[0], -a[1], s); }
// One fma gives each residual exactly: a*b - p, a - q*b, 1 - q*a, a - q*q.
int mulSide(ArrayRef<double> a, double p) {
  return signOf(std::fma(a[0], a[1], -p));
}
int divSide(ArrayRef<double> a, double q) {
  return signOf(std::fma(-q, a[1], a[0])) * signOf(a[1]);
}
int rcpSide(ArrayRef<double> a, double q) {
  return signOf(std::fma(-q, a[0], 1.0)) * signOf(a[0]);
}
int sqrtSide(ArrayRef<double> a, double q) {
  return signOf(std::fma(-q, q, a[0]));
}

#define UNARY(NAME, F) {NAME, 1, unary<F>}
#define BINARY(NAME, F) {NAME, 2, binary<F>}
const LibdeviceFunction kFunctions[] = {
    UNARY("abs", std::fabs),     UNARY("acos", std::acos),
    UNARY("acosh", std::acosh),  UNARY("asin", std::asin),
    UNARY("asinh", std::asinh),  UNARY("atan", std::atan),
    UNARY("atanh", std::atanh),  UNARY("cbrt", std::cbrt),
    UNARY("ceil", std::ceil),    UNARY("cos", std::cos),
    UNARY("cosh", std::cosh),    UNARY("cospi", cospi),
    UNARY("erf", std::erf),      UNARY("erfc", std::erfc),
    UNARY("erfcinv", erfcinv),   UNARY("erfcx", erfcx),
    UNARY("erfinv", erfinv),     UNARY("exp", std::exp),
    UNARY("exp10", exp10),       UNARY("exp2", std::exp2),
    UNARY("expm1", std::expm1),  UNARY("floor", std::floor),
    UNARY("j0", besselJ0),       UNARY("j1", besselJ1),
    UNARY("lgamma", std::lgamma), UNARY("log", std::log),
    UNARY("log10", std::log10),  UNARY("log1p", std::log1p),
    UNARY("log2", std::log2),    UNARY("logb", std::logb),
    UNARY("nearbyint", std::nearbyint), UNARY("normcdf", normcdf),
    UNARY("normcdfinv", normcdfinv), UNARY("rcbrt", rcbrt),
    UNARY("rint", std::nearbyint), UNARY("round", std::round),
    UNARY("rsqrt", rsqrt),       UNARY("sin", std::sin),
    UNARY("sinh", std::sinh),    UNARY("sinpi", sinpi),
    UNARY("sqrt", std::sqrt),    UNARY("tan", std::tan),
    UNARY("tanh", std::tanh),    UNARY("tgamma", std::tgamma),
    UNARY("trunc", std::trunc),  UNARY("y0", besselY0),
    UNARY("y1", besselY1),
    BINARY("atan2", std::atan2), BINARY("copysign", std::copysign),
    BINARY("fdim", std::fdim),   BINARY("fmax", fmaxD),
    BINARY("fmin", fminD),       BINARY("fmod", std::fmod),
    BINARY("hypot", std::hypot), BINARY("nextafter", std::nextafter),
    BINARY("pow", std::pow),     BINARY("remainder", std::remainder),
    {"fma", 3, fma3},
#define ROUNDED_IN(OP, ARITY, F, SIDE, MODE, ROUNDING)                         \
  {OP "_" MODE,      ARITY,                  F,                                 \
   SIDE,             Rounding::ROUNDING,     "__nv_f" OP "_" MODE,              \
   "__nv_d" OP "_" MODE}
#define ROUNDED(OP, ARITY, F, SIDE)                                            \
  ROUNDED_IN(OP, ARITY, F, SIDE, "rn", Nearest),                               \
      ROUNDED_IN(OP, ARITY, F, SIDE, "rz", TowardZero),                        \
      ROUNDED_IN(OP, ARITY, F, SIDE, "rd", Down),                              \
      ROUNDED_IN(OP, ARITY, F, SIDE, "ru", Up)
    ROUNDED("add", 2, add, addSide),
    ROUNDED("sub", 2, sub, subSide),
    ROUNDED("mul", 2, mul, mulSide),
    ROUNDED("div", 2, div, divSide),
    ROUNDED("rcp", 1, rcp, rcpSide),
    ROUNDED("sqrt", 1, sqrtOf, sqrtSide),
};
#undef UNARY
#undef BINARY
#undef ROUNDED_IN
#undef ROUNDED

/// libdevice spells a few differently from Triton.
StringRef symbolStem(StringRef name) { return name == "abs" ? "fabs" : name; }

} // namespace

const LibdeviceFunction *mlir::tile::lookupLibdevice(StringRef name) {
  for (const LibdeviceFunction &f : kFunctions)
    if (f.name == name)
      return &f;
  return nullptr;
}

std::string mlir::tile::getLibdeviceSymbol(const LibdeviceFunction &function,
                                           Type element) {
  StringRef named = element.isF32() ? function.f32Symbol : function.f64Symbol;
  if (!named.empty())
    return named.str();
  return ("__nv_" + symbolStem(function.name) + (element.isF32() ? "f" : ""))
      .str();
}

const LibdeviceFunction *mlir::tile::lookupLibdeviceSymbol(StringRef symbol,
                                                           Type element) {
  for (const LibdeviceFunction &f : kFunctions)
    if (getLibdeviceSymbol(f, element) == symbol)
      return &f;
  return nullptr;
}

double mlir::tile::evaluateLibdevice(const LibdeviceFunction &function,
                                     ArrayRef<double> args, bool toF32) {
  double nearest = function.reference(args);
  // Rounding to nearest is the double's, rounded again to f32 by the
  // caller: innocuous, as double has more than 2 * 24 + 2 bits.
  if (!function.exactSide || function.rounding == Rounding::Nearest ||
      std::isnan(nearest))
    return nearest;
  double result = toF32 ? double(float(nearest)) : nearest;
  // Which side of `result` the exact value lies. Where f32 rounding moved
  // it, the exact value is on the double's side (a double rounds by half a
  // double ulp, less than the move); a double overflowed to infinity lies
  // past the exact, finite value.
  int side;
  if (result != nearest)
    side = nearest > result ? 1 : -1;
  else if (std::isinf(nearest))
    side = llvm::all_of(args, [](double a) { return std::isfinite(a); })
               ? (nearest > 0 ? -1 : 1)
               : 0;
  else
    side = function.exactSide(args, nearest);
  bool up;
  switch (function.rounding) {
  case Rounding::Nearest:
    return result;
  case Rounding::Up:
    if (side <= 0)
      return result;
    up = true;
    break;
  case Rounding::Down:
    if (side >= 0)
      return result;
    up = false;
    break;
  case Rounding::TowardZero:
    if (!(side > 0 && result < 0) && !(side < 0 && result > 0))
      return result;
    up = side > 0;
    break;
  }
  double toward = up ? std::numeric_limits<double>::infinity()
                     : -std::numeric_limits<double>::infinity();
  return toF32 ? double(std::nextafter(float(result), float(toward)))
               : std::nextafter(result, toward);
}
