//===- Half.h - fp16 and bf16 on the host, for the examples -----*- C++ -*-===//
//
// The examples keep fp16 and bf16 matrices as uint16_t bits: conversions
// from float (round to nearest even) and back, enough for their inputs and
// for reading results.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_DSL_EXAMPLES_HALF_H
#define TILEC_DSL_EXAMPLES_HALF_H

#include <cmath>
#include <cstdint>
#include <cstring>

namespace examples {

inline uint32_t floatBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

inline float bitsFloat(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

/// bf16 is the top half of an fp32: round the bottom half away, to even.
inline uint16_t toBF16(float f) {
  uint32_t u = floatBits(f);
  if (std::isnan(f))
    return uint16_t((u >> 16) | 0x40);
  return uint16_t((u + 0x7fff + ((u >> 16) & 1)) >> 16);
}

inline float fromBF16(uint16_t h) { return bitsFloat(uint32_t(h) << 16); }

/// IEEE half, for the finite values of the examples (no overflow to inf).
inline uint16_t toF16(float f) {
  uint16_t sign = uint16_t((floatBits(f) >> 16) & 0x8000);
  float a = std::fabs(f);
  if (a < 0x1p-24f / 2)
    return sign;
  int exponent;
  std::frexp(a, &exponent); // a = m * 2^exponent, m in [0.5, 1)
  // The value of one unit in the last place of the half: 2^(e - 11) for
  // normals, 2^-24 for subnormals; nearbyint rounds to even.
  int ulpExponent = exponent < -13 ? -24 : exponent - 11;
  float units = std::nearbyint(std::ldexp(a, -ulpExponent));
  // A subnormal, or the smallest normal when rounding carries into it.
  if (ulpExponent == -24)
    return uint16_t(sign | uint16_t(units));
  if (units >= 2048) { // rounded up into the next binade
    units /= 2;
    ++ulpExponent;
  }
  unsigned biased = unsigned(ulpExponent + 11 - 1 + 15);
  return uint16_t(sign | (biased << 10) | (unsigned(units) & 0x3ff));
}

inline float fromF16(uint16_t h) {
  float sign = (h & 0x8000) ? -1.0f : 1.0f;
  int exponent = (h >> 10) & 0x1f;
  int mantissa = h & 0x3ff;
  if (exponent == 0)
    return sign * std::ldexp(float(mantissa), -24);
  if (exponent == 31)
    return mantissa ? NAN : sign * INFINITY;
  return sign * std::ldexp(float(mantissa | 0x400), exponent - 25);
}

} // namespace examples

#endif // TILEC_DSL_EXAMPLES_HALF_H
