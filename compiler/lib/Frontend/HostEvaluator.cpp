//===- HostEvaluator.cpp - The host Python around kernels -----------------===//

#include "tilec/Frontend/HostEvaluator.h"
#include "PythonInt.h"
#include "PythonScalar.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/Casting.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <functional>
#include <list>

using namespace tilec;
using namespace tilec::host;
using namespace tilec::ast;
using llvm::cast;
using llvm::dyn_cast;

namespace {
/// Bounds on what a decorator's host code may do, so that a mistake (an
/// endless loop, runaway recursion, range(10**12)) is an error, not a hang.
constexpr unsigned kMaxCallDepth = 64;
constexpr size_t kMaxIterations = 1 << 20;
} // namespace

//===----------------------------------------------------------------------===//
// Values
//===----------------------------------------------------------------------===//

// A scalar's kind is its HostScalar's, enumerator for enumerator.
static_assert(int(Value::Kind::None) == int(HostScalar::Kind::None) &&
              int(Value::Kind::Int) == int(HostScalar::Kind::Int) &&
              int(Value::Kind::Float) == int(HostScalar::Kind::Float) &&
              int(Value::Kind::Bool) == int(HostScalar::Kind::Bool) &&
              int(Value::Kind::String) == int(HostScalar::Kind::String));

Value Value::of(const HostScalar &scalar) {
  if (scalar.kind == HostScalar::Kind::Pointer)
    return opaque("a pointer to " + scalar.text);
  if (scalar.kind == HostScalar::Kind::Unknown)
    return opaque("an argument whose value is known only at launch");
  Value value;
  value.kind = Kind(scalar.kind);
  value.scalar = scalar;
  return value;
}

Value Value::ofInt(int64_t v) { return of(HostScalar::ofInt(v)); }
Value Value::ofFloat(double v) { return of(HostScalar::ofFloat(v)); }
Value Value::ofBool(bool v) { return of(HostScalar::ofBool(v)); }
Value Value::ofString(std::string v) {
  return of(HostScalar::ofString(std::move(v)));
}

Value Value::list(Values items, bool isTuple) {
  Value value;
  value.kind = isTuple ? Kind::Tuple : Kind::List;
  value.items = std::make_shared<Values>(std::move(items));
  return value;
}

Value Value::dict(Entries entries) {
  Value value;
  value.kind = Kind::Dict;
  value.entries = std::make_shared<Entries>(std::move(entries));
  return value;
}

Value Value::object(std::string className, Entries attributes) {
  Value value = dict(std::move(attributes));
  value.kind = Kind::Object;
  value.name = std::move(className);
  return value;
}

Value Value::builtin(std::string dottedName) {
  Value value;
  value.kind = Kind::Module;
  value.name = std::move(dottedName);
  return value;
}

Value Value::opaque(std::string what) {
  Value value;
  value.kind = Kind::Opaque;
  value.name = std::move(what);
  return value;
}

const Value *Value::find(const std::string &key) const {
  if (!entries)
    return nullptr;
  for (const auto &[k, v] : *entries)
    if (k.kind == Kind::String && k.text() == key)
      return &v;
  return nullptr;
}

std::string Value::repr() const {
  switch (kind) {
  case Kind::None:
  case Kind::Int:
  case Kind::Bool:
  case Kind::Float:
  case Kind::String:
    return scalar.repr();
  case Kind::List:
  case Kind::Tuple: {
    std::string text = kind == Kind::List ? "[" : "(";
    for (size_t k = 0; k < items->size(); ++k)
      text += (k ? ", " : "") + (*items)[k].repr();
    if (kind == Kind::Tuple && items->size() == 1)
      text += ",";
    return text + (kind == Kind::List ? "]" : ")");
  }
  case Kind::Dict:
  case Kind::Object: {
    std::string text = kind == Kind::Object ? name + "(" : "{";
    for (size_t k = 0; k < entries->size(); ++k) {
      const auto &[key, value] = (*entries)[k];
      text += (k ? ", " : "") +
              (kind == Kind::Object ? key.text() + "=" : key.repr() + ": ") +
              value.repr();
    }
    return text + (kind == Kind::Object ? ")" : "}");
  }
  case Kind::Callable:
    return lambda ? "<lambda>" : "<function " + function->name + ">";
  case Kind::Module:
    return "<" + name + ">";
  case Kind::Opaque:
    return "<" + name + ">";
  case Kind::Failed:
    return "<no value>";
  }
  return "?";
}

bool host::truthy(const Value &value) {
  switch (value.kind) {
  case Value::Kind::None:
  case Value::Kind::Int:
  case Value::Kind::Bool:
  case Value::Kind::Float:
  case Value::Kind::String:
    return python::truthy(value.scalar);
  case Value::Kind::List:
  case Value::Kind::Tuple:
    return !value.items->empty();
  case Value::Kind::Dict:
    return !value.entries->empty();
  default:
    return true;
  }
}

bool host::equal(const Value &a, const Value &b) {
  if (a.isScalar() && b.isScalar())
    return python::equal(a.scalar, b.scalar);
  if (a.kind != b.kind)
    return false;
  switch (a.kind) {
  case Value::Kind::Module:
    return a.name == b.name;
  case Value::Kind::List:
  case Value::Kind::Tuple:
    return a.items->size() == b.items->size() &&
           llvm::all_of(llvm::zip(*a.items, *b.items), [](const auto &pair) {
             return equal(std::get<0>(pair), std::get<1>(pair));
           });
  case Value::Kind::Dict:
    if (a.entries->size() != b.entries->size())
      return false;
    for (const auto &mine : *a.entries) {
      auto it = llvm::find_if(*b.entries, [&](const auto &entry) {
        return equal(entry.first, mine.first);
      });
      if (it == b.entries->end() || !equal(it->second, mine.second))
        return false;
    }
    return true;
  case Value::Kind::Object:
    return a.entries == b.entries;
  case Value::Kind::Callable:
    return a.lambda == b.lambda && a.function == b.function;
  default:
    return false;
  }
}

