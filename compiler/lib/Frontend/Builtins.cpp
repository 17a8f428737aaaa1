//===- Builtins.cpp - The builtin table, attributes and calls -------------===//
//
// The table of builtins (Builtins.h) joined from its families' rows, the
// binding of a call's arguments to a row's parameters, the attributes that
// name builtins and methods (`tl.load`, `x.sum`), and inlined calls of
// other @triton.jit functions. A call of a builtin is a lookup and a call
// of its row's handler; nothing here knows one builtin from another.
//
//===----------------------------------------------------------------------===//

#include "MLIRGenImpl.h"

#include "tilec/Frontend/Lexer.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/ErrorHandling.h"

using namespace mlir;
using namespace tilec;
using llvm::StringRef;
using llvm::Twine;

//===----------------------------------------------------------------------===//
// The table
//===----------------------------------------------------------------------===//

namespace {

struct Registry {
  std::vector<BuiltinSpec> specs; // sorted, as getBuiltins() says
  std::vector<SmallVector<BuiltinParam, 4>> params; // specs[i]'s
  llvm::StringMap<unsigned> byName;
  /// "tensor.sum" -> the row of tl.sum.
  llvm::StringMap<unsigned> methods;
};

/// Whether `tokens` (a default, without its comma) are a form
/// MLIRGenImpl::defaultValue reads.
bool isDefaultForm(ArrayRef<Token> tokens) {
  auto kinds = [&](std::initializer_list<TokenKind> expected) {
    return tokens.size() == expected.size() &&
           llvm::all_of(llvm::zip(tokens, expected), [](auto pair) {
             return std::get<0>(pair).is(std::get<1>(pair));
           });
  };
  for (TokenKind k :
       {TokenKind::kw_None, TokenKind::kw_True, TokenKind::kw_False,
        TokenKind::Int, TokenKind::Float, TokenKind::String})
    if (kinds({k}))
      return true;
  return kinds({TokenKind::Minus, TokenKind::Int}) ||
         kinds({TokenKind::Minus, TokenKind::Float}) ||
         kinds({TokenKind::LParen, TokenKind::RParen}) ||
         (kinds(
              {TokenKind::Identifier, TokenKind::Dot, TokenKind::Identifier}) &&
          tokens[0].text == "tl");
}

/// The parameters of `spec`, parsed with the kernel language's own lexer; a
/// malformed row stops every tool at once, as a bad table should.
SmallVector<BuiltinParam, 4> parseParams(const BuiltinSpec &spec) {
  auto bad = [&](const Twine &why) {
    llvm::report_fatal_error("builtin table: " + spec.name + "(" + spec.params +
                             "): " + why);
  };
  std::vector<Token> tokens = tokenize(spec.params);
  SmallVector<BuiltinParam, 4> params;
  bool sawVariadic = false, sawDefault = false;
  size_t i = 0;
  auto at = [&](TokenKind k) { return tokens[i].is(k); };
  auto atEnd = [&] {
    return at(TokenKind::Newline) || at(TokenKind::EndOfFile);
  };
  while (!atEnd()) {
    BuiltinParam &param = params.emplace_back();
    if (at(TokenKind::Star)) {
      if (sawVariadic)
        bad("two variadic parameters");
      param.variadic = sawVariadic = true;
      ++i;
    }
    if (!at(TokenKind::Identifier))
      bad("expected a parameter name");
    param.name = tokens[i++].text;
    if (at(TokenKind::Equal)) {
      if (param.variadic)
        bad("a variadic parameter takes no default");
      size_t first = ++i;
      while (!atEnd() && !at(TokenKind::Comma))
        ++i;
      if (!isDefaultForm(ArrayRef(tokens).slice(first, i - first)))
        bad("the default of '" + param.name +
            "' is not None, a bool, a number, a string, () or a dtype");
      size_t begin = tokens[first].col - 1;
      size_t end = atEnd() ? spec.params.size() : tokens[i].col - 1;
      param.defaultText =
          StringRef(spec.params).slice(begin, end).rtrim().str();
      sawDefault = true;
    } else if (!param.variadic && sawDefault && !sawVariadic) {
      bad("'" + param.name + "' has no default but follows one that has");
    }
    if (at(TokenKind::Comma))
      ++i;
    else if (!atEnd())
      bad("expected ',' after '" + param.name + "'");
  }
  return params;
}

Registry buildRegistry() {
  Registry r;
  for (ArrayRef<BuiltinSpec> family :
       {getCoreBuiltins(), getMathBuiltins(), getMemoryBuiltins(),
        getReductionBuiltins(), getCombineBuiltins(), getShapeBuiltins(),
        getSortBuiltins(), getDotBuiltins(), getRandomBuiltins(),
        getDebugBuiltins(), getBlockPointerBuiltins()})
    llvm::append_range(r.specs, family);
  // triton.language's first, then methods of its classes, then Python's
  // builtins; by name within each.
  auto group = [](StringRef name) {
    return name.starts_with("tl.") ? 0 : name.contains('.') ? 1 : 2;
  };
  llvm::sort(r.specs, [&](const BuiltinSpec &a, const BuiltinSpec &b) {
    return std::pair(group(a.name), StringRef(a.name)) <
           std::pair(group(b.name), StringRef(b.name));
  });
  for (auto [i, spec] : llvm::enumerate(r.specs)) {
    r.params.push_back(parseParams(spec));
    if (!r.byName.try_emplace(spec.name, i).second)
      llvm::report_fatal_error("builtin table: two rows name " + spec.name);
    if (spec.isMethod() && r.params.back().empty())
      llvm::report_fatal_error("builtin table: the method " + spec.name +
                               " needs a parameter for its receiver");
    if (spec.isMethod() &&
        !r.methods
             .try_emplace((spec.receiver() + "." + spec.methodName()).str(), i)
             .second)
      llvm::report_fatal_error("builtin table: two rows name the method " +
                               spec.methodName());
  }
  return r;
}

const Registry &registry() {
  static const Registry r = buildRegistry();
  return r;
}

/// The candidate among `names` closest to `name`, if it is within about a
/// third of the name's length (as clang's typo correction judges).
std::optional<StringRef> closest(StringRef name, ArrayRef<StringRef> names) {
  unsigned limit = (name.size() + 2) / 3;
  std::optional<StringRef> best;
  unsigned bestDistance = limit + 1;
  for (StringRef candidate : names) {
    unsigned d = name.edit_distance(candidate, /*AllowReplacements=*/true,
                                    /*MaxEditDistance=*/limit);
    if (d < bestDistance) {
      bestDistance = d;
      best = candidate;
    }
  }
  return best;
}

} // namespace

