//===- AST.h - Syntax tree of a .tl module ---------------------*- C++ -*-===//
//
// A .tl file is a Python module in Triton's kernel language. The parser
// produces this tree for the Python subset tilec accepts; MLIRGen walks it.
// Nodes use LLVM-style RTTI (a kind tag and classof), as in MLIR's Toy.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_FRONTEND_AST_H
#define TILEC_FRONTEND_AST_H

#include "llvm/Support/Casting.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tilec::ast {

/// A position in a source file; line and column are 1-based.
struct Location {
  std::shared_ptr<std::string> file;
  unsigned line = 0;
  unsigned col = 0;
};

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

enum class ExprKind {
  Name,      // x
  Int,       // 42, 0x10
  Float,     // 1.5, 1e-5
  Bool,      // True, False
  None,      // None
  String,    // "ieee"
  FString,   // f"uint{nbits}", evaluated at compile time in kernels
  Attribute, // base.attr
  Call,      // f(a, b, key=c)
  Subscript, // x[:, None]
  Slice,     // lower:upper:step, only inside a subscript
  Tuple,     // (a, b) or [a, b]
  Unary,     // -x, +x, ~x, not x
  Binary,    // a + b, ...
  Compare,   // a < b (chains are rejected by the parser)
  BoolOp,    // a and b, a or b
  IfExp,     // a if c else b
  Dict,      // {k: v}: host-side Python (decorators, module globals)
  // Host-side Python, kept whole so that decorators can be evaluated
  // (Frontend/HostEvaluator.h); kernels cannot use it.
  Lambda,        // lambda args: body
  Comprehension, // [e for x in xs if c], {k: v for ...}, (e for ...)
  Starred,       // *xs, **kw (in a call or a list)
  Host,          // other host-side Python: f-string, set, `...`
};

struct Expr {
  Expr(ExprKind kind, Location loc) : kind(kind), loc(std::move(loc)) {}
  virtual ~Expr() = default;
  const ExprKind kind;
  Location loc;
};
using ExprPtr = std::unique_ptr<Expr>;

struct NameExpr : Expr {
  NameExpr(Location loc, std::string name)
      : Expr(ExprKind::Name, std::move(loc)), name(std::move(name)) {}
  static bool classof(const Expr *e) { return e->kind == ExprKind::Name; }
  std::string name;
};

struct IntExpr : Expr {
  IntExpr(Location loc, int64_t value, bool unsigned64 = false)
      : Expr(ExprKind::Int, std::move(loc)), value(value),
        unsigned64(unsigned64) {}
  static bool classof(const Expr *e) { return e->kind == ExprKind::Int; }
  int64_t value;
  /// A literal in [2^63, 2^64) (`0xFFFFFFFFFFFFFFFF`), `value` its bits:
  /// what Triton makes a uint64.
  bool unsigned64;
};

struct FloatExpr : Expr {
  FloatExpr(Location loc, double value)
      : Expr(ExprKind::Float, std::move(loc)), value(value) {}
  static bool classof(const Expr *e) { return e->kind == ExprKind::Float; }
  double value;
};

struct BoolExpr : Expr {
  BoolExpr(Location loc, bool value)
      : Expr(ExprKind::Bool, std::move(loc)), value(value) {}
  static bool classof(const Expr *e) { return e->kind == ExprKind::Bool; }
  bool value;
};

struct NoneExpr : Expr {
  explicit NoneExpr(Location loc) : Expr(ExprKind::None, std::move(loc)) {}
  static bool classof(const Expr *e) { return e->kind == ExprKind::None; }
};

struct StringExpr : Expr {
  StringExpr(Location loc, std::string value)
      : Expr(ExprKind::String, std::move(loc)), value(std::move(value)) {}
  static bool classof(const Expr *e) { return e->kind == ExprKind::String; }
  std::string value;
};

struct AttributeExpr : Expr {
  AttributeExpr(Location loc, ExprPtr base, std::string attr)
      : Expr(ExprKind::Attribute, std::move(loc)), base(std::move(base)),
        attr(std::move(attr)) {}
  static bool classof(const Expr *e) { return e->kind == ExprKind::Attribute; }
  ExprPtr base;
  std::string attr;
};

/// A `name=value` argument of a call.
struct Keyword {
  Location loc;
  std::string name;
  ExprPtr value;
};

