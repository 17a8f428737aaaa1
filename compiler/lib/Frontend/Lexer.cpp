//===- Lexer.cpp - Tokenizer for .tl modules ------------------------------===//
//
// A single pass over the source that follows CPython's tokenizer: logical
// lines end in NEWLINE, leading whitespace drives INDENT/DEDENT, and nothing
// inside (), [] or {} ends a line.
//
//===----------------------------------------------------------------------===//

#include "tilec/Frontend/Lexer.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/ADT/Twine.h"

using namespace tilec;
using llvm::StringRef;
using llvm::Twine;

StringRef tilec::getTokenSpelling(TokenKind kind) {
  switch (kind) {
  case TokenKind::EndOfFile: return "end of file";
  case TokenKind::Error: return "error";
  case TokenKind::Newline: return "newline";
  case TokenKind::Indent: return "indent";
  case TokenKind::Dedent: return "dedent";
  case TokenKind::Identifier: return "identifier";
  case TokenKind::Int: return "integer";
  case TokenKind::Float: return "float";
  case TokenKind::String: return "string";
  case TokenKind::FString: return "f-string";
  case TokenKind::kw_False: return "False";
  case TokenKind::kw_None: return "None";
  case TokenKind::kw_True: return "True";
  case TokenKind::kw_and: return "and";
  case TokenKind::kw_as: return "as";
  case TokenKind::kw_assert: return "assert";
  case TokenKind::kw_async: return "async";
  case TokenKind::kw_await: return "await";
  case TokenKind::kw_break: return "break";
  case TokenKind::kw_class: return "class";
  case TokenKind::kw_continue: return "continue";
  case TokenKind::kw_def: return "def";
  case TokenKind::kw_del: return "del";
  case TokenKind::kw_elif: return "elif";
  case TokenKind::kw_else: return "else";
  case TokenKind::kw_except: return "except";
  case TokenKind::kw_finally: return "finally";
  case TokenKind::kw_for: return "for";
  case TokenKind::kw_from: return "from";
  case TokenKind::kw_global: return "global";
  case TokenKind::kw_if: return "if";
  case TokenKind::kw_import: return "import";
  case TokenKind::kw_in: return "in";
  case TokenKind::kw_is: return "is";
  case TokenKind::kw_lambda: return "lambda";
  case TokenKind::kw_nonlocal: return "nonlocal";
  case TokenKind::kw_not: return "not";
  case TokenKind::kw_or: return "or";
  case TokenKind::kw_pass: return "pass";
  case TokenKind::kw_raise: return "raise";
  case TokenKind::kw_return: return "return";
  case TokenKind::kw_try: return "try";
  case TokenKind::kw_while: return "while";
  case TokenKind::kw_with: return "with";
  case TokenKind::kw_yield: return "yield";
  case TokenKind::LParen: return "(";
  case TokenKind::RParen: return ")";
  case TokenKind::LSquare: return "[";
  case TokenKind::RSquare: return "]";
  case TokenKind::LBrace: return "{";
  case TokenKind::RBrace: return "}";
  case TokenKind::Comma: return ",";
  case TokenKind::Colon: return ":";
  case TokenKind::Semi: return ";";
  case TokenKind::Dot: return ".";
  case TokenKind::Ellipsis: return "...";
  case TokenKind::Arrow: return "->";
  case TokenKind::At: return "@";
  case TokenKind::Equal: return "=";
  case TokenKind::ColonEqual: return ":=";
  case TokenKind::Plus: return "+";
  case TokenKind::Minus: return "-";
  case TokenKind::Star: return "*";
  case TokenKind::Slash: return "/";
  case TokenKind::DoubleSlash: return "//";
  case TokenKind::Percent: return "%";
  case TokenKind::DoubleStar: return "**";
  case TokenKind::Amp: return "&";
  case TokenKind::Pipe: return "|";
  case TokenKind::Caret: return "^";
  case TokenKind::Tilde: return "~";
  case TokenKind::LShift: return "<<";
  case TokenKind::RShift: return ">>";
  case TokenKind::Less: return "<";
  case TokenKind::Greater: return ">";
  case TokenKind::LessEqual: return "<=";
  case TokenKind::GreaterEqual: return ">=";
  case TokenKind::EqualEqual: return "==";
  case TokenKind::NotEqual: return "!=";
  case TokenKind::PlusEqual: return "+=";
  case TokenKind::MinusEqual: return "-=";
  case TokenKind::StarEqual: return "*=";
  case TokenKind::SlashEqual: return "/=";
  case TokenKind::DoubleSlashEqual: return "//=";
  case TokenKind::PercentEqual: return "%=";
  case TokenKind::DoubleStarEqual: return "**=";
  case TokenKind::AtEqual: return "@=";
  case TokenKind::AmpEqual: return "&=";
  case TokenKind::PipeEqual: return "|=";
  case TokenKind::CaretEqual: return "^=";
  case TokenKind::LShiftEqual: return "<<=";
  case TokenKind::RShiftEqual: return ">>=";
  }
  return "token";
}

