//===- Parser.cpp - Parser for .tl modules --------------------------------===//
//
// Recursive descent over the token list, one function per level of
// Python's grammar. Errors are not recovered from: the first one is
// recorded and every parse function then returns null/false up the stack.
//
//===----------------------------------------------------------------------===//

#include "tilec/Frontend/Parser.h"

#include "tilec/Frontend/Lexer.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SaveAndRestore.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <optional>

using namespace tilec;
using namespace tilec::ast;
using llvm::StringRef;
using llvm::Twine;

namespace {

class Parser {
public:
  Parser(std::vector<Token> tokens, std::shared_ptr<std::string> file,
         SourceError &errorOut)
      : toks(std::move(tokens)), file(std::move(file)), errorOut(errorOut) {}

  std::unique_ptr<Module> parseModule();

private:
  /// Operands nested inside one another (parentheses, brackets, unary
  /// operators) that the recursive descent, and every later pass over the
  /// tree, follow on the stack: Python's own parser stops at 200 too.
  static constexpr unsigned kMaxNesting = 200;
  unsigned nesting = 0;

  //===--------------------------------------------------------------------===//
  // Tokens and errors
  //===--------------------------------------------------------------------===//

  const Token &cur() const { return toks[pos]; }
  const Token &peekTok(size_t n = 1) const {
    return toks[std::min(pos + n, toks.size() - 1)];
  }
  bool is(TokenKind k) const { return cur().kind == k; }
  /// Never moves past the final EndOfFile/Error token.
  void advance() {
    if (pos + 1 < toks.size())
      ++pos;
  }
  bool consumeIf(TokenKind k) {
    if (!is(k))
      return false;
    advance();
    return true;
  }
  Location loc(const Token &t) const { return Location{file, t.line, t.col}; }
  Location curLoc() const { return loc(cur()); }

  /// Records the first error. Always returns false.
  bool errorAt(const Location &l, const Twine &msg) {
    if (!failed) {
      failed = true;
      errorOut.loc = l;
      errorOut.message = msg.str();
    }
    return false;
  }
  /// An error at the current token. If the tokenizer stopped here, its
  /// message is the better one.
  bool error(const Twine &msg) {
    if (is(TokenKind::Error))
      return errorAt(curLoc(), cur().text);
    return errorAt(curLoc(), msg);
  }
  bool expect(TokenKind k) {
    if (consumeIf(k))
      return true;
    return error(Twine("expected '") + getTokenSpelling(k) + "'");
  }
  bool expectNewline() {
    if (consumeIf(TokenKind::Newline))
      return true;
    return error("invalid syntax");
  }

  //===--------------------------------------------------------------------===//
  // Module level
  //===--------------------------------------------------------------------===//

  bool parseImport();
  bool parseFromImport();
  bool endImport();
  bool parseDottedName(std::string &name);
  bool parseFunctionDef(std::vector<FunctionDef> &out);
  bool parseParams(std::vector<Param> &params);
  bool skipHostStatement();
  bool skipHostHeader();
  bool skipLine();
  bool isNameAssignment() const;
  bool skipToColon();
  bool skipSuite(StringRef what, unsigned headerLine);

  //===--------------------------------------------------------------------===//
  // Statements
  //===--------------------------------------------------------------------===//

  bool parseStatement(Block &out);
  bool parseSimpleStatements(Block &out);
  bool parseSimpleStatement(Block &out);
  bool parseExprStatement(Block &out);
  bool parseSuite(Block &out, StringRef what, unsigned headerLine);
  bool parseIf(Block &out);
  bool parseFor(Block &out);
  bool parseWhile(Block &out);
  bool checkTarget(const Expr &e, bool allowTuple);

  //===--------------------------------------------------------------------===//
  // Expressions
  //===--------------------------------------------------------------------===//

  ExprPtr parseTestList();
  ExprPtr parseTargetList();
  ExprPtr parseTest();
  ExprPtr parseOr();
  ExprPtr parseAnd();
  ExprPtr parseNot();
  ExprPtr parseComparison();
  ExprPtr parseBinary(int minPrec);
  ExprPtr parseFactor();
  ExprPtr parsePower();
  ExprPtr parsePrimary();
  ExprPtr parseAtom();
  ExprPtr parseParenOrList();
  ExprPtr parseCall(Location start, ExprPtr callee);
  ExprPtr parseSubscript(ExprPtr base);
  ExprPtr parseSubscriptIndex();
  ExprPtr parseNumber();
  ExprPtr parseBraces();
  ExprPtr parseLambda();
  /// An f-string's body (raw, as the lexer keeps it) appended to `out`.
  bool parseFStringBody(llvm::StringRef body, FStringExpr &out);
  /// The `for ... in ... if ...` clauses after a comprehension's element.
  ExprPtr parseComprehension(Location l, ComprehensionExpr::Result result,
                             ExprPtr key, ExprPtr element);
  bool parseHostFunction(FunctionDef fn);
  void promoteWrappedFunctions();
  bool startsExpr(TokenKind k) const;
  std::optional<CompareOp> peekCompareOp(unsigned &numTokens) const;

  std::vector<Token> toks;
  size_t pos = 0;
  std::shared_ptr<std::string> file;
  SourceError &errorOut;
  Module *module = nullptr;
  bool failed = false;
  /// Inside a @triton.jit function. Python that only host code uses
  /// (lambdas, dicts, comprehensions, ...) is a syntax error there, and a
  /// HostExpr elsewhere.
  bool inKernel = false;
  /// Skipping a module-level `if` or `try`, whose imports are kept.
  bool collectImports = false;
};

} // namespace

//===----------------------------------------------------------------------===//
// Module level
//===----------------------------------------------------------------------===//

std::unique_ptr<Module> Parser::parseModule() {
  auto result = std::make_unique<Module>();
  result->file = file;
  module = result.get();
  while (!failed) {
    switch (cur().kind) {
    case TokenKind::EndOfFile:
      promoteWrappedFunctions();
      return result;
    case TokenKind::Newline:
      advance();
      break;
    case TokenKind::Indent:
      error("unexpected indent");
      break;
    case TokenKind::kw_import:
      parseImport();
      break;
    case TokenKind::kw_from:
      parseFromImport();
      break;
    case TokenKind::At:
    case TokenKind::kw_def:
      parseFunctionDef(module->functions);
      break;
    // Host code around the kernels (tests, benchmarks, `if __name__ ==
    // "__main__":`) is skipped unread, as Triton never sees it either.
    case TokenKind::kw_class:
    case TokenKind::kw_if:
    case TokenKind::kw_for:
    case TokenKind::kw_while:
    case TokenKind::kw_with:
    case TokenKind::kw_try:
    case TokenKind::kw_async:
      skipHostStatement();
      break;
    case TokenKind::kw_assert:
    case TokenKind::kw_raise:
    case TokenKind::kw_del:
    case TokenKind::kw_global:
    case TokenKind::kw_nonlocal:
      skipLine();
      break;
    default: {
      Block stmts;
      if (!parseSimpleStatements(stmts))
        break;
      for (StmtPtr &stmt : stmts) {
        switch (stmt->kind) {
        case StmtKind::Assign:
          module->globals.emplace_back(
              llvm::cast<AssignStmt>(stmt.release()));
          break;
        case StmtKind::Expr: // docstrings and host calls
        case StmtKind::AugAssign:
        case StmtKind::Pass:
          break;
        case StmtKind::Return:
          return errorAt(stmt->loc, "'return' outside function"), nullptr;
        case StmtKind::Break:
          return errorAt(stmt->loc, "'break' outside loop"), nullptr;
        case StmtKind::Continue:
          return errorAt(stmt->loc, "'continue' not properly in loop"),
                 nullptr;
        default:
          return errorAt(stmt->loc,
                         "statement is not allowed at module level"),
                 nullptr;
        }
      }
      break;
    }
    }
  }
  return nullptr;
}

