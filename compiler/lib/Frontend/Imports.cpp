//===- Imports.cpp - Modules, imports and module-level names ---------------===//
//
// A kernel reads module-level names as Triton's code generator reads a
// function's globals: when it uses them. An import binds its name to what
// it will resolve to, and resolves when a kernel first uses the name, so
// that `import torch` and a package's host modules cost nothing until a
// kernel needs one of their names, and then the error names the module,
// the name and the line. Triton's own namespace (`triton`,
// `triton.language`, libdevice) is built in; any other module is a file on
// the loader's search path.
//
//===----------------------------------------------------------------------===//

#include "MLIRGenImpl.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/SaveAndRestore.h"

#include <algorithm>

using namespace mlir;
using namespace tilec;
using llvm::StringRef;
using llvm::Twine;

std::string MLIRGenImpl::describeLine(const ast::Location &l,
                                      const ast::Location &from) {
  bool sameFile = l.file && from.file && *l.file == *from.file;
  if (sameFile || !l.file)
    return "line " + std::to_string(l.line);
  return *l.file + ":" + std::to_string(l.line);
}

ModuleScope &MLIRGenImpl::scopeOf(SourceModule &source) {
  std::unique_ptr<ModuleScope> &slot = modules[&source];
  if (slot)
    return *slot;
  slot = std::make_unique<ModuleScope>();
  ModuleScope &m = *slot;
  m.source = &source;
  const ast::Module &ast = *source.ast;

  // Each name takes its last binding in source order, as Python's
  // execution of the module leaves it; what module-level `if`s and `try`s
  // bind adds alternatives to an import or another such binding.
  struct Binding {
    ast::Location loc;
    std::string name;
    ModuleScope::Binding pending;
    bool conditional = false;
    size_t listed = 0;
  };
  std::vector<Binding> bindings;
  for (const ast::Import &import : ast.imports) {
    if (import.name == "*")
      m.wildcards.push_back(&import);
    else
      bindings.push_back({import.loc, import.alias, {&import, nullptr, nullptr},
                          import.conditional});
  }
  for (const ast::FunctionDef &f : ast.functions) {
    bindings.push_back({f.loc, f.name, {nullptr, &f, nullptr}, f.conditional});
    ownerOf[&f] = &m;
  }
  for (const auto &global : ast.globals)
    for (const ast::ExprPtr &target : global->targets)
      if (auto *name = llvm::dyn_cast<ast::NameExpr>(target.get()))
        bindings.push_back({global->loc, name->name,
                            {nullptr, nullptr, global.get()},
                            global->conditional});
  // In source order; ties (`import a, b`) as listed.
  for (auto [i, binding] : llvm::enumerate(bindings))
    binding.listed = i;
  std::sort(bindings.begin(), bindings.end(),
            [](const Binding &a, const Binding &b) {
              return std::make_tuple(a.loc.line, a.loc.col, a.listed) <
                     std::make_tuple(b.loc.line, b.loc.col, b.listed);
            });
  // Per name, its alternatives, those of `if`s and `try`s in source order.
  // An import, alias or def an `if` chooses (a version check) comes before
  // the unconditional binding it replaces; a value it computes (`IS_HIP =
  // False` / `if torch.version.hip: IS_HIP = True`) after it, since tilec
  // cannot evaluate the condition and the default is what most hosts get.
  auto isDottedName = [](const ast::Expr *e) {
    while (auto *attr = llvm::dyn_cast<ast::AttributeExpr>(e))
      e = attr->base.get();
    return llvm::isa<ast::NameExpr>(e);
  };
  std::map<std::string, std::vector<Binding>> alternatives;
  for (const Binding &b : bindings) {
    std::vector<Binding> &list = alternatives[b.name];
    if (!b.conditional) {
      list.assign(1, b);
      continue;
    }
    if (b.pending.alias && !isDottedName(b.pending.alias->value.get())) {
      list.push_back(b);
      continue;
    }
    auto unconditional = llvm::find_if(
        list, [](const Binding &other) { return !other.conditional; });
    list.insert(unconditional, b);
  }
  for (auto &[name, list] : alternatives) {
    const Binding &only = list.front();
    if (list.size() == 1 && !only.conditional && only.pending.function) {
      m.globals[name] = TValue::ofFunction(only.pending.function);
    } else if (list.size() == 1 && !only.conditional && only.pending.alias) {
      m.pendingGlobals[name] = only.pending.alias->value.get();
    } else {
      for (const Binding &b : list)
        m.pendingBindings[name].push_back(b.pending);
    }
  }
  return m;
}

