//===- ModuleLoader.h - The modules a kernel's file imports -----*- C++ -*-===//
//
// A kernel's file is a module of a package, as Python sees it: it imports
// helpers, constants and libdevice functions from its siblings
// (`from .utils import calculate_settings`), from its package's parents
// (`from ..ops.utils import exp`) and from other packages. The loader finds
// those modules as Python's import system does, on a search path: the
// file's own package root (found by walking up through `__init__.py`), the
// -I directories, then TILEC_PATH's. It reads and parses a module only when
// a kernel needs one of its names, and remembers every file it read, for
// the JIT's disk cache.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_FRONTEND_MODULELOADER_H
#define TILEC_FRONTEND_MODULELOADER_H

#include "tilec/Frontend/AST.h"
#include "tilec/Frontend/Parser.h"

#include "llvm/ADT/StringRef.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tilec {

/// One module of the program: the kernel's file or one it imports.
struct SourceModule {
  /// Its dotted name: "liger_kernel.ops.utils"; a file outside any package
  /// is named by its stem.
  std::string name;
  /// Its file; empty for a namespace package (a directory without
  /// `__init__.py`).
  std::string file;
  /// A package's directories, where its submodules are found (Python's
  /// `__path__`); empty for a module that is not a package.
  std::vector<std::string> path;
  /// Its parse; an empty module for a namespace package.
  std::unique_ptr<ast::Module> ast;

  bool isPackage() const { return !path.empty(); }
  /// The package its relative imports start from: itself for a package,
  /// else its parent ("liger_kernel.ops"); empty for a top-level module.
  std::string package() const;
};

class ModuleLoader {
public:
  /// `source` is the text of `filename`, the module compiled. Its name, and
  /// so where its relative imports lead, comes from its package root, or
  /// else from the first of `importPath` that holds it.
  ModuleLoader(std::string source, std::string filename,
               std::vector<std::string> importPath);

  /// Parses the main module; false after a syntax error, in `error`.
  bool parseMain(SourceError &error);
  SourceModule &main() { return *mainModule; }

  /// The directories searched, in order: the package root, the -I ones,
  /// TILEC_PATH's.
  const std::vector<std::string> &searchPath() const { return search; }

  /// The absolute name of what `from <level dots><name> import` names in
  /// `importer`; none, with Python's ImportError in `error`, when the
  /// levels lead above the top-level package.
  std::optional<std::string> absoluteName(const SourceModule &importer,
                                          unsigned level, llvm::StringRef name,
                                          std::string &error) const;

  /// What looking a module up found.
  struct Found {
    /// Null when the search path has no such module, or its parse failed.
    SourceModule *module = nullptr;
    /// The syntax error of a module that failed to parse.
    std::optional<SourceError> error;
  };
  /// The module named `name` (absolute and dotted), read and parsed on the
  /// first lookup; its parent packages are found first, as Python does.
  Found load(llvm::StringRef name);

  /// The files read besides the main one, in the order they were read:
  /// each path, and the text read from it.
  const std::vector<std::pair<std::string, std::string>> &filesRead() const {
    return read;
  }

  /// TILEC_PATH's directories, in order.
  static std::vector<std::string> environmentPath();

private:
  /// `name`'s last component among `directories` (the search path for a
  /// top-level module, a package's path for a submodule).
  Found find(const std::string &name, llvm::StringRef leaf,
             const std::vector<std::string> &directories);

  std::string mainSource, mainFile;
  std::unique_ptr<SourceModule> mainModule;
  std::vector<std::string> search;
  /// Every module looked up, by name; null for one not found.
  std::map<std::string, std::unique_ptr<SourceModule>, std::less<>> modules;
  std::map<std::string, SourceError, std::less<>> parseErrors;
  std::vector<std::pair<std::string, std::string>> read;
};

} // namespace tilec

#endif // TILEC_FRONTEND_MODULELOADER_H