bool Parser::parseDottedName(std::string &name) {
  if (!is(TokenKind::Identifier))
    return error("expected module name");
  name = cur().text;
  advance();
  while (consumeIf(TokenKind::Dot)) {
    if (!is(TokenKind::Identifier))
      return error("expected module name");
    name += '.';
    name += cur().text;
    advance();
  }
  return true;
}

/// Whether `k` ends a simple statement: a newline, or a ';' before the next.
static bool isSimpleStatementEnd(TokenKind k) {
  return k == TokenKind::Newline || k == TokenKind::Semi;
}

bool Parser::parseImport() {
  Location l = curLoc();
  advance();
  do {
    Import import;
    import.loc = l;
    if (!parseDottedName(import.module))
      return false;
    import.alias = StringRef(import.module).split('.').first.str();
    if (consumeIf(TokenKind::kw_as)) {
      if (!is(TokenKind::Identifier))
        return error("expected name after 'as'");
      import.alias = cur().text;
      advance();
    }
    module->imports.push_back(std::move(import));
  } while (consumeIf(TokenKind::Comma));
  return endImport();
}

/// Consumes the end of an import statement (isSimpleStatementEnd).
bool Parser::endImport() {
  if (!isSimpleStatementEnd(cur().kind))
    return error("invalid syntax");
  advance();
  return true;
}

bool Parser::parseFromImport() {
  Location l = curLoc();
  advance();
  // `from ..a import b`: each '.' a level up ('...' is one token).
  unsigned level = 0;
  for (;; advance()) {
    if (is(TokenKind::Dot))
      level += 1;
    else if (is(TokenKind::Ellipsis))
      level += 3;
    else
      break;
  }
  std::string moduleName;
  if (!(level > 0 && is(TokenKind::kw_import)) &&
      !parseDottedName(moduleName))
    return false;
  if (!expect(TokenKind::kw_import))
    return false;
  if (consumeIf(TokenKind::Star)) {
    module->imports.push_back({l, moduleName, "*", "*", level});
    return endImport();
  }
  bool paren = consumeIf(TokenKind::LParen);
  do {
    if (paren && is(TokenKind::RParen))
      break; // a trailing comma
    if (!is(TokenKind::Identifier))
      return error("expected name to import");
    Import import{l, moduleName, cur().text, cur().text, level};
    advance();
    if (consumeIf(TokenKind::kw_as)) {
      if (!is(TokenKind::Identifier))
        return error("expected name after 'as'");
      import.alias = cur().text;
      advance();
    }
    module->imports.push_back(std::move(import));
  } while (consumeIf(TokenKind::Comma));
  if (paren && !expect(TokenKind::RParen))
    return false;
  return endImport();
}

/// `@jit`, `@triton.jit`, `@triton.jit(...)`: marks kernel language, as
/// in Triton, where every function a kernel calls is @triton.jit too.
static bool isJitDecorator(const ExprPtr &decorator) {
  const Expr *e = decorator.get();
  if (auto *call = llvm::dyn_cast<CallExpr>(e))
    e = call->callee.get();
  if (auto *name = llvm::dyn_cast<NameExpr>(e))
    return name->name == "jit";
  if (auto *attr = llvm::dyn_cast<AttributeExpr>(e))
    return attr->attr == "jit";
  return false;
}

bool Parser::parseFunctionDef(std::vector<FunctionDef> &out) {
  FunctionDef fn;
  while (is(TokenKind::At)) {
    advance();
    ExprPtr decorator = parseTest();
    if (!decorator)
      return false;
    if (!expectNewline())
      return false;
    fn.decorators.push_back(std::move(decorator));
  }
  if (is(TokenKind::kw_class))
    return skipHostStatement();
  if (!is(TokenKind::kw_def))
    return error("expected 'def' after decorator");
  // Only @triton.jit functions are kernel language; any other is host code
  // (an autotune config list, a launcher, a test).
  if (!llvm::any_of(fn.decorators, isJitDecorator))
    return parseHostFunction(std::move(fn));
  llvm::SaveAndRestore<bool> kernelBody(inKernel, true);
  fn.loc = curLoc();
  unsigned defLine = cur().line;
  advance();
  if (!is(TokenKind::Identifier))
    return error("expected function name");
  fn.name = cur().text;
  advance();
  if (!expect(TokenKind::LParen) || !parseParams(fn.params))
    return false;
  if (consumeIf(TokenKind::Arrow)) {
    fn.returns = parseTest();
    if (!fn.returns)
      return false;
  }
  if (!parseSuite(fn.body, "function definition", defLine))
    return false;
  out.push_back(std::move(fn));
  return true;
}

/// `f = triton.jit(f)`, then maybe `f = triton.heuristics({...})(f)`: a
/// function made a kernel by calls at module level rather than by
/// decorators, as Python (and so Triton) takes them. The function moves
/// from the host definitions to the module's functions with the callees as
/// its decorators (outermost first), and the assignment goes.
void Parser::promoteWrappedFunctions() {
  auto &globals = module->globals;
  for (auto it = globals.begin(); it != globals.end();) {
    AssignStmt &assign = **it;
    auto *target = assign.targets.size() == 1
                       ? llvm::dyn_cast<NameExpr>(assign.targets[0].get())
                       : nullptr;
    std::vector<ExprPtr *> wrappers; // outermost first
    Expr *inner = assign.value.get();
    while (auto *call = llvm::dyn_cast_or_null<CallExpr>(inner)) {
      if (call->args.size() != 1 || !call->keywords.empty())
        break;
      wrappers.push_back(&call->callee);
      inner = call->args[0].get();
    }
    auto *wrapped = llvm::dyn_cast_or_null<NameExpr>(inner);
    if (!target || !wrapped || wrappers.empty() ||
        wrapped->name != target->name) {
      ++it;
      continue;
    }
    auto fn = llvm::find_if(module->functions, [&](const FunctionDef &f) {
      return f.name == wrapped->name;
    });
    if (fn == module->functions.end()) {
      auto host = llvm::find_if(module->hostDefs, [&](const HostDef &d) {
        return d.name == wrapped->name && d.function;
      });
      bool jit = llvm::any_of(wrappers, [](ExprPtr *w) {
        return isJitDecorator(*w);
      });
      if (host == module->hostDefs.end() || !jit) {
        ++it;
        continue;
      }
      module->functions.push_back(std::move(*host->function));
      module->hostDefs.erase(host);
      fn = std::prev(module->functions.end());
    }
    std::vector<ExprPtr> decorators;
    for (ExprPtr *w : wrappers)
      decorators.push_back(std::move(*w));
    for (ExprPtr &d : fn->decorators)
      decorators.push_back(std::move(d));
    fn->decorators = std::move(decorators);
    it = globals.erase(it);
  }
}