ArrayRef<BuiltinSpec> tilec::getBuiltins() { return registry().specs; }

const BuiltinSpec *tilec::lookupBuiltin(StringRef name) {
  const Registry &r = registry();
  auto it = r.byName.find(name);
  return it == r.byName.end() ? nullptr : &r.specs[it->second];
}

const BuiltinSpec *tilec::lookupMethod(StringRef receiver, StringRef method) {
  const Registry &r = registry();
  auto it = r.methods.find((receiver + "." + method).str());
  return it == r.methods.end() ? nullptr : &r.specs[it->second];
}

ArrayRef<BuiltinParam> tilec::getParams(const BuiltinSpec &spec) {
  const Registry &r = registry();
  assert(&spec >= r.specs.data() && &spec < r.specs.data() + r.specs.size() &&
         "not a row of getBuiltins()");
  return r.params[&spec - r.specs.data()];
}

std::string tilec::getSignature(const BuiltinSpec &spec) {
  if (!spec.handler)
    return spec.name.str();
  return (spec.name + "(" + spec.params + ")").str();
}

std::optional<std::string> tilec::suggestFunction(StringRef name) {
  auto [prefix, last] = name.rsplit('.');
  if (last.empty()) // a bare name: Python's builtins
    std::swap(prefix, last);
  SmallVector<StringRef> names;
  for (const BuiltinSpec &spec : getBuiltins()) {
    auto [specPrefix, specLast] = StringRef(spec.name).rsplit('.');
    if (specLast.empty())
      std::swap(specPrefix, specLast);
    if (spec.isFunction() && spec.handler && specPrefix == prefix)
      names.push_back(specLast);
  }
  if (std::optional<StringRef> best = closest(last, names))
    return prefix.empty() ? best->str() : (prefix + "." + *best).str();
  return std::nullopt;
}