//===----------------------------------------------------------------------===//
// The evaluator
//===----------------------------------------------------------------------===//

struct HostEvaluator::Frame {
  std::map<std::string, Value> locals;
  /// A lambda's view of where it was made.
  const std::map<std::string, Value> *closure = nullptr;
  Value returned;
};

[[noreturn]] static void fail(const Location &loc, const std::string &message) {
  throw HostError{loc, message};
}

/// A scalar operation's value, or its error at `loc`.
static Value scalarResult(const python::Result &r, const Location &loc) {
  if (!r)
    fail(loc, r.error());
  return Value::of(*r);
}

/// A builtin's int result, or an error where it does not fit in 64 bits
/// (triton.cdiv's and next_power_of_2's are sizes), saying `what()` it was.
static Value fitting(python_int::Result r,
                     llvm::function_ref<std::string()> what,
                     const Location &loc) {
  if (!r || *r < INT64_MIN || *r > INT64_MAX)
    fail(loc, what() + " does not fit in 64 bits");
  return Value::ofInt(int64_t(*r));
}

/// What `value` is, for messages: "an int", "a list", ...
static std::string describe(const Value &value) {
  switch (value.kind) {
  case Value::Kind::None:
    return "None";
  case Value::Kind::Int:
    return "an int";
  case Value::Kind::Float:
    return "a float";
  case Value::Kind::Bool:
    return "a bool";
  case Value::Kind::String:
    return "a string";
  case Value::Kind::List:
    return "a list";
  case Value::Kind::Tuple:
    return "a tuple";
  case Value::Kind::Dict:
    return "a dict";
  case Value::Kind::Object:
    return "a " + value.name;
  case Value::Kind::Callable:
    return "a function";
  case Value::Kind::Module:
    return "'" + value.name + "'";
  case Value::Kind::Opaque:
    return value.name;
  case Value::Kind::Failed:
    return "a value that failed";
  }
  return "a value";
}

static int64_t asInt(const Value &value, const Location &loc,
                     const std::string &what) {
  if (value.kind != Value::Kind::Int && value.kind != Value::Kind::Bool)
    fail(loc, what + " must be an int, not " + describe(value));
  if (value.scalar.wide)
    fail(loc, what + " must fit in 64 bits, got " + value.scalar.repr());
  return value.scalar.intValue;
}

HostEvaluator::HostEvaluator(const Module &module, unsigned computeCapability)
    : module(module), computeCapability(computeCapability) {
  Frame frame;
  for (const auto &global : module.globals) {
    try {
      Value value = eval(*global->value, frame);
      for (const ExprPtr &target : global->targets)
        assign(*target, value, frame);
    } catch (const HostError &error) {
      Value failed;
      failed.kind = Value::Kind::Failed;
      failed.error = std::make_shared<std::pair<Location, std::string>>(
          error.loc, error.message);
      for (const ExprPtr &target : global->targets)
        if (auto *name = dyn_cast<NameExpr>(target.get()))
          frame.locals[name->name] = failed;
    }
  }
  globals = std::move(frame.locals);
}

Value HostEvaluator::evaluate(const Expr &expr) const {
  Frame frame;
  return eval(expr, frame);
}

/// Python's builtins that decorators use.
static bool isPythonBuiltin(llvm::StringRef name) {
  return llvm::StringSwitch<bool>(name)
      .Cases({"range", "len", "min", "max", "abs", "int", "float", "bool"},
             true)
      .Cases({"str", "list", "tuple", "dict", "sorted", "reversed",
              "enumerate", "zip"},
             true)
      .Cases({"any", "all", "sum", "print", "round"}, true)
      .Default(false);
}

Value HostEvaluator::lookup(const std::string &name, const Location &loc,
                            const Frame &frame) const {
  if (auto it = frame.locals.find(name); it != frame.locals.end())
    return it->second;
  if (frame.closure)
    if (auto it = frame.closure->find(name); it != frame.closure->end())
      return it->second;
  if (auto it = globals.find(name); it != globals.end()) {
    if (it->second.kind == Value::Kind::Failed)
      fail(loc, "the global '" + name + "' (line " +
                    std::to_string(it->second.error->first.line) +
                    ") has no value tilec can compute: " +
                    it->second.error->second);
    return it->second;
  }
  for (const HostDef &def : module.hostDefs) {
    if (def.name != name)
      continue;
    if (!def.function)
      fail(loc, "'" + name + "' (line " + std::to_string(def.loc.line) +
                    ") is host code in Python tilec does not read (it "
                    "evaluates functions of assignments, if, for, while and "
                    "return)");
    Value value;
    value.kind = Value::Kind::Callable;
    value.function = def.function.get();
    return value;
  }
  for (const FunctionDef &fn : module.functions)
    if (fn.name == name)
      fail(loc, "'" + name + "' is a @triton.jit function; host code "
                             "cannot call it");
  // `import a.b` binds a; `import a.b as c` binds c to a.b; `from a import
  // b` binds b to a.b.
  for (const Import &import : module.imports)
    if (import.alias == name)
      return Value::builtin(
          !import.name.empty() ? import.module + "." + import.name
          : llvm::StringRef(import.module).starts_with(import.alias + ".")
              ? import.alias
              : import.module);
  if (isPythonBuiltin(name))
    return Value::builtin(name);
  fail(loc, "name '" + name + "' is not defined");
}

