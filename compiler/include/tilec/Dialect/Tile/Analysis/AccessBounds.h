//===- AccessBounds.h - What a kernel's memory accesses reach ---*- C++ -*-===//
//
// For the loads, stores and atomics of a kernel through its pointer
// parameters, the elements each one certainly reaches at a launch, as a
// formula over the launch's scalar arguments and grid (tile::AccessInfo),
// where it can be proved: the runtime refuses a buffer too small for them
// before the kernel runs. An access not bounded gets no formula, and its
// buffer is not checked.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_DIALECT_TILE_ANALYSIS_ACCESSBOUNDS_H
#define TILEC_DIALECT_TILE_ANALYSIS_ACCESSBOUNDS_H

#include "tile/Metadata.h"

#include <vector>

namespace mlir::func {
class FuncOp;
} // namespace mlir::func

namespace mlir::tile {

/// The accesses of `kernel` (tile IR, before layouts) that can be bounded,
/// each through one of `params` (the kernel's parameters, in order, as the
/// metadata describes them).
std::vector<::tile::AccessInfo>
computeAccessBounds(func::FuncOp kernel,
                    const std::vector<::tile::ParamInfo> &params);

} // namespace mlir::tile

#endif // TILEC_DIALECT_TILE_ANALYSIS_ACCESSBOUNDS_H
