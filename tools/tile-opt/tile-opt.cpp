//===- tile-opt.cpp - Runs tilec passes on MLIR files ---------------------===//
//
// mlir-opt with the tile dialects and passes, for lit tests of each pass.
//
//===----------------------------------------------------------------------===//

#include "tilec/Pipeline/Registration.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  tilec::registerTileDialects(registry);
  tilec::registerTilePasses();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "tilec pass driver\n", registry));
}