Value HostEvaluator::attribute(const Value &base, const std::string &attr,
                               const Location &loc) const {
  switch (base.kind) {
  case Value::Kind::Module:
    return Value::builtin(base.name + "." + attr);
  case Value::Kind::Object:
    if (const Value *value = base.find(attr))
      return *value;
    break;
  case Value::Kind::List:
    if (attr == "append" || attr == "extend" || attr == "index" ||
        attr == "count") {
      Value method = Value::builtin("list." + attr);
      method.items = base.items;
      return method;
    }
    break;
  case Value::Kind::Dict:
    if (attr == "get" || attr == "items" || attr == "keys" ||
        attr == "values" || attr == "update") {
      Value method = Value::builtin("dict." + attr);
      method.entries = base.entries;
      return method;
    }
    break;
  default:
    break;
  }
  fail(loc, describe(base) + " has no attribute '" + attr +
                "' that tilec evaluates");
}

Value HostEvaluator::eval(const Expr &expr, Frame &frame) const {
  switch (expr.kind) {
  case ExprKind::Name: {
    Value value = lookup(cast<NameExpr>(expr).name, expr.loc, frame);
    return value;
  }
  case ExprKind::Int:
    return Value::ofInt(cast<IntExpr>(expr).value);
  case ExprKind::Float:
    return Value::ofFloat(cast<FloatExpr>(expr).value);
  case ExprKind::Bool:
    return Value::ofBool(cast<BoolExpr>(expr).value);
  case ExprKind::None:
    return Value::none();
  case ExprKind::String:
    return Value::ofString(cast<StringExpr>(expr).value);
  case ExprKind::Attribute: {
    const auto &a = cast<AttributeExpr>(expr);
    return attribute(eval(*a.base, frame), a.attr, expr.loc);
  }
  case ExprKind::Call:
    return callExpr(cast<CallExpr>(expr), frame);
  case ExprKind::Subscript: {
    const auto &s = cast<SubscriptExpr>(expr);
    Value base = eval(*s.base, frame);
    if (s.indices.size() != 1)
      fail(expr.loc, "host code indexes with one index");
    if (auto *slice = dyn_cast<SliceExpr>(s.indices[0].get())) {
      if (base.kind != Value::Kind::List && base.kind != Value::Kind::Tuple)
        fail(expr.loc, "only lists and tuples are sliced in host code");
      int64_t size = int64_t(base.items->size());
      auto bound = [&](const ExprPtr &e, int64_t otherwise) {
        if (!e)
          return otherwise;
        int64_t v = asInt(eval(*e, frame), e->loc, "a slice bound");
        return std::clamp(v < 0 ? v + size : v, int64_t(0), size);
      };
      if (slice->step)
        fail(slice->loc, "slices with a step are not evaluated");
      int64_t lower = bound(slice->lower, 0), upper = bound(slice->upper, size);
      Values items;
      for (int64_t k = lower; k < upper; ++k)
        items.push_back((*base.items)[k]);
      return Value::list(std::move(items), base.kind == Value::Kind::Tuple);
    }
    return subscript(base, eval(*s.indices[0], frame), expr.loc);
  }
  case ExprKind::Slice:
    fail(expr.loc, "a slice outside a subscript");
  case ExprKind::Tuple: {
    const auto &t = cast<TupleExpr>(expr);
    Values items;
    for (const ExprPtr &element : t.elements) {
      if (auto *starred = dyn_cast<StarredExpr>(element.get())) {
        Values more = iterate(eval(*starred->value, frame), starred->loc);
        items.insert(items.end(), more.begin(), more.end());
      } else {
        items.push_back(eval(*element, frame));
      }
    }
    return Value::list(std::move(items), !t.isList);
  }
  case ExprKind::Unary: {
    const auto &u = cast<UnaryExpr>(expr);
    Value v = eval(*u.operand, frame);
    if (u.op == UnaryOp::Not)
      return Value::ofBool(!truthy(v));
    if (!v.isScalar())
      fail(expr.loc, "a unary operator on " + describe(v));
    return scalarResult(python::unary(u.op, v.scalar), expr.loc);
  }
  case ExprKind::Binary: {
    const auto &b = cast<BinaryExpr>(expr);
    return binary(b.op, eval(*b.lhs, frame), eval(*b.rhs, frame), expr.loc);
  }
  case ExprKind::Compare: {
    const auto &c = cast<CompareExpr>(expr);
    return Value::ofBool(
        compare(c.op, eval(*c.lhs, frame), eval(*c.rhs, frame), expr.loc));
  }
  case ExprKind::BoolOp: {
    const auto &b = cast<BoolOpExpr>(expr);
    Value lhs = eval(*b.lhs, frame);
    if (truthy(lhs) == (b.op == BoolOpKind::Or))
      return lhs;
    return eval(*b.rhs, frame);
  }
  case ExprKind::IfExp: {
    const auto &i = cast<IfExpExpr>(expr);
    return truthy(eval(*i.cond, frame)) ? eval(*i.thenValue, frame)
                                        : eval(*i.elseValue, frame);
  }
  case ExprKind::Dict: {
    const auto &d = cast<DictExpr>(expr);
    Entries entries;
    auto put = [&](Value key, Value value) {
      for (auto &entry : entries)
        if (equal(entry.first, key)) {
          entry.second = std::move(value);
          return;
        }
      entries.emplace_back(std::move(key), std::move(value));
    };
    for (auto [key, value] : llvm::zip(d.keys, d.values)) {
      if (key) {
        put(eval(*key, frame), eval(*value, frame));
        continue;
      }
      Value other = eval(*value, frame);
      if (other.kind != Value::Kind::Dict)
        fail(value->loc, "'**' needs a dict, not " + describe(other));
      for (const auto &[k, v] : *other.entries)
        put(k, v);
    }
    return Value::dict(std::move(entries));
  }
  case ExprKind::Lambda: {
    Value value;
    value.kind = Value::Kind::Callable;
    value.lambda = &cast<LambdaExpr>(expr);
    if (!frame.locals.empty() || frame.closure) {
      auto closure = std::make_shared<std::map<std::string, Value>>(
          frame.closure ? *frame.closure : std::map<std::string, Value>());
      for (const auto &[name, v] : frame.locals)
        (*closure)[name] = v;
      value.closure = std::move(closure);
    }
    return value;
  }
  case ExprKind::Comprehension:
    return comprehension(cast<ComprehensionExpr>(expr), frame);
  case ExprKind::Starred:
    fail(expr.loc, "a starred expression outside a list or call");
  case ExprKind::Host:
    fail(expr.loc, cast<HostExpr>(expr).what + " is not evaluated by tilec");
  case ExprKind::FString:
    fail(expr.loc, "an f-string is not evaluated by tilec in host code");
  }
  fail(expr.loc, "an expression tilec does not evaluate");
}

