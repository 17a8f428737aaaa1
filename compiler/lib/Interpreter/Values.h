//===- Values.h - Values of the tile interpreter ----------------*- C++ -*-===//
//
// A tile (or scalar) while the interpreter runs: its element kind, its shape
// and its elements in row-major order. Integers are kept sign-extended from
// their bit width in an int64_t (i1 true is -1, as arith sees it), floats
// rounded to their type in a double, pointers as (argument, byte offset) so
// that no arithmetic can silently move from one buffer into another.
//
// Free of MLIR, so the conversions here compile quickly.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_INTERPRETER_VALUES_H
#define TILEC_LIB_INTERPRETER_VALUES_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace tilec::interp {

enum class ElemKind : uint8_t {
  I1,
  I8,
  I16,
  I32,
  I64,
  F8E5M2, // tl.float8e5
  F8E4M3, // tl.float8e4nv (no infinities)
  F16,
  BF16,
  F32,
  F64,
  Ptr
};

inline bool isInt(ElemKind k) { return k <= ElemKind::I64; }
inline bool isFloat(ElemKind k) {
  return k >= ElemKind::F8E5M2 && k <= ElemKind::F64;
}
/// The 8- and 16-bit float kinds, kept as bits in memory.
inline bool isSmallFloat(ElemKind k) {
  return k >= ElemKind::F8E5M2 && k <= ElemKind::BF16;
}

/// Bits of an integer or float kind (64 for pointers).
unsigned bitWidth(ElemKind k);
/// Bytes one element occupies in a buffer (i1: one byte).
unsigned storageBytes(ElemKind k);
/// "i32", "f16", "ptr", for messages.
const char *kindName(ElemKind k);

/// An address: a byte offset into the buffer of kernel argument `arg`.
struct Pointer {
  int64_t offset;
  int64_t arg;
};

struct TValue {
  ElemKind kind = ElemKind::I32;
  /// Empty for a scalar.
  llvm::SmallVector<int64_t, 2> shape;
  std::vector<int64_t> ints;
  std::vector<double> floats;
  std::vector<Pointer> ptrs;

  size_t size() const {
    return isInt(kind)     ? ints.size()
           : isFloat(kind) ? floats.size()
                           : ptrs.size();
  }
  bool isScalar() const { return shape.empty(); }

  /// Makes this a value of `kind` and `shape` with `n` (uninitialized)
  /// elements, keeping the storage's capacity for the next program.
  void reset(ElemKind newKind, llvm::ArrayRef<int64_t> newShape, size_t n) {
    kind = newKind;
    shape.assign(newShape.begin(), newShape.end());
    if (isInt(kind))
      ints.resize(n);
    else if (isFloat(kind))
      floats.resize(n);
    else
      ptrs.resize(n);
  }
  /// Element `i` of `from` (same kind) into element `j` of this.
  void copyElement(size_t j, const TValue &from, size_t i) {
    if (isInt(kind))
      ints[j] = from.ints[i];
    else if (isFloat(kind))
      floats[j] = from.floats[i];
    else
      ptrs[j] = from.ptrs[i];
  }
};

/// `v` wrapped to `width` bits and sign-extended (two's complement).
inline int64_t wrapInt(int64_t v, unsigned width) {
  unsigned shift = 64 - width;
  return int64_t(uint64_t(v) << shift) >> shift;
}
/// The canonical (sign-extended) `v` seen as an unsigned `width`-bit value.
inline uint64_t zeroExtend(int64_t v, unsigned width) {
  return width >= 64 ? uint64_t(v) : uint64_t(v) & ((uint64_t(1) << width) - 1);
}

/// `v` rounded to nearest-even in the format of `k`; into fp8 with
/// saturation to the largest finite value, as PTX's cvt.rn.satfinite.
double roundToFormatSlow(double v, ElemKind k);
inline double roundFloat(double v, ElemKind k) {
  if (k == ElemKind::F32)
    return double(float(v));
  if (k == ElemKind::F64)
    return v;
  return roundToFormatSlow(v, k);
}

/// Bits of `v` in the 8- or 16-bit float format `k` (rounded as
/// roundFloat), and back.
uint16_t toHalfBits(double v, ElemKind k);
double fromHalfBits(uint16_t bits, ElemKind k);

/// Reads the element at `p` (storageBytes(k) bytes) into `i` or `f`.
inline void readElement(const uint8_t *p, ElemKind k, int64_t &i, double &f) {
  switch (k) {
  case ElemKind::I1:
    i = (*p & 1) ? -1 : 0;
    return;
  case ElemKind::I8:
    i = int8_t(*p);
    return;
  case ElemKind::F8E5M2:
  case ElemKind::F8E4M3:
    f = fromHalfBits(*p, k);
    return;
  case ElemKind::I16: {
    int16_t v;
    std::memcpy(&v, p, 2);
    i = v;
    return;
  }
  case ElemKind::I32: {
    int32_t v;
    std::memcpy(&v, p, 4);
    i = v;
    return;
  }
  case ElemKind::I64:
    std::memcpy(&i, p, 8);
    return;
  case ElemKind::F16:
  case ElemKind::BF16: {
    uint16_t v;
    std::memcpy(&v, p, 2);
    f = fromHalfBits(v, k);
    return;
  }
  case ElemKind::F32: {
    float v;
    std::memcpy(&v, p, 4);
    f = v;
    return;
  }
  case ElemKind::F64:
    std::memcpy(&f, p, 8);
    return;
  case ElemKind::Ptr:
    return;
  }
}

inline void writeElement(uint8_t *p, ElemKind k, int64_t i, double f) {
  switch (k) {
  case ElemKind::I1:
    *p = uint8_t(i & 1);
    return;
  case ElemKind::I8:
    *p = uint8_t(i);
    return;
  case ElemKind::F8E5M2:
  case ElemKind::F8E4M3:
    *p = uint8_t(toHalfBits(f, k));
    return;
  case ElemKind::I16: {
    int16_t v = int16_t(i);
    std::memcpy(p, &v, 2);
    return;
  }
  case ElemKind::I32: {
    int32_t v = int32_t(i);
    std::memcpy(p, &v, 4);
    return;
  }
  case ElemKind::I64:
    std::memcpy(p, &i, 8);
    return;
  case ElemKind::F16:
  case ElemKind::BF16: {
    uint16_t v = toHalfBits(f, k);
    std::memcpy(p, &v, 2);
    return;
  }
  case ElemKind::F32: {
    float v = float(f);
    std::memcpy(p, &v, 4);
    return;
  }
  case ElemKind::F64:
    std::memcpy(p, &f, 8);
    return;
  case ElemKind::Ptr:
    return;
  }
}

/// "[3, 17]": the multi-dimensional index of element `linear` of `shape`
/// ("[]" for a scalar).
std::string formatIndex(llvm::ArrayRef<int64_t> shape, size_t linear);

} // namespace tilec::interp

#endif // TILEC_LIB_INTERPRETER_VALUES_H