/// A host function is parsed where its body is Python the parser reads, so
/// that a decorator can call it (`configs=get_configs()`), and skipped
/// unread where it is not.
bool Parser::parseHostFunction(FunctionDef fn) {
  size_t start = pos;
  SourceError savedError = errorOut;
  fn.loc = curLoc();
  unsigned defLine = cur().line;
  advance();
  if (is(TokenKind::Identifier)) {
    fn.name = cur().text;
    advance();
    if (expect(TokenKind::LParen) && parseParams(fn.params) &&
        (!consumeIf(TokenKind::Arrow) || (fn.returns = parseTest())) &&
        parseSuite(fn.body, "function definition", defLine)) {
      Location loc = fn.loc;
      std::string name = fn.name;
      module->hostDefs.push_back(
          {loc, name, std::make_shared<FunctionDef>(std::move(fn))});
      return true;
    }
  }
  pos = start;
  failed = false;
  errorOut = savedError;
  return skipHostStatement();
}

bool Parser::parseParams(std::vector<Param> &params) {
  llvm::StringSet<> seen;
  bool sawDefault = false;
  while (!is(TokenKind::RParen)) {
    if (is(TokenKind::Star) || is(TokenKind::DoubleStar) ||
        is(TokenKind::Slash)) {
      if (inKernel)
        return error(Twine("'") + getTokenSpelling(cur().kind) +
                     "' parameters are not supported");
      // A host function's `*args` and `**kwargs` take what its callers in
      // decorators never pass.
      advance();
      if (consumeIf(TokenKind::Identifier) && consumeIf(TokenKind::Colon) &&
          !parseTest())
        return false;
      if (!consumeIf(TokenKind::Comma))
        break;
      continue;
    }
    if (!is(TokenKind::Identifier))
      return error("expected parameter name");
    Param param;
    param.loc = curLoc();
    param.name = cur().text;
    if (!seen.insert(param.name).second)
      return error(Twine("duplicate argument '") + param.name +
                   "' in function definition");
    advance();
    if (consumeIf(TokenKind::Colon)) {
      param.annotation = parseTest();
      if (!param.annotation)
        return false;
    }
    if (consumeIf(TokenKind::Equal)) {
      param.defaultValue = parseTest();
      if (!param.defaultValue)
        return false;
      sawDefault = true;
    } else if (sawDefault) {
      return errorAt(param.loc, "parameter without a default follows "
                                "parameter with a default");
    }
    params.push_back(std::move(param));
    if (!consumeIf(TokenKind::Comma))
      break;
  }
  if (is(TokenKind::RParen)) {
    advance();
    return true;
  }
  return error("expected ',' or ')'");
}

/// Skips a module-level compound statement of host code (a class, an `if
/// __name__ == "__main__":` block, a loop, a `with`, a `try`) with its
/// `elif`/`else`/`except`/`finally` clauses, at the token level.
bool Parser::skipHostStatement() {
  if ((is(TokenKind::kw_class) || is(TokenKind::kw_def)) &&
      peekTok().is(TokenKind::Identifier))
    module->hostDefs.push_back({curLoc(), peekTok().text});
  // Projects choose where a name comes from at import time (`try: from
  // triton.language.extra.libdevice import rsqrt` / `except ImportError:
  // from triton.language.math import rsqrt`): those imports are kept.
  llvm::SaveAndRestore<bool> imports(
      collectImports, is(TokenKind::kw_if) || is(TokenKind::kw_try));
  do {
    if (!skipHostHeader())
      return false;
  } while (is(TokenKind::kw_elif) || is(TokenKind::kw_else) ||
           is(TokenKind::kw_except) || is(TokenKind::kw_finally));
  return true;
}

/// Skips a compound statement's header up to its ':' and the suite after.
bool Parser::skipHostHeader() {
  unsigned line = cur().line;
  std::string what = (Twine("'") + getTokenSpelling(cur().kind) +
                      "' statement").str();
  if (!skipToColon())
    return false;
  return skipSuite(what, line);
}

/// Skips tokens up to the next ':' outside brackets (a header's end).
bool Parser::skipToColon() {
  int depth = 0;
  while (depth > 0 || !is(TokenKind::Colon)) {
    if (is(TokenKind::Newline) || is(TokenKind::EndOfFile) ||
        is(TokenKind::Error))
      return error("expected ':'");
    if (is(TokenKind::LParen) || is(TokenKind::LSquare) ||
        is(TokenKind::LBrace))
      ++depth;
    else if (is(TokenKind::RParen) || is(TokenKind::RSquare) ||
             is(TokenKind::RBrace))
      --depth;
    advance();
  }
  return true;
}

/// Skips the rest of a logical line and its newline: a one-line suite, or a
/// module-level simple statement of host code (`assert`, `raise`, `del`).
bool Parser::skipLine() {
  while (!is(TokenKind::Newline) && !is(TokenKind::EndOfFile)) {
    if (is(TokenKind::Error))
      return error("invalid syntax");
    advance();
  }
  advance();
  return true;
}

/// Whether the statement here is `name = ...`: the one kind of assignment
/// a module-level `if` or `try` keeps (see skipSuite).
bool Parser::isNameAssignment() const {
  return is(TokenKind::Identifier) && peekTok().is(TokenKind::Equal);
}

/// Skips ':' and the suite after it, at the token level.
bool Parser::skipSuite(StringRef what, unsigned headerLine) {
  if (!expect(TokenKind::Colon))
    return false;
  if (!consumeIf(TokenKind::Newline))
    return skipLine(); // a one-line suite
  if (!is(TokenKind::Indent))
    return error(Twine("expected an indented block after ") + what +
                 " on line " + Twine(headerLine));
  unsigned depth = 0;
  bool statementStart = true;
  do {
    if (is(TokenKind::Error) || is(TokenKind::EndOfFile))
      return error("invalid syntax");
    if (collectImports && statementStart &&
        (is(TokenKind::kw_import) || is(TokenKind::kw_from))) {
      size_t first = module->imports.size();
      if (!(is(TokenKind::kw_import) ? parseImport() : parseFromImport()))
        return false;
      for (size_t i = first; i < module->imports.size(); ++i)
        module->imports[i].conditional = true;
      continue; // at the next statement, depth unchanged
    }
    // Functions and aliases chosen the same way (`if triton_version >= 3:
    // triton_tanh = libdevice.tanh` / `else: @triton.jit def
    // triton_tanh(x): ...`) are alternatives as well.
    if (collectImports && statementStart &&
        (is(TokenKind::At) || is(TokenKind::kw_def))) {
      size_t first = module->functions.size();
      if (!parseFunctionDef(module->functions))
        return false;
      for (size_t i = first; i < module->functions.size(); ++i)
        module->functions[i].conditional = true;
      continue;
    }
    // So are assignments (`if is_tf32_supported: PRECISION =
    // tl.constexpr("tf32")` / `else: ... "ieee"`), evaluated only if a
    // kernel reads the name. One in Python tilec does not parse (a lambda,
    // a comprehension) is host code, skipped as the rest of the suite.
    if (collectImports && statementStart && isNameAssignment()) {
      size_t start = pos;
      SourceError before = errorOut;
      Block stmts;
      if (parseSimpleStatements(stmts) && stmts.size() == 1 &&
          stmts.front()->kind == StmtKind::Assign) {
        auto *assign = llvm::cast<AssignStmt>(stmts.front().release());
        assign->conditional = true;
        module->globals.emplace_back(assign);
        continue;
      }
      pos = start;
      failed = false;
      errorOut = before;
    }
    if (is(TokenKind::Indent))
      ++depth;
    else if (is(TokenKind::Dedent))
      --depth;
    statementStart = is(TokenKind::Newline) || is(TokenKind::Indent) ||
                     is(TokenKind::Dedent);
    advance();
  } while (depth != 0);
  return true;
}