std::optional<std::string> tilec::suggestMethod(StringRef receiver,
                                                StringRef method,
                                                ArrayRef<StringRef> extra) {
  SmallVector<StringRef> names(extra);
  for (const BuiltinSpec &spec : getBuiltins())
    if (spec.isMethod() && spec.receiver() == receiver)
      names.push_back(spec.methodName());
  if (std::optional<StringRef> best = closest(method, names))
    return best->str();
  return std::nullopt;
}

void tilec::printBuiltins(llvm::raw_ostream &os, BuiltinListFormat format) {
  ArrayRef<BuiltinSpec> specs = getBuiltins();
  switch (format) {
  case BuiltinListFormat::Text:
    for (const BuiltinSpec &spec : specs) {
      os << getSignature(spec);
      if (!spec.handler)
        os << "  [class]";
      else if (spec.kind == BuiltinKind::Both)
        os << "  [also x." << spec.methodName() << "(...)]";
      else if (spec.kind == BuiltinKind::Method)
        os << "  [" << spec.receiver() << " method]";
      os << "\n";
    }
    return;
  case BuiltinListFormat::Markdown:
    os << "| builtin | as a method | what tilec does |\n"
       << "| --- | --- | --- |\n";
    for (const BuiltinSpec &spec : specs) {
      os << "| `" << getSignature(spec) << "` | ";
      if (spec.isMethod()) {
        StringRef self = spec.receiver() == "tensor"  ? "x"
                         : spec.receiver() == "dtype" ? "dt"
                                                      : "desc";
        os << "`" << self << "." << spec.methodName() << "(...)`";
      }
      os << " | " << spec.summary << " |\n";
    }
    return;
  case BuiltinListFormat::Dict:
    for (const BuiltinSpec &spec : specs) {
      if (spec.isFunction())
        os << "\"" << spec.name << "\"\n";
      if (spec.isMethod())
        os << "\"." << spec.methodName() << "(\"\n";
    }
    return;
  }
}

//===----------------------------------------------------------------------===//
// Binding arguments
//===----------------------------------------------------------------------===//

BoundArgs MLIRGenImpl::bindArgs(const ast::CallExpr &call, StringRef function,
                                ArrayRef<BuiltinParam> params,
                                const TValue *self) {
  BoundArgs args;
  args.function = function.str();
  args.values.resize(params.size());
  args.locs.resize(params.size(), call.loc);
  // Positional arguments fill the parameters before a variadic one, which
  // takes the rest.
  unsigned positional =
      llvm::find_if(params, [](const BuiltinParam &p) { return p.variadic; }) -
      params.begin();
  bool hasVariadic = positional < params.size();
  unsigned given = (self ? 1 : 0) + call.args.size();
  if (!hasVariadic && given > params.size())
    fail(call.loc, function + "() takes at most " + Twine(params.size()) +
                       (params.size() == 1 ? " argument (" : " arguments (") +
                       Twine(given) + " given)");
  auto bind = [&](unsigned i, TValue value, const ast::Location &l) {
    if (i < positional) {
      args.values[i] = std::move(value);
      args.locs[i] = l;
    } else {
      args.varargs.push_back(std::move(value));
      args.varargLocs.push_back(l);
    }
  };
  unsigned next = 0;
  if (self)
    bind(next++, *self, call.loc);
  for (const ast::ExprPtr &arg : call.args)
    bind(next++, gen(*arg), arg->loc);
  for (const ast::Keyword &keyword : call.keywords) {
    auto it = llvm::find_if(params, [&](const BuiltinParam &p) {
      return !p.variadic && p.name == keyword.name;
    });
    if (it == params.end())
      fail(keyword.loc, function + "() got an unexpected keyword argument '" +
                            keyword.name + "'");
    unsigned i = it - params.begin();
    if (args.values[i])
      fail(keyword.loc, function + "() got multiple values for argument '" +
                            keyword.name + "'");
    args.values[i] = gen(*keyword.value);
    args.locs[i] = keyword.value->loc;
  }
  return args;
}

