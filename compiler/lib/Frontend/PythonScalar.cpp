//===- PythonScalar.cpp - Python's operators on its scalars ---------------===//

#include "PythonScalar.h"
#include "PythonInt.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/ErrorHandling.h"

#include <cmath>
#include <limits>

using namespace tilec;
using namespace tilec::python;
using ast::BinaryOp;
using ast::CompareOp;
using Kind = HostScalar::Kind;

const char *python::typeName(const HostScalar &v) {
  switch (v.kind) {
  case Kind::None:
    return "NoneType";
  case Kind::Int:
    return "int";
  case Kind::Float:
    return "float";
  case Kind::Bool:
    return "bool";
  case Kind::String:
    return "str";
  case Kind::Pointer:
    return "pointer";
  case Kind::Unknown:
    return "launch argument";
  }
  return "object";
}

static Result unsupported(BinaryOp op, const HostScalar &a,
                          const HostScalar &b) {
  return Result::failure(std::string("unsupported operand type(s) for ") +
                         ast::spelling(op) + ": '" + typeName(a) + "' and '" +
                         typeName(b) + "'");
}

static Result overflow(const std::string &what) {
  return Result::failure(what +
                         " does not fit in 128 bits (tilec's ints are 128-bit)");
}

/// Python's float // and %: from fmod, so that the remainder takes the
/// divisor's sign and the quotient is exact where it can be.
static std::pair<double, double> floatDivmod(double x, double y) {
  double mod = std::fmod(x, y);
  double div = (x - mod) / y;
  if (mod != 0) {
    if ((y < 0) != (mod < 0)) {
      mod += y;
      div -= 1;
    }
  } else {
    mod = std::copysign(0.0, y);
  }
  double floorDiv;
  if (div != 0) {
    floorDiv = std::floor(div);
    if (div - floorDiv > 0.5)
      floorDiv += 1;
  } else {
    floorDiv = std::copysign(0.0, x / y);
  }
  return {floorDiv, mod};
}

/// `x op y` in floats, for the arithmetic operators (not the bitwise ones,
/// which Python refuses on floats).
static Result floatBinary(BinaryOp op, double x, double y) {
  switch (op) {
  case BinaryOp::Add:
    return HostScalar::ofFloat(x + y);
  case BinaryOp::Sub:
    return HostScalar::ofFloat(x - y);
  case BinaryOp::Mul:
    return HostScalar::ofFloat(x * y);
  case BinaryOp::Div:
    if (y == 0)
      return Result::failure("division by zero");
    return HostScalar::ofFloat(x / y);
  case BinaryOp::FloorDiv:
  case BinaryOp::Mod:
    if (y == 0)
      return Result::failure("division by zero");
    return HostScalar::ofFloat(op == BinaryOp::Mod ? floatDivmod(x, y).second
                                                   : floatDivmod(x, y).first);
  case BinaryOp::Pow:
    if (x == 0 && y < 0)
      return Result::failure("zero to a negative power");
    if (x < 0 && std::isfinite(y) && y != std::trunc(y))
      return Result::failure("a negative number to a fractional power "
                             "(Python's result is complex)");
    return HostScalar::ofFloat(std::pow(x, y));
  default:
    llvm_unreachable("a bitwise operator on floats");
  }
}

Result python::binary(BinaryOp op, const HostScalar &a, const HostScalar &b) {
  if (a.kind == Kind::String || b.kind == Kind::String) {
    if (op == BinaryOp::Add && a.kind == b.kind)
      return HostScalar::ofString(a.text + b.text);
    bool repeats = op == BinaryOp::Mul &&
                   (a.kind == Kind::Int || b.kind == Kind::Int);
    if (!repeats)
      return unsupported(op, a, b);
    const HostScalar &s = a.kind == Kind::String ? a : b;
    int64_t n = a.kind == Kind::String ? b.intValue : a.intValue;
    if (n > 0 && s.text.size() * uint64_t(n) > (uint64_t(1) << 24))
      return Result::failure("the string is too long");
    std::string out;
    for (int64_t k = 0; k < n; ++k)
      out += s.text;
    return HostScalar::ofString(std::move(out));
  }
  if (!a.isNumber() || !b.isNumber() || op == BinaryOp::MatMul)
    return unsupported(op, a, b);
  bool floats = a.kind == Kind::Float || b.kind == Kind::Float;
  bool bitwise = op == BinaryOp::BitAnd || op == BinaryOp::BitOr ||
                 op == BinaryOp::BitXor || op == BinaryOp::LShift ||
                 op == BinaryOp::RShift;
  if (floats)
    return bitwise ? unsupported(op, a, b)
                   : floatBinary(op, a.asDouble(), b.asDouble());
  WideInt i = a.wideValue(), j = b.wideValue();
  if (op == BinaryOp::Div)
    return floatBinary(op, double(i), double(j));
  if ((op == BinaryOp::FloorDiv || op == BinaryOp::Mod) && j == 0)
    return Result::failure("division by zero");
  if (op == BinaryOp::Pow && j < 0)
    return floatBinary(op, double(i), double(j));
  if ((op == BinaryOp::LShift || op == BinaryOp::RShift) && j < 0)
    return Result::failure("negative shift count");
  python_int::Result r = python_int::apply(op, i, j);
  if (!r) {
    HostScalar x = a, y = b;
    x.kind = y.kind = Kind::Int;
    return overflow(x.repr() + " " + ast::spelling(op) + " " + y.repr());
  }
  // Python's bools stay bools under & | ^ (True << True is 2).
  bool logical = op == BinaryOp::BitAnd || op == BinaryOp::BitOr ||
                 op == BinaryOp::BitXor;
  if (logical && a.kind == Kind::Bool && b.kind == Kind::Bool)
    return HostScalar::ofBool(*r != 0);
  return HostScalar::ofWideInt(*r);
}

