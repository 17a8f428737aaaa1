//===- HostScalar.h - A scalar of host Python -------------------*- C++ -*-===//
//
// Host Python's scalar: None, an int, a float, a bool or a string, and the
// launch arguments host code has no value of. It is the one value type of
// Python's scalars in tilec: the host evaluator's values and the kernel's
// constexprs hold their scalars as HostScalars and compute them with one
// set of Python's operators (lib/Frontend/PythonScalar.h); the JIT, the
// tools' -D and the autotuner hand constexprs to the compiler as
// HostScalars. No MLIR in its interface.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_FRONTEND_HOSTSCALAR_H
#define TILEC_FRONTEND_HOSTSCALAR_H

#include <cstdint>
#include <climits>
#include <optional>
#include <string>
#include <utility>

namespace tilec {

/// Python's ints are unbounded; host code and constexprs keep 128 bits of
/// them, so that `2 ** 63 - 1` (FlagGems' int64 maximum) computes as in
/// Python. What reaches the IR must fit 64 bits.
__extension__ typedef __int128 WideInt;

/// A scalar that host code reads or computes: a launch's argument or a
/// constexpr.
struct HostScalar {
  enum class Kind { None, Int, Float, Bool, String, Pointer, Unknown };
  Kind kind = Kind::None;
  int64_t intValue = 0; ///< Int and Bool
  double floatValue = 0;
  /// String's text; Pointer's element type ("fp16").
  std::string text;
  /// An Int beyond int64: `intValue` is then its low 64 bits and
  /// `intHigh` its high ones (otherwise intValue is the whole value).
  bool wide = false;
  int64_t intHigh = 0;

  /// An Int of any 128-bit value, wide only where int64 cannot hold it.
  static HostScalar ofWideInt(WideInt v) {
    if (v >= INT64_MIN && v <= INT64_MAX)
      return ofInt(int64_t(v));
    HostScalar s = ofInt(int64_t(uint64_t(v)));
    s.wide = true;
    s.intHigh = int64_t(v >> 64);
    return s;
  }
  /// An Int's or Bool's value, wide or not.
  WideInt wideValue() const {
    return wide ? WideInt((unsigned __int128)(uint64_t(intHigh)) << 64 |
                          uint64_t(intValue))
                : WideInt(intValue);
  }

  static HostScalar ofInt(int64_t v) { return {Kind::Int, v, 0, {}}; }
  static HostScalar ofFloat(double v) { return {Kind::Float, 0, v, {}}; }
  static HostScalar ofBool(bool v) { return {Kind::Bool, v, 0, {}}; }
  static HostScalar ofString(std::string v) {
    return {Kind::String, 0, 0, std::move(v)};
  }
  static HostScalar pointer(std::string dtype) {
    return {Kind::Pointer, 0, 0, std::move(dtype)};
  }
  /// An argument whose value only a launch knows (tilec compiles ahead of
  /// time): host code that reads it fails, saying so.
  static HostScalar unknown() { return {Kind::Unknown, 0, 0, {}}; }
  /// A literal as -D and --signature write one: an int, a float, True or
  /// true, False or false, None, or a string in quotes without escapes
  /// ('ieee'); none for other text. The compiler reads constexprs with it.
  static std::optional<HostScalar> parseLiteral(const std::string &text);
  /// A -D value: a literal, or else the text itself as a string
  /// (`-D ACTIVATION=leaky_relu`).
  static HostScalar parse(const std::string &text);
  bool isNumber() const {
    return kind == Kind::Int || kind == Kind::Float || kind == Kind::Bool;
  }
  /// An Int's, Float's or Bool's value as a double.
  double asDouble() const {
    return kind == Kind::Float ? floatValue : double(wideValue());
  }
  /// Python's repr, which is also the source text -D takes: "64", "0.1",
  /// "True", "'ieee'", "None".
  std::string repr() const;
  bool operator==(const HostScalar &other) const;
};
using NamedScalar = std::pair<std::string, HostScalar>;

} // namespace tilec

#endif // TILEC_FRONTEND_HOSTSCALAR_H