//===----------------------------------------------------------------------===//
// Statements
//===----------------------------------------------------------------------===//

bool Parser::parseStatement(Block &out) {
  switch (cur().kind) {
  case TokenKind::Indent:
    return error("unexpected indent");
  case TokenKind::kw_if:
    return parseIf(out);
  case TokenKind::kw_for:
    return parseFor(out);
  case TokenKind::kw_while:
    return parseWhile(out);
  case TokenKind::kw_def:
  case TokenKind::At:
    return error("nested function definitions are not supported");
  case TokenKind::kw_class:
    return error("class definitions are not supported");
  case TokenKind::kw_with:
  case TokenKind::kw_try:
  case TokenKind::kw_async:
    return error(Twine("'") + getTokenSpelling(cur().kind) +
                 "' statements are not supported");
  default:
    return parseSimpleStatements(out);
  }
}

bool Parser::parseSimpleStatements(Block &out) {
  do {
    if (!parseSimpleStatement(out))
      return false;
  } while (consumeIf(TokenKind::Semi) && !is(TokenKind::Newline));
  return expectNewline();
}

bool Parser::parseSimpleStatement(Block &out) {
  Location l = curLoc();
  switch (cur().kind) {
  case TokenKind::kw_pass:
    advance();
    out.push_back(std::make_unique<PassStmt>(l));
    return true;
  case TokenKind::kw_break:
    advance();
    out.push_back(std::make_unique<BreakStmt>(l));
    return true;
  case TokenKind::kw_continue:
    advance();
    out.push_back(std::make_unique<ContinueStmt>(l));
    return true;
  case TokenKind::kw_return: {
    advance();
    ExprPtr value;
    if (!isSimpleStatementEnd(cur().kind)) {
      value = parseTestList();
      if (!value)
        return false;
    }
    out.push_back(std::make_unique<ReturnStmt>(l, std::move(value)));
    return true;
  }
  case TokenKind::kw_assert: {
    advance();
    ExprPtr cond = parseTest(), message;
    if (!cond)
      return false;
    if (consumeIf(TokenKind::Comma)) {
      message = parseTest();
      if (!message)
        return false;
    }
    out.push_back(
        std::make_unique<AssertStmt>(l, std::move(cond), std::move(message)));
    return true;
  }
  case TokenKind::kw_import:
  case TokenKind::kw_from:
    return error("imports are only allowed at module level");
  case TokenKind::kw_raise: {
    advance();
    ExprPtr exception;
    if (!isSimpleStatementEnd(cur().kind)) {
      exception = parseTest();
      if (!exception)
        return false;
      if (consumeIf(TokenKind::kw_from) && !parseTest())
        return false;
    }
    out.push_back(std::make_unique<RaiseStmt>(l, std::move(exception)));
    return true;
  }
  case TokenKind::kw_global:
  case TokenKind::kw_nonlocal:
  case TokenKind::kw_del:
  case TokenKind::kw_yield:
    return error(Twine("'") + getTokenSpelling(cur().kind) +
                 "' statements are not supported");
  default:
    return parseExprStatement(out);
  }
}

static std::optional<BinaryOp> getAugAssignOp(TokenKind k) {
  switch (k) {
  case TokenKind::PlusEqual: return BinaryOp::Add;
  case TokenKind::MinusEqual: return BinaryOp::Sub;
  case TokenKind::StarEqual: return BinaryOp::Mul;
  case TokenKind::SlashEqual: return BinaryOp::Div;
  case TokenKind::DoubleSlashEqual: return BinaryOp::FloorDiv;
  case TokenKind::PercentEqual: return BinaryOp::Mod;
  case TokenKind::DoubleStarEqual: return BinaryOp::Pow;
  case TokenKind::AtEqual: return BinaryOp::MatMul;
  case TokenKind::AmpEqual: return BinaryOp::BitAnd;
  case TokenKind::PipeEqual: return BinaryOp::BitOr;
  case TokenKind::CaretEqual: return BinaryOp::BitXor;
  case TokenKind::LShiftEqual: return BinaryOp::LShift;
  case TokenKind::RShiftEqual: return BinaryOp::RShift;
  default: return std::nullopt;
  }
}

bool Parser::checkTarget(const Expr &e, bool allowTuple) {
  switch (e.kind) {
  case ExprKind::Name:
  case ExprKind::Attribute:
  case ExprKind::Subscript:
    return true;
  case ExprKind::Tuple:
    if (!allowTuple)
      return errorAt(e.loc, "cannot assign to tuple here");
    for (const ExprPtr &element : llvm::cast<TupleExpr>(e).elements)
      if (!checkTarget(*element, /*allowTuple=*/true))
        return false;
    return true;
  case ExprKind::Call:
    return errorAt(e.loc, "cannot assign to function call");
  case ExprKind::Int:
  case ExprKind::Float:
  case ExprKind::String:
  case ExprKind::FString:
  case ExprKind::Bool:
  case ExprKind::None:
    return errorAt(e.loc, "cannot assign to literal");
  default:
    return errorAt(e.loc, "cannot assign to expression");
  }
}

bool Parser::parseExprStatement(Block &out) {
  Location l = curLoc();
  ExprPtr first = parseTestList();
  if (!first)
    return false;

  // `x: T = v`
  if (is(TokenKind::Colon)) {
    if (llvm::isa<TupleExpr>(*first))
      return errorAt(first->loc,
                     "only single target (not tuple) can be annotated");
    if (!checkTarget(*first, /*allowTuple=*/false))
      return false;
    advance();
    ExprPtr annotation = parseTest();
    if (!annotation)
      return false;
    if (!is(TokenKind::Equal)) {
      if (!inKernel && isSimpleStatementEnd(cur().kind))
        return true; // `x: int` declares a host variable
      return error("annotations without a value are not supported");
    }
    advance();
    ExprPtr value = parseTestList();
    if (!value)
      return false;
    std::vector<ExprPtr> targets;
    targets.push_back(std::move(first));
    out.push_back(std::make_unique<AssignStmt>(
        l, std::move(targets), std::move(value), std::move(annotation)));
    return true;
  }

  // `x op= v`
  if (std::optional<BinaryOp> op = getAugAssignOp(cur().kind)) {
    if (llvm::isa<TupleExpr>(*first))
      return errorAt(first->loc,
                     "illegal expression for augmented assignment");
    if (!checkTarget(*first, /*allowTuple=*/false))
      return false;
    advance();
    ExprPtr value = parseTestList();
    if (!value)
      return false;
    out.push_back(std::make_unique<AugAssignStmt>(l, std::move(first), *op,
                                                  std::move(value)));
    return true;
  }

  if (!is(TokenKind::Equal)) {
    out.push_back(std::make_unique<ExprStmt>(l, std::move(first)));
    return true;
  }

  // `t1 = t2 = v`: every expression but the last is a target.
  std::vector<ExprPtr> targets;
  targets.push_back(std::move(first));
  while (consumeIf(TokenKind::Equal)) {
    ExprPtr next = parseTestList();
    if (!next)
      return false;
    targets.push_back(std::move(next));
  }
  ExprPtr value = std::move(targets.back());
  targets.pop_back();
  for (const ExprPtr &target : targets)
    if (!checkTarget(*target, /*allowTuple=*/true))
      return false;
  out.push_back(std::make_unique<AssignStmt>(l, std::move(targets),
                                             std::move(value), nullptr));
  return true;
}

