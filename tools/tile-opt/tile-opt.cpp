//===- tile-opt.cpp - Runs tilec passes on MLIR files ---------------------===//
//
// mlir-opt with the tile dialects and passes, for lit tests of each pass.
//
//===----------------------------------------------------------------------===//

#include "tilec/Pipeline/Registration.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Debug.h"

#include <string>
#include <vector>

/// -debug and -debug-only=PASS,... for the passes' LLVM_DEBUG output, where
/// tilec is built with it (TILEC_ENABLE_ASSERTIONS). An LLVM built without
/// assertions, as Debian's is, keeps DebugFlag and the debug types but
/// registers no option to set them; one built with them has its own.
static void registerDebugOptions() {
#ifndef NDEBUG
  if (llvm::cl::getRegisteredOptions().count("debug"))
    return;
  static llvm::cl::opt<bool, /*ExternalStorage=*/true> debug(
      "debug", llvm::cl::desc("Enable debug output"), llvm::cl::Hidden,
      llvm::cl::location(llvm::DebugFlag));
  static std::vector<std::string> types;
  static llvm::cl::list<std::string> debugOnly(
      "debug-only",
      llvm::cl::desc("Enable a specific type of debug output (comma "
                     "separated list of types)"),
      llvm::cl::Hidden, llvm::cl::value_desc("debug string"),
      llvm::cl::CommaSeparated, llvm::cl::callback([](const std::string &type) {
        llvm::DebugFlag = true;
        types.push_back(type);
        std::vector<const char *> names;
        for (const std::string &name : types)
          names.push_back(name.c_str());
        llvm::setCurrentDebugTypes(names.data(), names.size());
      }));
#endif
}

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  tilec::registerTileDialects(registry);
  tilec::registerTilePasses();
  registerDebugOptions();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "tilec pass driver\n", registry));
}
