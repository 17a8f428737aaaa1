//===- LexerTest.cpp - Tests of the .tl tokenizer -------------------------===//

#include "tilec/Frontend/Lexer.h"

#include "gtest/gtest.h"

#include <string>

using namespace tilec;

namespace {

/// Renders the tokens of `src` on one line: names and operators as
/// written, `NL`/`IN`/`DE` for layout tokens, `int:`/`float:`/`str:` for
/// literals, and `error L:C message` where tokenizing stopped.
std::string lex(llvm::StringRef src) {
  std::string out;
  for (const Token &tok : tokenize(src)) {
    if (!out.empty())
      out += ' ';
    switch (tok.kind) {
    case TokenKind::Newline: out += "NL"; break;
    case TokenKind::Indent: out += "IN"; break;
    case TokenKind::Dedent: out += "DE"; break;
    case TokenKind::EndOfFile: out += "EOF"; break;
    case TokenKind::Int: out += "int:" + tok.text; break;
    case TokenKind::Float: out += "float:" + tok.text; break;
    case TokenKind::String: out += "str:" + tok.text; break;
    case TokenKind::FString: out += "fstr:" + tok.text; break;
    case TokenKind::Error:
      out += "error " + std::to_string(tok.line) + ":" +
             std::to_string(tok.col) + " " + tok.text;
      break;
    default: out += tok.text; break;
    }
  }
  return out;
}

/// The error of `src` as "L:C message", or "" if it tokenizes.
std::string lexError(llvm::StringRef src) {
  std::vector<Token> toks = tokenize(src);
  const Token &last = toks.back();
  if (!last.is(TokenKind::Error))
    return "";
  return std::to_string(last.line) + ":" + std::to_string(last.col) + " " +
         last.text;
}

TEST(LexerTest, SimpleLine) {
  EXPECT_EQ(lex("x = a + 1\n"), "x = a + int:1 NL EOF");
  // No trailing newline: the NEWLINE is still there.
  EXPECT_EQ(lex("x = a"), "x = a NL EOF");
  EXPECT_EQ(lex(""), "EOF");
  EXPECT_EQ(lex("\n\n# only a comment\n   \n"), "EOF");
}

TEST(LexerTest, Locations) {
  std::vector<Token> toks = tokenize("def f(x):\n    return x\n");
  ASSERT_GE(toks.size(), 10u);
  EXPECT_EQ(toks[0].kind, TokenKind::kw_def);
  EXPECT_EQ(toks[0].line, 1u);
  EXPECT_EQ(toks[0].col, 1u);
  EXPECT_EQ(toks[1].kind, TokenKind::Identifier);
  EXPECT_EQ(toks[1].col, 5u);
  EXPECT_EQ(toks[3].col, 7u); // x
  EXPECT_EQ(toks[6].kind, TokenKind::Newline);
  EXPECT_EQ(toks[7].kind, TokenKind::Indent);
  EXPECT_EQ(toks[7].line, 2u);
  EXPECT_EQ(toks[7].col, 5u);
  EXPECT_EQ(toks[8].kind, TokenKind::kw_return);
  EXPECT_EQ(toks[8].line, 2u);
  EXPECT_EQ(toks[8].col, 5u);
}

TEST(LexerTest, Indentation) {
  EXPECT_EQ(lex("if a:\n  b\n  c\nd\n"),
            "if a : NL IN b NL c NL DE d NL EOF");
  EXPECT_EQ(lex("if a:\n  if b:\n    c\nd\n"),
            "if a : NL IN if b : NL IN c NL DE DE d NL EOF");
  // Dedents are closed at the end of the file.
  EXPECT_EQ(lex("if a:\n  if b:\n    c"),
            "if a : NL IN if b : NL IN c NL DE DE EOF");
  // Blank and comment lines do not count, whatever their indentation.
  EXPECT_EQ(lex("if a:\n\n      # hi\n  b\n"), "if a : NL IN b NL DE EOF");
  // A tab counts to the next multiple of 8.
  EXPECT_EQ(lex("if a:\n\tb\n\tc\n"), "if a : NL IN b NL c NL DE EOF");
}

TEST(LexerTest, DedentErrors) {
  EXPECT_EQ(lexError("if a:\n    b\n  c\n"),
            "3:3 unindent does not match any outer indentation level");
  EXPECT_EQ(lexError("if a:\n        b\n\tc\n"),
            "3:2 inconsistent use of tabs and spaces in indentation");
}

TEST(LexerTest, LineJoining) {
  EXPECT_EQ(lex("f(a,\n      b)\n"), "f ( a , b ) NL EOF");
  EXPECT_EQ(lex("x = [1,\n# c\n\n 2]\n"), "x = [ int:1 , int:2 ] NL EOF");
  EXPECT_EQ(lex("x = 1 + \\\n    2\n"), "x = int:1 + int:2 NL EOF");
  // Indentation inside brackets is not layout.
  EXPECT_EQ(lex("if a:\n  f(x,\ny)\n  z\n"),
            "if a : NL IN f ( x , y ) NL z NL DE EOF");
  EXPECT_EQ(lexError("x = 1 \\ 2\n"),
            "1:7 unexpected character after line continuation character");
}

TEST(LexerTest, Brackets) {
  EXPECT_EQ(lexError("x = (1, 2\n"), "1:5 '(' was never closed");
  EXPECT_EQ(lexError("x = 1)\n"), "1:6 unmatched ')'");
  EXPECT_EQ(lexError("x = [1, 2)\n"),
            "1:10 closing parenthesis ')' does not match opening parenthesis "
            "'['");
}

TEST(LexerTest, Numbers) {
  EXPECT_EQ(lex("0 42 1_000 0x1F 0o17 0b1010 0X_ff"),
            "int:0 int:42 int:1000 int:0x1F int:0o17 int:0b1010 int:0xff NL "
            "EOF");
  EXPECT_EQ(lex("1.0 .5 1e-5 1.5e+3 3. 1_0.2_5 2E10"),
            "float:1.0 float:.5 float:1e-5 float:1.5e+3 float:3. float:10.25 "
            "float:2E10 NL EOF");
  EXPECT_EQ(lex("a.b"), "a . b NL EOF");
  EXPECT_EQ(lexError("x = 1__0"), "1:6 invalid decimal literal");
  EXPECT_EQ(lexError("x = 10_"), "1:7 invalid decimal literal");
  EXPECT_EQ(lexError("x = 12abc"), "1:7 invalid decimal literal");
  EXPECT_EQ(lexError("x = 0x"), "1:7 invalid hexadecimal literal");
  EXPECT_EQ(lexError("x = 0b102"), "1:9 invalid binary literal");
  EXPECT_EQ(lexError("x = 1e"), "1:6 invalid decimal literal");
  EXPECT_EQ(lexError("x = 007"),
            "1:5 leading zeros in decimal integer literals are not permitted");
  EXPECT_EQ(lexError("x = 2j"), "1:5 imaginary literals are not supported");
}

TEST(LexerTest, Strings) {
  EXPECT_EQ(lex("'a' \"b\""), "str:a str:b NL EOF");
  EXPECT_EQ(lex(R"('it\'s' "q\"" '\x41\101\u00e9' 'a\\b')"),
            "str:it's str:q\" str:AA\xC3\xA9 str:a\\b NL EOF");
  std::vector<Token> toks = tokenize(R"(x = "a\tb\n")");
  EXPECT_EQ(toks[2].text, "a\tb\n");
  // Unknown escapes keep the backslash.
  EXPECT_EQ(tokenize(R"('\d')")[0].text, "\\d");
  // Raw strings keep backslashes, but a quote after one does not end them.
  EXPECT_EQ(tokenize(R"(r'\n\'')")[0].text, "\\n\\'");
  EXPECT_EQ(tokenize(R"(b'ab' u'cd' Rb'\x')")[0].text, "ab");
  EXPECT_EQ(tokenize(R"(b'ab' u'cd' Rb'\x')")[2].text, "\\x");
  // Triple-quoted strings span lines; the line count continues after them.
  toks = tokenize("s = '''a\n'b'\n''' + x\ny\n");
  EXPECT_EQ(toks[2].text, "a\n'b'\n");
  EXPECT_EQ(toks[4].text, "x");
  EXPECT_EQ(toks[4].line, 3u);
  EXPECT_EQ(toks[4].col, 7u);
  EXPECT_EQ(toks[6].line, 4u);
  // f-strings are tokens of their own, rejected by the parser.
  EXPECT_EQ(lex("f'{x}'"), "fstr:{x} NL EOF");
}

TEST(LexerTest, StringErrors) {
  EXPECT_EQ(lexError("x = 'abc\ny = 1\n"), "1:5 unterminated string literal");
  EXPECT_EQ(lexError("x = \"abc"), "1:5 unterminated string literal");
  EXPECT_EQ(lexError("x = 1\ny = '''abc\n\n"),
            "2:5 unterminated triple-quoted string literal");
  EXPECT_EQ(lexError(R"(x = '\x4')"), "1:6 truncated \\x escape");
}

TEST(LexerTest, KeywordsAndIdentifiers) {
  std::vector<Token> toks =
      tokenize("def return if elif else for while in not and or is None "
               "True False import from as pass break continue assert lambda "
               "global _x x1 match");
  std::vector<TokenKind> expected = {
      TokenKind::kw_def,    TokenKind::kw_return,   TokenKind::kw_if,
      TokenKind::kw_elif,   TokenKind::kw_else,     TokenKind::kw_for,
      TokenKind::kw_while,  TokenKind::kw_in,       TokenKind::kw_not,
      TokenKind::kw_and,    TokenKind::kw_or,       TokenKind::kw_is,
      TokenKind::kw_None,   TokenKind::kw_True,     TokenKind::kw_False,
      TokenKind::kw_import, TokenKind::kw_from,     TokenKind::kw_as,
      TokenKind::kw_pass,   TokenKind::kw_break,    TokenKind::kw_continue,
      TokenKind::kw_assert, TokenKind::kw_lambda,   TokenKind::kw_global,
      TokenKind::Identifier, TokenKind::Identifier, TokenKind::Identifier,
      TokenKind::Newline,   TokenKind::EndOfFile};
  ASSERT_EQ(toks.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i)
    EXPECT_EQ(toks[i].kind, expected[i]) << "token " << i;
}

TEST(LexerTest, Operators) {
  EXPECT_EQ(lex("** // -> += -= *= /= //= %= **= &= |= ^= <<= >>= @ := @= "
                "<< >> <= >= == != < > ~ ... ; ."),
            "** // -> += -= *= /= //= %= **= &= |= ^= <<= >>= @ := @= << >> "
            "<= >= == != < > ~ ... ; . NL EOF");
  std::vector<Token> toks = tokenize("a**-b");
  EXPECT_EQ(toks[1].kind, TokenKind::DoubleStar);
  EXPECT_EQ(toks[2].kind, TokenKind::Minus);
  EXPECT_EQ(lexError("x = a $ b"), "1:7 invalid character '$'");
  EXPECT_EQ(lexError("x = a ! b"), "1:7 invalid syntax");
}

TEST(LexerTest, Comments) {
  EXPECT_EQ(lex("x = 1  # set x\n# done\n"), "x = int:1 NL EOF");
  EXPECT_EQ(lex("s = '# not a comment'"), "s = str:# not a comment NL EOF");
}

} // namespace
