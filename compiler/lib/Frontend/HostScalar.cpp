//===- HostScalar.cpp - A scalar of host Python ---------------------------===//

#include "tilec/Frontend/HostScalar.h"

#include "tilec/Frontend/HostEvaluator.h"

#include "llvm/ADT/StringRef.h"

using namespace tilec;
using host::Value;

std::string HostScalar::source() const {
  switch (kind) {
  case Kind::None:
    return "None";
  case Kind::Int:
    return Value::ofInt(intValue).repr();
  case Kind::Float:
    return Value::ofFloat(floatValue).repr();
  case Kind::Bool:
    return intValue ? "True" : "False";
  case Kind::String:
    return Value::ofString(text).repr();
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
         (floatValue == other.floatValue ||
          (floatValue != floatValue && other.floatValue != other.floatValue)) &&
         text == other.text;
}
