//===- ASTDump.cpp - Textual dump of a .tl syntax tree --------------------===//
//
// The format is described in ASTDump.h; lit tests FileCheck it, so keep it
// stable.
//
//===----------------------------------------------------------------------===//

#include "tilec/Frontend/ASTDump.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>
#include <cstdlib>

using namespace tilec;
using namespace tilec::ast;
using llvm::StringRef;

static StringRef getCompareOpSpelling(CompareOp op) {
  switch (op) {
  case CompareOp::Lt: return "<";
  case CompareOp::Le: return "<=";
  case CompareOp::Gt: return ">";
  case CompareOp::Ge: return ">=";
  case CompareOp::Eq: return "==";
  case CompareOp::Ne: return "!=";
  case CompareOp::Is: return "is";
  case CompareOp::IsNot: return "is not";
  case CompareOp::In: return "in";
  case CompareOp::NotIn: return "not in";
  }
  return "?";
}

static StringRef getUnaryOpSpelling(UnaryOp op) {
  switch (op) {
  case UnaryOp::Neg: return "-";
  case UnaryOp::Pos: return "+";
  case UnaryOp::Invert: return "~";
  case UnaryOp::Not: return "not";
  }
  return "?";
}

/// The shortest "%g" form that reads back as the same double, so that
/// 0.1 prints as 0.1 rather than 0.10000000000000001.
static std::string formatDouble(double value) {
  char buf[32];
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof(buf), "%.*g", precision, value);
    if (std::strtod(buf, nullptr) == value)
      break;
  }
  return buf;
}

namespace {

class Dumper {
public:
  explicit Dumper(llvm::raw_ostream &os, unsigned indent = 0)
      : os(os), indent(indent) {}

  void dump(const Module &module);
  void dump(const FunctionDef &fn);
  void dump(const Stmt &stmt);
  void dump(const Expr &expr);

private:
  /// Starts a node's line at the current depth.
  llvm::raw_ostream &line() { return os.indent(indent * 2); }
  /// Ends a node's line with its location.
  void end(const Location &loc) {
    os << " @" << loc.line << ':' << loc.col << '\n';
  }
  /// A label line (`Target`, `Body`) that groups the children below it.
  void label(StringRef name) { line() << name << '\n'; }
  void dumpBlock(const Block &block) {
    for (const StmtPtr &stmt : block)
      dump(*stmt);
  }
  /// Prints `child` one level deeper, under an optional label.
  void nested(const Expr &child) {
    ++indent;
    dump(child);
    --indent;
  }
  void labeled(StringRef name, const Expr &child) {
    label(name);
    nested(child);
  }
  void labeled(StringRef name, const Block &block) {
    label(name);
    ++indent;
    dumpBlock(block);
    --indent;
  }

  llvm::raw_ostream &os;
  unsigned indent;
};

} // namespace

void Dumper::dump(const Module &module) {
  label("Module");
  ++indent;
  for (const Import &import : module.imports) {
    if (import.name.empty())
      line() << "Import " << import.module;
    else
      line() << "ImportFrom " << std::string(import.level, '.')
             << import.module << " import " << import.name;
    os << " as " << import.alias;
    if (import.conditional)
      os << " conditional";
    end(import.loc);
  }
  for (const HostDef &def : module.hostDefs) {
    line() << "HostDef " << def.name;
    end(def.loc);
  }
  for (const auto &global : module.globals)
    dump(*global);
  for (const FunctionDef &fn : module.functions)
    dump(fn);
  --indent;
}

void Dumper::dump(const FunctionDef &fn) {
  line() << "FunctionDef " << fn.name;
  end(fn.loc);
  ++indent;
  for (const ExprPtr &decorator : fn.decorators)
    labeled("Decorator", *decorator);
  for (const Param &param : fn.params) {
    line() << "Param " << param.name;
    end(param.loc);
    ++indent;
    if (param.annotation)
      labeled("Annotation", *param.annotation);
    if (param.defaultValue)
      labeled("Default", *param.defaultValue);
    --indent;
  }
  if (fn.returns)
    labeled("Returns", *fn.returns);
  dumpBlock(fn.body);
  --indent;
}