/// Parses ':' and the block after it: an indented block on the next lines,
/// or simple statements on the same line.
bool Parser::parseSuite(Block &out, StringRef what, unsigned headerLine) {
  if (!expect(TokenKind::Colon))
    return false;
  if (!consumeIf(TokenKind::Newline))
    return parseSimpleStatements(out);
  if (!is(TokenKind::Indent))
    return error(Twine("expected an indented block after ") + what +
                 " on line " + Twine(headerLine));
  advance();
  while (!is(TokenKind::Dedent)) {
    if (!parseStatement(out))
      return false;
  }
  advance();
  return true;
}

bool Parser::parseIf(Block &out) {
  // Also parses an `elif`, which is an `if` nested in the else branch.
  Location l = curLoc();
  unsigned line = cur().line;
  bool isElif = is(TokenKind::kw_elif);
  advance();
  ExprPtr cond = parseTest();
  if (!cond)
    return false;
  Block then, orelse;
  if (!parseSuite(then, isElif ? "'elif' statement" : "'if' statement", line))
    return false;
  if (is(TokenKind::kw_elif)) {
    if (!parseIf(orelse))
      return false;
  } else if (is(TokenKind::kw_else)) {
    unsigned elseLine = cur().line;
    advance();
    if (!parseSuite(orelse, "'else' statement", elseLine))
      return false;
  }
  out.push_back(std::make_unique<IfStmt>(l, std::move(cond), std::move(then),
                                         std::move(orelse)));
  return true;
}

bool Parser::parseFor(Block &out) {
  Location l = curLoc();
  unsigned line = cur().line;
  advance();
  ExprPtr target = parseTargetList();
  if (!target || !checkTarget(*target, /*allowTuple=*/true) ||
      !expect(TokenKind::kw_in))
    return false;
  ExprPtr iter = parseTestList();
  if (!iter)
    return false;
  Block body;
  if (!parseSuite(body, "'for' statement", line))
    return false;
  if (is(TokenKind::kw_else))
    return error("'for ... else' is not supported");
  out.push_back(std::make_unique<ForStmt>(l, std::move(target),
                                          std::move(iter), std::move(body)));
  return true;
}

bool Parser::parseWhile(Block &out) {
  Location l = curLoc();
  unsigned line = cur().line;
  advance();
  ExprPtr cond = parseTest();
  if (!cond)
    return false;
  Block body;
  if (!parseSuite(body, "'while' statement", line))
    return false;
  if (is(TokenKind::kw_else))
    return error("'while ... else' is not supported");
  out.push_back(
      std::make_unique<WhileStmt>(l, std::move(cond), std::move(body)));
  return true;
}

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

bool Parser::startsExpr(TokenKind k) const {
  switch (k) {
  case TokenKind::Identifier:
  case TokenKind::Int:
  case TokenKind::Float:
  case TokenKind::String:
  case TokenKind::FString:
  case TokenKind::kw_True:
  case TokenKind::kw_False:
  case TokenKind::kw_None:
  case TokenKind::kw_not:
  case TokenKind::kw_lambda:
  case TokenKind::kw_await:
  case TokenKind::LParen:
  case TokenKind::LSquare:
  case TokenKind::LBrace:
  case TokenKind::Minus:
  case TokenKind::Plus:
  case TokenKind::Tilde:
  case TokenKind::Star:
  case TokenKind::Ellipsis:
    return true;
  default:
    return false;
  }
}

/// `a` or `a, b, ...` (a tuple without parentheses).
ExprPtr Parser::parseTestList() {
  Location l = curLoc();
  ExprPtr first = parseTest();
  if (!first || !is(TokenKind::Comma))
    return first;
  std::vector<ExprPtr> elements;
  elements.push_back(std::move(first));
  while (consumeIf(TokenKind::Comma) && startsExpr(cur().kind)) {
    ExprPtr next = parseTest();
    if (!next)
      return nullptr;
    elements.push_back(std::move(next));
  }
  return std::make_unique<TupleExpr>(l, std::move(elements),
                                     /*isList=*/false);
}

/// The target of a `for`: like parseTestList, but without comparisons so
/// that `in` is left for the `for`.
ExprPtr Parser::parseTargetList() {
  Location l = curLoc();
  ExprPtr first = parseBinary(1);
  if (!first || !is(TokenKind::Comma))
    return first;
  std::vector<ExprPtr> elements;
  elements.push_back(std::move(first));
  while (consumeIf(TokenKind::Comma) && !is(TokenKind::kw_in)) {
    ExprPtr next = parseBinary(1);
    if (!next)
      return nullptr;
    elements.push_back(std::move(next));
  }
  return std::make_unique<TupleExpr>(l, std::move(elements),
                                     /*isList=*/false);
}

ExprPtr Parser::parseTest() {
  if (is(TokenKind::kw_lambda))
    return parseLambda();
  Location l = curLoc();
  ExprPtr body = parseOr();
  if (!body)
    return nullptr;
  if (is(TokenKind::ColonEqual))
    return error("assignment expressions are not supported"), nullptr;
  if (!consumeIf(TokenKind::kw_if))
    return body;
  ExprPtr cond = parseOr();
  if (!cond)
    return nullptr;
  if (!is(TokenKind::kw_else))
    return error("expected 'else' after 'if' expression"), nullptr;
  advance();
  ExprPtr orelse = parseTest();
  if (!orelse)
    return nullptr;
  return std::make_unique<IfExpExpr>(l, std::move(cond), std::move(body),
                                     std::move(orelse));
}

ExprPtr Parser::parseOr() {
  ExprPtr lhs = parseAnd();
  while (lhs && is(TokenKind::kw_or)) {
    Location l = curLoc();
    advance();
    ExprPtr rhs = parseAnd();
    if (!rhs)
      return nullptr;
    lhs = std::make_unique<BoolOpExpr>(l, BoolOpKind::Or, std::move(lhs),
                                       std::move(rhs));
  }
  return lhs;
}

ExprPtr Parser::parseAnd() {
  ExprPtr lhs = parseNot();
  while (lhs && is(TokenKind::kw_and)) {
    Location l = curLoc();
    advance();
    ExprPtr rhs = parseNot();
    if (!rhs)
      return nullptr;
    lhs = std::make_unique<BoolOpExpr>(l, BoolOpKind::And, std::move(lhs),
                                       std::move(rhs));
  }
  return lhs;
}

ExprPtr Parser::parseNot() {
  if (!is(TokenKind::kw_not))
    return parseComparison();
  Location l = curLoc();
  advance();
  ExprPtr operand = parseNot();
  if (!operand)
    return nullptr;
  return std::make_unique<UnaryExpr>(l, UnaryOp::Not, std::move(operand));
}

/// The comparison operator at the current token, if any, and how many
/// tokens it spans (`not in` and `is not` take two).
std::optional<CompareOp> Parser::peekCompareOp(unsigned &numTokens) const {
  numTokens = 1;
  switch (cur().kind) {
  case TokenKind::Less: return CompareOp::Lt;
  case TokenKind::LessEqual: return CompareOp::Le;
  case TokenKind::Greater: return CompareOp::Gt;
  case TokenKind::GreaterEqual: return CompareOp::Ge;
  case TokenKind::EqualEqual: return CompareOp::Eq;
  case TokenKind::NotEqual: return CompareOp::Ne;
  case TokenKind::kw_in: return CompareOp::In;
  case TokenKind::kw_is:
    if (peekTok().is(TokenKind::kw_not)) {
      numTokens = 2;
      return CompareOp::IsNot;
    }
    return CompareOp::Is;
  case TokenKind::kw_not:
    if (peekTok().is(TokenKind::kw_in)) {
      numTokens = 2;
      return CompareOp::NotIn;
    }
    return std::nullopt;
  default:
    return std::nullopt;
  }
}

