//===- Tuning.cpp - A kernel's @triton.autotune and @triton.heuristics ----===//
//
// Autotune's arguments are evaluated once, when the tuning is read; what a
// launch needs later (heuristics, the prune function) is kept as host
// callables beside the AST they point into.
//
// perf_model and top_k of prune_configs_by rank configs by a performance
// model before timing; tilec times every config the prune keeps, so they
// change nothing but tuning time and are not evaluated. use_cuda_graph and
// cache_results are accepted: tilec times with events and always remembers
// its choices on disk.
//
//===----------------------------------------------------------------------===//

#include "tilec/Tuning.h"

#include "tilec/Frontend/HostEvaluator.h"
#include "tilec/Frontend/Parser.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Casting.h"

#include <algorithm>
#include <sstream>

using namespace tilec;
using host::HostError;
using host::Value;

std::string TuningConfig::describe() const {
  std::string text;
  for (const auto &[name, value] : constexprs)
    text += name + ": " + value.repr() + ", ";
  return text + "num_warps: " + std::to_string(numWarps) +
         ", num_stages: " + std::to_string(numStages);
}

std::string TuningConfig::flags() const {
  std::string text;
  for (const auto &[name, value] : constexprs)
    text += "-D " + name + "=" + value.repr() + " ";
  return text + "--num-warps " + std::to_string(numWarps) + " --num-stages " +
         std::to_string(numStages);
}

struct KernelTuning::Impl {
  std::string source;
  std::unique_ptr<ast::Module> module;
  std::unique_ptr<host::HostEvaluator> evaluator;
  /// Each heuristic's constexpr and its function.
  std::vector<std::pair<std::string, Value>> heuristics;
  /// early_config_prune, or None.
  Value prune;
  /// The configs as host code saw them, for the prune function.
  host::Values configObjects;
  /// Where the autotune decorator is, for errors of what it calls.
  ast::Location autotuneLoc;

  std::string render(const HostError &error) const {
    return renderSourceError(source, {error.loc, error.message});
  }
};

KernelTuning::KernelTuning() : impl(std::make_unique<Impl>()) {}
KernelTuning::~KernelTuning() = default;

std::vector<std::string> KernelTuning::heuristics() const {
  std::vector<std::string> names;
  for (const auto &heuristic : impl->heuristics)
    names.push_back(heuristic.first);
  return names;
}

static Value argsDict(const std::vector<NamedScalar> &values) {
  host::Entries entries;
  for (const auto &[name, value] : values)
    entries.emplace_back(Value::ofString(name), Value::of(value));
  return Value::dict(std::move(entries));
}

/// A constexpr's value from host code: an int, float, bool, string or None.
static HostScalar toScalar(const Value &value, const ast::Location &loc,
                          const std::string &what) {
  if (!value.isScalar())
    throw HostError{loc, what + " is " + value.repr() +
                             "; a constexpr is an int, float, bool or string"};
  return value.scalar;
}

/// The decorator's name: "triton.autotune" for `@triton.autotune(...)` or
/// `@autotune(...)` after `from triton import autotune`.
static std::string decoratorName(const host::HostEvaluator &evaluator,
                                 const ast::Expr &decorator) {
  const ast::Expr *callee = &decorator;
  if (auto *call = llvm::dyn_cast<ast::CallExpr>(callee))
    callee = call->callee.get();
  try {
    Value value = evaluator.evaluate(*callee);
    if (value.kind != Value::Kind::Module)
      return "";
    llvm::StringRef name = value.name;
    // triton.runtime.autotune, triton.runtime.autotuner.autotune, ...
    if (name.starts_with("triton.") && name.ends_with(".autotune"))
      return "triton.autotune";
    if (name.starts_with("triton.") && name.ends_with(".heuristics"))
      return "triton.heuristics";
    return name.str();
  } catch (const HostError &) {
    return ""; // not one of Triton's
  }
}