static TokenKind getKeywordKind(StringRef ident) {
  return llvm::StringSwitch<TokenKind>(ident)
      .Case("False", TokenKind::kw_False)
      .Case("None", TokenKind::kw_None)
      .Case("True", TokenKind::kw_True)
      .Case("and", TokenKind::kw_and)
      .Case("as", TokenKind::kw_as)
      .Case("assert", TokenKind::kw_assert)
      .Case("async", TokenKind::kw_async)
      .Case("await", TokenKind::kw_await)
      .Case("break", TokenKind::kw_break)
      .Case("class", TokenKind::kw_class)
      .Case("continue", TokenKind::kw_continue)
      .Case("def", TokenKind::kw_def)
      .Case("del", TokenKind::kw_del)
      .Case("elif", TokenKind::kw_elif)
      .Case("else", TokenKind::kw_else)
      .Case("except", TokenKind::kw_except)
      .Case("finally", TokenKind::kw_finally)
      .Case("for", TokenKind::kw_for)
      .Case("from", TokenKind::kw_from)
      .Case("global", TokenKind::kw_global)
      .Case("if", TokenKind::kw_if)
      .Case("import", TokenKind::kw_import)
      .Case("in", TokenKind::kw_in)
      .Case("is", TokenKind::kw_is)
      .Case("lambda", TokenKind::kw_lambda)
      .Case("nonlocal", TokenKind::kw_nonlocal)
      .Case("not", TokenKind::kw_not)
      .Case("or", TokenKind::kw_or)
      .Case("pass", TokenKind::kw_pass)
      .Case("raise", TokenKind::kw_raise)
      .Case("return", TokenKind::kw_return)
      .Case("try", TokenKind::kw_try)
      .Case("while", TokenKind::kw_while)
      .Case("with", TokenKind::kw_with)
      .Case("yield", TokenKind::kw_yield)
      .Default(TokenKind::Identifier);
}

/// Operators and delimiters, longest first so that the first match wins.
static const struct {
  const char *spelling;
  TokenKind kind;
} kOperators[] = {
    {"**=", TokenKind::DoubleStarEqual}, {"//=", TokenKind::DoubleSlashEqual},
    {">>=", TokenKind::RShiftEqual},     {"<<=", TokenKind::LShiftEqual},
    {"...", TokenKind::Ellipsis},        {"->", TokenKind::Arrow},
    {":=", TokenKind::ColonEqual},       {"**", TokenKind::DoubleStar},
    {"//", TokenKind::DoubleSlash},      {"<<", TokenKind::LShift},
    {">>", TokenKind::RShift},           {"<=", TokenKind::LessEqual},
    {">=", TokenKind::GreaterEqual},     {"==", TokenKind::EqualEqual},
    {"!=", TokenKind::NotEqual},         {"+=", TokenKind::PlusEqual},
    {"-=", TokenKind::MinusEqual},       {"*=", TokenKind::StarEqual},
    {"/=", TokenKind::SlashEqual},       {"%=", TokenKind::PercentEqual},
    {"&=", TokenKind::AmpEqual},         {"|=", TokenKind::PipeEqual},
    {"^=", TokenKind::CaretEqual},       {"@=", TokenKind::AtEqual},
    {"(", TokenKind::LParen},            {")", TokenKind::RParen},
    {"[", TokenKind::LSquare},           {"]", TokenKind::RSquare},
    {"{", TokenKind::LBrace},            {"}", TokenKind::RBrace},
    {",", TokenKind::Comma},             {":", TokenKind::Colon},
    {";", TokenKind::Semi},              {".", TokenKind::Dot},
    {"@", TokenKind::At},                {"=", TokenKind::Equal},
    {"+", TokenKind::Plus},              {"-", TokenKind::Minus},
    {"*", TokenKind::Star},              {"/", TokenKind::Slash},
    {"%", TokenKind::Percent},           {"&", TokenKind::Amp},
    {"|", TokenKind::Pipe},              {"^", TokenKind::Caret},
    {"~", TokenKind::Tilde},             {"<", TokenKind::Less},
    {">", TokenKind::Greater},
};

