//===- HostEvaluator.h - The host Python around kernels ---------*- C++ -*-===//
//
// Triton's decorators are host Python: @triton.autotune's config list (often
// built by a comprehension or a helper function), its prune function, and
// @triton.heuristics' lambdas. HostEvaluator runs the part of Python they
// use over the AST: numbers, strings, lists, tuples, dicts, comprehensions,
// lambdas, the module's globals and parsed host functions, triton.Config and
// a few builtins. Anything else is an error at its source location: it never
// guesses.
//
// Module globals are evaluated once, in source order, when the evaluator is
// made; one whose value is beyond it (`DEVICE = torch.device(...)`) fails
// only where it is read. After that, evaluation changes nothing shared, so
// one evaluator serves several threads.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_FRONTEND_HOSTEVALUATOR_H
#define TILEC_FRONTEND_HOSTEVALUATOR_H

#include "tilec/Frontend/AST.h"
#include "tilec/Frontend/HostScalar.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace tilec::host {

struct Value;
using Values = std::vector<Value>;
/// A dict's entries in insertion order, or an object's attributes.
using Entries = std::vector<std::pair<Value, Value>>;

/// A host Python value. Lists, dicts and objects are shared, as in Python.
/// Scalars are HostScalars, the type constexpr folding computes with too.
struct Value {
  enum class Kind {
    /// A scalar: `scalar` holds it, of the same kind.
    None, Int, Float, Bool, String,
    List, Tuple, Dict,
    /// triton.Config or a GPU target: `name` is the class, `entries` the
    /// attributes.
    Object,
    /// A lambda, a host function or a builtin (`name`, dotted).
    Callable,
    /// A module or a name inside one (`name`, dotted: "triton.runtime").
    Module,
    /// A launch argument the host has no value of (a pointer): `name` says
    /// what it is.
    Opaque,
    /// A global whose value failed: reading it reports `error`.
    Failed,
  };
  Kind kind = Kind::None;
  HostScalar scalar;
  std::string name; // see Kind
  std::shared_ptr<Values> items;
  std::shared_ptr<Entries> entries;
  const ast::LambdaExpr *lambda = nullptr;
  const ast::FunctionDef *function = nullptr;
  /// The names a lambda saw where it was made (a comprehension's variables).
  std::shared_ptr<const std::map<std::string, Value>> closure;
  std::shared_ptr<const std::pair<ast::Location, std::string>> error;

  static Value none() { return {}; }
  static Value ofInt(int64_t v);
  static Value ofFloat(double v);
  static Value ofBool(bool v);
  static Value ofString(std::string v);
  static Value list(Values items, bool isTuple = false);
  static Value dict(Entries entries);
  static Value object(std::string className, Entries attributes);
  static Value builtin(std::string dottedName);
  static Value opaque(std::string what);
  /// The value of a HostScalar: a launch's pointer or unknown argument is
  /// Opaque.
  static Value of(const HostScalar &scalar);

  bool isNumber() const {
    return kind == Kind::Int || kind == Kind::Float || kind == Kind::Bool;
  }
  bool isScalar() const {
    return isNumber() || kind == Kind::String || kind == Kind::None;
  }
  /// A String's text.
  const std::string &text() const { return scalar.text; }
  /// An object's or dict's attribute/entry named `key`; null when absent.
  const Value *find(const std::string &key) const;
  /// Python's repr, for messages and for a config's description.
  std::string repr() const;
};

/// An error in host code: where, and why.
struct HostError {
  ast::Location loc;
  std::string message;
};

class HostEvaluator {
public:
  /// `computeCapability` answers `get_current_target().arch` (90 on
  /// Hopper). Evaluates the module's globals.
  HostEvaluator(const ast::Module &module, unsigned computeCapability);

  /// Throws HostError.
  Value evaluate(const ast::Expr &expr) const;
  /// Calls a lambda, host function or builtin. Throws HostError.
  Value call(const Value &callee, Values args,
             const std::vector<std::pair<std::string, Value>> &keywords,
             const ast::Location &loc) const;

private:
  struct Frame;
  enum class Flow { Next, Break, Continue, Return };
  Value eval(const ast::Expr &expr, Frame &frame) const;
  Value lookup(const std::string &name, const ast::Location &loc,
               const Frame &frame) const;
  Value attribute(const Value &base, const std::string &attr,
                  const ast::Location &loc) const;
  Value callExpr(const ast::CallExpr &call, Frame &frame) const;
  Value callMethod(const Value &method, Values &args,
                   const ast::Location &loc) const;
  Value callBuiltin(const std::string &name, Values &args,
                    const std::vector<std::pair<std::string, Value>> &keywords,
                    const ast::Location &loc) const;
  Value comprehension(const ast::ComprehensionExpr &expr, Frame &frame) const;
  Value binary(ast::BinaryOp op, const Value &lhs, const Value &rhs,
               const ast::Location &loc) const;
  bool compare(ast::CompareOp op, const Value &lhs, const Value &rhs,
               const ast::Location &loc) const;
  Value subscript(const Value &base, const Value &index,
                  const ast::Location &loc) const;
  void assign(const ast::Expr &target, Value value, Frame &frame) const;
  Flow run(const ast::Block &block, Frame &frame) const;
  Values iterate(const Value &value, const ast::Location &loc) const;

  const ast::Module &module;
  unsigned computeCapability;
  std::map<std::string, Value> globals;
};

/// Python's truth value of `value`.
bool truthy(const Value &value);
/// Python's ==.
bool equal(const Value &a, const Value &b);

} // namespace tilec::host

#endif // TILEC_FRONTEND_HOSTEVALUATOR_H