namespace {
/// Reads one kernel's decorators into a KernelTuning.
class Reader {
public:
  Reader(KernelTuning::Impl &impl, const ast::FunctionDef &kernel,
         const std::vector<KernelTuning::Param> &params)
      : impl(impl), kernel(kernel), params(params) {}

  void autotune(const ast::CallExpr &call, std::vector<TuningConfig> &configs,
                std::vector<std::string> &key,
                std::vector<std::string> &resetToZero,
                std::vector<std::string> &restoreValue, unsigned &warmupMs,
                unsigned &repMs);
  void heuristics(const ast::CallExpr &call);

private:
  const KernelTuning::Param *param(const std::string &name) const {
    for (const KernelTuning::Param &p : params)
      if (p.name == name)
        return &p;
    return nullptr;
  }
  /// A list of parameter names (key, reset_to_zero, restore_value).
  std::vector<std::string> names(const Value &value, const ast::Location &loc,
                                 const std::string &what) const;
  TuningConfig config(const Value &value, const ast::Location &loc) const;

  KernelTuning::Impl &impl;
  const ast::FunctionDef &kernel;
  const std::vector<KernelTuning::Param> &params;
};
} // namespace

std::vector<std::string> Reader::names(const Value &value,
                                       const ast::Location &loc,
                                       const std::string &what) const {
  if (value.kind == Value::Kind::None)
    return {};
  if (value.kind != Value::Kind::List && value.kind != Value::Kind::Tuple)
    throw HostError{loc, what + " is a list of parameter names, not " +
                             value.repr()};
  std::vector<std::string> result;
  for (const Value &item : *value.items) {
    if (item.kind != Value::Kind::String || !param(item.text()))
      throw HostError{loc, what + " names " + item.repr() +
                               ", which is not a parameter of '" +
                               kernel.name + "'"};
    result.push_back(item.text());
  }
  return result;
}

TuningConfig Reader::config(const Value &value,
                            const ast::Location &loc) const {
  if (value.kind != Value::Kind::Object || value.name != "triton.Config")
    throw HostError{loc, "autotune's configs are triton.Config objects, not " +
                             value.repr()};
  TuningConfig config;
  const Value &kwargs = *value.find("kwargs");
  for (const auto &[name, constant] : *kwargs.entries) {
    if (name.kind != Value::Kind::String)
      throw HostError{loc, "a config's constexprs are named by strings"};
    const KernelTuning::Param *p = param(name.text());
    if (!p || !p->isConstexpr)
      throw HostError{loc, "a config sets '" + name.text() +
                               "', which is not a tl.constexpr parameter "
                               "of '" + kernel.name + "'"};
    config.constexprs.emplace_back(
        name.text(),
        toScalar(constant, loc, "config value '" + name.text() + "'"));
  }
  auto positive = [&](const char *field) -> unsigned {
    const Value &v = *value.find(field);
    if (v.kind != Value::Kind::Int || v.scalar.intValue < 1 ||
        v.scalar.intValue > 1024)
      throw HostError{loc, std::string("a config's ") + field +
                               " is a positive int, not " + v.repr()};
    return unsigned(v.scalar.intValue);
  };
  config.numWarps = positive("num_warps");
  config.numStages = positive("num_stages");
  if (positive("num_ctas") != 1)
    throw HostError{loc, "a config asks for num_ctas=" +
                             value.find("num_ctas")->repr() +
                             ": tilec runs one CTA per program (no "
                             "thread-block clusters)"};
  for (const char *unsupported : {"maxnreg", "pre_hook", "ir_override"})
    if (value.find(unsupported)->kind != Value::Kind::None)
      throw HostError{loc, std::string("a config's ") + unsupported +
                               " is not supported by tilec"};
  return config;
}

