//===- PythonInt.h - Python's int operators on 64 bits ----------*- C++ -*-===//
//
// Python's ints are unbounded; tilec holds the ints of host code and of a
// kernel's constexprs in 64 bits. These are Python's operators on them, each
// returning nothing where Python's result would not fit, so that the caller
// reports an error at the operator rather than going on with a wrapped value
// Python would never have computed. Division by zero and negative shift
// counts, which Python rejects, are the caller's to check first.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_FRONTEND_PYTHONINT_H
#define TILEC_FRONTEND_PYTHONINT_H

#include "tilec/Frontend/AST.h"
#include "tilec/Frontend/HostScalar.h"

#include "llvm/Support/CheckedArithmetic.h"

#include <cstdint>
#include <optional>

namespace tilec::python_int {

using Result = std::optional<int64_t>;

inline Result add(int64_t a, int64_t b) { return llvm::checkedAdd(a, b); }
inline Result sub(int64_t a, int64_t b) { return llvm::checkedSub(a, b); }
inline Result mul(int64_t a, int64_t b) { return llvm::checkedMul(a, b); }
inline Result negate(int64_t a) { return sub(0, a); }
inline Result absolute(int64_t a) { return a < 0 ? negate(a) : a; }

/// a // b, rounded toward negative infinity; b != 0.
inline Result floorDiv(int64_t a, int64_t b) {
  if (a == INT64_MIN && b == -1)
    return std::nullopt;
  int64_t q = a / b;
  return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

/// a % b, with b's sign; b != 0. It always fits.
inline int64_t mod(int64_t a, int64_t b) {
  if (b == -1)
    return 0;
  int64_t r = a % b;
  return (r != 0 && (r < 0) != (b < 0)) ? r + b : r;
}

/// a ** b for b >= 0.
inline Result pow(int64_t a, int64_t b) {
  // Bases -1, 0 and 1 never grow; any other overflows within 64 factors,
  // which bounds the loop whatever b is.
  if (a == 0 || a == 1)
    return b == 0 ? 1 : a;
  if (a == -1)
    return b % 2 ? -1 : 1;
  Result r = 1;
  for (int64_t k = 0; k < b && r; ++k)
    r = mul(*r, a);
  return r;
}

/// a << b for b >= 0.
inline Result shiftLeft(int64_t a, int64_t b) {
  if (a == 0)
    return 0;
  if (b > 63)
    return std::nullopt;
  int64_t r = int64_t(uint64_t(a) << b);
  return (r >> b) == a ? Result(r) : std::nullopt;
}

/// a >> b for b >= 0: an arithmetic shift, which past 63 leaves the sign.
inline int64_t shiftRight(int64_t a, int64_t b) {
  return a >> (b > 63 ? 63 : b);
}

/// `a op b` for the operators that take two ints to an int: all but `/`
/// and `@`, for which it has nothing. The caller has checked b != 0 for
/// `//` and `%`, and b >= 0 for `**` (Python's is a float below) and the
/// shifts.
inline Result apply(ast::BinaryOp op, int64_t a, int64_t b) {
  switch (op) {
  case ast::BinaryOp::Add: return add(a, b);
  case ast::BinaryOp::Sub: return sub(a, b);
  case ast::BinaryOp::Mul: return mul(a, b);
  case ast::BinaryOp::FloorDiv: return floorDiv(a, b);
  case ast::BinaryOp::Mod: return mod(a, b);
  case ast::BinaryOp::Pow: return pow(a, b);
  case ast::BinaryOp::BitAnd: return a & b;
  case ast::BinaryOp::BitOr: return a | b;
  case ast::BinaryOp::BitXor: return a ^ b;
  case ast::BinaryOp::LShift: return shiftLeft(a, b);
  case ast::BinaryOp::RShift: return shiftRight(a, b);
  case ast::BinaryOp::Div:
  case ast::BinaryOp::MatMul: return std::nullopt;
  }
  return std::nullopt;
}

/// `a op b` on Python ints held in 128 bits (HostScalar's WideInt), as
/// apply() on 64: nothing where the result would not fit 127 bits and a
/// sign. The caller has made the same checks.
inline std::optional<WideInt> applyWide(ast::BinaryOp op, WideInt a, WideInt b) {
  WideInt r;
  switch (op) {
  case ast::BinaryOp::Add:
    return __builtin_add_overflow(a, b, &r) ? std::nullopt : std::optional(r);
  case ast::BinaryOp::Sub:
    return __builtin_sub_overflow(a, b, &r) ? std::nullopt : std::optional(r);
  case ast::BinaryOp::Mul:
    return __builtin_mul_overflow(a, b, &r) ? std::nullopt : std::optional(r);
  case ast::BinaryOp::FloorDiv: {
    if (b == -1)
      return applyWide(ast::BinaryOp::Sub, 0, a);
    WideInt q = a / b;
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
  }
  case ast::BinaryOp::Mod: {
    if (b == -1)
      return WideInt(0);
    WideInt m = a % b;
    return (m != 0 && (m < 0) != (b < 0)) ? m + b : m;
  }
  case ast::BinaryOp::Pow: {
    if (a == 0 || a == 1)
      return b == 0 ? WideInt(1) : a;
    if (a == -1)
      return WideInt(b % 2 ? -1 : 1);
    std::optional<WideInt> p = WideInt(1);
    for (WideInt k = 0; k < b && p; ++k)
      p = applyWide(ast::BinaryOp::Mul, *p, a);
    return p;
  }
  case ast::BinaryOp::BitAnd: return a & b;
  case ast::BinaryOp::BitOr: return a | b;
  case ast::BinaryOp::BitXor: return a ^ b;
  case ast::BinaryOp::LShift: {
    if (a == 0)
      return WideInt(0);
    if (b > 126)
      return std::nullopt;
    r = WideInt((unsigned __int128)a << int(b));
    return (r >> int(b)) == a ? std::optional(r) : std::nullopt;
  }
  case ast::BinaryOp::RShift:
    return a >> int(b > 127 ? 127 : b);
  case ast::BinaryOp::Div:
  case ast::BinaryOp::MatMul: return std::nullopt;
  }
  return std::nullopt;
}

} // namespace tilec::python_int

#endif // TILEC_FRONTEND_PYTHONINT_H