void Dumper::dump(const Stmt &stmt) {
  switch (stmt.kind) {
  case StmtKind::Expr:
    line() << "Expr";
    end(stmt.loc);
    nested(*llvm::cast<ExprStmt>(stmt).value);
    return;
  case StmtKind::Assign: {
    const auto &assign = llvm::cast<AssignStmt>(stmt);
    line() << "Assign";
    end(stmt.loc);
    ++indent;
    for (const ExprPtr &target : assign.targets)
      labeled("Target", *target);
    if (assign.annotation)
      labeled("Annotation", *assign.annotation);
    dump(*assign.value);
    --indent;
    return;
  }
  case StmtKind::AugAssign: {
    const auto &aug = llvm::cast<AugAssignStmt>(stmt);
    line() << "AugAssign " << spelling(aug.op) << '=';
    end(stmt.loc);
    nested(*aug.target);
    nested(*aug.value);
    return;
  }
  case StmtKind::If: {
    const auto &ifStmt = llvm::cast<IfStmt>(stmt);
    line() << "If";
    end(stmt.loc);
    ++indent;
    dump(*ifStmt.cond);
    labeled("Then", ifStmt.then);
    if (!ifStmt.orelse.empty())
      labeled("Else", ifStmt.orelse);
    --indent;
    return;
  }
  case StmtKind::For: {
    const auto &forStmt = llvm::cast<ForStmt>(stmt);
    line() << "For";
    end(stmt.loc);
    ++indent;
    dump(*forStmt.target);
    dump(*forStmt.iter);
    labeled("Body", forStmt.body);
    --indent;
    return;
  }
  case StmtKind::While: {
    const auto &whileStmt = llvm::cast<WhileStmt>(stmt);
    line() << "While";
    end(stmt.loc);
    ++indent;
    dump(*whileStmt.cond);
    labeled("Body", whileStmt.body);
    --indent;
    return;
  }
  case StmtKind::Return: {
    line() << "Return";
    end(stmt.loc);
    if (const Expr *value = llvm::cast<ReturnStmt>(stmt).value.get())
      nested(*value);
    return;
  }
  case StmtKind::Pass:
    line() << "Pass";
    end(stmt.loc);
    return;
  case StmtKind::Break:
    line() << "Break";
    end(stmt.loc);
    return;
  case StmtKind::Continue:
    line() << "Continue";
    end(stmt.loc);
    return;
  case StmtKind::Assert: {
    const auto &assertStmt = llvm::cast<AssertStmt>(stmt);
    line() << "Assert";
    end(stmt.loc);
    nested(*assertStmt.cond);
    if (assertStmt.message)
      nested(*assertStmt.message);
    return;
  }
  case StmtKind::Raise: {
    const auto &raise = llvm::cast<RaiseStmt>(stmt);
    line() << "Raise";
    end(stmt.loc);
    if (raise.exception)
      nested(*raise.exception);
    return;
  }
  }
}