void Reader::autotune(const ast::CallExpr &call,
                      std::vector<TuningConfig> &configs,
                      std::vector<std::string> &key,
                      std::vector<std::string> &resetToZero,
                      std::vector<std::string> &restoreValue,
                      unsigned &warmupMs, unsigned &repMs) {
  static const char *const fields[] = {
      "configs",  "key",      "prune_configs_by", "reset_to_zero",
      "restore_value", "pre_hook", "post_hook", "warmup", "rep",
      "use_cuda_graph", "do_bench", "cache_results"};
  std::vector<std::pair<std::string, Value>> given;
  const host::HostEvaluator &evaluator = *impl.evaluator;
  for (size_t k = 0; k < call.args.size(); ++k) {
    if (k >= std::size(fields) || llvm::isa<ast::StarredExpr>(*call.args[k]))
      throw HostError{call.args[k]->loc,
                      "autotune's arguments after configs and key are "
                      "passed by keyword"};
    given.emplace_back(fields[k], evaluator.evaluate(*call.args[k]));
  }
  for (const ast::Keyword &keyword : call.keywords) {
    if (!llvm::is_contained(fields, llvm::StringRef(keyword.name)))
      throw HostError{keyword.loc,
                      "triton.autotune has no argument '" + keyword.name + "'"};
    given.emplace_back(keyword.name, evaluator.evaluate(*keyword.value));
  }
  auto find = [&](llvm::StringRef name) -> const Value * {
    for (const auto &[field, value] : given)
      if (field == name)
        return &value;
    return nullptr;
  };
  const Value *list = find("configs");
  if (!list || (list->kind != Value::Kind::List &&
                list->kind != Value::Kind::Tuple) || list->items->empty())
    throw HostError{call.loc, "triton.autotune needs a non-empty list of "
                              "triton.Config in configs="};
  for (const Value &item : *list->items) {
    configs.push_back(config(item, call.loc));
    impl.configObjects.push_back(item);
  }
  if (const Value *k = find("key"))
    key = names(*k, call.loc, "autotune's key");
  else
    throw HostError{call.loc, "triton.autotune needs key=[...], the "
                              "arguments whose values key its choice"};
  if (const Value *v = find("reset_to_zero"))
    resetToZero = names(*v, call.loc, "reset_to_zero");
  if (const Value *v = find("restore_value"))
    restoreValue = names(*v, call.loc, "restore_value");
  if (const Value *prune = find("prune_configs_by");
      prune && prune->kind != Value::Kind::None) {
    if (prune->kind != Value::Kind::Dict)
      throw HostError{call.loc, "prune_configs_by is a dict"};
    if (const Value *early = prune->find("early_config_prune");
        early && early->kind != Value::Kind::None) {
      if (early->kind != Value::Kind::Callable)
        throw HostError{call.loc, "early_config_prune is a function"};
      impl.prune = *early;
    }
  }
  for (const char *hook : {"pre_hook", "post_hook", "do_bench"})
    if (const Value *v = find(hook); v && v->kind != Value::Kind::None)
      throw HostError{call.loc, std::string("autotune's ") + hook +
                                    " runs host Python on tensors, which "
                                    "tilec cannot run"};
  auto milliseconds = [&](const char *field, unsigned &out) {
    if (const Value *v = find(field); v && v->kind != Value::Kind::None) {
      if (v->kind != Value::Kind::Int || v->scalar.intValue < 1 || v->scalar.intValue > 60000)
        throw HostError{call.loc, std::string(field) +
                                      " is a positive number of "
                                      "milliseconds, not " + v->repr()};
      out = unsigned(v->scalar.intValue);
    }
  };
  milliseconds("warmup", warmupMs);
  milliseconds("rep", repMs);
  impl.autotuneLoc = call.loc;
}