struct CallExpr : Expr {
  CallExpr(Location loc, ExprPtr callee, std::vector<ExprPtr> args,
           std::vector<Keyword> keywords)
      : Expr(ExprKind::Call, std::move(loc)), callee(std::move(callee)),
        args(std::move(args)), keywords(std::move(keywords)) {}
  static bool classof(const Expr *e) { return e->kind == ExprKind::Call; }
  ExprPtr callee;
  std::vector<ExprPtr> args;
  std::vector<Keyword> keywords;
};

/// `base[i]` or `base[i, j, ...]`; each index is a SliceExpr or any other
/// expression (`None` for a new axis).
struct SubscriptExpr : Expr {
  SubscriptExpr(Location loc, ExprPtr base, std::vector<ExprPtr> indices)
      : Expr(ExprKind::Subscript, std::move(loc)), base(std::move(base)),
        indices(std::move(indices)) {}
  static bool classof(const Expr *e) { return e->kind == ExprKind::Subscript; }
  ExprPtr base;
  std::vector<ExprPtr> indices;
};

/// `lower:upper:step`; absent parts are null.
struct SliceExpr : Expr {
  SliceExpr(Location loc, ExprPtr lower, ExprPtr upper, ExprPtr step)
      : Expr(ExprKind::Slice, std::move(loc)), lower(std::move(lower)),
        upper(std::move(upper)), step(std::move(step)) {}
  static bool classof(const Expr *e) { return e->kind == ExprKind::Slice; }
  ExprPtr lower, upper, step;
};

/// A tuple `(a, b)` or a list `[a, b]`.
struct TupleExpr : Expr {
  TupleExpr(Location loc, std::vector<ExprPtr> elements, bool isList)
      : Expr(ExprKind::Tuple, std::move(loc)), elements(std::move(elements)),
        isList(isList) {}
  static bool classof(const Expr *e) { return e->kind == ExprKind::Tuple; }
  std::vector<ExprPtr> elements;
  bool isList;
};

enum class UnaryOp { Neg, Pos, Invert, Not };

struct UnaryExpr : Expr {
  UnaryExpr(Location loc, UnaryOp op, ExprPtr operand)
      : Expr(ExprKind::Unary, std::move(loc)), op(op),
        operand(std::move(operand)) {}
  static bool classof(const Expr *e) { return e->kind == ExprKind::Unary; }
  UnaryOp op;
  ExprPtr operand;
};

enum class BinaryOp {
  Add, Sub, Mul, Div, FloorDiv, Mod, Pow, MatMul,
  BitAnd, BitOr, BitXor, LShift, RShift,
};

/// The operator as Python spells it.
inline const char *spelling(BinaryOp op) {
  switch (op) {
  case BinaryOp::Add: return "+";
  case BinaryOp::Sub: return "-";
  case BinaryOp::Mul: return "*";
  case BinaryOp::Div: return "/";
  case BinaryOp::FloorDiv: return "//";
  case BinaryOp::Mod: return "%";
  case BinaryOp::Pow: return "**";
  case BinaryOp::MatMul: return "@";
  case BinaryOp::BitAnd: return "&";
  case BinaryOp::BitOr: return "|";
  case BinaryOp::BitXor: return "^";
  case BinaryOp::LShift: return "<<";
  case BinaryOp::RShift: return ">>";
  }
  return "?";
}

struct BinaryExpr : Expr {
  BinaryExpr(Location loc, BinaryOp op, ExprPtr lhs, ExprPtr rhs)
      : Expr(ExprKind::Binary, std::move(loc)), op(op), lhs(std::move(lhs)),
        rhs(std::move(rhs)) {}
  static bool classof(const Expr *e) { return e->kind == ExprKind::Binary; }
  BinaryOp op;
  ExprPtr lhs, rhs;
};

enum class CompareOp { Lt, Le, Gt, Ge, Eq, Ne, Is, IsNot, In, NotIn };

struct CompareExpr : Expr {
  CompareExpr(Location loc, CompareOp op, ExprPtr lhs, ExprPtr rhs)
      : Expr(ExprKind::Compare, std::move(loc)), op(op), lhs(std::move(lhs)),
        rhs(std::move(rhs)) {}
  static bool classof(const Expr *e) { return e->kind == ExprKind::Compare; }
  CompareOp op;
  ExprPtr lhs, rhs;
};

enum class BoolOpKind { And, Or };

