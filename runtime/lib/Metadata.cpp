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