void Reader::heuristics(const ast::CallExpr &call) {
  if (call.args.size() != 1 || !call.keywords.empty())
    throw HostError{call.loc, "triton.heuristics takes one dict of functions"};
  Value values = impl.evaluator->evaluate(*call.args[0]);
  if (values.kind != Value::Kind::Dict)
    throw HostError{call.args[0]->loc,
                    "triton.heuristics takes a dict of functions, not " +
                        values.repr()};
  for (const auto &[name, function] : *values.entries) {
    const KernelTuning::Param *p =
        name.kind == Value::Kind::String ? param(name.text()) : nullptr;
    if (!p || !p->isConstexpr)
      throw HostError{call.args[0]->loc,
                      "a heuristic sets " + name.repr() +
                          ", which is not a tl.constexpr parameter of '" +
                          kernel.name + "'"};
    if (function.kind != Value::Kind::Callable)
      throw HostError{call.args[0]->loc,
                      "the heuristic for '" + name.text() +
                          "' is a function of the arguments, not " +
                          function.repr()};
    impl.heuristics.emplace_back(name.text(), function);
  }
}

std::shared_ptr<const KernelTuning>
KernelTuning::read(const std::string &source, const std::string &filename,
                   const std::string &kernelName, unsigned computeCapability,
                   std::string &diagnostics) {
  SourceError parseError;
  std::unique_ptr<ast::Module> module =
      parseModule(source, filename, parseError);
  if (!module) {
    diagnostics = renderSourceError(source, parseError);
    return nullptr;
  }
  std::shared_ptr<KernelTuning> tuning(new KernelTuning());
  Impl &impl = *tuning->impl;
  impl.source = source;

  // The kernel: by name, the file's only one, or its only tuned one.
  auto isTuned = [](const ast::FunctionDef &f) {
    return llvm::any_of(f.decorators, [](const ast::ExprPtr &d) {
      auto *call = llvm::dyn_cast<ast::CallExpr>(d.get());
      auto *attr = call ? llvm::dyn_cast<ast::AttributeExpr>(call->callee.get())
                        : nullptr;
      auto *name = call ? llvm::dyn_cast<ast::NameExpr>(call->callee.get())
                        : nullptr;
      std::string callee = attr ? attr->attr : name ? name->name : "";
      return callee == "autotune" || callee == "heuristics";
    });
  };
  const ast::FunctionDef *kernel = nullptr;
  for (const ast::FunctionDef &f : module->functions)
    if (!kernelName.empty() ? f.name == kernelName
                            : module->functions.size() == 1 || isTuned(f)) {
      if (kernel && kernelName.empty())
        return tuning; // several candidates: the compiler says which to pick
      kernel = &f;
    }
  if (!kernel)
    return tuning; // the compiler reports a missing kernel
  for (const ast::Param &p : kernel->params)
    tuning->params_.push_back({p.name, ast::isConstexprAnnotation(p.annotation.get())});

  impl.module = std::move(module);
  try {
    impl.evaluator =
        std::make_unique<host::HostEvaluator>(*impl.module, computeCapability);
    Reader reader(impl, *kernel, tuning->params_);
    for (const ast::ExprPtr &decorator : kernel->decorators) {
      auto *call = llvm::dyn_cast<ast::CallExpr>(decorator.get());
      // A bare @triton.autotune has no configs to read.
      if (!call)
        continue;
      std::string name = decoratorName(*impl.evaluator, *decorator);
      if (name == "triton.autotune") {
        if (!tuning->configs_.empty())
          throw HostError{call->loc, "'" + kernel->name +
                                         "' has two @triton.autotune"};
        reader.autotune(*call, tuning->configs_, tuning->key_,
                        tuning->resetToZero_, tuning->restoreValue_,
                        tuning->warmupMs_, tuning->repMs_);
      } else if (name == "triton.heuristics") {
        reader.heuristics(*call);
      }
    }
  } catch (const HostError &error) {
    diagnostics = impl.render(error);
    return nullptr;
  }
  return tuning;
}