static bool isIdentStart(char c) {
  // Bytes of multi-byte UTF-8 sequences are accepted as identifier
  // characters, as Python accepts non-ASCII letters.
  return llvm::isAlpha(c) || c == '_' || static_cast<unsigned char>(c) >= 0x80;
}

static bool isIdentChar(char c) { return isIdentStart(c) || llvm::isDigit(c); }

static bool isDecDigit(char c) { return llvm::isDigit(c); }
static bool isHexDigit(char c) { return llvm::isHexDigit(c); }
static bool isOctDigit(char c) { return c >= '0' && c <= '7'; }
static bool isBinDigit(char c) { return c == '0' || c == '1'; }

static void appendUTF8(std::string &out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

namespace {

class Lexer {
public:
  explicit Lexer(StringRef src) : src(src) {}

  std::vector<Token> run();

private:
  struct Bracket {
    char c;
    unsigned line, col;
  };

  char peek(size_t n = 0) const {
    return pos + n < src.size() ? src[pos + n] : '\0';
  }
  bool atEnd() const { return pos >= src.size(); }
  unsigned colOf(size_t p) const { return p - lineStart + 1; }

  /// Consumes a "\n", "\r\n" or "\r" at `pos` and starts a new line.
  void consumeNewline() {
    if (peek() == '\r' && peek(1) == '\n')
      ++pos;
    ++pos;
    ++line;
    lineStart = pos;
  }

  void push(TokenKind kind, std::string text, unsigned l, unsigned c) {
    tokens.push_back(Token{kind, std::move(text), l, c});
  }
  /// Records an error and returns false so callers can `return error(...)`.
  bool error(const Twine &msg, unsigned l, unsigned c) {
    push(TokenKind::Error, msg.str(), l, c);
    return false;
  }

  bool lexIndentation(bool &skipLine);
  bool lexNumber();
  bool lexString(StringRef prefix, unsigned startLine, unsigned startCol);
  bool lexOperator();
  bool readDigits(bool (*isDigit)(char), StringRef kind, std::string &out);

  StringRef src;
  size_t pos = 0;
  size_t lineStart = 0;
  unsigned line = 1;
  std::vector<Token> tokens;
  /// Indentation widths with tabs to multiples of 8 and with tabs as 1, so
  /// that an indentation whose meaning depends on the tab size is rejected.
  std::vector<unsigned> indents{0}, altIndents{0};
  std::vector<Bracket> brackets;
};

} // namespace

bool Lexer::lexIndentation(bool &skipLine) {
  unsigned width = 0, alt = 0;
  while (!atEnd()) {
    char c = peek();
    if (c == ' ') {
      ++width;
      ++alt;
    } else if (c == '\t') {
      width = (width / 8 + 1) * 8;
      ++alt;
    } else if (c == '\f') {
      width = alt = 0;
    } else {
      break;
    }
    ++pos;
  }
  char c = peek();
  // Blank and comment-only lines do not affect indentation.
  skipLine = atEnd() || c == '#' || c == '\n' || c == '\r';
  if (skipLine)
    return true;

  unsigned col = colOf(pos);
  if (width > indents.back()) {
    if (alt <= altIndents.back())
      return error("inconsistent use of tabs and spaces in indentation", line,
                   col);
    indents.push_back(width);
    altIndents.push_back(alt);
    push(TokenKind::Indent, "", line, col);
    return true;
  }
  while (width < indents.back()) {
    indents.pop_back();
    altIndents.pop_back();
    push(TokenKind::Dedent, "", line, col);
  }
  if (width != indents.back())
    return error("unindent does not match any outer indentation level", line,
                 col);
  if (alt != altIndents.back())
    return error("inconsistent use of tabs and spaces in indentation", line,
                 col);
  return true;
}

/// Reads digits accepted by `isDigit`, with single underscores between
/// them, appending the digits to `out`.
bool Lexer::readDigits(bool (*isDigit)(char), StringRef kind,
                       std::string &out) {
  while (true) {
    if (isDigit(peek())) {
      out += peek();
      ++pos;
    } else if (peek() == '_' && isDigit(peek(1)) && !out.empty() &&
               out.back() != '.') {
      ++pos;
    } else {
      break;
    }
  }
  if (peek() == '_')
    return error(Twine("invalid ") + kind + " literal", line, colOf(pos));
  return true;
}

bool Lexer::lexNumber() {
  unsigned startCol = colOf(pos);
  std::string text;
  char c1 = llvm::toLower(peek(1));
  if (peek() == '0' && (c1 == 'x' || c1 == 'o' || c1 == 'b')) {
    StringRef kind = c1 == 'x' ? "hexadecimal" : c1 == 'o' ? "octal" : "binary";
    bool (*isDigit)(char) = c1 == 'x'   ? isHexDigit
                            : c1 == 'o' ? isOctDigit
                                        : isBinDigit;
    text = {'0', c1};
    pos += 2;
    // Python allows one underscore right after the prefix: 0x_ff.
    if (peek() == '_' && isDigit(peek(1)))
      ++pos;
    size_t before = text.size();
    if (!readDigits(isDigit, kind, text))
      return false;
    if (text.size() == before || isIdentChar(peek()) || llvm::isDigit(peek()))
      return error(Twine("invalid ") + kind + " literal", line, colOf(pos));
    push(TokenKind::Int, std::move(text), line, startCol);
    return true;
  }

  bool isFloat = false;
  if (!readDigits(isDecDigit, "decimal", text))
    return false;
  if (peek() == '.') {
    isFloat = true;
    text += '.';
    ++pos;
    if (llvm::isDigit(peek()) && !readDigits(isDecDigit, "decimal", text))
      return false;
  }
  if (llvm::toLower(peek()) == 'e') {
    size_t n = 1;
    if (peek(1) == '+' || peek(1) == '-')
      ++n;
    if (!llvm::isDigit(peek(n)))
      return error("invalid decimal literal", line, colOf(pos));
    isFloat = true;
    text.append(src.data() + pos, n);
    pos += n;
    if (!readDigits(isDecDigit, "decimal", text))
      return false;
  }
  if (llvm::toLower(peek()) == 'j')
    return error("imaginary literals are not supported", line, startCol);
  if (isIdentChar(peek()))
    return error("invalid decimal literal", line, colOf(pos));
  if (!isFloat && text.size() > 1 && text[0] == '0' &&
      text.find_first_not_of('0') != std::string::npos)
    return error("leading zeros in decimal integer literals are not permitted",
                 line, startCol);
  push(isFloat ? TokenKind::Float : TokenKind::Int, std::move(text), line,
       startCol);
  return true;
}

bool Lexer::lexString(StringRef prefix, unsigned startLine, unsigned startCol) {
  std::string lower = prefix.lower();
  bool raw = lower.find('r') != std::string::npos;
  bool bytes = lower.find('b') != std::string::npos;
  bool fstring = lower.find('f') != std::string::npos;
  char quote = peek();
  bool triple = peek(1) == quote && peek(2) == quote;
  pos += triple ? 3 : 1;

  std::string value;
  while (true) {
    if (atEnd())
      return error(triple ? "unterminated triple-quoted string literal"
                          : "unterminated string literal",
                   startLine, startCol);
    char c = peek();
    if (c == '\n' || c == '\r') {
      if (!triple)
        return error("unterminated string literal", startLine, startCol);
      consumeNewline();
      value += '\n';
      continue;
    }
    if (c == quote) {
      if (!triple) {
        ++pos;
        break;
      }
      if (peek(1) == quote && peek(2) == quote) {
        pos += 3;
        break;
      }
      value += c;
      ++pos;
      continue;
    }
    if (c != '\\') {
      value += c;
      ++pos;
      continue;
    }

    // A backslash. In raw strings it stays, but still keeps the next
    // character from ending the string. An f-string's escapes are decoded
    // here as any string's; the parser splits its fields after.
    if (pos + 1 >= src.size()) {
      ++pos; // reported as unterminated on the next iteration
      continue;
    }
    char next = peek(1);
    if (raw) {
      value += '\\';
      ++pos;
      if (atEnd())
        continue;
      if (peek() == '\n' || peek() == '\r') {
        consumeNewline();
        value += '\n';
      } else {
        value += peek();
        ++pos;
      }
      continue;
    }
    if (next == '\n' || next == '\r') {
      // A line continuation inside the literal.
      ++pos;
      consumeNewline();
      continue;
    }
    unsigned escCol = colOf(pos);
    pos += 2;
    switch (next) {
    case '\\': value += '\\'; break;
    case '\'': value += '\''; break;
    case '"': value += '"'; break;
    case 'a': value += '\a'; break;
    case 'b': value += '\b'; break;
    case 'f': value += '\f'; break;
    case 'n': value += '\n'; break;
    case 'r': value += '\r'; break;
    case 't': value += '\t'; break;
    case 'v': value += '\v'; break;
    case '0': case '1': case '2': case '3':
    case '4': case '5': case '6': case '7': {
      unsigned v = next - '0';
      for (int i = 0; i < 2 && peek() >= '0' && peek() <= '7'; ++i, ++pos)
        v = v * 8 + (peek() - '0');
      if (bytes)
        value += static_cast<char>(v & 0xFF);
      else
        appendUTF8(value, v);
      break;
    }
    case 'x':
    case 'u':
    case 'U': {
      if (bytes && next != 'x') {
        value += '\\';
        value += next;
        break;
      }
      unsigned n = next == 'x' ? 2 : next == 'u' ? 4 : 8;
      uint32_t v = 0;
      for (unsigned i = 0; i < n; ++i, ++pos) {
        if (!llvm::isHexDigit(peek()))
          return error(Twine("truncated \\") + Twine(next) + " escape", line,
                       escCol);
        v = v * 16 + llvm::hexDigitValue(peek());
      }
      if (v > 0x10FFFF)
        return error("illegal unicode character in \\U escape", line, escCol);
      if (next == 'x' && bytes)
        value += static_cast<char>(v);
      else
        appendUTF8(value, v);
      break;
    }
    case 'N':
      if (!bytes)
        return error("\\N{...} escapes are not supported", line, escCol);
      [[fallthrough]];
    default:
      // Unknown escapes keep their backslash, as in Python.
      value += '\\';
      value += next;
      break;
    }
  }
  push(fstring ? TokenKind::FString : TokenKind::String, std::move(value),
       startLine, startCol);
  return true;
}

bool Lexer::lexOperator() {
  unsigned col = colOf(pos);
  StringRef rest = src.substr(pos);
  for (const auto &op : kOperators) {
    if (!rest.starts_with(op.spelling))
      continue;
    char c = op.spelling[0];
    if (c == '(' || c == '[' || c == '{') {
      brackets.push_back({c, line, col});
    } else if (c == ')' || c == ']' || c == '}') {
      if (brackets.empty())
        return error(Twine("unmatched '") + Twine(c) + "'", line, col);
      Bracket open = brackets.back();
      char expected = open.c == '(' ? ')' : open.c == '[' ? ']' : '}';
      if (c != expected) {
        std::string where;
        if (open.line != line)
          where = " on line " + std::to_string(open.line);
        return error(Twine("closing parenthesis '") + Twine(c) +
                         "' does not match opening parenthesis '" +
                         Twine(open.c) + "'" + where,
                     line, col);
      }
      brackets.pop_back();
    }
    pos += strlen(op.spelling);
    push(op.kind, op.spelling, line, col);
    return true;
  }
  char c = peek();
  if (c == '!')
    return error("invalid syntax", line, col);
  if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F)
    return error("invalid non-printable character", line, col);
  return error(Twine("invalid character '") + Twine(c) + "'", line, col);
}