ExprPtr Parser::parseComparison() {
  ExprPtr lhs = parseBinary(1);
  if (!lhs)
    return nullptr;
  unsigned numTokens;
  std::optional<CompareOp> op = peekCompareOp(numTokens);
  if (!op)
    return lhs;
  Location l = curLoc();
  pos += numTokens;
  ExprPtr rhs = parseBinary(1);
  if (!rhs)
    return nullptr;
  if (peekCompareOp(numTokens))
    return error("chained comparisons are not supported"), nullptr;
  return std::make_unique<CompareExpr>(l, *op, std::move(lhs),
                                       std::move(rhs));
}

/// Precedence of the left-associative binary operators, loosest first.
static int getBinaryPrecedence(TokenKind k, BinaryOp &op) {
  switch (k) {
  case TokenKind::Pipe: op = BinaryOp::BitOr; return 1;
  case TokenKind::Caret: op = BinaryOp::BitXor; return 2;
  case TokenKind::Amp: op = BinaryOp::BitAnd; return 3;
  case TokenKind::LShift: op = BinaryOp::LShift; return 4;
  case TokenKind::RShift: op = BinaryOp::RShift; return 4;
  case TokenKind::Plus: op = BinaryOp::Add; return 5;
  case TokenKind::Minus: op = BinaryOp::Sub; return 5;
  case TokenKind::Star: op = BinaryOp::Mul; return 6;
  case TokenKind::At: op = BinaryOp::MatMul; return 6;
  case TokenKind::Slash: op = BinaryOp::Div; return 6;
  case TokenKind::DoubleSlash: op = BinaryOp::FloorDiv; return 6;
  case TokenKind::Percent: op = BinaryOp::Mod; return 6;
  default: return 0;
  }
}

ExprPtr Parser::parseBinary(int minPrec) {
  ExprPtr lhs = parseFactor();
  while (lhs) {
    BinaryOp op;
    int prec = getBinaryPrecedence(cur().kind, op);
    if (prec == 0 || prec < minPrec)
      break;
    Location l = curLoc();
    advance();
    ExprPtr rhs = parseBinary(prec + 1);
    if (!rhs)
      return nullptr;
    lhs = std::make_unique<BinaryExpr>(l, op, std::move(lhs), std::move(rhs));
  }
  return lhs;
}

ExprPtr Parser::parseFactor() {
  if (nesting == kMaxNesting) {
    error("expression nested too deeply (more than " + Twine(kMaxNesting) +
          " levels)");
    return nullptr;
  }
  ++nesting;
  llvm::scope_exit leave([&] { --nesting; });
  UnaryOp op;
  switch (cur().kind) {
  case TokenKind::Minus: op = UnaryOp::Neg; break;
  case TokenKind::Plus: op = UnaryOp::Pos; break;
  case TokenKind::Tilde: op = UnaryOp::Invert; break;
  default: return parsePower();
  }
  Location l = curLoc();
  advance();
  ExprPtr operand = parseFactor();
  if (!operand)
    return nullptr;
  return std::make_unique<UnaryExpr>(l, op, std::move(operand));
}

ExprPtr Parser::parsePower() {
  ExprPtr base = parsePrimary();
  if (!base || !is(TokenKind::DoubleStar))
    return base;
  Location l = curLoc();
  advance();
  // The exponent is a factor: `2 ** -1` is valid, `a ** b ** c` nests right.
  ExprPtr exponent = parseFactor();
  if (!exponent)
    return nullptr;
  return std::make_unique<BinaryExpr>(l, BinaryOp::Pow, std::move(base),
                                      std::move(exponent));
}

ExprPtr Parser::parsePrimary() {
  Location start = curLoc();
  ExprPtr e = parseAtom();
  while (e) {
    if (is(TokenKind::Dot)) {
      advance();
      if (!is(TokenKind::Identifier))
        return error("expected attribute name after '.'"), nullptr;
      e = std::make_unique<AttributeExpr>(curLoc(), std::move(e), cur().text);
      advance();
    } else if (is(TokenKind::LParen)) {
      e = parseCall(start, std::move(e));
    } else if (is(TokenKind::LSquare)) {
      e = parseSubscript(std::move(e));
    } else {
      break;
    }
  }
  return e;
}

ExprPtr Parser::parseCall(Location start, ExprPtr callee) {
  advance(); // '('
  std::vector<ExprPtr> args;
  std::vector<Keyword> keywords;
  llvm::StringSet<> seen;
  while (!is(TokenKind::RParen)) {
    if (is(TokenKind::Star) || is(TokenKind::DoubleStar)) {
      if (inKernel)
        return error("*args and **kwargs are not supported"), nullptr;
      Location argLoc = curLoc();
      bool isDouble = is(TokenKind::DoubleStar);
      advance();
      ExprPtr value = parseTest();
      if (!value)
        return nullptr;
      args.push_back(
          std::make_unique<StarredExpr>(argLoc, std::move(value), isDouble));
    } else if (is(TokenKind::Identifier) && peekTok().is(TokenKind::Equal)) {
      Keyword keyword;
      keyword.loc = curLoc();
      keyword.name = cur().text;
      if (!seen.insert(keyword.name).second)
        return error(Twine("keyword argument repeated: ") + keyword.name),
               nullptr;
      pos += 2;
      keyword.value = parseTest();
      if (!keyword.value)
        return nullptr;
      keywords.push_back(std::move(keyword));
    } else {
      if (!keywords.empty())
        return error("positional argument follows keyword argument"),
               nullptr;
      Location argLoc = curLoc();
      ExprPtr arg = parseTest();
      if (!arg)
        return nullptr;
      if (is(TokenKind::kw_for)) {
        if (inKernel)
          return error("comprehensions are not supported"), nullptr;
        arg = parseComprehension(argLoc,
                                 ComprehensionExpr::Result::Generator,
                                 nullptr, std::move(arg));
        if (!arg)
          return nullptr;
      }
      if (is(TokenKind::Equal))
        return error("expression cannot contain assignment, perhaps you "
                     "meant \"==\"?"),
               nullptr;
      args.push_back(std::move(arg));
    }
    if (!consumeIf(TokenKind::Comma))
      break;
  }
  if (!consumeIf(TokenKind::RParen))
    return error("expected ',' or ')'"), nullptr;
  return std::make_unique<CallExpr>(start, std::move(callee), std::move(args),
                                    std::move(keywords));
}

ExprPtr Parser::parseSubscript(ExprPtr base) {
  Location l = curLoc();
  advance(); // '['
  if (is(TokenKind::RSquare))
    return error("expected an index"), nullptr;
  std::vector<ExprPtr> indices;
  do {
    if (is(TokenKind::RSquare))
      break; // a trailing comma
    ExprPtr index = parseSubscriptIndex();
    if (!index)
      return nullptr;
    indices.push_back(std::move(index));
  } while (consumeIf(TokenKind::Comma));
  if (!consumeIf(TokenKind::RSquare))
    return error("expected ',' or ']'"), nullptr;
  return std::make_unique<SubscriptExpr>(l, std::move(base),
                                         std::move(indices));
}

