//===- TensorMapRecipe.h - A host tensor map's recipe -----------*- C++ -*-===//
//
// A kernel argument's tilegpu.host_tensor_map attribute is the recipe by
// which a launcher builds that tensor map from the kernel's arguments
// (Transforms/HostTensorMaps.cpp writes it; its header describes the
// form). This reads it into the kernel ABI's struct, for the metadata.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_DIALECT_TILEGPU_IR_TENSORMAPRECIPE_H
#define TILEC_DIALECT_TILEGPU_IR_TENSORMAPRECIPE_H

#include "tile/Metadata.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/Support/LLVM.h"

#include <string>

namespace mlir::tilegpu {

/// The tensor map `recipe` describes for a kernel of `numParams`
/// parameters; failure, with what is wrong in `error`, for a malformed one.
FailureOr<::tile::TensorMapInfo> readTensorMapRecipe(DictionaryAttr recipe,
                                                     size_t numParams,
                                                     std::string &error);

} // namespace mlir::tilegpu

#endif // TILEC_DIALECT_TILEGPU_IR_TENSORMAPRECIPE_H
