//===- Registration.h - Dialects and passes every tool knows ----*- C++ -*-===//
//
// One registration for tilec, tile-opt, tile-run and the JIT, so each sees
// the same dialects and the same pass names.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_PIPELINE_REGISTRATION_H
#define TILEC_PIPELINE_REGISTRATION_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace tilec {
/// Adds every dialect a tile program passes through, and the translations
/// to LLVM IR, to `registry`.
void registerTileDialects(mlir::DialectRegistry &registry);
/// Registers every tilec pass and pipeline with the global pass registry.
void registerTilePasses();
} // namespace tilec

#endif // TILEC_PIPELINE_REGISTRATION_H