Value HostEvaluator::comprehension(const ComprehensionExpr &expr,
                                   Frame &outer) const {
  // Its variables live in a scope of their own, as in Python 3.
  Frame frame;
  frame.locals = outer.locals;
  frame.closure = outer.closure;
  Values items;
  Entries entries;
  std::function<void(size_t)> clause = [&](size_t k) {
    if (k == expr.clauses.size()) {
      if (expr.result == ComprehensionExpr::Result::Dict)
        entries.emplace_back(eval(*expr.key, frame), eval(*expr.element, frame));
      else
        items.push_back(eval(*expr.element, frame));
      if (items.size() + entries.size() > kMaxIterations)
        fail(expr.loc, "the comprehension makes too many items");
      return;
    }
    const ComprehensionClause &c = expr.clauses[k];
    for (Value &item : iterate(eval(*c.iter, frame), c.iter->loc)) {
      assign(*c.target, std::move(item), frame);
      if (llvm::all_of(c.conditions, [&](const ExprPtr &condition) {
            return truthy(eval(*condition, frame));
          }))
        clause(k + 1);
    }
  };
  clause(0);
  switch (expr.result) {
  case ComprehensionExpr::Result::Dict:
    return Value::dict(std::move(entries));
  case ComprehensionExpr::Result::Set:
    fail(expr.loc, "set comprehensions are not evaluated by tilec");
  case ComprehensionExpr::Result::Generator:
  case ComprehensionExpr::Result::List:
    break;
  }
  // A generator is consumed once by whatever takes it: a list serves.
  return Value::list(std::move(items));
}

Values HostEvaluator::iterate(const Value &value, const Location &loc) const {
  switch (value.kind) {
  case Value::Kind::List:
  case Value::Kind::Tuple:
    return *value.items;
  case Value::Kind::Dict: {
    Values keys;
    for (const auto &entry : *value.entries)
      keys.push_back(entry.first);
    return keys;
  }
  case Value::Kind::String: {
    Values chars;
    for (char c : value.text())
      chars.push_back(Value::ofString(std::string(1, c)));
    return chars;
  }
  default:
    fail(loc, describe(value) + " is not iterable");
  }
}

Value HostEvaluator::subscript(const Value &base, const Value &index,
                               const Location &loc) const {
  switch (base.kind) {
  case Value::Kind::List:
  case Value::Kind::Tuple:
  case Value::Kind::String: {
    int64_t size = base.kind == Value::Kind::String
                       ? int64_t(base.text().size())
                       : int64_t(base.items->size());
    int64_t k = asInt(index, loc, "an index");
    if (k < 0)
      k += size;
    if (k < 0 || k >= size)
      fail(loc, "index " + index.repr() + " is out of range for " +
                    describe(base) + " of " + std::to_string(size));
    if (base.kind == Value::Kind::String)
      return Value::ofString(std::string(1, base.text()[k]));
    return (*base.items)[k];
  }
  case Value::Kind::Dict:
    for (const auto &[key, value] : *base.entries)
      if (equal(key, index)) {
        if (value.kind == Value::Kind::Opaque)
          fail(loc, index.repr() + " is " + value.name +
                        ", which host code cannot compute with");
        return value;
      }
    fail(loc, "no key " + index.repr() + " in " + base.repr());
  default:
    fail(loc, describe(base) + " cannot be indexed");
  }
}

Value HostEvaluator::binary(BinaryOp op, const Value &lhs, const Value &rhs,
                            const Location &loc) const {
  using K = Value::Kind;
  // Sequences: + joins, * repeats.
  bool lhsSeq = lhs.kind == K::List || lhs.kind == K::Tuple;
  if (op == BinaryOp::Add && lhsSeq && lhs.kind == rhs.kind) {
    Values items = *lhs.items;
    items.insert(items.end(), rhs.items->begin(), rhs.items->end());
    return Value::list(std::move(items), lhs.kind == K::Tuple);
  }
  if (op == BinaryOp::Mul && lhsSeq && rhs.kind == K::Int) {
    Values items;
    for (int64_t k = 0; k < rhs.scalar.intValue; ++k) {
      items.insert(items.end(), lhs.items->begin(), lhs.items->end());
      if (items.size() > kMaxIterations)
        fail(loc, "the list is too long");
    }
    return Value::list(std::move(items), lhs.kind == K::Tuple);
  }
  if (!lhs.isScalar() || !rhs.isScalar())
    fail(loc, "an arithmetic operator on " + describe(lhs) + " and " +
                  describe(rhs));
  return scalarResult(python::binary(op, lhs.scalar, rhs.scalar), loc);
}