void MLIRGenImpl::completeArgs(BoundArgs &args, ArrayRef<BuiltinParam> params,
                               const ast::CallExpr &call) {
  for (auto [i, param] : llvm::enumerate(params)) {
    if (args.values[i] || param.variadic)
      continue;
    if (param.required())
      fail(call.loc,
           args.function + "() missing required argument '" + param.name + "'");
    if (param.defaultText != "None")
      args.values[i] = defaultValue(param.defaultText, call.loc);
  }
}

TValue MLIRGenImpl::defaultValue(StringRef text, const ast::Location &l) {
  // parseParams let through only the forms read here.
  std::vector<Token> tokens = tokenize(text);
  const Token &first = tokens.front();
  bool negative = first.is(TokenKind::Minus);
  const Token &number = tokens[negative ? 1 : 0];
  switch (first.kind) {
  case TokenKind::kw_None:
    return TValue::none();
  case TokenKind::kw_True:
  case TokenKind::kw_False:
    return TValue::ofBool(first.is(TokenKind::kw_True));
  case TokenKind::String:
    return TValue::ofString(first.text);
  case TokenKind::LParen:
    return TValue::ofTuple({});
  case TokenKind::Identifier: // tl.<dtype>
    return attribute(TValue::named(TValue::Kind::Module, "tl"), tokens[2].text,
                     l);
  default:
    break;
  }
  if (number.is(TokenKind::Int)) {
    int64_t v = 0;
    (void)StringRef(number.text).getAsInteger(0, v);
    return TValue::ofInt(negative ? -v : v);
  }
  double d = 0;
  (void)StringRef(number.text).getAsDouble(d);
  return TValue::ofFloat(negative ? -d : d);
}

//===----------------------------------------------------------------------===//
// Calls
//===----------------------------------------------------------------------===//

TValue MLIRGenImpl::call(const ast::CallExpr &c) {
  TValue callee = gen(*c.callee);
  switch (callee.kind) {
  case TValue::Kind::Builtin: {
    if (StringRef(callee.name).starts_with("libdevice."))
      return genLibdevice(c, callee.name);
    if (const BuiltinSpec *spec = lookupBuiltin(callee.name))
      return callBuiltin(*spec, c, nullptr);
    // triton.jit, triton.autotune, triton.heuristics.
    fail(c.loc, callee.name + " is a decorator, not a function to call in a "
                              "kernel");
  }
  case TValue::Kind::Method:
    return callBuiltin(*lookupBuiltin(callee.name), c,
                       &callee.elements.front());
  case TValue::Kind::Function: {
    TValue result = callFunction(*callee.function, c);
    if (constexprFunctions.count(callee.function) && result.isRuntime())
      fail(c.loc, callee.function->name +
                      "() is a constexpr function: its result must be known "
                      "at compile time, but it is a runtime " +
                      describe(result));
    return result;
  }
  default:
    // A name given from outside that is a string and names a function
    // (constexprExpression): called, it is the function.
    if (callee.kind == TValue::Kind::String && callee.function)
      return callFunction(*callee.function, c);
    fail(c.loc, describe(callee) + " is not callable");
  }
}

TValue MLIRGenImpl::callBuiltin(const BuiltinSpec &spec, const ast::CallExpr &c,
                                const TValue *self) {
  if (!spec.handler)
    fail(c.loc, spec.name + " cannot be called here");
  ArrayRef<BuiltinParam> params = getParams(spec);
  BoundArgs args = bindArgs(c, spec.name, params, self);
  args.spec = &spec;
  completeArgs(args, params, c);
  return spec.handler(*this, args, c);
}

