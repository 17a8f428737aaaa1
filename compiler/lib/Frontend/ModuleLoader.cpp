//===- ModuleLoader.cpp - The modules a kernel's file imports -------------===//
//
// Python's rules, as importlib's path finder applies them: in each
// directory of the search path (or of a package's path, for a submodule) a
// directory with `__init__.py` is a regular package, else `name.py` is a
// module (`name.tl` too, tilec's own spelling), and a directory without
// `__init__.py` is a portion of a namespace package, which takes every
// such directory along the path when no regular package or module is
// found.
//
//===----------------------------------------------------------------------===//

#include "tilec/Frontend/ModuleLoader.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <cstdlib>

using namespace tilec;
namespace fs = llvm::sys::fs;
namespace path = llvm::sys::path;

std::string SourceModule::package() const {
  if (isPackage())
    return name;
  auto [parent, leaf] = llvm::StringRef(name).rsplit('.');
  return leaf.empty() ? "" : parent.str();
}

/// `base/leaf`, without a leading "./".
static std::string joinPath(llvm::StringRef base, llvm::StringRef leaf) {
  llvm::SmallString<256> result(base);
  path::append(result, leaf);
  return path::remove_leading_dotslash(result).str();
}

/// `p` made absolute, without "." and ".." components.
static llvm::SmallString<256> absolute(llvm::StringRef p) {
  llvm::SmallString<256> result(p.empty() ? "." : p);
  (void)fs::make_absolute(result);
  path::remove_dots(result, /*remove_dot_dot=*/true);
  return result;
}

std::vector<std::string> ModuleLoader::environmentPath() {
  std::vector<std::string> directories;
  if (const char *value = std::getenv("TILEC_PATH")) {
    llvm::SmallVector<llvm::StringRef> parts;
    llvm::StringRef(value).split(parts, ':', -1, /*KeepEmpty=*/false);
    for (llvm::StringRef part : parts)
      directories.push_back(part.str());
  }
  return directories;
}

ModuleLoader::ModuleLoader(std::string source, std::string filename,
                           std::vector<std::string> importPath)
    : mainSource(std::move(source)), mainFile(std::move(filename)),
      mainModule(std::make_unique<SourceModule>()) {
  mainModule->file = mainFile;
  llvm::StringRef directory = path::parent_path(mainFile);
  if (directory.empty())
    directory = ".";
  llvm::StringRef stem = path::stem(mainFile);
  bool isInit = stem == "__init__";
  if (isInit)
    mainModule->path.push_back(directory.str());

  // The package root: up through every directory with an __init__.py.
  std::vector<std::string> parts;
  if (!isInit)
    parts.push_back(stem.str());
  llvm::SmallString<256> walked = absolute(directory);
  unsigned levels = 0;
  while (fs::exists(joinPath(walked, "__init__.py")) &&
         path::has_parent_path(walked) && path::parent_path(walked) != walked) {
    parts.insert(parts.begin(), path::filename(walked).str());
    walked = llvm::SmallString<256>(path::parent_path(walked));
    ++levels;
  }
  llvm::SmallString<256> root(directory);
  for (unsigned i = 0; i < levels; ++i)
    path::append(root, "..");
  path::remove_dots(root, /*remove_dot_dot=*/true);
  search.push_back(root.empty() ? "." : root.str().str());
  for (std::string &d : importPath)
    search.push_back(std::move(d));
  for (std::string &d : environmentPath())
    search.push_back(std::move(d));

  // Outside a package, a file under a directory of the search path is a
  // module of the namespace packages between them (`-I src` for
  // src/proj/ops/k.py names it proj.ops.k).
  if (levels == 0) {
    llvm::SmallString<256> file = absolute(mainFile);
    for (size_t i = 1; i < search.size(); ++i) {
      llvm::SmallString<256> base = absolute(search[i]);
      llvm::StringRef rest = file;
      if (!rest.consume_front(base) || rest.empty() ||
          !path::is_separator(rest.front()))
        continue;
      parts.clear();
      for (auto it = path::begin(rest.drop_front()),
                end = path::end(rest.drop_front());
           it != end; ++it)
        parts.push_back(it->str());
      parts.back() = path::stem(parts.back()).str();
      if (isInit)
        parts.pop_back();
      break;
    }
  }
  mainModule->name = llvm::join(parts, ".");
}

