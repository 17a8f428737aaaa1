//===- Metadata.cpp - Kernel metadata JSON reader and writer --------------===//
//
// The GPU machine has no JSON library, so this file holds a small strict JSON
// reader (RFC 8259: objects, arrays, strings with escapes, numbers, literals)
// and the mapping between that JSON and KernelMetadata.
//
//===----------------------------------------------------------------------===//

#include "tile/Metadata.h"

#include "tile/Error.h"

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <limits>

using namespace tile;

namespace {

struct JsonValue {
  enum Kind { Null, Bool, Number, String, Array, Object };
  Kind kind = Null;
  bool boolean = false;
  /// Numbers keep their source text so constexprs round-trip exactly.
  std::string text;
  std::vector<JsonValue> items;
  std::vector<std::pair<std::string, JsonValue>> members;

  const JsonValue *find(std::string_view key) const {
    for (const auto &member : members)
      if (member.first == key)
        return &member.second;
    return nullptr;
  }
};

[[noreturn]] void fail(const std::string &message) {
  throw Error("invalid kernel metadata: " + message);
}

const char *kindName(JsonValue::Kind kind) {
  switch (kind) {
  case JsonValue::Null:
    return "null";
  case JsonValue::Bool:
    return "a boolean";
  case JsonValue::Number:
    return "a number";
  case JsonValue::String:
    return "a string";
  case JsonValue::Array:
    return "an array";
  case JsonValue::Object:
    return "an object";
  }
  return "?";
}

/// A recursive-descent reader over the whole text; errors carry line:column.
class JsonReader {
public:
  explicit JsonReader(std::string_view text) : text(text) {}

  JsonValue readDocument() {
    JsonValue value = readValue(0);
    skipSpace();
    if (pos != text.size())
      error("unexpected text after the JSON value");
    return value;
  }

private:
  // Deep enough for any metadata, shallow enough to never exhaust the stack.
  static constexpr unsigned kMaxDepth = 64;

  std::string_view text;
  size_t pos = 0;

