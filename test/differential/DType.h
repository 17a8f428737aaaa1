//===- DType.h - Element types of the generated kernels ---------*- C++ -*-===//
//
// The five dtypes the generator draws (and i1, for comparisons): which of
// the ABI's dtypes each is (names and sizes come from tile/DType.h), their
// precision, Triton's promotion of two tiles, and
// values held as doubles, rounded to a dtype (nearest even for floats,
// two's-complement wrapping for integers) and encoded to its bytes.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_DIFFERENTIAL_DTYPE_H
#define TILEC_DIFFERENTIAL_DTYPE_H

#include "tile/DType.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace difftest {

enum class DType : uint8_t { F32, F16, BF16, I32, I8, I1 };

struct DTypeInfo {
  tile::DType abi; ///< its row of the ABI's table: names, size
  bool isFloat;
  int precision;    ///< significand bits, the implicit one included
  int minExponent;  ///< of the smallest normal: 2^minExponent
  double maxFinite; ///< the largest finite value (floats)
  int64_t min, max; ///< the range (integers)
};

const DTypeInfo &info(DType dt);
inline bool isFloat(DType dt) { return info(dt).isFloat; }
inline bool isInt(DType dt) { return !info(dt).isFloat && dt != DType::I1; }
inline unsigned bytesOf(DType dt) { return tile::byteSize(info(dt).abi); }
/// "tl.float32", as kernels write it.
inline std::string tlName(DType dt) {
  return "tl." + std::string(tile::info(info(dt).abi).tritonName);
}
/// "fp32", as signatures and DeviceBuffer::dtype name it.
inline std::string sigName(DType dt) {
  return std::string(tile::name(info(dt).abi));
}
/// Half an ulp at 1: 2^-precision.
double unitRoundoff(DType dt);
/// How far apart two roundings to `dt` of nearly equal values of magnitude
/// up to `magnitude` may land: an ulp there, and at least the spacing of
/// the subnormals.
double roundingBound(DType dt, double magnitude);

/// Triton's type of `a op b` for two tiles (not Python numbers), as its
/// computation_type_impl: fp32, then fp16 win; bf16 is fp32
/// with anything but bf16; a float with an integer is the float; integers
/// the wider.
DType promote(DType a, DType b);

/// `v` as the dtype holds it: floats rounded to nearest even (overflow to
/// infinity, NaN kept), integers truncated toward zero and wrapped.
double roundTo(DType dt, double v);

/// Bytes of an element holding `v` (already representable), and back.
void encode(DType dt, double v, void *dst);
double decode(DType dt, const void *src);

} // namespace difftest

#endif // TILEC_DIFFERENTIAL_DTYPE_H
