//===- PythonScalar.h - Python's operators on its scalars -------*- C++ -*-===//
//
// The one implementation of what Python does with None, ints, floats, bools
// and strings: its operators, comparisons, truth and conversions. Host code
// (HostEvaluator: decorators, heuristics, grids) and a kernel's constexprs
// (MLIRGen's folding) both hold their scalars as HostScalars and compute
// them here, so `16 // -3`, `-7.5 % 2`, `int(2.0**62)` or `repr(0.1)` mean
// one thing wherever they are written.
//
// Ints are 64-bit (Python's are unbounded): where Python's result would not
// fit, the operation fails and says so, rather than wrapping.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_FRONTEND_PYTHONSCALAR_H
#define TILEC_LIB_FRONTEND_PYTHONSCALAR_H

#include "tilec/Frontend/AST.h"
#include "tilec/Frontend/HostScalar.h"

#include <optional>
#include <string>

namespace tilec::python {

/// An operation's value, or what Python raises instead (the message
/// without the exception's class: "division by zero").
class Result {
public:
  Result(HostScalar value) : value_(std::move(value)) {}
  static Result failure(std::string message) {
    Result r{HostScalar()};
    r.value_.reset();
    r.error_ = std::move(message);
    return r;
  }
  explicit operator bool() const { return value_.has_value(); }
  const HostScalar &operator*() const { return *value_; }
  const HostScalar *operator->() const { return &*value_; }
  const std::string &error() const { return error_; }

private:
  std::optional<HostScalar> value_;
  std::string error_;
};

/// Python's name of the scalar's type, as its errors write it: 'int',
/// 'float', 'bool', 'str', 'NoneType'.
const char *typeName(const HostScalar &v);

/// `a op b`: arithmetic on numbers (bools are ints), `+` joining strings and
/// `*` repeating one.
Result binary(ast::BinaryOp op, const HostScalar &a, const HostScalar &b);
/// `-a`, `+a`, `~a`, `not a`.
Result unary(ast::UnaryOp op, const HostScalar &a);
/// `a op b` for <, <=, >, >=, == and != (ints against floats exactly, as
/// Python compares them); a bool. Ordering needs two numbers or two
/// strings.
Result compare(ast::CompareOp op, const HostScalar &a, const HostScalar &b);
/// Python's `a == b`.
bool equal(const HostScalar &a, const HostScalar &b);
/// Python's truth value.
bool truthy(const HostScalar &v);

/// int(v), float(v), abs(v) and round(v) (no ndigits).
Result toInt(const HostScalar &v);
Result toFloat(const HostScalar &v);
Result absolute(const HostScalar &v);
Result round(const HostScalar &v);
/// str(v): a string's text, any other scalar's repr.
std::string str(const HostScalar &v);

} // namespace tilec::python

#endif // TILEC_LIB_FRONTEND_PYTHONSCALAR_H
