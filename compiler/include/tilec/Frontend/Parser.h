//===- Parser.h - Parser for .tl modules -----------------------*- C++ -*-===//
//
// A recursive-descent parser for the Python subset of Triton's kernel
// language. It stops at the first syntax error.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_FRONTEND_PARSER_H
#define TILEC_FRONTEND_PARSER_H

#include "tilec/Frontend/AST.h"

#include "llvm/ADT/StringRef.h"

#include <memory>
#include <string>

namespace tilec {

/// A user-facing error at a source location.
struct SourceError {
  ast::Location loc;
  std::string message;
};

/// Parses a .tl module. On a syntax error returns null and fills `error`.
std::unique_ptr<ast::Module> parseModule(llvm::StringRef source,
                                         llvm::StringRef filename,
                                         SourceError &error);

/// `error` as `file:line:col: error: message`, then the source line and a
/// caret under the column, as MLIR's diagnostics print.
std::string renderSourceError(llvm::StringRef source, const SourceError &error);

} // namespace tilec

#endif // TILEC_FRONTEND_PARSER_H