/// One index of a subscript: an expression or `lower:upper:step`.
ExprPtr Parser::parseSubscriptIndex() {
  Location l = curLoc();
  ExprPtr lower, upper, step;
  if (!is(TokenKind::Colon)) {
    lower = parseTest();
    if (!lower || !is(TokenKind::Colon))
      return lower;
  }
  advance(); // ':'
  auto endsPart = [&] {
    return is(TokenKind::Colon) || is(TokenKind::Comma) ||
           is(TokenKind::RSquare);
  };
  if (!endsPart()) {
    upper = parseTest();
    if (!upper)
      return nullptr;
  }
  if (consumeIf(TokenKind::Colon) && !endsPart()) {
    step = parseTest();
    if (!step)
      return nullptr;
  }
  return std::make_unique<SliceExpr>(l, std::move(lower), std::move(upper),
                                     std::move(step));
}

ExprPtr Parser::parseNumber() {
  const Token &tok = cur();
  Location l = curLoc();
  if (tok.is(TokenKind::Float)) {
    double value = std::strtod(tok.text.c_str(), nullptr);
    advance();
    return std::make_unique<FloatExpr>(l, value);
  }
  StringRef digits = tok.text;
  unsigned radix = 10;
  if (digits.size() > 2 && digits[0] == '0' && llvm::isAlpha(digits[1])) {
    char c = digits[1];
    radix = c == 'x' ? 16 : c == 'o' ? 8 : 2;
    digits = digits.drop_front(2);
  }
  uint64_t value;
  if (digits.getAsInteger(radix, value))
    return error("integer literal is too large (2^64 or more)"), nullptr;
  advance();
  return std::make_unique<IntExpr>(l, static_cast<int64_t>(value),
                                   value > static_cast<uint64_t>(INT64_MAX));
}

ExprPtr Parser::parseAtom() {
  Location l = curLoc();
  switch (cur().kind) {
  case TokenKind::Identifier: {
    auto name = std::make_unique<NameExpr>(l, cur().text);
    advance();
    return name;
  }
  case TokenKind::Int:
  case TokenKind::Float:
    return parseNumber();
  case TokenKind::String:
  case TokenKind::FString: {
    // Adjacent literals concatenate.
    auto fstring = std::make_unique<FStringExpr>(l);
    fstring->texts.emplace_back();
    bool formatted = false;
    while (is(TokenKind::String) || is(TokenKind::FString)) {
      if (is(TokenKind::FString)) {
        // Host code's f-strings format host values: kept, not read.
        if (!inKernel) {
          while (is(TokenKind::String) || is(TokenKind::FString))
            advance();
          return std::make_unique<HostExpr>(l, "an f-string");
        }
        formatted = true;
        if (!parseFStringBody(cur().text, *fstring))
          return nullptr;
      } else {
        fstring->texts.back() += cur().text;
      }
      advance();
    }
    if (!formatted)
      return std::make_unique<StringExpr>(l, std::move(fstring->texts[0]));
    return fstring;
  }
  case TokenKind::kw_True:
  case TokenKind::kw_False: {
    bool value = is(TokenKind::kw_True);
    advance();
    return std::make_unique<BoolExpr>(l, value);
  }
  case TokenKind::kw_None:
    advance();
    return std::make_unique<NoneExpr>(l);
  case TokenKind::LParen:
  case TokenKind::LSquare:
    return parseParenOrList();
  case TokenKind::LBrace:
    return parseBraces();
  case TokenKind::Ellipsis:
    if (inKernel)
      return error("'...' is not supported"), nullptr;
    advance();
    return std::make_unique<HostExpr>(l, "'...'");
  case TokenKind::Star: {
    if (inKernel)
      return error("starred expressions are not supported"), nullptr;
    advance();
    ExprPtr value = parseOr();
    if (!value)
      return nullptr;
    return std::make_unique<StarredExpr>(l, std::move(value), false);
  }
  case TokenKind::kw_lambda:
    return parseLambda();
  case TokenKind::kw_await:
  case TokenKind::kw_yield:
    return error(Twine("'") + getTokenSpelling(cur().kind) +
                 "' is not supported"),
           nullptr;
  case TokenKind::Indent:
    return error("unexpected indent"), nullptr;
  default:
    return error("invalid syntax"), nullptr;
  }
}

/// `lambda a, b=1, *rest, **kw: body`, host code only (autotune and
/// heuristics decorators). Defaults are parsed and dropped: decorators call
/// their lambdas with every argument.
ExprPtr Parser::parseLambda() {
  Location l = curLoc();
  if (inKernel)
    return error("lambda expressions are not supported"), nullptr;
  advance();
  std::vector<std::string> params;
  while (!is(TokenKind::Colon)) {
    bool starred = consumeIf(TokenKind::Star) || consumeIf(TokenKind::DoubleStar);
    if (starred && is(TokenKind::Comma)) {
      advance(); // a bare `*`
      continue;
    }
    if (!is(TokenKind::Identifier))
      return error("expected a parameter name"), nullptr;
    if (!starred)
      params.push_back(cur().text);
    advance();
    if (consumeIf(TokenKind::Equal) && !parseTest())
      return nullptr;
    if (!consumeIf(TokenKind::Comma))
      break;
  }
  if (!expect(TokenKind::Colon))
    return nullptr;
  ExprPtr body = parseTest();
  if (!body)
    return nullptr;
  return std::make_unique<LambdaExpr>(l, std::move(params), std::move(body));
}

ExprPtr Parser::parseComprehension(Location l,
                                   ComprehensionExpr::Result result,
                                   ExprPtr key, ExprPtr element) {
  std::vector<ComprehensionClause> clauses;
  while (is(TokenKind::kw_for) || is(TokenKind::kw_async)) {
    if (consumeIf(TokenKind::kw_async))
      return error("async comprehensions are not supported"), nullptr;
    advance(); // 'for'
    ComprehensionClause clause;
    clause.target = parseTargetList();
    if (!clause.target || !expect(TokenKind::kw_in))
      return nullptr;
    clause.iter = parseOr();
    if (!clause.iter)
      return nullptr;
    while (consumeIf(TokenKind::kw_if)) {
      ExprPtr condition = parseOr();
      if (!condition)
        return nullptr;
      clause.conditions.push_back(std::move(condition));
    }
    clauses.push_back(std::move(clause));
  }
  return std::make_unique<ComprehensionExpr>(
      l, result, std::move(key), std::move(element), std::move(clauses));
}

/// `{}`, `{k: v, **d}`, `{a, b}`, `{k: v for ...}`: a DictExpr for dicts (so
/// that a decorator's keys can be read), a comprehension, or a HostExpr for
/// a set.
ExprPtr Parser::parseBraces() {
  Location l = curLoc();
  if (inKernel)
    return error("dict and set literals are not supported"), nullptr;
  advance();
  std::vector<ExprPtr> keys, values;
  bool isSet = false;
  while (!is(TokenKind::RBrace)) {
    if (consumeIf(TokenKind::DoubleStar)) {
      ExprPtr value = parseOr();
      if (!value)
        return nullptr;
      keys.push_back(nullptr);
      values.push_back(std::move(value));
    } else {
      ExprPtr key = parseTest();
      if (!key)
        return nullptr;
      ExprPtr value;
      if (consumeIf(TokenKind::Colon)) {
        value = parseTest();
        if (!value)
          return nullptr;
      } else {
        isSet = true;
      }
      if (is(TokenKind::kw_for)) {
        if (!keys.empty())
          return error("invalid syntax"), nullptr;
        ExprPtr comprehension =
            value ? parseComprehension(l, ComprehensionExpr::Result::Dict,
                                       std::move(key), std::move(value))
                  : parseComprehension(l, ComprehensionExpr::Result::Set,
                                       nullptr, std::move(key));
        if (!comprehension || !expect(TokenKind::RBrace))
          return nullptr;
        return comprehension;
      }
      if (value) {
        keys.push_back(std::move(key));
        values.push_back(std::move(value));
      }
    }
    if (!consumeIf(TokenKind::Comma))
      break;
  }
  if (!consumeIf(TokenKind::RBrace))
    return error("expected ',' or '}'"), nullptr;
  if (isSet)
    return std::make_unique<HostExpr>(l, "a set");
  return std::make_unique<DictExpr>(l, std::move(keys), std::move(values));
}