TValue MLIRGenImpl::callFunction(const ast::FunctionDef &function,
                                 const ast::CallExpr &c) {
  SmallVector<BuiltinParam> params;
  for (const ast::Param &p : function.params)
    params.push_back({p.name, /*defaultText=*/"", /*variadic=*/false});
  BoundArgs args = bindArgs(c, function.name, params);
  std::vector<TValue> values;
  for (auto [i, p] : llvm::enumerate(function.params)) {
    if (!args.values[i] && p.defaultValue)
      args.values[i] = defaultArgument(function, p);
    if (!args.values[i])
      fail(c.loc,
           function.name + "() missing required argument '" + p.name + "'");
    values.push_back(*args.values[i]);
  }
  return inlineCall(function, values, c.loc);
}

ModuleScope *MLIRGenImpl::definingModule(const ast::FunctionDef &function) {
  auto owner = ownerOf.find(&function);
  return owner != ownerOf.end() ? owner->second : current;
}

TValue MLIRGenImpl::defaultArgument(const ast::FunctionDef &function,
                                    const ast::Param &param) {
  // Python evaluates defaults where the function is defined: in its
  // module, outside any caller's locals.
  ModuleScope *saved = std::exchange(current, definingModule(function));
  Scope callerScope = std::exchange(scope, {});
  TValue value = gen(*param.defaultValue);
  scope = std::move(callerScope);
  current = saved;
  return value;
}

TValue MLIRGenImpl::inlineCall(const ast::FunctionDef &function,
                               ArrayRef<TValue> args, const ast::Location &l) {
  if (callSites.size() > 32)
    fail(l, "calls nest too deep (recursion is not supported)");
  if (args.size() > function.params.size())
    fail(l, function.name + "() takes " + Twine(function.params.size()) +
                " arguments, " + Twine(args.size()) + " were given");
  Scope inner;
  for (auto [i, p] : llvm::enumerate(function.params)) {
    // A helper's `tl.constexpr` annotations bind nothing: Triton passes
    // runtime values to them too (its attention tutorial's offs_m, N_CTX).
    if (i < args.size())
      inner[p.name] = args[i];
    else if (p.defaultValue)
      inner[p.name] = defaultArgument(function, p);
    else
      fail(l, function.name + "() missing required argument '" + p.name + "'");
  }
  Scope saved = std::move(scope);
  std::optional<TValue> savedReturn = std::move(returned);
  // The body reads the globals of the module that defines it.
  ModuleScope *savedModule = std::exchange(current, definingModule(function));
  scope = std::move(inner);
  returned.reset();
  // The helper's own statements may return early, as the kernel's may;
  // what follows an `if` in the caller is not the helper's to run.
  auto savedFollowers = std::exchange(followers, {});
  kernelFlow.insert(&function.body);
  callSites.emplace_back(StringAttr::get(&context, function.name), loc(l));
  gen(function.body);
  callSites.pop_back();
  followers = std::move(savedFollowers);
  TValue result = returned ? *returned : TValue::none();
  scope = std::move(saved);
  current = savedModule;
  returned = std::move(savedReturn);
  return result;
}

//===----------------------------------------------------------------------===//
// Attributes
//===----------------------------------------------------------------------===//

/// A method of `base` as a value to call: the builtin's name, `base` bound.
static TValue boundMethod(const BuiltinSpec &spec, const TValue &base) {
  TValue method = TValue::named(TValue::Kind::Method, spec.name.str());
  method.elements.push_back(base);
  return method;
}

/// "; did you mean 'x'?" where a suggestion is at hand.
static std::string didYouMean(std::optional<std::string> suggestion) {
  return suggestion ? "; did you mean '" + *suggestion + "'?" : "";
}