Result python::unary(ast::UnaryOp op, const HostScalar &a) {
  if (op == ast::UnaryOp::Not)
    return HostScalar::ofBool(!truthy(a));
  const char *spelling = op == ast::UnaryOp::Neg   ? "-"
                         : op == ast::UnaryOp::Pos ? "+"
                                                   : "~";
  bool takes = op == ast::UnaryOp::Invert
                   ? a.kind == Kind::Int || a.kind == Kind::Bool
                   : a.isNumber();
  if (!takes)
    return Result::failure(std::string("bad operand type for unary ") +
                           spelling + ": '" + typeName(a) + "'");
  if (a.kind == Kind::Float)
    return HostScalar::ofFloat(op == ast::UnaryOp::Neg ? -a.floatValue
                                                       : a.floatValue);
  switch (op) {
  case ast::UnaryOp::Neg:
    if (python_int::Result r = python_int::sub(0, a.wideValue()))
      return HostScalar::ofWideInt(*r);
    return overflow("-(" + a.repr() + ")");
  case ast::UnaryOp::Invert:
    return HostScalar::ofWideInt(~a.wideValue());
  default:
    return HostScalar::ofWideInt(a.wideValue());
  }
}

/// -1, 0 or 1 as `i` is below, equal to or above `f`, exactly (Python
/// compares an int with a float by value, not through a rounded double);
/// nothing when `f` is NaN.
static std::optional<int> compareIntFloat(int64_t i, double f) {
  if (std::isnan(f))
    return std::nullopt;
  constexpr double kTwoTo63 = 9223372036854775808.0;
  if (f >= kTwoTo63)
    return -1;
  if (f < -kTwoTo63)
    return 1;
  double whole = std::trunc(f);
  int64_t w = int64_t(whole);
  if (i != w)
    return i < w ? -1 : 1;
  double fraction = f - whole;
  return fraction > 0 ? -1 : fraction < 0 ? 1 : 0;
}

/// -1, 0 or 1 for two numbers; nothing when one is NaN.
static std::optional<int> order(const HostScalar &a, const HostScalar &b) {
  if (a.kind != Kind::Float && b.kind != Kind::Float)
    return a.wideValue() < b.wideValue() ? -1 : a.wideValue() > b.wideValue();
  // An int beyond int64 against a float: its sign decides against any
  // float of int64's range, and a double of it otherwise.
  auto intFloat = [](const HostScalar &i, double f) -> std::optional<int> {
    if (!i.wide)
      return compareIntFloat(i.intValue, f);
    if (std::isnan(f))
      return std::nullopt;
    double d = double(i.wideValue());
    return d < f ? -1 : d > f ? 1 : 0;
  };
  if (a.kind != Kind::Float)
    return intFloat(a, b.floatValue);
  if (b.kind != Kind::Float) {
    std::optional<int> o = intFloat(b, a.floatValue);
    return o ? std::optional<int>(-*o) : std::nullopt;
  }
  double x = a.floatValue, y = b.floatValue;
  if (std::isnan(x) || std::isnan(y))
    return std::nullopt;
  return x < y ? -1 : x > y;
}

bool python::equal(const HostScalar &a, const HostScalar &b) {
  if (a.isNumber() && b.isNumber())
    return order(a, b) == 0;
  if (a.kind != b.kind)
    return false;
  switch (a.kind) {
  case Kind::None:
    return true;
  case Kind::String:
    return a.text == b.text;
  default:
    return false; // launch arguments have no value to compare
  }
}