bool ModuleLoader::parseMain(SourceError &error) {
  mainModule->ast = parseModule(mainSource, mainFile, error);
  return mainModule->ast != nullptr;
}

std::optional<std::string>
ModuleLoader::absoluteName(const SourceModule &importer, unsigned level,
                           llvm::StringRef name, std::string &error) const {
  if (level == 0)
    return name.str();
  std::string package = importer.package();
  if (package.empty()) {
    error = "attempted relative import with no known parent package";
    return std::nullopt;
  }
  llvm::SmallVector<llvm::StringRef> parts;
  llvm::StringRef(package).split(parts, '.');
  if (level > parts.size()) {
    error = "attempted relative import beyond top-level package";
    return std::nullopt;
  }
  parts.resize(parts.size() - (level - 1));
  std::string base = llvm::join(parts, ".");
  return name.empty() ? base : base + "." + name.str();
}

ModuleLoader::Found ModuleLoader::load(llvm::StringRef name) {
  if (name == mainModule->name && mainModule->ast)
    return {mainModule.get(), std::nullopt};
  if (auto it = parseErrors.find(name); it != parseErrors.end())
    return {nullptr, it->second};
  if (auto it = modules.find(name); it != modules.end())
    return {it->second.get(), std::nullopt};

  auto [parentName, leaf] = name.rsplit('.');
  if (leaf.empty())
    return find(name.str(), name, search);
  Found parent = load(parentName);
  if (!parent.module || !parent.module->isPackage()) {
    if (!parent.error)
      modules[name.str()] = nullptr;
    return parent.error ? parent : Found{};
  }
  std::vector<std::string> directories = parent.module->path;
  return find(name.str(), leaf, directories);
}

ModuleLoader::Found
ModuleLoader::find(const std::string &name, llvm::StringRef leaf,
                   const std::vector<std::string> &directories) {
  std::string file;
  std::vector<std::string> packagePath, portions;
  for (const std::string &directory : directories) {
    std::string candidate = joinPath(directory, leaf);
    if (fs::is_directory(candidate)) {
      std::string init = joinPath(candidate, "__init__.py");
      if (fs::is_regular_file(init)) {
        file = init;
        packagePath.push_back(candidate);
        break;
      }
      portions.push_back(candidate);
    }
    for (const char *extension : {".py", ".tl"})
      if (fs::is_regular_file(candidate + extension)) {
        file = candidate + extension;
        break;
      }
    if (!file.empty())
      break;
  }

  auto module = std::make_unique<SourceModule>();
  module->name = name;
  if (file.empty()) {
    if (portions.empty()) {
      modules[name] = nullptr;
      return {};
    }
    module->path = std::move(portions);
    module->ast = std::make_unique<ast::Module>();
    module->ast->file = std::make_shared<std::string>(module->path.front());
  } else {
    module->file = file;
    module->path = std::move(packagePath);
    SourceError error;
    llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> text =
        llvm::MemoryBuffer::getFile(file);
    if (!text) {
      error.loc = {std::make_shared<std::string>(file), 1, 1};
      error.message = "cannot read module '" + name + "': " +
                      text.getError().message();
    } else {
      read.emplace_back(file, (*text)->getBuffer().str());
      module->ast = parseModule((*text)->getBuffer(), file, error);
    }
    if (!module->ast) {
      parseErrors[name] = error;
      return {nullptr, error};
    }
  }
  SourceModule *result = module.get();
  modules[name] = std::move(module);
  return {result, std::nullopt};
}