/// A module-level name. A global's assignment is evaluated on first use, in
/// module scope; a constant is kept, a runtime value made again at each use
/// (the first use may sit in a region that does not dominate the next).
std::optional<TValue> MLIRGenImpl::lookupGlobal(const std::string &name,
                                                const ast::Location &use) {
  ModuleScope &m = *current;
  if (auto it = m.globals.find(name); it != m.globals.end())
    return it->second;

  if (auto it = m.pendingBindings.find(name); it != m.pendingBindings.end()) {
    std::vector<ModuleScope::Binding> candidates = it->second;
    std::string key = m.source->name + "." + name;
    for (auto [i, entry] : llvm::enumerate(resolving)) {
      if (entry != key)
        continue;
      std::string chain;
      for (const std::string &link : llvm::drop_begin(resolving, i))
        chain += link + " -> ";
      fail(use, "import cycle: " + chain + key +
                    (candidates.front().import ? " (imported at " : " (bound at ") +
                    describeLine(bindingLoc(candidates.front()), use) + ")");
    }
    resolving.push_back(key);
    std::optional<TValue> value;
    std::optional<std::string> firstError;
    {
      llvm::scope_exit pop([&] { resolving.pop_back(); });
      for (const ModuleScope::Binding &binding : candidates) {
        std::string why;
        value = resolveBinding(binding, use, why);
        if (value)
          break;
        if (!firstError)
          firstError = "'" + name + "' " + why;
      }
    }
    if (!value)
      fail(use, *firstError);
    m.pendingBindings.erase(name);
    m.globals[name] = *value;
    return value;
  }

  if (auto pending = m.pendingGlobals.find(name);
      pending != m.pendingGlobals.end()) {
    const ast::Expr *value = pending->second;
    m.pendingGlobals.erase(pending); // `X = X + 1` sees no X
    // Pending again unless it folded: a runtime value is made at each use,
    // and one that failed (a quiet probe of it) fails again at its use.
    llvm::scope_exit keep([&] {
      if (!m.globals.count(name))
        m.pendingGlobals.try_emplace(name, value);
    });
    Scope kernelScope = std::exchange(scope, {});
    TValue result = gen(*value);
    scope = std::move(kernelScope);
    if (!result.isRuntime())
      m.globals[name] = result;
    return result;
  }

  // A host function kernels may call at compile time: Triton runs a
  // constexpr function's Python there; tilec runs its body as a helper's,
  // on constexprs (FlagGems' get_prod_accum_type(out.type.element_ty)).
  for (const ast::HostDef &def : m.ast().hostDefs) {
    if (def.name != name || !def.function ||
        !llvm::any_of(def.function->decorators, [&](const ast::ExprPtr &d) {
          std::string full = resolvedName(*d);
          return full == "triton.language.constexpr" ||
                 StringRef(full).ends_with(".constexpr_function");
        }))
      continue;
    constexprFunctions.insert(def.function.get());
    ownerOf[def.function.get()] = &m;
    TValue function = TValue::ofFunction(def.function.get());
    m.globals[name] = function;
    return function;
  }

  // `from m import *` binds m's public names.
  if (StringRef(name).starts_with("_"))
    return std::nullopt;
  for (const ast::Import *wildcard : m.wildcards) {
    std::string error;
    std::optional<std::string> absolute = loader.absoluteName(
        *m.source, wildcard->level, wildcard->module, error);
    if (!absolute)
      continue;
    if (StringRef(*absolute).split('.').first == "triton") {
      if (std::optional<TValue> value = tritonImport(*absolute + "." + name))
        return value;
      continue;
    }
    if (std::optional<TValue> module = loadModule(*absolute, wildcard->loc))
      if (std::optional<TValue> value =
              moduleAttribute(*module->module, name, use))
        return value;
  }
  return std::nullopt;
}

ast::Location MLIRGenImpl::bindingLoc(const ModuleScope::Binding &b) {
  if (b.import)
    return b.import->loc;
  return b.function ? b.function->loc : b.alias->loc;
}

std::optional<TValue> MLIRGenImpl::resolveBinding(const ModuleScope::Binding &b,
                                                  const ast::Location &use,
                                                  std::string &why) {
  if (b.function)
    return TValue::ofFunction(b.function);
  if (b.import) {
    // "is triton.language.rsqrt (imported at line 3), which tilec does not
    // support".
    ImportFailure failure;
    std::optional<TValue> value = resolveImport(*b.import, failure);
    if (!value)
      why = failure.what + " (imported at " +
            describeLine(b.import->loc, use) + ")" +
            (failure.which.empty() ? "" : ", which " + failure.which);
    return value;
  }
  // An alias: evaluated in module scope, its error kept for the message
  // should no alternative resolve.
  std::string message;
  ScopedDiagnosticHandler keep(&context, [&](Diagnostic &d) {
    if (message.empty())
      message = d.str();
    return success();
  });
  Snapshot before(*this);
  scope.clear();
  std::optional<TValue> value;
  try {
    value = gen(*b.alias->value);
  } catch (const GenError &) {
  }
  before.restore();
  if (!value)
    why = "is bound at " + describeLine(b.alias->loc, use) +
          " to what tilec cannot use here: " + message;
  return value;
}