bool HostEvaluator::compare(CompareOp op, const Value &lhs, const Value &rhs,
                            const Location &loc) const {
  using K = Value::Kind;
  switch (op) {
  case CompareOp::Eq:
    return equal(lhs, rhs);
  case CompareOp::Ne:
    return !equal(lhs, rhs);
  case CompareOp::Is:
  case CompareOp::IsNot: {
    bool same = lhs.kind == rhs.kind &&
                (lhs.kind == K::None || lhs.kind == K::Bool
                     ? lhs.scalar.intValue == rhs.scalar.intValue
                     : lhs.items ? lhs.items == rhs.items
                     : lhs.entries ? lhs.entries == rhs.entries
                                   : equal(lhs, rhs));
    return same == (op == CompareOp::Is);
  }
  case CompareOp::In:
  case CompareOp::NotIn: {
    bool found;
    if (rhs.kind == K::String && lhs.kind == K::String)
      found = rhs.text().find(lhs.text()) != std::string::npos;
    else
      found = llvm::any_of(iterate(rhs, loc), [&](const Value &item) {
        return equal(item, lhs);
      });
    return found == (op == CompareOp::In);
  }
  default:
    break;
  }
  if (!lhs.isScalar() || !rhs.isScalar())
    fail(loc, "cannot order " + describe(lhs) + " and " + describe(rhs));
  return truthy(scalarResult(python::compare(op, lhs.scalar, rhs.scalar), loc));
}

void HostEvaluator::assign(const Expr &target, Value value,
                           Frame &frame) const {
  if (auto *name = dyn_cast<NameExpr>(&target)) {
    frame.locals[name->name] = std::move(value);
    return;
  }
  if (auto *tuple = dyn_cast<TupleExpr>(&target)) {
    Values items = iterate(value, target.loc);
    if (items.size() != tuple->elements.size())
      fail(target.loc, "cannot unpack " + std::to_string(items.size()) +
                           " values into " +
                           std::to_string(tuple->elements.size()));
    for (auto [element, item] : llvm::zip(tuple->elements, items))
      assign(*element, std::move(item), frame);
    return;
  }
  if (auto *sub = dyn_cast<SubscriptExpr>(&target)) {
    Value base = eval(*sub->base, frame);
    if (sub->indices.size() != 1)
      fail(target.loc, "host code indexes with one index");
    Value index = eval(*sub->indices[0], frame);
    if (base.kind == Value::Kind::Dict) {
      for (auto &entry : *base.entries)
        if (equal(entry.first, index)) {
          entry.second = std::move(value);
          return;
        }
      base.entries->emplace_back(std::move(index), std::move(value));
      return;
    }
    if (base.kind == Value::Kind::List) {
      int64_t size = int64_t(base.items->size());
      int64_t k = asInt(index, target.loc, "an index");
      if (k < 0)
        k += size;
      if (k < 0 || k >= size)
        fail(target.loc, "index out of range");
      (*base.items)[k] = std::move(value);
      return;
    }
    fail(target.loc, describe(base) + " does not take item assignment");
  }
  fail(target.loc, "host code assigns to names, tuples and items only");
}

HostEvaluator::Flow HostEvaluator::run(const Block &block,
                                       Frame &frame) const {
  for (const StmtPtr &stmt : block) {
    switch (stmt->kind) {
    case StmtKind::Expr:
      eval(*cast<ExprStmt>(*stmt).value, frame);
      break;
    case StmtKind::Assign: {
      const auto &a = cast<AssignStmt>(*stmt);
      Value value = eval(*a.value, frame);
      for (const ExprPtr &target : a.targets)
        assign(*target, value, frame);
      break;
    }
    case StmtKind::AugAssign: {
      const auto &a = cast<AugAssignStmt>(*stmt);
      Value current = eval(*a.target, frame);
      Value rhs = eval(*a.value, frame);
      if (a.op == BinaryOp::Add && current.kind == Value::Kind::List) {
        Values more = iterate(rhs, a.value->loc);
        current.items->insert(current.items->end(), more.begin(), more.end());
        break; // in place, as Python's list +=
      }
      assign(*a.target, binary(a.op, current, rhs, stmt->loc), frame);
      break;
    }
    case StmtKind::If: {
      const auto &i = cast<IfStmt>(*stmt);
      Flow flow = run(truthy(eval(*i.cond, frame)) ? i.then : i.orelse, frame);
      if (flow != Flow::Next)
        return flow;
      break;
    }
    case StmtKind::For: {
      const auto &f = cast<ForStmt>(*stmt);
      for (Value &item : iterate(eval(*f.iter, frame), f.iter->loc)) {
        assign(*f.target, std::move(item), frame);
        Flow flow = run(f.body, frame);
        if (flow == Flow::Break)
          break;
        if (flow == Flow::Return)
          return flow;
      }
      break;
    }
    case StmtKind::While: {
      const auto &w = cast<WhileStmt>(*stmt);
      size_t iterations = 0;
      while (truthy(eval(*w.cond, frame))) {
        if (++iterations > kMaxIterations)
          fail(stmt->loc, "the loop runs too long for host code");
        Flow flow = run(w.body, frame);
        if (flow == Flow::Break)
          break;
        if (flow == Flow::Return)
          return flow;
      }
      break;
    }
    case StmtKind::Return: {
      const auto &r = cast<ReturnStmt>(*stmt);
      frame.returned = r.value ? eval(*r.value, frame) : Value::none();
      return Flow::Return;
    }
    case StmtKind::Pass:
      break;
    case StmtKind::Break:
      return Flow::Break;
    case StmtKind::Continue:
      return Flow::Continue;
    case StmtKind::Assert: {
      const auto &a = cast<AssertStmt>(*stmt);
      if (!truthy(eval(*a.cond, frame)))
        fail(stmt->loc, "assertion failed" +
                            (a.message ? ": " + eval(*a.message, frame).repr()
                                       : std::string()));
      break;
    }
    case StmtKind::Raise:
      fail(stmt->loc, "host code raised " + ast::describeRaise(*stmt));
    }
  }
  return Flow::Next;
}

