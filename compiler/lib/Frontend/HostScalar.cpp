//===- HostScalar.cpp - A scalar of host Python ---------------------------===//

#include "tilec/Frontend/HostScalar.h"

#include "llvm/ADT/StringRef.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

using namespace tilec;

/// Python's repr of a string: in single quotes unless it holds one and no
/// double quote; backslashes, the quote, and control characters escaped.
static std::string quote(const std::string &text) {
  bool doubleQuoted = text.find('\'') != std::string::npos &&
                      text.find('"') == std::string::npos;
  char q = doubleQuoted ? '"' : '\'';
  std::string out(1, q);
  for (char c : text) {
    switch (c) {
    case '\\':
      out += "\\\\";
      break;
    case '\n':
      out += "\\n";
      break;
    case '\r':
      out += "\\r";
      break;
    case '\t':
      out += "\\t";
      break;
    default:
      if (c == q)
        out += '\\';
      if (static_cast<unsigned char>(c) < 0x20) {
        static const char *digits = "0123456789abcdef";
        out += "\\x";
        out += digits[(c >> 4) & 15];
        out += digits[c & 15];
        continue;
      }
      out += c;
    }
  }
  return out + q;
}

/// Python's repr of a float: the fewest digits that read back as `d`, in
/// positional notation for exponents -4 to 15 and scientific beyond.
static std::string floatRepr(double d) {
  if (std::isnan(d))
    return "nan";
  if (std::isinf(d))
    return d > 0 ? "inf" : "-inf";
  char buffer[40];
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buffer, sizeof buffer, "%.*e", precision - 1, d);
    if (std::strtod(buffer, nullptr) == d)
      break;
  }
  // buffer is [-]D[.DDD]e[+-]XX.
  llvm::StringRef text = buffer;
  bool negative = text.consume_front("-");
  auto [mantissa, exponentText] = text.split('e');
  exponentText.consume_front("+");
  int exponent = 0;
  exponentText.getAsInteger(10, exponent);
  std::string digits = mantissa.substr(0, 1).str();
  if (mantissa.size() > 2)
    digits += mantissa.substr(2).str();
  while (digits.size() > 1 && digits.back() == '0')
    digits.pop_back();
  std::string out = negative ? "-" : "";
  if (exponent < -4 || exponent >= 16) {
    out += digits.substr(0, 1);
    if (digits.size() > 1)
      out += "." + digits.substr(1);
    std::snprintf(buffer, sizeof buffer, "e%c%02d", exponent < 0 ? '-' : '+',
                  std::abs(exponent));
    return out + buffer;
  }
  if (exponent < 0)
    return out + "0." + std::string(-exponent - 1, '0') + digits;
  size_t whole = size_t(exponent) + 1;
  if (digits.size() <= whole)
    return out + digits + std::string(whole - digits.size(), '0') + ".0";
  return out + digits.substr(0, whole) + "." + digits.substr(whole);
}

std::string HostScalar::repr() const {
  switch (kind) {
  case Kind::None:
    return "None";
  case Kind::Int: {
    if (!wide)
      return std::to_string(intValue);
    // Decimal digits of a 128-bit value, from the low end.
    WideInt v = wideValue();
    bool negative = v < 0;
    unsigned __int128 m = negative ? -(unsigned __int128)v : (unsigned __int128)v;
    std::string digits;
    while (m) {
      digits.insert(digits.begin(), char('0' + int(m % 10)));
      m /= 10;
    }
    return (negative ? "-" : "") + digits;
  }
  case Kind::Float:
    return floatRepr(floatValue);
  case Kind::Bool:
    return intValue ? "True" : "False";
  case Kind::String:
    return quote(text);
  case Kind::Pointer:
    return "<pointer to " + text + ">";
  case Kind::Unknown:
    return "<known at launch>";
  }
  return "";
}

std::optional<HostScalar> HostScalar::parseLiteral(const std::string &text) {
  llvm::StringRef t = llvm::StringRef(text).trim();
  if (t == "None")
    return HostScalar();
  if (t.size() >= 2 && (t.front() == '\'' || t.front() == '"') &&
      t.back() == t.front()) {
    llvm::StringRef inner = t.drop_front().drop_back();
    if (inner.contains(t.front()) || inner.contains('\\'))
      return std::nullopt;
    return ofString(inner.str());
  }
  if (t == "True" || t == "true")
    return ofBool(true);
  if (t == "False" || t == "false")
    return ofBool(false);
  int64_t i;
  if (!t.getAsInteger(0, i))
    return ofInt(i);
  double d;
  if (!t.getAsDouble(d))
    return ofFloat(d);
  return std::nullopt;
}

HostScalar HostScalar::parse(const std::string &text) {
  if (std::optional<HostScalar> literal = parseLiteral(text))
    return *literal;
  return ofString(llvm::StringRef(text).trim().str());
}

bool HostScalar::operator==(const HostScalar &other) const {
  return kind == other.kind && intValue == other.intValue &&
         wide == other.wide && intHigh == other.intHigh &&
         (floatValue == other.floatValue ||
          (floatValue != floatValue && other.floatValue != other.floatValue)) &&
         text == other.text;
}
