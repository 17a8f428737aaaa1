//===- DType.cpp - Element types of the generated kernels -----------------===//

#include "DType.h"

#include <cmath>
#include <cstring>

using namespace difftest;

const DTypeInfo &difftest::info(DType dt) {
  static const DTypeInfo table[] = {
      {tile::DType::FP32, true, 24, -126, 0x1.fffffep127, 0, 0},
      {tile::DType::FP16, true, 11, -14, 65504.0, 0, 0},
      {tile::DType::BF16, true, 8, -126, 0x1.fep127, 0, 0},
      {tile::DType::I32, false, 0, 0, 0, INT32_MIN, INT32_MAX},
      {tile::DType::I8, false, 0, 0, 0, INT8_MIN, INT8_MAX},
      {tile::DType::I1, false, 0, 0, 0, 0, 1},
  };
  return table[unsigned(dt)];
}

double difftest::unitRoundoff(DType dt) {
  return isFloat(dt) ? std::ldexp(1.0, -info(dt).precision) : 0.0;
}

double difftest::roundingBound(DType dt, double magnitude) {
  if (!isFloat(dt))
    return 0;
  const DTypeInfo &i = info(dt);
  return 2 * unitRoundoff(dt) * magnitude +
         std::ldexp(1.0, i.minExponent - i.precision + 1);
}

DType difftest::promote(DType a, DType b) {
  if (a == b)
    return a;
  // Triton's computation_type_impl, in its order (the generator has no
  // fp64): fp32, then fp16 win; bf16 stays bf16 only with bf16 (with an
  // integer it is fp32); another float with an integer is that float.
  if (isFloat(a) || isFloat(b)) {
    for (DType wins : {DType::F32, DType::F16})
      if (a == wins || b == wins)
        return wins;
    if (a == DType::BF16 || b == DType::BF16)
      return DType::F32;
    return isFloat(a) ? a : b;
  }
  if (a == DType::I1)
    return b;
  if (b == DType::I1)
    return a;
  return bytesOf(a) >= bytesOf(b) ? a : b;
}

/// Rounds to `precision` significand bits with normals from 2^minExponent,
/// to nearest even, in double (exact: the steps are scalings by powers of
/// two and one nearbyint).
static double roundFloat(double v, int precision, int minExponent,
                         double maxFinite) {
  if (!std::isfinite(v) || v == 0)
    return v;
  int exponent;
  std::frexp(v, &exponent); // |v| = m 2^exponent, m in [0.5, 1)
  int ulp = exponent - precision;
  if (ulp < minExponent - precision + 1)
    ulp = minExponent - precision + 1; // subnormal
  double r = std::ldexp(std::nearbyint(std::ldexp(v, -ulp)), ulp);
  if (std::fabs(r) > maxFinite)
    return std::copysign(INFINITY, v);
  return r;
}

double difftest::roundTo(DType dt, double v) {
  switch (dt) {
  case DType::F32:
    return double(float(v));
  case DType::F16:
  case DType::BF16: {
    const DTypeInfo &i = info(dt);
    return roundFloat(v, i.precision, i.minExponent, i.maxFinite);
  }
  case DType::I1:
    return v != 0 ? 1 : 0;
  case DType::I32:
  case DType::I8: {
    double t = std::trunc(v);
    // Wrap through uint64: t is an integer within int64 for every value
    // the generator makes.
    uint64_t u = uint64_t(int64_t(t));
    if (dt == DType::I32)
      return double(int32_t(uint32_t(u)));
    return double(int8_t(uint8_t(u)));
  }
  }
  return v;
}

static uint16_t halfBits(double v) {
  uint16_t sign = std::signbit(v) ? 0x8000 : 0;
  if (std::isnan(v))
    return 0x7e00;
  double a = std::fabs(v);
  if (std::isinf(a))
    return sign | 0x7c00;
  if (a == 0)
    return sign;
  int exponent;
  std::frexp(a, &exponent); // a = m 2^exponent
  int e = exponent - 1;     // a = 1.f 2^e
  if (e < -14)              // subnormal: a = k 2^-24
    return sign | uint16_t(std::ldexp(a, 24));
  uint16_t mantissa = uint16_t(std::ldexp(a, 10 - e) - 1024);
  return sign | uint16_t((e + 15) << 10) | mantissa;
}

static double fromHalfBits(uint16_t h) {
  double sign = (h & 0x8000) ? -1.0 : 1.0;
  int exponent = (h >> 10) & 0x1f;
  int mantissa = h & 0x3ff;
  if (exponent == 0)
    return sign * std::ldexp(double(mantissa), -24);
  if (exponent == 31)
    return mantissa ? NAN : sign * INFINITY;
  return sign * std::ldexp(double(mantissa | 0x400), exponent - 25);
}

void difftest::encode(DType dt, double v, void *dst) {
  switch (dt) {
  case DType::F32: {
    float f = float(v);
    std::memcpy(dst, &f, 4);
    return;
  }
  case DType::F16: {
    uint16_t h = halfBits(v);
    std::memcpy(dst, &h, 2);
    return;
  }
  case DType::BF16: {
    float f = float(v); // representable in bf16, so in fp32
    uint32_t u;
    std::memcpy(&u, &f, 4);
    uint16_t h = std::isnan(f) ? uint16_t(0x7fc0) : uint16_t(u >> 16);
    std::memcpy(dst, &h, 2);
    return;
  }
  case DType::I32: {
    int32_t i = int32_t(v);
    std::memcpy(dst, &i, 4);
    return;
  }
  case DType::I8:
  case DType::I1: {
    int8_t i = int8_t(v);
    std::memcpy(dst, &i, 1);
    return;
  }
  }
}

double difftest::decode(DType dt, const void *src) {
  switch (dt) {
  case DType::F32: {
    float f;
    std::memcpy(&f, src, 4);
    return f;
  }
  case DType::F16: {
    uint16_t h;
    std::memcpy(&h, src, 2);
    return fromHalfBits(h);
  }
  case DType::BF16: {
    uint16_t h;
    std::memcpy(&h, src, 2);
    uint32_t u = uint32_t(h) << 16;
    float f;
    std::memcpy(&f, &u, 4);
    return f;
  }
  case DType::I32: {
    int32_t i;
    std::memcpy(&i, src, 4);
    return i;
  }
  case DType::I8:
  case DType::I1: {
    int8_t i;
    std::memcpy(&i, src, 1);
    return i;
  }
  }
  return 0;
}