std::vector<Token> Lexer::run() {
  bool atLineStart = true;
  while (true) {
    if (atLineStart && brackets.empty()) {
      bool skipLine;
      if (!lexIndentation(skipLine))
        return std::move(tokens);
      atLineStart = false;
      if (skipLine) {
        while (!atEnd() && peek() != '\n' && peek() != '\r')
          ++pos;
        if (atEnd())
          break;
        consumeNewline();
        atLineStart = true;
        continue;
      }
    }

    char c = peek();
    if (c == ' ' || c == '\t' || c == '\f') {
      ++pos;
      continue;
    }
    if (atEnd())
      break;
    if (c == '#') {
      while (!atEnd() && peek() != '\n' && peek() != '\r')
        ++pos;
      continue;
    }
    if (c == '\n' || c == '\r') {
      if (brackets.empty()) {
        push(TokenKind::Newline, "", line, colOf(pos));
        atLineStart = true;
      }
      consumeNewline();
      continue;
    }
    if (c == '\\') {
      char next = peek(1);
      if (next == '\n' || next == '\r') {
        ++pos;
        consumeNewline();
        continue;
      }
      if (next == '\0' && pos + 1 >= src.size()) {
        error("unexpected end of file after line continuation character", line,
              colOf(pos));
        return std::move(tokens);
      }
      error("unexpected character after line continuation character", line,
            colOf(pos));
      return std::move(tokens);
    }

    unsigned col = colOf(pos);
    if (isIdentStart(c)) {
      size_t start = pos;
      while (!atEnd() && isIdentChar(peek()))
        ++pos;
      StringRef ident = src.slice(start, pos);
      if ((peek() == '"' || peek() == '\'') && ident.size() <= 2 &&
          llvm::all_of(ident.lower(), [](char ch) {
            return ch == 'r' || ch == 'b' || ch == 'u' || ch == 'f';
          })) {
        if (!lexString(ident, line, col))
          return std::move(tokens);
        continue;
      }
      TokenKind kind = getKeywordKind(ident);
      push(kind, ident.str(), line, col);
      continue;
    }
    if (llvm::isDigit(c) || (c == '.' && llvm::isDigit(peek(1)))) {
      if (!lexNumber())
        return std::move(tokens);
      continue;
    }
    if (c == '"' || c == '\'') {
      if (!lexString("", line, col))
        return std::move(tokens);
      continue;
    }
    if (!lexOperator())
      return std::move(tokens);
  }

  if (!brackets.empty()) {
    const Bracket &open = brackets.back();
    error(Twine("'") + Twine(open.c) + "' was never closed", open.line,
          open.col);
    return std::move(tokens);
  }
  // A last line without a trailing newline still ends a logical line.
  if (!tokens.empty() && !tokens.back().is(TokenKind::Newline) &&
      !tokens.back().is(TokenKind::Dedent))
    push(TokenKind::Newline, "", line, colOf(pos));
  for (size_t i = 1; i < indents.size(); ++i)
    push(TokenKind::Dedent, "", line, colOf(pos));
  push(TokenKind::EndOfFile, "", line, colOf(pos));
  return std::move(tokens);
}

std::vector<Token> tilec::tokenize(StringRef source) {
  return Lexer(source).run();
}