struct BoolOpExpr : Expr {
  BoolOpExpr(Location loc, BoolOpKind op, ExprPtr lhs, ExprPtr rhs)
      : Expr(ExprKind::BoolOp, std::move(loc)), op(op), lhs(std::move(lhs)),
        rhs(std::move(rhs)) {}
  static bool classof(const Expr *e) { return e->kind == ExprKind::BoolOp; }
  BoolOpKind op;
  ExprPtr lhs, rhs;
};

/// `thenValue if cond else elseValue`.
struct IfExpExpr : Expr {
  IfExpExpr(Location loc, ExprPtr cond, ExprPtr thenValue, ExprPtr elseValue)
      : Expr(ExprKind::IfExp, std::move(loc)), cond(std::move(cond)),
        thenValue(std::move(thenValue)), elseValue(std::move(elseValue)) {}
  static bool classof(const Expr *e) { return e->kind == ExprKind::IfExp; }
  ExprPtr cond, thenValue, elseValue;
};

/// `{k: v, **other}`; the key of a `**other` entry is null. Kernels cannot
/// use dicts; the parser keeps them for decorators such as
/// `@triton.heuristics({"EVEN_K": lambda args: ...})`.
struct DictExpr : Expr {
  DictExpr(Location loc, std::vector<ExprPtr> keys, std::vector<ExprPtr> values)
      : Expr(ExprKind::Dict, std::move(loc)), keys(std::move(keys)),
        values(std::move(values)) {}
  static bool classof(const Expr *e) { return e->kind == ExprKind::Dict; }
  std::vector<ExprPtr> keys, values;
};

/// `lambda a, b=1, *rest, **kw: body` (host code: autotune's prune
/// functions, heuristics).
struct LambdaExpr : Expr {
  LambdaExpr(Location loc, std::vector<std::string> params, ExprPtr body)
      : Expr(ExprKind::Lambda, std::move(loc)), params(std::move(params)),
        body(std::move(body)) {}
  static bool classof(const Expr *e) { return e->kind == ExprKind::Lambda; }
  /// The positional parameters' names; `*rest` and `**kw` take the rest.
  std::vector<std::string> params;
  ExprPtr body;
};

/// One `for target in iter if c1 if c2` clause of a comprehension.
struct ComprehensionClause {
  ExprPtr target, iter;
  std::vector<ExprPtr> conditions;
};

/// `[element for ...]`, `(element for ...)`, `{key: element for ...}` or
/// `{element for ...}` (host code: autotune config lists).
struct ComprehensionExpr : Expr {
  enum class Result { List, Generator, Dict, Set };
  ComprehensionExpr(Location loc, Result result, ExprPtr key, ExprPtr element,
                    std::vector<ComprehensionClause> clauses)
      : Expr(ExprKind::Comprehension, std::move(loc)), result(result),
        key(std::move(key)), element(std::move(element)),
        clauses(std::move(clauses)) {}
  static bool classof(const Expr *e) {
    return e->kind == ExprKind::Comprehension;
  }
  Result result;
  ExprPtr key; // dicts only
  ExprPtr element;
  std::vector<ComprehensionClause> clauses;
};

/// `*value` in a list, tuple or call, or `**value` in a call.
struct StarredExpr : Expr {
  StarredExpr(Location loc, ExprPtr value, bool isDouble)
      : Expr(ExprKind::Starred, std::move(loc)), value(std::move(value)),
        isDouble(isDouble) {}
  static bool classof(const Expr *e) { return e->kind == ExprKind::Starred; }
  ExprPtr value;
  bool isDouble;
};

/// An f-string in a kernel: texts[0], fields[0], texts[1], ..., texts[n].
/// As in Triton, each field is evaluated at compile time and must be a
/// constexpr; `!r`, `!s`, `!a` and `{x=}` are Python's, and a format spec
/// is dropped (Triton formats with "{}").
struct FStringExpr : Expr {
  struct Field {
    ExprPtr value;
    char conversion = 0; // 0 (str), 's', 'r' or 'a'
  };
  explicit FStringExpr(Location loc) : Expr(ExprKind::FString, std::move(loc)) {}
  static bool classof(const Expr *e) { return e->kind == ExprKind::FString; }
  std::vector<std::string> texts;
  std::vector<Field> fields;
};

/// Other Python that only host code uses (a set, an f-string, `...`). The
/// parser accepts it outside kernels, in decorators and module globals, and
/// keeps what it was so that a kernel that reaches it fails with a clear
/// error.
struct HostExpr : Expr {
  HostExpr(Location loc, std::string what)
      : Expr(ExprKind::Host, std::move(loc)), what(std::move(what)) {}
  static bool classof(const Expr *e) { return e->kind == ExprKind::Host; }
  std::string what; // "a set", "an f-string", ...
};

