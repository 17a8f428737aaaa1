//===- Values.cpp - Values of the tile interpreter ------------------------===//

#include "Values.h"

#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/APInt.h"

#include <cmath>

using namespace tilec::interp;

unsigned tilec::interp::bitWidth(ElemKind k) {
  switch (k) {
  case ElemKind::I1:
    return 1;
  case ElemKind::I8:
  case ElemKind::F8E5M2:
  case ElemKind::F8E4M3:
    return 8;
  case ElemKind::I16:
  case ElemKind::F16:
  case ElemKind::BF16:
    return 16;
  case ElemKind::I32:
  case ElemKind::F32:
    return 32;
  case ElemKind::I64:
  case ElemKind::F64:
  case ElemKind::Ptr:
    return 64;
  }
  return 64;
}

unsigned tilec::interp::storageBytes(ElemKind k) {
  return k == ElemKind::I1 ? 1 : bitWidth(k) / 8;
}

const char *tilec::interp::kindName(ElemKind k) {
  static const char *const names[] = {"i1",   "i8",    "i16",     "i32",
                                      "i64",  "f8E5M2", "f8E4M3FN", "f16",
                                      "bf16", "f32",   "f64",     "ptr"};
  return names[unsigned(k)];
}

static const llvm::fltSemantics &semanticsOf(ElemKind k) {
  switch (k) {
  case ElemKind::BF16:
    return llvm::APFloat::BFloat();
  case ElemKind::F8E5M2:
    return llvm::APFloat::Float8E5M2();
  case ElemKind::F8E4M3:
    return llvm::APFloat::Float8E4M3FN();
  default:
    return llvm::APFloat::IEEEhalf();
  }
}

uint16_t tilec::interp::toHalfBits(double v, ElemKind k) {
  const llvm::fltSemantics &semantics = semanticsOf(k);
  bool fp8 = bitWidth(k) == 8;
  // PTX's canonical NaN for fp8; beyond the largest finite value (infinities
  // included) saturation to it, as cvt.rn.satfinite does.
  if (fp8 && std::isnan(v))
    return 0x7f;
  llvm::APFloat value(v);
  bool losesInfo = false;
  value.convert(semantics, llvm::APFloat::rmNearestTiesToEven, &losesInfo);
  if (fp8 && (value.isInfinity() || value.isNaN()))
    value = llvm::APFloat::getLargest(semantics, /*Negative=*/v < 0);
  return uint16_t(value.bitcastToAPInt().getZExtValue());
}

double tilec::interp::fromHalfBits(uint16_t bits, ElemKind k) {
  if (bitWidth(k) == 8) {
    llvm::APFloat value(semanticsOf(k), llvm::APInt(8, bits & 0xff));
    return value.convertToDouble();
  }
  if (k == ElemKind::BF16) {
    uint32_t word = uint32_t(bits) << 16;
    float f;
    std::memcpy(&f, &word, 4);
    return f;
  }
  // IEEE half: 1 sign, 5 exponent, 10 mantissa bits.
  double sign = (bits & 0x8000) ? -1.0 : 1.0;
  unsigned exponent = (bits >> 10) & 0x1f;
  unsigned mantissa = bits & 0x3ff;
  if (exponent == 0)
    return sign * std::ldexp(double(mantissa), -24);
  if (exponent == 31)
    return mantissa ? std::nan("") : sign * INFINITY;
  return sign * std::ldexp(double(mantissa | 0x400), int(exponent) - 25);
}

double tilec::interp::roundToFormatSlow(double v, ElemKind k) {
  // An fp16 NaN is the canonical one, of either sign's input: the GPU's
  // cvt.rn.f16.f32 gives it (measured on the H200: -NaN to fp16 and back
  // has its sign bit clear), as loads of fp16 NaNs here already do.
  if (std::isnan(v))
    return k == ElemKind::F16 ? std::nan("") : v;
  return fromHalfBits(toHalfBits(v, k), k);
}

std::string tilec::interp::formatIndex(llvm::ArrayRef<int64_t> shape,
                                       size_t linear) {
  llvm::SmallVector<int64_t, 4> index(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    int64_t extent = shape[d] > 0 ? shape[d] : 1;
    index[d] = int64_t(linear % uint64_t(extent));
    linear /= uint64_t(extent);
  }
  std::string text = "[";
  for (size_t d = 0; d < index.size(); ++d) {
    if (d)
      text += ", ";
    text += std::to_string(index[d]);
  }
  return text + "]";
}
