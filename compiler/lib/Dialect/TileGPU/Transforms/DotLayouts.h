//===- DotLayouts.h - Which instruction a dot runs on -----------*- C++ -*-===//
//
// The layout pass asks here which encoding a dot's accumulator should have:
// an mma encoding when a tensor-core instruction takes its operands, none
// when the dot runs on FMAs in its class's blocked layout.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_DIALECT_TILEGPU_TRANSFORMS_DOTLAYOUTS_H
#define TILEC_LIB_DIALECT_TILEGPU_TRANSFORMS_DOTLAYOUTS_H

#include "tilec/Dialect/TileGPU/IR/TileGPU.h"

namespace mlir::tilegpu {

/// The tensor-core accumulator encoding for `dot` with `numWarps` warps, or
/// null when the dot runs on FMAs: f64, exact ("ieee") f32, and tiles with
/// M or N of 1, which an instruction would mostly waste.
MmaEncodingAttr chooseMmaEncoding(tile::DotOp dot, unsigned numWarps);

/// The encoding of operand `opIdx` of a dot whose result has `parent` and
/// whose operands have `elementType`.
DotOperandEncodingAttr getDotOperandEncoding(unsigned opIdx, Attribute parent,
                                             Type elementType);

} // namespace mlir::tilegpu

#endif // TILEC_LIB_DIALECT_TILEGPU_TRANSFORMS_DOTLAYOUTS_H
