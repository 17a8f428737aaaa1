//===- DType.cpp - The element types of the kernel ABI --------------------===//

#include "tile/DType.h"

#include <algorithm>
#include <cmath>
#include <cstring>

using namespace tile;

std::optional<DType> tile::parseDType(std::string_view text) {
  for (const DTypeInfo &row : kDTypes)
    if (text == row.name || text == row.tritonName)
      return row.dtype;
  // MLIR's spellings of the floats, which tilec has long accepted.
  if (text == "f16")
    return DType::FP16;
  if (text == "f32")
    return DType::FP32;
  if (text == "f64")
    return DType::FP64;
  return std::nullopt;
}

std::optional<DType> tile::integerDType(unsigned bits, bool isUnsigned) {
  DTypeClass wanted = isUnsigned ? DTypeClass::Unsigned : DTypeClass::Signed;
  for (const DTypeInfo &row : kDTypes)
    if (row.typeClass == wanted && row.bits == bits)
      return row.dtype;
  return std::nullopt;
}

std::string tile::listDTypes() {
  std::string list;
  for (const DTypeInfo &row : kDTypes)
    list += (list.empty() ? "" : ", ") + std::string(row.name);
  return list;
}

std::optional<ParamType> ParamType::parse(std::string_view text) {
  bool pointer = !text.empty() && text.front() == '*';
  if (pointer)
    text.remove_prefix(1);
  std::optional<DType> dtype = parseDType(text);
  if (!dtype)
    return std::nullopt;
  return ParamType{*dtype, pointer};
}

std::string ParamType::str() const {
  return (isPointer ? "*" : "") + std::string(name(dtype));
}

std::optional<SignatureType> tile::parseSignatureType(std::string_view text,
                                                      std::string *error) {
  auto trim = [](std::string_view s) {
    while (!s.empty() && s.front() == ' ')
      s.remove_prefix(1);
    while (!s.empty() && s.back() == ' ')
      s.remove_suffix(1);
    return s;
  };
  text = trim(text);
  size_t colon = text.find(':');
  std::string_view typeText = trim(text.substr(0, colon));
  std::optional<ParamType> type = ParamType::parse(typeText);
  if (!type)
    return std::nullopt;
  SignatureType entry{*type, 0};
  if (colon == std::string_view::npos)
    return entry;
  // Triton's hints are 16 and 1; tilec also takes the smaller powers of
  // two, so that a stride of 5000 fp16 elements can promise its 16-byte
  // rows (i32:8) and a pointer its real alignment (*fp16:8).
  std::string_view hint = trim(text.substr(colon + 1));
  for (unsigned value : {16u, 8u, 4u, 2u, 1u})
    if (hint == std::to_string(value)) {
      entry.hint = value;
      return entry;
    }
  if (error)
    *error = "the hint after ':' must be 16, 8, 4 or 2 (divisible by it; a "
             "pointer aligned to that many bytes) or 1 (an integer equal to "
             "1), not '" +
             std::string(hint) + "'";
  return std::nullopt;
}

namespace {

/// The layout of a float dtype narrower than fp32: exponent and mantissa
/// bits, and whether its largest exponent means infinity and NaN (IEEE) or
/// holds numbers (fp8e4nv: only all ones is NaN).
struct SmallFloat {
  int exponentBits, mantissaBits;
  bool ieee;
};

SmallFloat smallFloat(DType dtype) {
  switch (dtype) {
  case DType::FP16:
    return {5, 10, true};
  case DType::BF16:
    return {8, 7, true};
  case DType::FP8E5:
    return {5, 2, true};
  default: // FP8E4NV
    return {4, 3, false};
  }
}

} // namespace

double tile::decodeFloat(DType dtype, uint64_t bits) {
  if (dtype == DType::FP32) {
    float f;
    uint32_t word = uint32_t(bits);
    std::memcpy(&f, &word, sizeof(f));
    return f;
  }
  if (dtype == DType::FP64) {
    double d;
    std::memcpy(&d, &bits, sizeof(d));
    return d;
  }
  SmallFloat layout = smallFloat(dtype);
  int bias = (1 << (layout.exponentBits - 1)) - 1;
  uint64_t mantissa = bits & ((uint64_t(1) << layout.mantissaBits) - 1);
  uint64_t exponent =
      (bits >> layout.mantissaBits) & ((uint64_t(1) << layout.exponentBits) - 1);
  bool negative = (bits >> (layout.mantissaBits + layout.exponentBits)) & 1;
  uint64_t maxExponent = (uint64_t(1) << layout.exponentBits) - 1;
  double value;
  if (layout.ieee && exponent == maxExponent)
    value = mantissa ? NAN : INFINITY;
  else if (!layout.ieee && exponent == maxExponent &&
           mantissa == (uint64_t(1) << layout.mantissaBits) - 1)
    value = NAN;
  else if (exponent == 0)
    value = std::ldexp(double(mantissa), 1 - bias - layout.mantissaBits);
  else
    value = std::ldexp(double(mantissa | (uint64_t(1) << layout.mantissaBits)),
                       int(exponent) - bias - layout.mantissaBits);
  return negative ? -value : value;
}

uint64_t tile::encodeFloat(DType dtype, double value) {
  if (dtype == DType::FP32) {
    float f = float(value);
    uint32_t word;
    std::memcpy(&word, &f, sizeof(word));
    return word;
  }
  if (dtype == DType::FP64) {
    uint64_t word;
    std::memcpy(&word, &value, sizeof(word));
    return word;
  }
  SmallFloat layout = smallFloat(dtype);
  int m = layout.mantissaBits;
  int bias = (1 << (layout.exponentBits - 1)) - 1;
  uint64_t maxExponent = (uint64_t(1) << layout.exponentBits) - 1;
  uint64_t sign = std::signbit(value) ? uint64_t(1) << (m + layout.exponentBits)
                                      : 0;
  uint64_t nan = layout.ieee ? (maxExponent << m) | (uint64_t(1) << (m - 1))
                             : (maxExponent << m) | ((uint64_t(1) << m) - 1);
  uint64_t overflow = layout.ieee ? maxExponent << m : nan;
  if (std::isnan(value))
    return sign | nan;
  double magnitude = std::fabs(value);
  if (std::isinf(magnitude))
    return sign | overflow;
  if (magnitude == 0)
    return sign;
  // magnitude = q * 2^(e - m) with q rounded to m + 1 bits, ties to even.
  int e;
  std::frexp(magnitude, &e);
  e = std::max(e - 1, 1 - bias); // below the normals: the subnormals' scale
  double q = std::nearbyint(std::ldexp(magnitude, m - e));
  if (q >= std::ldexp(1.0, m + 1)) {
    q /= 2;
    ++e;
  }
  uint64_t quantum = uint64_t(q);
  uint64_t exponent = quantum >> m ? uint64_t(e + bias) : 0;
  uint64_t mantissa = quantum & ((uint64_t(1) << m) - 1);
  bool tooLarge = layout.ieee ? exponent >= maxExponent
                              : exponent > maxExponent ||
                                    (exponent == maxExponent &&
                                     mantissa == (uint64_t(1) << m) - 1);
  if (tooLarge)
    return sign | overflow;
  return sign | (exponent << m) | mantissa;
}