void Dumper::dump(const Expr &expr) {
  switch (expr.kind) {
  case ExprKind::Name:
    line() << "Name " << llvm::cast<NameExpr>(expr).name;
    end(expr.loc);
    return;
  case ExprKind::Int:
    line() << "Int " << llvm::cast<IntExpr>(expr).value;
    end(expr.loc);
    return;
  case ExprKind::Float:
    line() << "Float " << formatDouble(llvm::cast<FloatExpr>(expr).value);
    end(expr.loc);
    return;
  case ExprKind::Bool:
    line() << "Bool " << (llvm::cast<BoolExpr>(expr).value ? "True" : "False");
    end(expr.loc);
    return;
  case ExprKind::None:
    line() << "None";
    end(expr.loc);
    return;
  case ExprKind::String:
    line() << "String \"";
    os.write_escaped(llvm::cast<StringExpr>(expr).value);
    os << '"';
    end(expr.loc);
    return;
  case ExprKind::FString: {
    const auto &f = llvm::cast<FStringExpr>(expr);
    line() << "FString";
    end(expr.loc);
    ++indent;
    auto text = [&](const std::string &t) {
      line() << "Text \"";
      os.write_escaped(t);
      os << "\"\n";
    };
    for (auto [i, field] : llvm::enumerate(f.fields)) {
      text(f.texts[i]);
      if (field.conversion)
        line() << "Conversion !" << field.conversion << '\n';
      dump(*field.value);
    }
    text(f.texts.back());
    --indent;
    return;
  }
  case ExprKind::Attribute: {
    const auto &attr = llvm::cast<AttributeExpr>(expr);
    line() << "Attribute " << attr.attr;
    end(expr.loc);
    nested(*attr.base);
    return;
  }
  case ExprKind::Call: {
    const auto &call = llvm::cast<CallExpr>(expr);
    line() << "Call";
    end(expr.loc);
    ++indent;
    dump(*call.callee);
    for (const ExprPtr &arg : call.args)
      dump(*arg);
    for (const Keyword &keyword : call.keywords) {
      line() << "Keyword " << keyword.name;
      end(keyword.loc);
      nested(*keyword.value);
    }
    --indent;
    return;
  }
  case ExprKind::Subscript: {
    const auto &sub = llvm::cast<SubscriptExpr>(expr);
    line() << "Subscript";
    end(expr.loc);
    ++indent;
    dump(*sub.base);
    for (const ExprPtr &index : sub.indices)
      dump(*index);
    --indent;
    return;
  }
  case ExprKind::Slice: {
    const auto &slice = llvm::cast<SliceExpr>(expr);
    line() << "Slice";
    end(expr.loc);
    ++indent;
    if (slice.lower)
      labeled("Lower", *slice.lower);
    if (slice.upper)
      labeled("Upper", *slice.upper);
    if (slice.step)
      labeled("Step", *slice.step);
    --indent;
    return;
  }
  case ExprKind::Tuple: {
    const auto &tuple = llvm::cast<TupleExpr>(expr);
    line() << (tuple.isList ? "List" : "Tuple");
    end(expr.loc);
    for (const ExprPtr &element : tuple.elements)
      nested(*element);
    return;
  }
  case ExprKind::Unary: {
    const auto &unary = llvm::cast<UnaryExpr>(expr);
    line() << "Unary " << getUnaryOpSpelling(unary.op);
    end(expr.loc);
    nested(*unary.operand);
    return;
  }
  case ExprKind::Binary: {
    const auto &binary = llvm::cast<BinaryExpr>(expr);
    line() << "Binary " << spelling(binary.op);
    end(expr.loc);
    nested(*binary.lhs);
    nested(*binary.rhs);
    return;
  }
  case ExprKind::Compare: {
    const auto &compare = llvm::cast<CompareExpr>(expr);
    line() << "Compare " << getCompareOpSpelling(compare.op);
    end(expr.loc);
    nested(*compare.lhs);
    nested(*compare.rhs);
    return;
  }
  case ExprKind::BoolOp: {
    const auto &boolOp = llvm::cast<BoolOpExpr>(expr);
    line() << "BoolOp " << (boolOp.op == BoolOpKind::And ? "and" : "or");
    end(expr.loc);
    nested(*boolOp.lhs);
    nested(*boolOp.rhs);
    return;
  }
  case ExprKind::IfExp: {
    const auto &ifExp = llvm::cast<IfExpExpr>(expr);
    line() << "IfExp";
    end(expr.loc);
    nested(*ifExp.cond);
    nested(*ifExp.thenValue);
    nested(*ifExp.elseValue);
    return;
  }
  case ExprKind::Dict: {
    const auto &dict = llvm::cast<DictExpr>(expr);
    line() << "Dict";
    end(expr.loc);
    ++indent;
    for (auto [key, value] : llvm::zip(dict.keys, dict.values)) {
      if (key)
        dump(*key);
      else
        label("**");
      nested(*value);
    }
    --indent;
    return;
  }
  case ExprKind::Lambda: {
    const auto &lambda = llvm::cast<LambdaExpr>(expr);
    line() << "Lambda";
    for (const std::string &param : lambda.params)
      os << " " << param;
    end(expr.loc);
    nested(*lambda.body);
    return;
  }
  case ExprKind::Comprehension: {
    const auto &comprehension = llvm::cast<ComprehensionExpr>(expr);
    static const char *const results[] = {"List", "Generator", "Dict", "Set"};
    line() << "Comprehension " << results[int(comprehension.result)];
    end(expr.loc);
    ++indent;
    if (comprehension.key)
      dump(*comprehension.key);
    dump(*comprehension.element);
    for (const ComprehensionClause &clause : comprehension.clauses) {
      label("for");
      nested(*clause.target);
      nested(*clause.iter);
      for (const ExprPtr &condition : clause.conditions) {
        label("if");
        nested(*condition);
      }
    }
    --indent;
    return;
  }
  case ExprKind::Starred: {
    const auto &starred = llvm::cast<StarredExpr>(expr);
    line() << (starred.isDouble ? "Starred **" : "Starred *");
    end(expr.loc);
    nested(*starred.value);
    return;
  }
  case ExprKind::Host:
    line() << "Host " << llvm::cast<HostExpr>(expr).what;
    end(expr.loc);
    return;
  }
}

void tilec::dumpAST(const Module &module, llvm::raw_ostream &os) {
  Dumper(os).dump(module);
}

void tilec::dumpAST(const Expr &expr, llvm::raw_ostream &os, unsigned indent) {
  Dumper(os, indent).dump(expr);
}

void tilec::dumpAST(const Stmt &stmt, llvm::raw_ostream &os, unsigned indent) {
  Dumper(os, indent).dump(stmt);
}