//===----------------------------------------------------------------------===//
// Statements
//===----------------------------------------------------------------------===//

enum class StmtKind {
  Expr, Assign, AugAssign, If, For, While, Return, Pass, Break, Continue,
  Assert, Raise,
};

struct Stmt {
  Stmt(StmtKind kind, Location loc) : kind(kind), loc(std::move(loc)) {}
  virtual ~Stmt() = default;
  const StmtKind kind;
  Location loc;
};
using StmtPtr = std::unique_ptr<Stmt>;
using Block = std::vector<StmtPtr>;

/// An expression statement (a call, or a docstring).
struct ExprStmt : Stmt {
  ExprStmt(Location loc, ExprPtr value)
      : Stmt(StmtKind::Expr, std::move(loc)), value(std::move(value)) {}
  static bool classof(const Stmt *s) { return s->kind == StmtKind::Expr; }
  ExprPtr value;
};

/// `t1 = t2 = value`; a target is a NameExpr, a TupleExpr of targets, or
/// (rejected later) anything else. `x: ann = value` sets `annotation`.
struct AssignStmt : Stmt {
  AssignStmt(Location loc, std::vector<ExprPtr> targets, ExprPtr value,
             ExprPtr annotation)
      : Stmt(StmtKind::Assign, std::move(loc)), targets(std::move(targets)),
        value(std::move(value)), annotation(std::move(annotation)) {}
  static bool classof(const Stmt *s) { return s->kind == StmtKind::Assign; }
  std::vector<ExprPtr> targets;
  ExprPtr value;
  ExprPtr annotation; // may be null
  /// A module-level alias inside an `if` or `try` (see Import::conditional).
  bool conditional = false;
};

/// `target op= value`.
struct AugAssignStmt : Stmt {
  AugAssignStmt(Location loc, ExprPtr target, BinaryOp op, ExprPtr value)
      : Stmt(StmtKind::AugAssign, std::move(loc)), target(std::move(target)),
        op(op), value(std::move(value)) {}
  static bool classof(const Stmt *s) { return s->kind == StmtKind::AugAssign; }
  ExprPtr target;
  BinaryOp op;
  ExprPtr value;
};

/// `if cond: ... else: ...`; `elif` is an IfStmt alone in `orelse`.
struct IfStmt : Stmt {
  IfStmt(Location loc, ExprPtr cond, Block then, Block orelse)
      : Stmt(StmtKind::If, std::move(loc)), cond(std::move(cond)),
        then(std::move(then)), orelse(std::move(orelse)) {}
  static bool classof(const Stmt *s) { return s->kind == StmtKind::If; }
  ExprPtr cond;
  Block then, orelse;
};

/// `for target in iter: body`.
struct ForStmt : Stmt {
  ForStmt(Location loc, ExprPtr target, ExprPtr iter, Block body)
      : Stmt(StmtKind::For, std::move(loc)), target(std::move(target)),
        iter(std::move(iter)), body(std::move(body)) {}
  static bool classof(const Stmt *s) { return s->kind == StmtKind::For; }
  ExprPtr target, iter;
  Block body;
};

struct WhileStmt : Stmt {
  WhileStmt(Location loc, ExprPtr cond, Block body)
      : Stmt(StmtKind::While, std::move(loc)), cond(std::move(cond)),
        body(std::move(body)) {}
  static bool classof(const Stmt *s) { return s->kind == StmtKind::While; }
  ExprPtr cond;
  Block body;
};

struct ReturnStmt : Stmt {
  ReturnStmt(Location loc, ExprPtr value)
      : Stmt(StmtKind::Return, std::move(loc)), value(std::move(value)) {}
  static bool classof(const Stmt *s) { return s->kind == StmtKind::Return; }
  ExprPtr value; // may be null
};

struct PassStmt : Stmt {
  explicit PassStmt(Location loc) : Stmt(StmtKind::Pass, std::move(loc)) {}
  static bool classof(const Stmt *s) { return s->kind == StmtKind::Pass; }
};

struct BreakStmt : Stmt {
  explicit BreakStmt(Location loc) : Stmt(StmtKind::Break, std::move(loc)) {}
  static bool classof(const Stmt *s) { return s->kind == StmtKind::Break; }
};

struct ContinueStmt : Stmt {
  explicit ContinueStmt(Location loc)
      : Stmt(StmtKind::Continue, std::move(loc)) {}
  static bool classof(const Stmt *s) { return s->kind == StmtKind::Continue; }
};