Value HostEvaluator::callExpr(const CallExpr &call, Frame &frame) const {
  Value callee = eval(*call.callee, frame);
  Values args;
  std::vector<std::pair<std::string, Value>> keywords;
  for (const ExprPtr &arg : call.args) {
    auto *starred = dyn_cast<StarredExpr>(arg.get());
    if (!starred) {
      args.push_back(eval(*arg, frame));
      continue;
    }
    Value value = eval(*starred->value, frame);
    if (!starred->isDouble) {
      Values more = iterate(value, starred->loc);
      args.insert(args.end(), more.begin(), more.end());
      continue;
    }
    if (value.kind != Value::Kind::Dict)
      fail(starred->loc, "'**' needs a dict, not " + describe(value));
    for (const auto &[key, v] : *value.entries) {
      if (key.kind != Value::Kind::String)
        fail(starred->loc, "keywords must be strings");
      keywords.emplace_back(key.name, v);
    }
  }
  for (const Keyword &keyword : call.keywords)
    keywords.emplace_back(keyword.name, eval(*keyword.value, frame));
  return this->call(callee, std::move(args), keywords, call.loc);
}

Value HostEvaluator::call(const Value &callee, Values args,
                          const std::vector<std::pair<std::string, Value>> &keywords,
                          const Location &loc) const {
  thread_local unsigned depth = 0;
  if (depth >= kMaxCallDepth)
    fail(loc, "host calls nest too deeply");
  struct Nest {
    unsigned &depth;
    explicit Nest(unsigned &depth) : depth(depth) { ++depth; }
    ~Nest() { --depth; }
  } nest(depth);

  if (callee.kind == Value::Kind::Module && (callee.items || callee.entries))
    return callMethod(callee, args, loc);
  if (callee.kind == Value::Kind::Module)
    return callBuiltin(callee.name, args, keywords, loc);
  if (callee.kind != Value::Kind::Callable)
    fail(loc, describe(callee) + " is not callable");

  Frame frame;
  if (callee.lambda) {
    const LambdaExpr &lambda = *callee.lambda;
    frame.closure = callee.closure.get();
    // Extra arguments are what `*args` and `**kwargs` would take.
    for (size_t k = 0; k < lambda.params.size(); ++k) {
      const std::string &param = lambda.params[k];
      auto keyword = llvm::find_if(
          keywords, [&](const auto &kw) { return kw.first == param; });
      if (k < args.size())
        frame.locals[param] = args[k];
      else if (keyword != keywords.end())
        frame.locals[param] = keyword->second;
      else
        fail(loc, "the lambda at line " + std::to_string(lambda.loc.line) +
                      " is missing its argument '" + param + "'");
    }
    return eval(*lambda.body, frame);
  }

  const FunctionDef &fn = *callee.function;
  if (args.size() > fn.params.size())
    fail(loc, "'" + fn.name + "' takes " + std::to_string(fn.params.size()) +
                  " arguments, " + std::to_string(args.size()) + " given");
  for (size_t k = 0; k < fn.params.size(); ++k) {
    const Param &param = fn.params[k];
    auto keyword = llvm::find_if(
        keywords, [&](const auto &kw) { return kw.first == param.name; });
    if (k < args.size())
      frame.locals[param.name] = args[k];
    else if (keyword != keywords.end())
      frame.locals[param.name] = keyword->second;
    else if (param.defaultValue)
      frame.locals[param.name] = evaluate(*param.defaultValue);
    else
      fail(loc, "'" + fn.name + "' is missing its argument '" + param.name +
                    "'");
  }
  run(fn.body, frame);
  return frame.returned;
}

/// Fails unless `name` got `least` to `most` arguments.
static void checkArity(llvm::StringRef name, const Values &args, size_t least,
                       size_t most, const Location &loc) {
  if (args.size() < least || args.size() > most)
    fail(loc, name.str() + "() takes " + std::to_string(least) +
                  (most != least ? " to " + std::to_string(most) : "") +
                  " arguments, " + std::to_string(args.size()) + " given");
}

