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
};
#undef UNARY
#undef BINARY

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