/// `assert cond, message`.
struct AssertStmt : Stmt {
  AssertStmt(Location loc, ExprPtr cond, ExprPtr message)
      : Stmt(StmtKind::Assert, std::move(loc)), cond(std::move(cond)),
        message(std::move(message)) {}
  static bool classof(const Stmt *s) { return s->kind == StmtKind::Assert; }
  ExprPtr cond;
  ExprPtr message; // may be null
};

/// `raise exc [from cause]`: in a kernel, an error where code generation
/// reaches it (a constexpr branch Triton never visits may hold one).
struct RaiseStmt : Stmt {
  RaiseStmt(Location loc, ExprPtr exception)
      : Stmt(StmtKind::Raise, std::move(loc)), exception(std::move(exception)) {}
  static bool classof(const Stmt *s) { return s->kind == StmtKind::Raise; }
  ExprPtr exception; // may be null (a bare `raise`)
};

/// How errors name what a `raise` raises: "ValueError: Unknown dtype" for
/// `raise ValueError("Unknown dtype")`, "an exception" where it is not
/// spelled so plainly.
inline std::string describeRaise(const Stmt &stmt) {
  const Expr *e = llvm::cast<RaiseStmt>(stmt).exception.get();
  const auto *call = llvm::dyn_cast_or_null<CallExpr>(e);
  const Expr *type = call ? call->callee.get() : e;
  const auto *name = llvm::dyn_cast_or_null<NameExpr>(type);
  if (!name)
    return "an exception";
  const auto *text = call && call->args.size() == 1
                         ? llvm::dyn_cast<StringExpr>(call->args[0].get())
                         : nullptr;
  return name->name + (text ? ": " + text->value : "");
}

//===----------------------------------------------------------------------===//
// Module
//===----------------------------------------------------------------------===//

/// A function parameter: `name`, `name: annotation`, `name=default`.
struct Param {
  Location loc;
  std::string name;
  ExprPtr annotation;   // may be null
  ExprPtr defaultValue; // may be null
};

/// Whether a parameter's annotation reads `tl.constexpr` (or `constexpr`),
/// judged by its text where no evaluation is at hand.
inline bool isConstexprAnnotation(const Expr *annotation) {
  if (auto *attr = llvm::dyn_cast_or_null<AttributeExpr>(annotation))
    return attr->attr == "constexpr";
  if (auto *name = llvm::dyn_cast_or_null<NameExpr>(annotation))
    return name->name == "constexpr";
  return false;
}

struct FunctionDef {
  Location loc;
  std::string name;
  std::vector<ExprPtr> decorators; // `@triton.jit` is AttributeExpr/CallExpr
  std::vector<Param> params;
  ExprPtr returns; // `-> T`, may be null
  Block body;
  /// Defined inside a module-level `if` or `try` (see Import::conditional).
  bool conditional = false;
};

/// `import a.b as c` (module "a.b", alias "c", name "") or
/// `from a import b as c` (module "a", name "b", alias "c"). Without `as`,
/// alias is the bound name ("a" for `import a.b`, "b" for `from a import b`).
/// `from ..a import b` has level 2; `from . import b` level 1 and module "".
/// `from a import *` has name and alias "*".
struct Import {
  Location loc;
  std::string module;
  std::string name;
  std::string alias;
  unsigned level = 0;
  /// Inside a module-level `if` or `try` (`try: from triton.language.extra
  /// import libdevice` / `except ImportError: ...`): one of the bindings of
  /// its alias, the first that resolves winning, where an unconditional
  /// import is the only one.
  bool conditional = false;
};

/// A top-level `def` without @triton.jit, or a `class`: host code. Kept so
/// that a kernel using the name hears why not, and a function so that a
/// decorator can call it (an autotune config generator): `function` is its
/// parse, or null where its body uses Python the parser does not read
/// (`with`, `try`, nested definitions, ...).
struct HostDef {
  Location loc;
  std::string name;
  std::shared_ptr<FunctionDef> function;
};

struct Module {
  std::shared_ptr<std::string> file;
  std::vector<Import> imports;
  std::vector<HostDef> hostDefs;
  /// Module-level assignments (`BLOCK = 128`), in source order.
  std::vector<std::unique_ptr<AssignStmt>> globals;
  std::vector<FunctionDef> functions;
};

} // namespace tilec::ast

#endif // TILEC_FRONTEND_AST_H
