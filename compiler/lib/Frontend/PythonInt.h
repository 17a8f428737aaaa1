//===- PythonInt.h - Python's int operators on 128 bits ---------*- C++ -*-===//
//
// Python's ints are unbounded; tilec holds the ints of host code and of a
// kernel's constexprs in 128 bits (WideInt). These are Python's operators on
// them, each returning nothing where Python's result would not fit, so that
// the caller reports an error at the operator rather than going on with a
// wrapped value Python would never have computed. Division by zero and
// negative shift counts, which Python rejects, are the caller's to check
// first.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_FRONTEND_PYTHONINT_H
#define TILEC_FRONTEND_PYTHONINT_H

#include "tilec/Frontend/AST.h"
#include "tilec/Frontend/HostScalar.h"

#include <cstdint>
#include <optional>

namespace tilec::python_int {

using Result = std::optional<WideInt>;

inline Result add(WideInt a, WideInt b) {
  WideInt r;
  return __builtin_add_overflow(a, b, &r) ? Result() : Result(r);
}
inline Result sub(WideInt a, WideInt b) {
  WideInt r;
  return __builtin_sub_overflow(a, b, &r) ? Result() : Result(r);
}
inline Result mul(WideInt a, WideInt b) {
  WideInt r;
  return __builtin_mul_overflow(a, b, &r) ? Result() : Result(r);
}

/// a // b, rounded toward negative infinity; b != 0.
inline Result floorDiv(WideInt a, WideInt b) {
  if (b == -1)
    return sub(0, a);
  WideInt q = a / b;
  return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

/// a % b, with b's sign; b != 0. It always fits.
inline WideInt mod(WideInt a, WideInt b) {
  if (b == -1)
    return 0;
  WideInt r = a % b;
  return (r != 0 && (r < 0) != (b < 0)) ? r + b : r;
}

/// a ** b for b >= 0.
inline Result pow(WideInt a, WideInt b) {
  // Bases -1, 0 and 1 never grow; any other overflows within 128 factors,
  // which bounds the loop whatever b is.
  if (a == 0 || a == 1)
    return b == 0 ? 1 : a;
  if (a == -1)
    return b % 2 ? -1 : 1;
  Result r = 1;
  for (WideInt k = 0; k < b && r; ++k)
    r = mul(*r, a);
  return r;
}

/// a << b for b >= 0.
inline Result shiftLeft(WideInt a, WideInt b) {
  if (a == 0)
    return 0;
  if (b > 126)
    return std::nullopt;
  WideInt r = WideInt((unsigned __int128)a << int(b));
  return (r >> int(b)) == a ? Result(r) : std::nullopt;
}

/// a >> b for b >= 0: an arithmetic shift, which past 127 leaves the sign.
inline WideInt shiftRight(WideInt a, WideInt b) {
  return a >> int(b > 127 ? 127 : b);
}

/// `a op b` for the operators that take two ints to an int: all but `/`
/// and `@`, for which it has nothing. The caller has checked b != 0 for
/// `//` and `%`, and b >= 0 for `**` (Python's is a float below) and the
/// shifts.
inline Result apply(ast::BinaryOp op, WideInt a, WideInt b) {
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

} // namespace tilec::python_int

#endif // TILEC_FRONTEND_PYTHONINT_H