std::optional<TValue> MLIRGenImpl::moduleAttribute(ModuleScope &module,
                                                   const std::string &name,
                                                   const ast::Location &use) {
  std::optional<TValue> value;
  {
    // Restored on a failure too: an alternative binding may catch it.
    llvm::SaveAndRestore<ModuleScope *> in(current, &module);
    value = lookupGlobal(name, use);
  }
  if (value)
    return value;
  if (module.source->isPackage())
    return loadModule(module.source->name + "." + name, use);
  return std::nullopt;
}

std::optional<TValue> MLIRGenImpl::loadModule(const std::string &name,
                                              const ast::Location &importedAt) {
  ModuleLoader::Found found = loader.load(name);
  if (found.error) {
    InFlightDiagnostic diagnostic = emitError(loc(found.error->loc))
                                    << found.error->message;
    diagnostic.attachNote(loc(importedAt))
        << "in module '" << name << "', imported here";
    throw GenError();
  }
  if (!found.module)
    return std::nullopt;
  TValue value = TValue::named(TValue::Kind::Module, name);
  value.module = &scopeOf(*found.module);
  return value;
}

std::string MLIRGenImpl::importedPath(const ast::Import &import) {
  if (import.level > 0)
    return "";
  if (!import.name.empty())
    return import.module + "." + import.name;
  // `import a.b` binds `a`, as Python does; `import a.b as c` binds a.b.
  StringRef root = StringRef(import.module).split('.').first;
  bool bindsRoot = import.alias == root && import.alias != import.module;
  return bindsRoot ? root.str() : import.module;
}

std::optional<TValue> MLIRGenImpl::resolveImport(const ast::Import &import,
                                                 ImportFailure &why) {
  auto notFound = [&] {
    return "is not on tilec's search path (" +
           llvm::join(loader.searchPath(), ", ") +
           "; add its root with -I or TILEC_PATH)";
  };
  if (import.name.empty()) {
    // `import a.b.c [as d]`
    std::string path = importedPath(import);
    if (StringRef(import.module).split('.').first == "triton") {
      if (std::optional<TValue> value = tritonImport(path))
        return value;
      why = {"is " + path, "tilec does not support"};
      return std::nullopt;
    }
    if (!loadModule(import.module, import.loc)) {
      why = {"is module '" + import.module + "'", notFound()};
      return std::nullopt;
    }
    return loadModule(path, import.loc);
  }

  // `from [.]a.b import c [as d]`
  std::optional<std::string> absolute =
      loader.absoluteName(*current->source, import.level, import.module,
                          why.what);
  if (!absolute) {
    why.what = "cannot be imported: " + why.what;
    return std::nullopt;
  }
  if (import.level == 0 && StringRef(*absolute).split('.').first == "triton") {
    std::string path = *absolute + "." + import.name;
    if (std::optional<TValue> value = tritonImport(path))
      return value;
    why = {"is " + path, "tilec does not support"};
    return std::nullopt;
  }
  std::optional<TValue> module = loadModule(*absolute, import.loc);
  if (!module) {
    why = {"comes from module '" + *absolute + "'", notFound()};
    return std::nullopt;
  }
  if (std::optional<TValue> value =
          moduleAttribute(*module->module, import.name, import.loc))
    return value;
  const SourceModule &source = *module->module->source;
  why.what = "cannot be imported: module '" + *absolute + "' (" +
        (source.file.empty() ? source.path.front() : source.file) +
        ") has no '" + import.name + "'";
  return std::nullopt;
}

std::optional<TValue> MLIRGenImpl::tritonImport(StringRef path) {
  SmallVector<StringRef> parts;
  path.split(parts, '.');
  if (parts.front() != "triton")
    return std::nullopt;
  TValue value = TValue::named(TValue::Kind::Module, "triton");
  // Walked as attributes, the way kernels spell the same names
  // (triton.language.extra.cuda.libdevice.rsqrt); a name tilec lacks fails
  // only where a kernel uses it.
  ScopedDiagnosticHandler swallow(&context,
                                  [](Diagnostic &) { return success(); });
  try {
    for (StringRef part : llvm::drop_begin(parts))
      value = attribute(value, part.str(), ast::Location{});
  } catch (const GenError &) {
    return std::nullopt;
  }
  return value;
}