TValue MLIRGenImpl::attribute(const TValue &base, const std::string &attr,
                              const ast::Location &l) {
  switch (base.kind) {
  case TValue::Kind::Module:
    if (base.module) {
      if (std::optional<TValue> value = moduleAttribute(*base.module, attr, l))
        return *value;
      fail(l, "module '" + base.name + "' has no attribute '" + attr + "'");
    }
    if (base.name == "triton") {
      if (attr == "language")
        return TValue::named(TValue::Kind::Module, "tl");
      if (attr == "jit" || attr == "autotune" || attr == "heuristics")
        return TValue::named(TValue::Kind::Builtin, "triton." + attr);
      if (attr == "cdiv")
        return TValue::named(TValue::Kind::Builtin, "tl.cdiv");
      fail(l, "triton." + attr + " is not supported in kernels");
    }
    // tl.extra.cuda.libdevice (and tl.extra.libdevice): CUDA's libdevice.
    if (base.name == "libdevice") {
      if (isLibdeviceFunction(attr))
        return TValue::named(TValue::Kind::Builtin, "libdevice." + attr);
      fail(l, "libdevice." + attr + " is not supported by tilec, which "
              "offers libdevice's float functions (sin, asin, erfinv, pow, "
              "...), its rounded arithmetic (add_rn, div_rz, sqrt_ru, ...), "
              "popc, clz, ffs and the float classes (isinf, isnan, "
              "finitef, isfinited, signbit)");
    }
    // tl.PropagateNan.ALL / NONE, for tl.maximum's propagate_nan.
    if (base.name == "tl.PropagateNan") {
      if (attr == "ALL")
        return TValue::ofInt(0xFFFF);
      if (attr == "NONE")
        return TValue::ofInt(0);
      fail(l, "tl.PropagateNan has ALL and NONE, not '" + attr + "'");
    }
    if (base.name == "tl" && attr == "PropagateNan")
      return TValue::named(TValue::Kind::Module, "tl.PropagateNan");
    if (base.name == "tl.extra" && attr == "cuda")
      return TValue::named(TValue::Kind::Module, "tl.extra.cuda");
    if (StringRef(base.name).starts_with("tl.extra")) {
      if (attr == "libdevice")
        return TValue::named(TValue::Kind::Module, "libdevice");
      if (lookupBuiltin(base.name + "." + attr))
        return TValue::named(TValue::Kind::Builtin, base.name + "." + attr);
      fail(l, base.name + "." + attr + " is not supported by tilec");
    }
    if (attr == "extra")
      return TValue::named(TValue::Kind::Module, "tl.extra");
    if (attr == "math")
      return base;
    if (Type t = dtypeNamed(&context, attr))
      return TValue::ofDType(t);
    if (const BuiltinSpec *spec = lookupBuiltin("tl." + attr);
        spec && spec->isFunction())
      return TValue::named(TValue::Kind::Builtin, spec->name.str());
    if (std::optional<std::string> near = suggestFunction("tl." + attr))
      fail(l, "unknown function 'tl." + attr + "'" + didYouMean(near));
    fail(l, "tl." + attr + " is not supported by tilec");
  case TValue::Kind::Runtime:
    if (const BuiltinSpec *spec = lookupMethod("tensor", attr))
      return boundMethod(*spec, base);
    if (attr == "dtype")
      return TValue::ofDType(dtypeOf(base));
    if (attr == "type") // a tile's block type, a scalar's dtype
      return TValue::ofDType(typeOf(base));
    if (attr == "T") {
      // Triton's `x.T`: the transpose of a 2-D tile.
      auto type = dyn_cast<RankedTensorType>(base.value.getType());
      if (!type || type.getRank() != 2)
        fail(l, "x.T needs a 2-D tile, got " + describe(base.value.getType()));
      auto result = RankedTensorType::get({type.getDimSize(1), type.getDimSize(0)},
                                          type.getElementType());
      return TValue::ofValue(tile::TransOp::create(
          builder, loc(l), result, base.value,
          builder.getDenseI32ArrayAttr({1, 0})), base.isUnsigned);
    }
    if (attr == "shape") {
      std::vector<TValue> dims;
      for (int64_t d : shapeOf(base.value))
        dims.push_back(TValue::ofInt(d));
      return TValue::ofTuple(std::move(dims));
    }
    fail(l, describe(base) + " has no attribute '" + attr + "'" +
                didYouMean(suggestMethod("tensor", attr,
                                         {"dtype", "type", "T", "shape"})));
  case TValue::Kind::TensorDesc:
    if (const BuiltinSpec *spec = lookupMethod("tensor_descriptor", attr))
      return boundMethod(*spec, base);
    if (attr == "block_shape")
      return base.elements[4];
    if (attr == "shape")
      return base.elements[1];
    if (attr == "strides")
      return base.elements[2];
    if (attr == "dtype")
      return TValue::ofDType(llvm::cast<tile::PointerType>(base.elements[0].value.getType())
                                 .getPointeeType());
    fail(l, "a tensor descriptor has no attribute '" + attr + "'" +
                didYouMean(suggestMethod(
                    "tensor_descriptor", attr,
                    {"block_shape", "shape", "strides", "dtype"})));
  case TValue::Kind::BlockPtr:
    // Triton's block pointer is a pointer to a block: `p.type.element_ty`
    // names what it points to, to cast a stored value (`.to()` of a block
    // type casts the elements), so its type here is the pointer to them.
    if (attr == "type" || attr == "dtype")
      return TValue::ofDType(base.elements[0].value.getType());
    fail(l, "a block pointer has no attribute '" + attr + "'");
  case TValue::Kind::DType:
    if (attr == "value") // a dtype constexpr's, as tl.constexpr(dt).value
      return base;
    if (const BuiltinSpec *spec = lookupMethod("dtype", attr))
      return boundMethod(*spec, base);
    // tl.dtype's widths: of an integer, and of any scalar type.
    if (attr == "int_bitwidth" && base.type.isInteger())
      return TValue::ofInt(base.type.getIntOrFloatBitWidth());
    if (attr == "primitive_bitwidth" && base.type.isIntOrFloat())
      return TValue::ofInt(base.type.getIntOrFloatBitWidth());
    if (attr == "primitive_bitwidth" && isa<tile::PointerType>(base.type))
      return TValue::ofInt(64);
    if (attr == "scalar" && !isa<RankedTensorType>(base.type))
      return base; // a scalar type is its own
    if (auto block = dyn_cast<RankedTensorType>(base.type)) {
      // `x.type`: the block type of a tile.
      if (attr == "element_ty" || attr == "scalar")
        return TValue::ofDType(block.getElementType());
      if (attr == "shape") {
        std::vector<TValue> dims;
        for (int64_t d : block.getShape())
          dims.push_back(TValue::ofInt(d));
        return TValue::ofTuple(std::move(dims));
      }
    }
    if (attr == "element_ty") {
      if (auto ptr = dyn_cast<tile::PointerType>(base.type))
        return TValue::ofDType(ptr.getPointeeType());
      fail(l, describe(base.type) + " is not a pointer type");
    }
    fail(l, "dtype " + describe(base.type) + " has no attribute '" + attr + "'");
  default:
    // A constexpr is its own value: Triton's tl.constexpr(x).value.
    if (attr == "value" && (base.isScalar() || base.kind == TValue::Kind::Tuple))
      return base;
    fail(l, describe(base) + " has no attribute '" + attr + "'");
  }
}

Type MLIRGenImpl::dtypeArg(const TValue &v, const ast::Location &l,
                           StringRef what) {
  if (v.kind == TValue::Kind::DType) {
    Type element = v.type;
    if (auto ptr = dyn_cast<tile::PointerType>(element))
      element = ptr.getPointeeType();
    if (isa<Float8E4M3FNUZType, Float8E5M2FNUZType>(element))
      fail(l, describe(element) + " is AMD's fp8; tilec (for NVIDIA GPUs) "
              "has tl.float8e5 and tl.float8e4nv");
    return v.type;
  }
  // A string constexpr naming a dtype: "fp32", "float32", "tl.float32".
  if (v.kind == TValue::Kind::String) {
    if (Type t = parseTypeString(v.text()))
      return t;
    TValue named = constexprOf(
        HostScalar::ofString(StringRef(v.text()).starts_with("tl.")
                                 ? v.text()
                                 : "tl." + v.text()));
    if (named.kind == TValue::Kind::DType)
      return named.type;
  }
  fail(l, what + " must be a dtype such as tl.float32, got " + describe(v));
}