Result python::compare(CompareOp op, const HostScalar &a, const HostScalar &b) {
  if (op == CompareOp::Eq)
    return HostScalar::ofBool(equal(a, b));
  if (op == CompareOp::Ne)
    return HostScalar::ofBool(!equal(a, b));
  std::optional<int> o;
  if (a.isNumber() && b.isNumber()) {
    o = order(a, b);
    if (!o)
      return HostScalar::ofBool(false); // NaN is unordered
  } else if (a.kind == Kind::String && b.kind == Kind::String) {
    int c = a.text.compare(b.text);
    o = c < 0 ? -1 : c > 0;
  } else {
    const char *spelling = op == CompareOp::Lt   ? "<"
                           : op == CompareOp::Le ? "<="
                           : op == CompareOp::Gt ? ">"
                                                 : ">=";
    return Result::failure(std::string("'") + spelling +
                           "' not supported between '" + typeName(a) +
                           "' and '" + typeName(b) + "'");
  }
  switch (op) {
  case CompareOp::Lt:
    return HostScalar::ofBool(*o < 0);
  case CompareOp::Le:
    return HostScalar::ofBool(*o <= 0);
  case CompareOp::Gt:
    return HostScalar::ofBool(*o > 0);
  case CompareOp::Ge:
    return HostScalar::ofBool(*o >= 0);
  default:
    return Result::failure("'is' and 'in' are not comparisons of values");
  }
}

bool python::truthy(const HostScalar &v) {
  switch (v.kind) {
  case Kind::None:
    return false;
  case Kind::Int:
  case Kind::Bool:
    return v.wideValue() != 0;
  case Kind::Float:
    return v.floatValue != 0;
  case Kind::String:
    return !v.text.empty();
  default:
    return true;
  }
}

/// A float's value as an int, truncated toward zero, when it has one in 64
/// bits (a float past them is far from exact anyway).
static Result truncate(double d, const std::string &what) {
  if (std::isnan(d))
    return Result::failure("cannot convert float NaN to integer");
  if (std::isinf(d))
    return Result::failure("cannot convert float infinity to integer");
  double whole = std::trunc(d);
  if (whole >= 9223372036854775808.0 || whole < -9223372036854775808.0)
    return Result::failure(what + " does not fit in 64 bits");
  return HostScalar::ofInt(int64_t(whole));
}

Result python::toInt(const HostScalar &v) {
  switch (v.kind) {
  case Kind::Int:
  case Kind::Bool:
    return HostScalar::ofWideInt(v.wideValue());
  case Kind::Float:
    return truncate(v.floatValue, "int(" + v.repr() + ")");
  case Kind::String: {
    std::string digits = llvm::StringRef(v.text).trim().str();
    llvm::erase(digits, '_');
    int64_t i;
    if (!digits.empty() && !llvm::StringRef(digits).getAsInteger(10, i))
      return HostScalar::ofInt(i);
    return Result::failure("invalid literal for int() with base 10: " +
                           v.repr());
  }
  default:
    return Result::failure(std::string("int() of a '") + typeName(v) + "'");
  }
}

Result python::toFloat(const HostScalar &v) {
  switch (v.kind) {
  case Kind::Int:
  case Kind::Bool:
    return HostScalar::ofFloat(double(v.wideValue()));
  case Kind::Float:
    return HostScalar::ofFloat(v.floatValue);
  case Kind::String: {
    // Python's spellings: "1.5", " -2e3 ", "inf", "-Infinity", "nan".
    std::string text = llvm::StringRef(v.text).trim().lower();
    llvm::StringRef body = text;
    bool negative = body.consume_front("-");
    if (!negative)
      body.consume_front("+");
    double d;
    if (body == "inf" || body == "infinity")
      d = std::numeric_limits<double>::infinity();
    else if (body == "nan")
      d = std::numeric_limits<double>::quiet_NaN();
    else if (body.empty() || !(llvm::isDigit(body.front()) ||
                               body.front() == '.') ||
             body.getAsDouble(d))
      return Result::failure("could not convert string to float: " +
                             v.repr());
    return HostScalar::ofFloat(negative ? -d : d);
  }
  default:
    return Result::failure(std::string("float() of a '") + typeName(v) + "'");
  }
}

Result python::absolute(const HostScalar &v) {
  if (v.kind == Kind::Float)
    return HostScalar::ofFloat(std::fabs(v.floatValue));
  if (v.kind != Kind::Int && v.kind != Kind::Bool)
    return Result::failure(std::string("bad operand type for abs(): '") +
                           typeName(v) + "'");
  WideInt x = v.wideValue();
  if (python_int::Result r = x < 0 ? python_int::sub(0, x) : x)
    return HostScalar::ofWideInt(*r);
  return overflow("abs(" + v.repr() + ")");
}

Result python::round(const HostScalar &v) {
  if (v.kind != Kind::Float)
    return toInt(v);
  // Halfway cases to even, as Python rounds.
  return truncate(std::nearbyint(v.floatValue), "round(" + v.repr() + ")");
}

std::string python::str(const HostScalar &v) {
  return v.kind == Kind::String ? v.text : v.repr();
}