  [[noreturn]] void error(const std::string &what) const {
    size_t line = 1, column = 1;
    for (size_t i = 0; i < pos && i < text.size(); ++i) {
      if (text[i] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    fail(what + " at line " + std::to_string(line) + ", column " +
         std::to_string(column));
  }

  void skipSpace() {
    while (pos < text.size() && (text[pos] == ' ' || text[pos] == '\t' ||
                                 text[pos] == '\n' || text[pos] == '\r'))
      ++pos;
  }

  bool atEnd() const { return pos >= text.size(); }

  void expect(char c) {
    skipSpace();
    if (atEnd())
      error(std::string("expected '") + c + "' but the text ended");
    if (text[pos] != c)
      error(std::string("expected '") + c + "'");
    ++pos;
  }

  JsonValue readValue(unsigned depth) {
    if (depth > kMaxDepth)
      error("nesting deeper than " + std::to_string(kMaxDepth));
    skipSpace();
    if (atEnd())
      error("expected a value but the text ended");
    char c = text[pos];
    if (c == '{')
      return readObject(depth);
    if (c == '[')
      return readArray(depth);
    if (c == '"') {
      JsonValue value;
      value.kind = JsonValue::String;
      value.text = readString();
      return value;
    }
    if (c == '-' || (c >= '0' && c <= '9'))
      return readNumber();
    JsonValue value;
    if (readLiteral("true")) {
      value.kind = JsonValue::Bool;
      value.boolean = true;
    } else if (readLiteral("false")) {
      value.kind = JsonValue::Bool;
    } else if (!readLiteral("null")) {
      error("expected a value");
    }
    return value;
  }

  bool readLiteral(std::string_view word) {
    if (text.substr(pos, word.size()) != word)
      return false;
    pos += word.size();
    return true;
  }

  JsonValue readObject(unsigned depth) {
    JsonValue value;
    value.kind = JsonValue::Object;
    ++pos; // '{'
    skipSpace();
    if (!atEnd() && text[pos] == '}') {
      ++pos;
      return value;
    }
    while (true) {
      skipSpace();
      if (atEnd() || text[pos] != '"')
        error("expected a string key");
      size_t keyPos = pos;
      std::string key = readString();
      if (value.find(key)) {
        pos = keyPos;
        error("duplicate key \"" + key + "\"");
      }
      expect(':');
      JsonValue member = readValue(depth + 1);
      value.members.emplace_back(std::move(key), std::move(member));
      skipSpace();
      if (!atEnd() && text[pos] == ',') {
        ++pos;
        continue;
      }
      expect('}');
      return value;
    }
  }

  JsonValue readArray(unsigned depth) {
    JsonValue value;
    value.kind = JsonValue::Array;
    ++pos; // '['
    skipSpace();
    if (!atEnd() && text[pos] == ']') {
      ++pos;
      return value;
    }
    while (true) {
      value.items.push_back(readValue(depth + 1));
      skipSpace();
      if (!atEnd() && text[pos] == ',') {
        ++pos;
        continue;
      }
      expect(']');
      return value;
    }
  }

  JsonValue readNumber() {
    size_t start = pos;
    auto digits = [&] {
      size_t first = pos;
      while (!atEnd() && text[pos] >= '0' && text[pos] <= '9')
        ++pos;
      return pos - first;
    };
    if (text[pos] == '-')
      ++pos;
    if (!atEnd() && text[pos] == '0') {
      ++pos; // JSON forbids leading zeros.
    } else if (digits() == 0) {
      error("malformed number");
    }
    if (!atEnd() && text[pos] == '.') {
      ++pos;
      if (digits() == 0)
        error("malformed number: expected digits after '.'");
    }
    if (!atEnd() && (text[pos] == 'e' || text[pos] == 'E')) {
      ++pos;
      if (!atEnd() && (text[pos] == '+' || text[pos] == '-'))
        ++pos;
      if (digits() == 0)
        error("malformed number: expected exponent digits");
    }
    JsonValue value;
    value.kind = JsonValue::Number;
    value.text = std::string(text.substr(start, pos - start));
    return value;
  }

  unsigned readHex4() {
    if (pos + 4 > text.size())
      error("truncated \\u escape");
    unsigned code = 0;
    for (int i = 0; i < 4; ++i) {
      char c = text[pos++];
      code <<= 4;
      if (c >= '0' && c <= '9')
        code |= c - '0';
      else if (c >= 'a' && c <= 'f')
        code |= c - 'a' + 10;
      else if (c >= 'A' && c <= 'F')
        code |= c - 'A' + 10;
      else
        error("invalid hex digit in \\u escape");
    }
    return code;
  }

  static void appendUtf8(std::string &out, uint32_t cp) {
    if (cp < 0x80) {
      out += char(cp);
    } else if (cp < 0x800) {
      out += char(0xC0 | (cp >> 6));
      out += char(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += char(0xE0 | (cp >> 12));
      out += char(0x80 | ((cp >> 6) & 0x3F));
      out += char(0x80 | (cp & 0x3F));
    } else {
      out += char(0xF0 | (cp >> 18));
      out += char(0x80 | ((cp >> 12) & 0x3F));
      out += char(0x80 | ((cp >> 6) & 0x3F));
      out += char(0x80 | (cp & 0x3F));
    }
  }

  std::string readString() {
    ++pos; // '"'
    std::string out;
    while (true) {
      if (atEnd())
        error("unterminated string");
      char c = text[pos];
      if (c == '"') {
        ++pos;
        return out;
      }
      if (static_cast<unsigned char>(c) < 0x20)
        error("control character in string");
      if (c != '\\') {
        out += c;
        ++pos;
        continue;
      }
      ++pos;
      if (atEnd())
        error("unterminated string");
      char e = text[pos++];
      switch (e) {
      case '"':
      case '\\':
      case '/':
        out += e;
        break;
      case 'b':
        out += '\b';
        break;
      case 'f':
        out += '\f';
        break;
      case 'n':
        out += '\n';
        break;
      case 'r':
        out += '\r';
        break;
      case 't':
        out += '\t';
        break;
      case 'u': {
        uint32_t cp = readHex4();
        if (cp >= 0xD800 && cp <= 0xDBFF) {
          if (text.substr(pos, 2) != "\\u")
            error("unpaired surrogate in \\u escape");
          pos += 2;
          uint32_t low = readHex4();
          if (low < 0xDC00 || low > 0xDFFF)
            error("unpaired surrogate in \\u escape");
          cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
        } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
          error("unpaired surrogate in \\u escape");
        }
        appendUtf8(out, cp);
        break;
      }
      default:
        --pos;
        error(std::string("invalid escape '\\") + e + "'");
      }
    }
  }
};

void writeString(std::string &out, std::string_view s) {
  static const char hex[] = "0123456789abcdef";
  out += '"';
  for (char c : s) {
    switch (c) {
    case '"':
      out += "\\\"";
      break;
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
    case '\b':
      out += "\\b";
      break;
    case '\f':
      out += "\\f";
      break;
    default:
      if (static_cast<unsigned char>(c) < 0x20) {
        out += "\\u00";
        out += hex[(c >> 4) & 0xF];
        out += hex[c & 0xF];
      } else {
        out += c; // UTF-8 passes through unchanged.
      }
    }
  }
  out += '"';
}

/// `items` written by `write`, separated by ", ".
template <typename T, typename Write>
void writeJoined(std::string &out, const std::vector<T> &items, Write write) {
  for (size_t i = 0; i < items.size(); ++i) {
    if (i)
      out += ", ";
    write(items[i]);
  }
}

void writeValue(std::string &out, const JsonValue &value) {
  switch (value.kind) {
  case JsonValue::Null:
    out += "null";
    return;
  case JsonValue::Bool:
    out += value.boolean ? "true" : "false";
    return;
  case JsonValue::Number:
    out += value.text;
    return;
  case JsonValue::String:
    writeString(out, value.text);
    return;
  case JsonValue::Array:
    out += '[';
    writeJoined(out, value.items,
                [&](const JsonValue &item) { writeValue(out, item); });
    out += ']';
    return;
  case JsonValue::Object:
    out += '{';
    writeJoined(out, value.members, [&](const auto &member) {
      writeString(out, member.first);
      out += ": ";
      writeValue(out, member.second);
    });
    out += '}';
    return;
  }
}

const JsonValue &require(const JsonValue &object, std::string_view key,
                         const std::string &where) {
  const JsonValue *value = object.find(key);
  if (!value)
    fail("missing field \"" + where + std::string(key) + "\"");
  return *value;
}

std::string getString(const JsonValue &value, const std::string &field) {
  if (value.kind != JsonValue::String)
    fail("field \"" + field + "\" must be a string, got " +
         kindName(value.kind));
  return value.text;
}

/// `value` as an integer: a number with no fraction or exponent (and no
/// sign, where `nonNegative`).
int64_t getInteger(const JsonValue &value, const std::string &field,
                   bool nonNegative = false) {
  bool isInteger =
      value.kind == JsonValue::Number &&
      value.text.find_first_of(nonNegative ? ".eE-" : ".eE") == std::string::npos;
  if (!isInteger)
    fail("field \"" + field + "\" must be " +
         (nonNegative ? "a non-negative integer" : "an integer") + ", got " +
         (value.kind == JsonValue::Number ? value.text
                                          : std::string(kindName(value.kind))));
  errno = 0;
  long long n = std::strtoll(value.text.c_str(), nullptr, 10);
  if (errno == ERANGE)
    fail("field \"" + field + "\" is out of range: " + value.text);
  return n;
}

bool getBool(const JsonValue &value, const std::string &field) {
  if (value.kind != JsonValue::Bool)
    fail("field \"" + field + "\" must be true or false, got " +
         kindName(value.kind));
  return value.boolean;
}

unsigned getUnsigned(const JsonValue &value, const std::string &field) {
  int64_t n = getInteger(value, field, /*nonNegative=*/true);
  if (n > int64_t(std::numeric_limits<unsigned>::max()))
    fail("field \"" + field + "\" is out of range: " + value.text);
  return static_cast<unsigned>(n);
}

/// HostExpr's operations by their JSON names, with their operand counts.
struct HostExprOp {
  const char *name;
  HostExpr::Op op;
  size_t operands;
};
constexpr HostExprOp kHostExprOps[] = {
    {"arg", HostExpr::Op::Arg, 1},         {"grid", HostExpr::Op::Grid, 1},
    {"add", HostExpr::Op::Add, 2},
    {"sub", HostExpr::Op::Sub, 2},         {"mul", HostExpr::Op::Mul, 2},
    {"div", HostExpr::Op::Div, 2},         {"ceildiv", HostExpr::Op::CeilDiv, 2},
    {"rem", HostExpr::Op::Rem, 2},         {"min", HostExpr::Op::Min, 2},
    {"max", HostExpr::Op::Max, 2},         {"i32", HostExpr::Op::I32, 1}};

HostExpr readHostExpr(const JsonValue &value, const std::string &field,
                      size_t numParams) {
  HostExpr expr;
  if (value.kind != JsonValue::Array) {
    expr.value = getInteger(value, field);
    return expr;
  }
  if (value.items.empty() || value.items[0].kind != JsonValue::String)
    fail("field \"" + field + "\" must start with an operation's name");
  const std::string &name = value.items[0].text;
  const HostExprOp *op = nullptr;
  for (const HostExprOp &known : kHostExprOps)
    if (name == known.name)
      op = &known;
  if (!op)
    fail("field \"" + field + "\" names an unknown operation \"" + name + "\"");
  if (value.items.size() != op->operands + 1)
    fail("field \"" + field + "\": \"" + name + "\" takes " +
         std::to_string(op->operands) + " operand(s)");
  expr.op = op->op;
  if (expr.op == HostExpr::Op::Arg) {
    expr.value = getInteger(value.items[1], field + "[1]");
    if (expr.value < 0 || size_t(expr.value) >= numParams)
      fail("field \"" + field + "\" names parameter " +
           std::to_string(expr.value) + " of " + std::to_string(numParams));
    return expr;
  }
  if (expr.op == HostExpr::Op::Grid) {
    expr.value = getInteger(value.items[1], field + "[1]");
    if (expr.value < 0 || expr.value > 2)
      fail("field \"" + field + "\" names grid dimension " +
           std::to_string(expr.value) + ", not 0, 1 or 2");
    return expr;
  }
  for (size_t i = 1; i < value.items.size(); ++i)
    expr.operands.push_back(readHostExpr(
        value.items[i], field + "[" + std::to_string(i) + "]", numParams));
  return expr;
}

void writeHostExpr(std::string &out, const HostExpr &expr) {
  if (expr.op == HostExpr::Op::Constant) {
    out += std::to_string(expr.value);
    return;
  }
  for (const HostExprOp &known : kHostExprOps) {
    if (known.op != expr.op)
      continue;
    out += "[\"";
    out += known.name;
    out += '"';
    if (expr.op == HostExpr::Op::Arg || expr.op == HostExpr::Op::Grid)
      out += ", " + std::to_string(expr.value);
    for (const HostExpr &operand : expr.operands) {
      out += ", ";
      writeHostExpr(out, operand);
    }
    out += ']';
  }
}

const JsonValue &requireArray(const JsonValue &object, std::string_view key,
                              const std::string &where) {
  const JsonValue &value = require(object, key, where);
  if (value.kind != JsonValue::Array)
    fail("field \"" + where + std::string(key) + "\" must be an array, got " +
         kindName(value.kind));
  return value;
}

TensorMapInfo readTensorMap(const JsonValue &map, const std::string &where,
                            size_t numParams) {
  if (map.kind != JsonValue::Object)
    fail(where + " must be an object, got " + kindName(map.kind));
  std::string prefix = where + ".";
  TensorMapInfo info;
  info.base = readHostExpr(require(map, "base", prefix), prefix + "base", numParams);
  auto readAll = [&](std::string_view key, std::vector<HostExpr> &out) {
    const JsonValue &items = requireArray(map, key, prefix);
    for (size_t i = 0; i < items.items.size(); ++i)
      out.push_back(readHostExpr(items.items[i],
                                 prefix + std::string(key) + "[" +
                                     std::to_string(i) + "]",
                                 numParams));
  };
  readAll("dims", info.dims);
  readAll("strides", info.strides);
  const JsonValue &box = requireArray(map, "box", prefix);
  for (size_t i = 0; i < box.items.size(); ++i)
    info.box.push_back(
        getUnsigned(box.items[i], prefix + "box[" + std::to_string(i) + "]"));
  info.elementBytes =
      getUnsigned(require(map, "element_bytes", prefix), prefix + "element_bytes");
  if (const JsonValue *v = map.find("swizzle"))
    info.swizzle = getUnsigned(*v, prefix + "swizzle");
  if (info.dims.empty() || info.dims.size() > 5 || info.box.size() != info.dims.size() ||
      info.strides.size() + 1 != info.dims.size())
    fail(where + " must have 1 to 5 dims, as many box extents and one stride "
                 "fewer");
  return info;
}

AccessInfo readAccess(const JsonValue &access, const std::string &where,
                      const std::vector<ParamInfo> &params) {
  if (access.kind != JsonValue::Object)
    fail(where + " must be an object, got " + kindName(access.kind));
  std::string prefix = where + ".";
  size_t numParams = params.size();
  AccessInfo info;
  int64_t param = getInteger(require(access, "param", prefix), prefix + "param",
                             /*nonNegative=*/true);
  if (size_t(param) >= numParams || !params[size_t(param)].isPointer())
    fail(prefix + "param must name a pointer parameter, not " +
         std::to_string(param));
  info.param = unsigned(param);
  info.offset = readHostExpr(require(access, "offset", prefix),
                             prefix + "offset", numParams);
  const JsonValue &terms = requireArray(access, "terms", prefix);
  for (size_t i = 0; i < terms.items.size(); ++i) {
    const JsonValue &t = terms.items[i];
    std::string at = prefix + "terms[" + std::to_string(i) + "].";
    if (t.kind != JsonValue::Object)
      fail(at + " must be an object");
    AccessInfo::Term term;
    term.stride = readHostExpr(require(t, "stride", at), at + "stride", numParams);
    term.count = readHostExpr(require(t, "count", at), at + "count", numParams);
    term.scale = getInteger(require(t, "scale", at), at + "scale", true);
    term.extent = getInteger(require(t, "extent", at), at + "extent", true);
    if (term.extent < 1)
      fail(at + "extent must be positive");
    if (const JsonValue *bound = t.find("bound")) {
      term.bounded = true;
      term.bound = readHostExpr(*bound, at + "bound", numParams);
    }
    info.terms.push_back(std::move(term));
  }
  const JsonValue &fits = requireArray(access, "fits", prefix);
  for (size_t i = 0; i < fits.items.size(); ++i) {
    const JsonValue &f = fits.items[i];
    std::string at = prefix + "fits[" + std::to_string(i) + "].";
    if (f.kind != JsonValue::Object)
      fail(at + " must be an object");
    AccessInfo::Fit fit;
    fit.bits = getUnsigned(require(f, "bits", at), at + "bits");
    if (fit.bits < 2 || fit.bits > 64)
      fail(at + "bits must be 2 to 64");
    fit.value = readHostExpr(require(f, "value", at), at + "value", numParams);
    const JsonValue &list = requireArray(f, "terms", at);
    for (size_t k = 0; k < list.items.size(); ++k) {
      const JsonValue &pair = list.items[k];
      std::string field = at + "terms[" + std::to_string(k) + "]";
      if (pair.kind != JsonValue::Array || pair.items.size() != 2)
        fail(field + " must be [coefficient, count]");
      fit.terms.emplace_back(
          readHostExpr(pair.items[0], field + "[0]", numParams),
          readHostExpr(pair.items[1], field + "[1]", numParams));
    }
    info.fits.push_back(std::move(fit));
  }
  return info;
}

void writeAccess(std::string &out, const AccessInfo &info) {
  out += "{\"param\": " + std::to_string(info.param) + ", \"offset\": ";
  writeHostExpr(out, info.offset);
  out += ", \"terms\": [";
  writeJoined(out, info.terms, [&](const AccessInfo::Term &term) {
    out += "{\"stride\": ";
    writeHostExpr(out, term.stride);
    out += ", \"count\": ";
    writeHostExpr(out, term.count);
    out += ", \"scale\": " + std::to_string(term.scale) +
           ", \"extent\": " + std::to_string(term.extent);
    if (term.bounded) {
      out += ", \"bound\": ";
      writeHostExpr(out, term.bound);
    }
    out += '}';
  });
  out += "], \"fits\": [";
  writeJoined(out, info.fits, [&](const AccessInfo::Fit &fit) {
    out += "{\"bits\": " + std::to_string(fit.bits) + ", \"value\": ";
    writeHostExpr(out, fit.value);
    out += ", \"terms\": [";
    writeJoined(out, fit.terms,
                [&](const std::pair<HostExpr, HostExpr> &term) {
                  out += '[';
                  writeHostExpr(out, term.first);
                  out += ", ";
                  writeHostExpr(out, term.second);
                  out += ']';
                });
    out += "]}";
  });
  out += "]}";
}

/// `expr`'s value in exact 64-bit arithmetic: false where it overflows or
/// divides by zero, which a launch cannot be checked by.
bool evaluateExact(const HostExpr &expr, const int64_t *values, size_t n,
                   const std::array<int64_t, 3> &grid, int64_t &out) {
  using Op = HostExpr::Op;
  switch (expr.op) {
  case Op::Constant:
    out = expr.value;
    return true;
  case Op::Arg:
    if (size_t(expr.value) >= n)
      return false;
    out = values[size_t(expr.value)];
    return true;
  case Op::Grid:
    out = grid[size_t(expr.value) % 3];
    return true;
  default:
    break;
  }
  int64_t a, b = 0;
  if (!evaluateExact(expr.operands[0], values, n, grid, a))
    return false;
  if (expr.op == Op::I32) {
    out = int32_t(uint32_t(uint64_t(a)));
    return true;
  }
  if (!evaluateExact(expr.operands[1], values, n, grid, b))
    return false;
  switch (expr.op) {
  case Op::Add:
    return !__builtin_add_overflow(a, b, &out);
  case Op::Sub:
    return !__builtin_sub_overflow(a, b, &out);
  case Op::Mul:
    return !__builtin_mul_overflow(a, b, &out);
  case Op::Div:
  case Op::CeilDiv:
  case Op::Rem:
    if (b == 0 || (b == -1 && a == INT64_MIN))
      return false;
    out = expr.op == Op::Rem ? a % b : a / b;
    if (expr.op == Op::CeilDiv && a % b != 0 && (a < 0) == (b < 0))
      ++out;
    return true;
  case Op::Min:
    out = a < b ? a : b;
    return true;
  case Op::Max:
    out = a > b ? a : b;
    return true;
  default:
    return false;
  }
}

void writeTensorMap(std::string &out, const TensorMapInfo &info) {
  out += "{\"base\": ";
  writeHostExpr(out, info.base);
  auto writeExpr = [&](const HostExpr &expr) { writeHostExpr(out, expr); };
  out += ", \"dims\": [";
  writeJoined(out, info.dims, writeExpr);
  out += "], \"strides\": [";
  writeJoined(out, info.strides, writeExpr);
  out += "], \"box\": [";
  writeJoined(out, info.box,
              [&](unsigned extent) { out += std::to_string(extent); });
  out += "], \"element_bytes\": " + std::to_string(info.elementBytes);
  out += ", \"swizzle\": " + std::to_string(info.swizzle) + "}";
}

} // namespace

int tile::getTensorMapDataType(unsigned elementBytes) {
  switch (elementBytes) {
  case 1:
    return 0; // CU_TENSOR_MAP_DATA_TYPE_UINT8
  case 2:
    return 1; // UINT16
  case 4:
    return 2; // UINT32
  default:
    return 4; // UINT64
  }
}

int tile::getTensorMapSwizzle(unsigned bytes) {
  switch (bytes) {
  case 32:
    return 1; // CU_TENSOR_MAP_SWIZZLE_32B
  case 64:
    return 2;
  case 128:
    return 3;
  default:
    return 0; // CU_TENSOR_MAP_SWIZZLE_NONE
  }
}

TensorMapInfo TensorMapInfo::fromJSON(std::string_view text, size_t numParams) {
  return readTensorMap(JsonReader(text).readDocument(), "tensor map", numParams);
}

int64_t HostExpr::evaluate(const std::vector<int64_t> &args,
                           const std::array<int64_t, 3> &grid) const {
  if (op == Op::Constant)
    return value;
  if (op == Op::Arg)
    return size_t(value) < args.size() ? args[size_t(value)] : 0;
  if (op == Op::Grid)
    return size_t(value) < grid.size() ? grid[size_t(value)] : 1;
  int64_t a = operands[0].evaluate(args, grid);
  if (op == Op::I32)
    return int32_t(uint32_t(uint64_t(a)));
  int64_t b = operands[1].evaluate(args, grid);
  // Two's complement, as the kernel's arithmetic: no signed overflow here.
  auto wrap = [](uint64_t v) { return int64_t(v); };
  switch (op) {
  case Op::Add:
    return wrap(uint64_t(a) + uint64_t(b));
  case Op::Sub:
    return wrap(uint64_t(a) - uint64_t(b));
  case Op::Mul:
    return wrap(uint64_t(a) * uint64_t(b));
  case Op::Div:
    return b == 0 || (b == -1 && a == INT64_MIN) ? 0 : a / b;
  case Op::CeilDiv: {
    if (b == 0 || (b == -1 && a == INT64_MIN))
      return 0;
    int64_t q = a / b;
    return q + ((a % b != 0) && ((a < 0) == (b < 0)) ? 1 : 0);
  }
  case Op::Rem:
    return b == 0 || b == -1 ? 0 : a % b;
  case Op::Min:
    return a < b ? a : b;
  case Op::Max:
    return a > b ? a : b;
  default:
    return 0;
  }
}

uint64_t AccessInfo::reachedElements(const int64_t *values, size_t n,
                                     const std::array<int64_t, 3> &grid) const {
  auto eval = [&](const HostExpr &e, int64_t &out) {
    return evaluateExact(e, values, n, grid, out);
  };
  // The kernel's indices are the exact ones only where every value on the
  // way fits its bits.
  for (const Fit &fit : fits) {
    int64_t low, high;
    if (!eval(fit.value, low))
      return 0;
    high = low;
    for (const auto &[coefficient, count] : fit.terms) {
      int64_t c, k, span;
      if (!eval(coefficient, c) || !eval(count, k) || k <= 0 ||
          __builtin_mul_overflow(c, k - 1, &span) ||
          __builtin_add_overflow(span < 0 ? low : high, span,
                                 span < 0 ? &low : &high))
        return 0;
    }
    int64_t limit = fit.bits == 64 ? INT64_MAX : (int64_t(1) << (fit.bits - 1)) - 1;
    if (high > limit || low < -limit - 1)
      return 0;
  }
  int64_t last;
  if (!eval(offset, last))
    return 0;
  for (const Term &term : terms) {
    int64_t stride, count, bound = INT64_MAX, high;
    if (!eval(term.stride, stride) || !eval(term.count, count) ||
        (term.bounded && !eval(term.bound, bound)))
      return 0;
    // No program, iteration or element takes this access: it reaches
    // nothing.
    if (count <= 0 || bound <= 0)
      return 0;
    // The largest t = scale * p + q below the bound: the largest p that
    // leaves room for q = 0, then the largest q.
    int64_t p = count - 1;
    if (term.scale > 0 && (bound - 1) / term.scale < p)
      p = (bound - 1) / term.scale;
    if (__builtin_mul_overflow(term.scale, p, &high))
      return 0;
    int64_t q = term.extent - 1;
    if (bound - 1 - high < q)
      q = bound - 1 - high;
    if (__builtin_add_overflow(high, q, &high))
      return 0;
    // t ranges from 0 (every p and q at 0) to `high`.
    int64_t reach;
    if (stride > 0 && (__builtin_mul_overflow(stride, high, &reach) ||
                       __builtin_add_overflow(last, reach, &last)))
      return 0;
  }
  return last < 0 ? 0 : uint64_t(last) + 1;
}

unsigned tile::getElementBytes(std::string_view type) {
  if (!type.empty() && type[0] == '*')
    type.remove_prefix(1);
  if (type.substr(0, 3) == "fp8")
    return 1;
  size_t digits = type.find_first_of("0123456789");
  unsigned bits = 0;
  for (char c : type.substr(digits == std::string_view::npos ? type.size()
                                                             : digits))
    bits = bits * 10 + unsigned(c - '0');
  return bits <= 8 ? 1 : bits / 8;
}

std::string tile::checkBufferSizes(const KernelMetadata &md,
                                   const int64_t *values,
                                   const uint64_t *bytes,
                                   const std::array<int64_t, 3> &grid) {
  for (const AccessInfo &access : md.accesses) {
    uint64_t given = bytes[access.param];
    if (!given)
      continue;
    const ParamInfo &param = md.params[access.param];
    uint64_t elements =
        access.reachedElements(values, md.params.size(), grid);
    unsigned size = getElementBytes(param.type);
    if (elements <= given / size)
      continue;
    return "kernel " + md.kernel + ": argument " +
           std::to_string(access.param) + " (" + param.name + ") needs " +
           std::to_string(elements * size) + " bytes (" +
           std::to_string(elements) + " " + param.type.substr(1) +
           " elements) for this launch, but its buffer has " +
           std::to_string(given) + " bytes";
  }
  return {};
}

bool tile::isKnownParamType(std::string_view type) {
  static constexpr std::string_view known[] = {
      "*fp32", "*fp16", "*bf16", "*i32", "*i64", "*i8", "*i1",
      "i32",   "i64",   "fp32",  "fp16", "bf16", "i1"};
  for (std::string_view k : known)
    if (k == type)
      return true;
  return false;
}

KernelMetadata KernelMetadata::fromJSON(std::string_view text) {
  JsonValue root = JsonReader(text).readDocument();
  if (root.kind != JsonValue::Object)
    fail(std::string("expected an object at the top level, got ") +
         kindName(root.kind));

  KernelMetadata md;
  md.kernel = getString(require(root, "kernel", ""), "kernel");
  if (md.kernel.empty())
    fail("field \"kernel\" is empty");
  if (const JsonValue *v = root.find("num_warps"))
    md.numWarps = getUnsigned(*v, "num_warps");
  if (const JsonValue *v = root.find("threads_per_block"))
    md.threadsPerBlock = getUnsigned(*v, "threads_per_block");
  else
    md.threadsPerBlock = md.numWarps * 32;
  if (const JsonValue *v = root.find("shared_bytes"))
    md.sharedBytes = getUnsigned(*v, "shared_bytes");
  if (const JsonValue *v = root.find("arch"))
    md.arch = getString(*v, "arch");
  if (const JsonValue *v = root.find("num_stages"))
    md.numStages = getUnsigned(*v, "num_stages");
  if (const JsonValue *v = root.find("global_scratch_bytes"))
    md.globalScratchBytes = getUnsigned(*v, "global_scratch_bytes");
  if (const JsonValue *v = root.find("turnstiles"))
    md.turnstiles = getBool(*v, "turnstiles");
  if (md.numWarps == 0)
    fail("field \"num_warps\" must be positive");
  if (md.numStages == 0)
    fail("field \"num_stages\" must be positive");
  if (md.threadsPerBlock == 0 || md.threadsPerBlock > 1024)
    fail("field \"threads_per_block\" must be in [1, 1024], got " +
         std::to_string(md.threadsPerBlock));

  const JsonValue &params = require(root, "params", "");
  if (params.kind != JsonValue::Array)
    fail(std::string("field \"params\" must be an array, got ") +
         kindName(params.kind));
  for (size_t i = 0; i < params.items.size(); ++i) {
    const JsonValue &p = params.items[i];
    std::string where = "params[" + std::to_string(i) + "].";
    if (p.kind != JsonValue::Object)
      fail("params[" + std::to_string(i) + "] must be an object, got " +
           kindName(p.kind));
    ParamInfo info;
    info.name = getString(require(p, "name", where), where + "name");
    info.type = getString(require(p, "type", where), where + "type");
    if (!isKnownParamType(info.type))
      fail(where + "type \"" + info.type + "\" is not a known type");
    if (const JsonValue *v = p.find("divisibility"))
      info.divisibility = getUnsigned(*v, where + "divisibility");
    if (info.divisibility == 0)
      fail(where + "divisibility must be positive");
    md.params.push_back(std::move(info));
  }

  if (const JsonValue *maps = root.find("tensor_maps")) {
    if (maps->kind != JsonValue::Array)
      fail(std::string("field \"tensor_maps\" must be an array, got ") +
           kindName(maps->kind));
    for (size_t i = 0; i < maps->items.size(); ++i)
      md.tensorMaps.push_back(readTensorMap(
          maps->items[i], "tensor_maps[" + std::to_string(i) + "]",
          md.params.size()));
  }

  if (const JsonValue *list = root.find("accesses")) {
    if (list->kind != JsonValue::Array)
      fail(std::string("field \"accesses\" must be an array, got ") +
           kindName(list->kind));
    for (size_t i = 0; i < list->items.size(); ++i)
      md.accesses.push_back(readAccess(
          list->items[i], "accesses[" + std::to_string(i) + "]", md.params));
  }

  if (const JsonValue *c = root.find("constexprs")) {
    if (c->kind != JsonValue::Object)
      fail(std::string("field \"constexprs\" must be an object, got ") +
           kindName(c->kind));
    for (const auto &[name, value] : c->members) {
      std::string valueText;
      writeValue(valueText, value);
      md.constexprs.emplace_back(name, std::move(valueText));
    }
  }
  return md;
}

std::string KernelMetadata::toJSON() const {
  std::string out = "{\"kernel\": ";
  writeString(out, kernel);
  out += ", \"num_warps\": " + std::to_string(numWarps);
  out += ", \"threads_per_block\": " + std::to_string(threadsPerBlock);
  out += ", \"shared_bytes\": " + std::to_string(sharedBytes);
  out += ", \"arch\": ";
  writeString(out, arch);
  out += ", \"num_stages\": " + std::to_string(numStages);
  if (globalScratchBytes)
    out += ", \"global_scratch_bytes\": " + std::to_string(globalScratchBytes);
  if (turnstiles)
    out += ", \"turnstiles\": true";
  out += ", \"params\": [";
  writeJoined(out, params, [&](const ParamInfo &param) {
    out += "{\"name\": ";
    writeString(out, param.name);
    out += ", \"type\": ";
    writeString(out, param.type);
    out += ", \"divisibility\": " + std::to_string(param.divisibility);
    out += '}';
  });
  out += ']';
  if (!tensorMaps.empty()) {
    out += ", \"tensor_maps\": [";
    writeJoined(out, tensorMaps,
                [&](const TensorMapInfo &map) { writeTensorMap(out, map); });
    out += ']';
  }
  if (!accesses.empty()) {
    out += ", \"accesses\": [";
    writeJoined(out, accesses,
                [&](const AccessInfo &access) { writeAccess(out, access); });
    out += ']';
  }
  out += ", \"constexprs\": {";
  for (size_t i = 0; i < constexprs.size(); ++i) {
    if (i)
      out += ", ";
    writeString(out, constexprs[i].first);
    out += ": ";
    // Re-serialize so a malformed value cannot produce malformed JSON.
    JsonValue value;
    try {
      value = JsonReader(constexprs[i].second).readDocument();
    } catch (const Error &e) {
      throw Error("constexpr " + constexprs[i].first + " = '" +
                  constexprs[i].second + "' is not JSON text: " + e.what());
    }
    writeValue(out, value);
  }
  out += "}}";
  return out;
}