/// A list's or dict's method; attribute() put the receiver in the callee.
Value HostEvaluator::callMethod(const Value &method, Values &args,
                                const Location &loc) const {
  llvm::StringRef n = method.name;
  auto arity = [&](size_t least, size_t most) {
    checkArity(n, args, least, most, loc);
  };
  if (method.items) {
    Values &self = *method.items;
    arity(1, 1);
    if (n == "list.append") {
      self.push_back(args[0]);
      return Value::none();
    }
    if (n == "list.extend") {
      Values more = iterate(args[0], loc);
      self.insert(self.end(), more.begin(), more.end());
      return Value::none();
    }
    int64_t count = llvm::count_if(
        self, [&](const Value &item) { return equal(item, args[0]); });
    if (n == "list.count")
      return Value::ofInt(count);
    auto it = llvm::find_if(
        self, [&](const Value &item) { return equal(item, args[0]); });
    if (it == self.end())
      fail(loc, args[0].repr() + " is not in the list");
    return Value::ofInt(int64_t(it - self.begin()));
  }
  Entries &self = *method.entries;
  if (n == "dict.get") {
    arity(1, 2);
    for (const auto &[key, value] : self)
      if (equal(key, args[0]))
        return value;
    return args.size() == 2 ? args[1] : Value::none();
  }
  if (n == "dict.update") {
    arity(1, 1);
    if (args[0].kind != Value::Kind::Dict)
      fail(loc, "update() needs a dict");
    for (const auto &update : *args[0].entries) {
      auto it = llvm::find_if(self, [&](const auto &entry) {
        return equal(entry.first, update.first);
      });
      if (it != self.end())
        it->second = update.second;
      else
        self.emplace_back(update.first, update.second);
    }
    return Value::none();
  }
  arity(0, 0);
  Values items;
  for (const auto &[key, value] : self)
    items.push_back(n == "dict.keys"     ? key
                    : n == "dict.values" ? value
                                         : Value::list({key, value}, true));
  return Value::list(std::move(items));
}

/// Triton's next_power_of_2: the least power of two at least n (1 for 0),
/// or nothing past 2^62.
static python_int::Result nextPowerOf2(int64_t n) {
  if (n > (int64_t(1) << 62))
    return std::nullopt;
  return n <= 1 ? 1 : WideInt(llvm::NextPowerOf2(uint64_t(n - 1)));
}