std::string MLIRGenImpl::decoratorName(const ast::Expr &decorator) {
  const ast::Expr *callee = &decorator;
  if (auto *call = llvm::dyn_cast<ast::CallExpr>(callee))
    callee = call->callee.get();
  if (auto *name = llvm::dyn_cast<ast::NameExpr>(callee))
    return name->name;
  if (auto *attr = llvm::dyn_cast<ast::AttributeExpr>(callee)) {
    std::string base = decoratorName(*attr->base);
    return base.empty() ? "" : base + "." + attr->attr;
  }
  return "";
}

/// Where in Triton's namespace a module or builtin of it lives
/// ("triton.language.constexpr" for tl.constexpr); empty for anything else.
static std::string tritonPath(const TValue &value) {
  if (value.module || (value.kind != TValue::Kind::Builtin &&
                       value.kind != TValue::Kind::Module))
    return "";
  StringRef name = value.name;
  auto [root, rest] = name.split('.');
  std::string prefix = root == "tl"          ? "triton.language"
                       : root == "libdevice" ? "triton.language.extra.libdevice"
                                             : root.str();
  if (!StringRef(prefix).starts_with("triton"))
    return "";
  return prefix + (rest.empty() ? "" : "." + rest.str());
}

std::string MLIRGenImpl::resolvedName(const ast::Expr &e) {
  // Resolved through the module's imports as spelled, never evaluated: a
  // decorator of the project's own (a cache, a wrapper) is host code,
  // applied by Python.
  std::string spelled = decoratorName(e);
  // (Not a structured binding: the lambda below captures `root`.)
  std::pair<StringRef, StringRef> parts = StringRef(spelled).split('.');
  StringRef root = parts.first, rest = parts.second;
  std::string path;
  if (auto pending = current->pendingBindings.find(root.str());
      pending != current->pendingBindings.end()) {
    if (const ast::Import *import = pending->second.front().import)
      path = importedPath(*import);
    // `from vllm.triton_utils import triton`: a project's package that
    // re-exports Triton. Resolving it reads that package's __init__.py; a
    // name that does not resolve is some other module's.
    if (StringRef(path).split('.').first != "triton") {
      std::optional<TValue> value = tryQuietly([&]() -> std::optional<TValue> {
        return lookupGlobal(root.str(), e.loc);
      });
      path = value ? tritonPath(*value) : "";
    }
  } else if (auto it = current->globals.find(root.str());
             it != current->globals.end()) {
    // Resolved already: `triton`, `tl`, or a Builtin such as "triton.jit".
    path = tritonPath(it->second);
  }
  if (path.empty())
    return "";
  return path + (rest.empty() ? "" : "." + rest.str());
}

bool MLIRGenImpl::isJitDecorator(const ast::Expr &decorator) {
  std::string full = resolvedName(decorator);
  return full == "triton.jit" || full == "triton.autotune" ||
         full == "triton.heuristics";
}

TValue MLIRGenImpl::parameterAnnotation(const ast::Expr &annotation) {
  // Triton's own names (tl.constexpr, tl.float32) and their errors are the
  // kernel's; anything else (torch.Tensor, int, a project's class) says
  // nothing to Triton's compiler, and its module need not be readable.
  if (StringRef(resolvedName(annotation)).starts_with("triton"))
    return gen(annotation);
  std::optional<TValue> value =
      tryQuietly([&]() -> std::optional<TValue> { return gen(annotation); });
  if (value && (value->kind == TValue::Kind::DType ||
                value->kind == TValue::Kind::String ||
                (value->kind == TValue::Kind::Builtin &&
                 value->name == "tl.constexpr")))
    return *value;
  return TValue();
}

MLIRGenImpl::Snapshot::Snapshot(MLIRGenImpl &g)
    : g(g), insertion(g.builder), current(g.current), scope(g.scope),
      resolving(g.resolving.size()), returned(g.returned),
      followers(g.followers), callSites(g.callSites.size()) {}

void MLIRGenImpl::Snapshot::restore() {
  g.current = current;
  g.scope = scope;
  g.resolving.resize(resolving);
  g.returned = returned;
  g.followers = followers;
  g.callSites.erase(g.callSites.begin() + callSites, g.callSites.end());
}

std::optional<TValue> MLIRGenImpl::tryQuietly(
    llvm::function_ref<std::optional<TValue>()> evaluate) {
  ScopedDiagnosticHandler swallow(&context,
                                  [](Diagnostic &) { return success(); });
  Snapshot before(*this);
  try {
    return evaluate();
  } catch (const GenError &) {
  }
  before.restore();
  return std::nullopt;
}