bool KernelTuning::prune(const std::vector<NamedScalar> &args,
                         std::vector<size_t> &kept, std::string &error) const {
  kept.clear();
  if (impl->prune.kind == Value::Kind::None) {
    for (size_t k = 0; k < configs_.size(); ++k)
      kept.push_back(k);
    return true;
  }
  try {
    Value result = impl->evaluator->call(
        impl->prune, {Value::list(impl->configObjects), argsDict(args)}, {},
        impl->autotuneLoc);
    if (result.kind != Value::Kind::List && result.kind != Value::Kind::Tuple)
      throw HostError{impl->autotuneLoc,
                      "early_config_prune returned " + result.repr() +
                          ", not a list of configs"};
    for (const Value &config : *result.items) {
      auto it = llvm::find_if(impl->configObjects, [&](const Value &c) {
        return config.entries && c.entries == config.entries;
      });
      if (it == impl->configObjects.end())
        throw HostError{impl->autotuneLoc,
                        "early_config_prune returned " + config.repr() +
                            ", which is not one of autotune's configs"};
      kept.push_back(size_t(it - impl->configObjects.begin()));
    }
    if (kept.empty())
      throw HostError{impl->autotuneLoc,
                      "early_config_prune kept no config for these arguments"};
  } catch (const HostError &e) {
    error = impl->render(e);
    return false;
  }
  return true;
}

bool KernelTuning::applyHeuristics(std::vector<NamedScalar> &values,
                                   std::vector<NamedScalar> &results,
                                   std::string &error) const {
  try {
    for (const auto &[name, function] : impl->heuristics) {
      // Lambdas capture structured bindings only from C++20 on.
      const std::string &given = name;
      if (llvm::any_of(values,
                       [&](const NamedScalar &v) { return v.first == given; }))
        continue;
      const ast::Location &loc = function.lambda
                                     ? function.lambda->loc
                                     : function.function->loc;
      Value value = impl->evaluator->call(function, {argsDict(values)}, {}, loc);
      HostScalar scalar =
          toScalar(value, loc, "the heuristic for '" + name + "' returned");
      values.emplace_back(name, scalar);
      results.emplace_back(name, std::move(scalar));
    }
  } catch (const HostError &e) {
    error = impl->render(e);
    return false;
  }
  return true;
}

bool tilec::evaluateGrid(const std::string &text,
                         const std::vector<NamedScalar> &names,
                         std::vector<int64_t> &extents, std::string &error) {
  // The names as globals of a small module, `meta` as a dict of them.
  std::string source = "import triton\nfrom triton import cdiv\n";
  std::string meta;
  for (const auto &[name, value] : names)
    if (value.kind != HostScalar::Kind::Pointer &&
        value.kind != HostScalar::Kind::Unknown) {
      source += name + " = " + value.repr() + "\n";
      meta += Value::ofString(name).repr() + ": " + name + ", ";
    }
  source += "meta = {" + meta + "}\n";
  size_t line = size_t(std::count(source.begin(), source.end(), '\n')) + 1;
  source += "grid = (" + text + ",)\n";
  SourceError parseError;
  std::unique_ptr<ast::Module> module =
      parseModule(source, "--grid", parseError);
  auto fail = [&](const std::string &why) {
    error = "--grid '" + text + "': " + why;
    return false;
  };
  if (!module)
    return fail(parseError.message);
  try {
    host::HostEvaluator evaluator(*module, 0);
    const ast::AssignStmt &grid = *module->globals.back();
    if (grid.loc.line != line)
      return fail("not one expression");
    Value value = evaluator.evaluate(*grid.value);
    if (value.items->size() == 1 && (value.items->front().kind ==
                                         Value::Kind::Tuple ||
                                     value.items->front().kind ==
                                         Value::Kind::List))
      value = value.items->front(); // --grid "(x, y)"
    if (value.items->empty() || value.items->size() > 3)
      return fail("a grid has one to three extents");
    extents.clear();
    for (const Value &extent : *value.items) {
      if (extent.kind != Value::Kind::Int)
        return fail("an extent is " + extent.repr() + ", not an int");
      extents.push_back(extent.scalar.intValue);
    }
  } catch (const HostError &e) {
    return fail(e.message);
  }
  return true;
}