/// `(e)`, `()`, `(a,)`, `(a, b)`, `[]`, `[a, b]`.
ExprPtr Parser::parseParenOrList() {
  Location l = curLoc();
  bool isList = is(TokenKind::LSquare);
  TokenKind close = isList ? TokenKind::RSquare : TokenKind::RParen;
  advance();
  std::vector<ExprPtr> elements;
  bool sawComma = false;
  while (!is(close)) {
    ExprPtr element = parseTest();
    if (!element)
      return nullptr;
    if (is(TokenKind::kw_for)) {
      if (inKernel)
        return error("comprehensions are not supported"), nullptr;
      if (!elements.empty())
        return error("invalid syntax"), nullptr;
      ExprPtr comprehension = parseComprehension(
          l,
          isList ? ComprehensionExpr::Result::List
                 : ComprehensionExpr::Result::Generator,
          nullptr, std::move(element));
      if (!comprehension || !expect(close))
        return nullptr;
      return comprehension;
    }
    elements.push_back(std::move(element));
    if (!consumeIf(TokenKind::Comma))
      break;
    sawComma = true;
  }
  if (!consumeIf(close))
    return error(Twine("expected ',' or '") + getTokenSpelling(close) + "'"),
           nullptr;
  if (!isList && elements.size() == 1 && !sawComma)
    return std::move(elements.front());
  return std::make_unique<TupleExpr>(l, std::move(elements), isList);
}

//===----------------------------------------------------------------------===//
// Entry point
//===----------------------------------------------------------------------===//

bool Parser::parseFStringBody(StringRef body, FStringExpr &out) {
  Location at = curLoc();
  auto bad = [&](const Twine &what) {
    return errorAt(at, "f-string: " + what);
  };
  size_t i = 0, n = body.size();
  while (i < n) {
    char c = body[i];
    if ((c == '{' || c == '}') && i + 1 < n && body[i + 1] == c) {
      out.texts.back() += c;
      i += 2;
      continue;
    }
    if (c == '}')
      return bad("single '}' is not allowed");
    if (c != '{') {
      out.texts.back() += c;
      ++i;
      continue;
    }
    // A field: its expression runs to a top-level '!', ':', '}' or the '='
    // of `{x=}` (followed by one of those).
    size_t start = ++i;
    int depth = 0;
    char quote = 0;
    bool selfDocumenting = false;
    for (; i < n; ++i) {
      char d = body[i];
      if (quote) {
        quote = d == quote ? 0 : quote;
        continue;
      }
      if (d == '\'' || d == '"') {
        quote = d;
      } else if (d == '(' || d == '[' || d == '{') {
        ++depth;
      } else if (depth && (d == ')' || d == ']' || d == '}')) {
        --depth;
      } else if (!depth && (d == '}' || d == ':' ||
                            (d == '!' && (i + 1 >= n || body[i + 1] != '=')))) {
        break;
      } else if (!depth && d == '=') {
        if (i + 1 < n && body[i + 1] == '=') {
          ++i; // ==
          continue;
        }
        char before = body[i - 1];
        if (before == '<' || before == '>' || before == '!' || before == '=')
          continue;
        size_t after = body.find_first_not_of(" \t", i + 1);
        if (after != StringRef::npos && StringRef("!:}").contains(body[after])) {
          selfDocumenting = true;
          break;
        }
      }
    }
    StringRef text = body.slice(start, i);
    if (text.trim().empty())
      return bad("empty expression not allowed");
    if (selfDocumenting) {
      size_t after = body.find_first_not_of(" \t", i + 1);
      out.texts.back() += body.slice(start, after).str();
      i = after;
    }
    char conversion = 0;
    if (i < n && body[i] == '!') {
      if (i + 1 >= n || !StringRef("sra").contains(body[i + 1]))
        return bad("invalid conversion character: expected 's', 'r', or 'a'");
      conversion = body[i + 1];
      i += 2;
    }
    bool spec = false;
    if (i < n && body[i] == ':') {
      // Triton formats with "{}": the spec is dropped, nested fields too.
      spec = true;
      for (int nested = 0; i < n && (body[i] != '}' || nested); ++i)
        nested += (body[i] == '{') - (body[i] == '}' && nested);
    }
    if (i >= n || body[i] != '}')
      return bad("expecting '}'");
    ++i;
    if (selfDocumenting && !conversion && !spec)
      conversion = 'r';

    // The expression, parsed as a parenthesized one (so it may span lines)
    // at the f-string's location.
    std::vector<Token> tokens = tokenize(("(" + text + ")").str());
    for (Token &t : tokens) {
      t.line = at.line;
      t.col = at.col;
    }
    Parser inner(std::move(tokens), file, errorOut);
    inner.inKernel = true;
    inner.module = module;
    inner.failed = failed;
    ExprPtr value = inner.parseTest();
    if (!value) {
      failed = true;
      return false;
    }
    if (!inner.is(TokenKind::Newline) && !inner.is(TokenKind::EndOfFile))
      return bad("invalid expression '" + text + "'");
    out.fields.push_back({std::move(value), conversion});
    out.texts.emplace_back();
  }
  return true;
}

std::unique_ptr<Module> tilec::parseModule(StringRef source,
                                           StringRef filename,
                                           SourceError &error) {
  auto file = std::make_shared<std::string>(filename.str());
  return Parser(tokenize(source), std::move(file), error).parseModule();
}

std::string tilec::renderSourceError(StringRef source,
                                     const SourceError &error) {
  // Locate line:col in the buffer so SourceMgr prints the line and caret
  // exactly as MLIR's diagnostic handler does.
  llvm::SourceMgr sourceMgr;
  std::string filename = error.loc.file ? *error.loc.file : "<source>";
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBuffer(source, filename,
                                       /*RequiresNullTerminator=*/false),
      llvm::SMLoc());
  size_t lineStart = 0;
  for (unsigned line = 1; line < error.loc.line; ++line) {
    size_t newline = source.find('\n', lineStart);
    if (newline == StringRef::npos) {
      lineStart = source.size();
      break;
    }
    lineStart = newline + 1;
  }
  size_t lineEnd = std::min(source.find('\n', lineStart), source.size());
  size_t column = error.loc.col ? error.loc.col - 1 : 0;
  size_t offset = std::min(lineStart + column, lineEnd);
  std::string text;
  llvm::raw_string_ostream os(text);
  sourceMgr.PrintMessage(os, llvm::SMLoc::getFromPointer(source.data() + offset),
                         llvm::SourceMgr::DK_Error, error.message);
  return text;
}
