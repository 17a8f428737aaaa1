//===- Lexer.h - Tokenizer for .tl modules ---------------------*- C++ -*-===//
//
// Splits a .tl file (Python source) into tokens the way Python's tokenizer
// does: NEWLINE/INDENT/DEDENT from an indentation stack, no NEWLINE inside
// brackets or after a backslash continuation, comments and blank lines
// dropped.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_FRONTEND_LEXER_H
#define TILEC_FRONTEND_LEXER_H

#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace tilec {

enum class TokenKind {
  EndOfFile,
  Error, // text holds the message
  Newline,
  Indent,
  Dedent,

  Identifier,
  Int,     // text: the spelling without '_', prefix kept ("0x1f")
  Float,   // text: the spelling without '_'
  String,  // text: the decoded value
  FString, // text: the body, escapes decoded; the parser splits its fields

  // Keywords.
  kw_False, kw_None, kw_True, kw_and, kw_as, kw_assert, kw_async, kw_await,
  kw_break, kw_class, kw_continue, kw_def, kw_del, kw_elif, kw_else,
  kw_except, kw_finally, kw_for, kw_from, kw_global, kw_if, kw_import, kw_in,
  kw_is, kw_lambda, kw_nonlocal, kw_not, kw_or, kw_pass, kw_raise, kw_return,
  kw_try, kw_while, kw_with, kw_yield,

  // Delimiters.
  LParen, RParen, LSquare, RSquare, LBrace, RBrace, Comma, Colon, Semi, Dot,
  Ellipsis, Arrow, At, Equal, ColonEqual,

  // Operators.
  Plus, Minus, Star, Slash, DoubleSlash, Percent, DoubleStar, Amp, Pipe,
  Caret, Tilde, LShift, RShift, Less, Greater, LessEqual, GreaterEqual,
  EqualEqual, NotEqual,

  // Augmented assignment.
  PlusEqual, MinusEqual, StarEqual, SlashEqual, DoubleSlashEqual,
  PercentEqual, DoubleStarEqual, AtEqual, AmpEqual, PipeEqual, CaretEqual,
  LShiftEqual, RShiftEqual,
};

/// One token. Line and column (in bytes) are 1-based.
struct Token {
  TokenKind kind = TokenKind::EndOfFile;
  std::string text;
  unsigned line = 0;
  unsigned col = 0;

  bool is(TokenKind k) const { return kind == k; }
};

/// Returns how a token of this kind is written in source ("def", "**=") or,
/// for kinds without a fixed spelling, a short description ("newline").
llvm::StringRef getTokenSpelling(TokenKind kind);

/// Tokenizes `source`. The result always ends with an EndOfFile token, or
/// with an Error token where tokenizing stopped.
std::vector<Token> tokenize(llvm::StringRef source);

} // namespace tilec

#endif // TILEC_FRONTEND_LEXER_H