Value HostEvaluator::callBuiltin(
    const std::string &name, Values &args,
    const std::vector<std::pair<std::string, Value>> &keywords,
    const Location &loc) const {
  auto arity = [&](size_t least, size_t most) {
    checkArity(name, args, least, most, loc);
  };
  auto keyword = [&](const std::string &key) -> const Value * {
    for (const auto &[k, v] : keywords)
      if (k == key)
        return &v;
    return nullptr;
  };
  auto noKeywords = [&] {
    if (!keywords.empty())
      fail(loc, name + "() takes no keyword '" + keywords.front().first + "'");
  };
  llvm::StringRef n = name;
  // `import triton.language as tl` and `from triton import language`.
  if (n.consume_front("triton.language.")) {
    if (n == "constexpr") {
      arity(1, 1);
      return args[0];
    }
    if (n == "cdiv")
      return callBuiltin("triton.cdiv", args, keywords, loc);
    fail(loc, "host code cannot call tl." + n.str() + " (kernels can)");
  }

  if (n == "triton.Config") {
    if (args.empty() && !keyword("kwargs"))
      fail(loc, "triton.Config needs a dict of constexprs");
    static const char *const fields[] = {"kwargs",   "num_warps", "num_stages",
                                         "num_ctas", "maxnreg",   "pre_hook",
                                         "ir_override"};
    if (args.size() > std::size(fields))
      fail(loc, "triton.Config takes at most 7 arguments");
    Entries attributes;
    for (size_t k = 0; k < std::size(fields); ++k) {
      const Value *given = k < args.size() ? &args[k] : keyword(fields[k]);
      Value value = given ? *given
                    : k == 1 ? Value::ofInt(4)
                    : k == 2 ? Value::ofInt(3)
                    : k == 3 ? Value::ofInt(1)
                             : Value::none();
      attributes.emplace_back(Value::ofString(fields[k]), value);
    }
    for (const auto &[k, v] : keywords)
      if (!llvm::is_contained(fields, llvm::StringRef(k)))
        fail(loc, "triton.Config has no argument '" + k + "'");
    if (attributes[0].second.kind != Value::Kind::Dict)
      fail(loc, "triton.Config's first argument is a dict of constexprs, "
                "not " + describe(attributes[0].second));
    return Value::object("triton.Config", std::move(attributes));
  }
  if (n == "triton.cdiv") {
    arity(2, 2);
    int64_t a = asInt(args[0], loc, "cdiv's first argument");
    int64_t b = asInt(args[1], loc, "cdiv's second argument");
    if (b == 0)
      fail(loc, "division by zero");
    // Python's -(-a // b), which fits 64 bits wherever a and b do but for
    // b = -1.
    python_int::Result quotient = python_int::floorDiv(a, b);
    python_int::Result r =
        quotient ? python_int::add(*quotient, python_int::mod(a, b) != 0)
                 : std::nullopt;
    return fitting(
        r,
        [&] {
          return "cdiv(" + std::to_string(a) + ", " + std::to_string(b) + ")";
        },
        loc);
  }
  if (n == "triton.next_power_of_2") {
    arity(1, 1);
    int64_t n = asInt(args[0], loc, "the argument");
    return fitting(
        nextPowerOf2(n),
        [&] { return "next_power_of_2(" + std::to_string(n) + ")"; }, loc);
  }
  if (n == "triton.runtime.driver.active.get_current_target") {
    arity(0, 0);
    return Value::object(
        "GPUTarget", {{Value::ofString("backend"), Value::ofString("cuda")},
                      {Value::ofString("arch"), Value::ofInt(computeCapability)},
                      {Value::ofString("warp_size"), Value::ofInt(32)}});
  }
  if (n == "torch.cuda.get_device_capability") {
    return Value::list({Value::ofInt(computeCapability / 10),
                        Value::ofInt(computeCapability % 10)},
                       /*isTuple=*/true);
  }

  if (n == "range") {
    noKeywords();
    arity(1, 3);
    int64_t start = 0, stop, step = 1;
    if (args.size() == 1) {
      stop = asInt(args[0], loc, "range's bound");
    } else {
      start = asInt(args[0], loc, "range's start");
      stop = asInt(args[1], loc, "range's stop");
      if (args.size() == 3)
        step = asInt(args[2], loc, "range's step");
    }
    if (step == 0)
      fail(loc, "range() step must not be zero");
    Values items;
    for (int64_t k = start; step > 0 ? k < stop : k > stop; k += step) {
      if (items.size() >= kMaxIterations)
        fail(loc, "the range is too long for host code");
      items.push_back(Value::ofInt(k));
    }
    return Value::list(std::move(items));
  }
  if (n == "len") {
    arity(1, 1);
    const Value &v = args[0];
    if (v.kind == Value::Kind::String)
      return Value::ofInt(int64_t(v.text().size()));
    if (v.kind == Value::Kind::Dict)
      return Value::ofInt(int64_t(v.entries->size()));
    return Value::ofInt(int64_t(iterate(v, loc).size()));
  }
  if (n == "min" || n == "max") {
    Values items = args.size() == 1 ? iterate(args[0], loc) : args;
    if (items.empty())
      fail(loc, name + "() of an empty sequence");
    Value best = items[0];
    for (const Value &item : items)
      if (compare(n == "min" ? CompareOp::Lt : CompareOp::Gt, item, best, loc))
        best = item;
    return best;
  }
  if (n == "abs") {
    arity(1, 1);
    if (!args[0].isNumber())
      fail(loc, "abs() of " + describe(args[0]));
    return scalarResult(python::absolute(args[0].scalar), loc);
  }
  if (n == "int" || n == "float" || n == "bool" || n == "str" ||
      n == "round") {
    arity(n == "round" ? 1 : 0, n == "round" ? 2 : 1);
    if (args.empty())
      return n == "int" ? Value::ofInt(0)
             : n == "float" ? Value::ofFloat(0)
             : n == "bool" ? Value::ofBool(false)
                           : Value::ofString("");
    const Value &v = args[0];
    if (n == "bool")
      return Value::ofBool(truthy(v));
    if (n == "str")
      return v.kind == Value::Kind::String ? v : Value::ofString(v.repr());
    if (!v.isNumber() && !(v.kind == Value::Kind::String && n != "round"))
      fail(loc, name + "() of " + describe(v));
    if (args.size() == 2 && args[1].kind != Value::Kind::None)
      fail(loc, "round() with ndigits: tilec's host code rounds to ints only");
    return scalarResult(n == "int"     ? python::toInt(v.scalar)
                        : n == "float" ? python::toFloat(v.scalar)
                                       : python::round(v.scalar),
                        loc);
  }
  if (n == "list" || n == "tuple" || n == "sorted" || n == "reversed") {
    arity(0, 1);
    Values items = args.empty() ? Values() : iterate(args[0], loc);
    if (n == "sorted") {
      const Value *key = keyword("key");
      const Value *reverse = keyword("reverse");
      // Stable as Python's, and safe whatever the comparisons say (NaN
      // keys): a list's merge sort (libstdc++'s stable_sort uses a
      // deprecated buffer clang warns of).
      std::list<std::pair<Value, Value>> keyed;
      for (Value &item : items)
        keyed.emplace_back(key ? call(*key, {item}, {}, loc) : item, item);
      keyed.sort([&](const auto &a, const auto &b) {
        return compare(CompareOp::Lt, a.first, b.first, loc);
      });
      items.clear();
      for (auto &pair : keyed)
        items.push_back(std::move(pair.second));
      if (reverse && truthy(*reverse))
        std::reverse(items.begin(), items.end());
    } else if (n == "reversed") {
      std::reverse(items.begin(), items.end());
    }
    return Value::list(std::move(items), n == "tuple");
  }
  if (n == "dict") {
    Entries entries;
    if (!args.empty()) {
      arity(1, 1);
      if (args[0].kind == Value::Kind::Dict) {
        entries = *args[0].entries;
      } else {
        for (const Value &pair : iterate(args[0], loc)) {
          Values kv = iterate(pair, loc);
          if (kv.size() != 2)
            fail(loc, "dict() needs pairs");
          entries.emplace_back(kv[0], kv[1]);
        }
      }
    }
    for (const auto &[k, v] : keywords)
      entries.emplace_back(Value::ofString(k), v);
    return Value::dict(std::move(entries));
  }
  if (n == "enumerate" || n == "zip") {
    noKeywords();
    Values result;
    if (n == "enumerate") {
      arity(1, 2);
      int64_t start = args.size() == 2 ? asInt(args[1], loc, "the start") : 0;
      for (Value &item : iterate(args[0], loc))
        result.push_back(
            Value::list({Value::ofInt(start++), std::move(item)}, true));
    } else {
      std::vector<Values> columns;
      for (const Value &arg : args)
        columns.push_back(iterate(arg, loc));
      size_t rows = columns.empty() ? 0 : SIZE_MAX;
      for (const Values &column : columns)
        rows = std::min(rows, column.size());
      for (size_t r = 0; r < rows; ++r) {
        Values row;
        for (const Values &column : columns)
          row.push_back(column[r]);
        result.push_back(Value::list(std::move(row), true));
      }
    }
    return Value::list(std::move(result));
  }
  if (n == "any" || n == "all") {
    arity(1, 1);
    Values items = iterate(args[0], loc);
    return Value::ofBool(n == "any" ? llvm::any_of(items, truthy)
                                    : llvm::all_of(items, truthy));
  }
  if (n == "sum") {
    arity(1, 2);
    Value total = args.size() == 2 ? args[1] : Value::ofInt(0);
    for (const Value &item : iterate(args[0], loc))
      total = binary(BinaryOp::Add, total, item, loc);
    return total;
  }
  if (n == "print")
    return Value::none(); // host output has nowhere to go
  fail(loc, "host code calls '" + name + "', which tilec does not evaluate");
}
