//===- DotLayouts.h - Which instruction a dot runs on -----------*- C++ -*-===//
//
// The layout pass asks here which encoding a dot's accumulator should have:
// an mma encoding when a tensor-core instruction takes its operands, a
// blocked one shaped for register tiling when the dot runs on FMAs.
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

/// The blocked accumulator encoding for `dot` on FMAs with `numWarps`
/// warps: each thread holds rows and 16-byte runs of columns spread so that
/// it loads as few values of A and vectors of B per K as the tile allows.
BlockedEncodingAttr chooseFmaEncoding(tile::DotOp dot, unsigned numWarps);

/// The encoding of operand `opIdx` of a dot whose result has `parent` and
/// whose operands have `elementType`.
DotOperandEncodingAttr getDotOperandEncoding(unsigned opIdx, Attribute parent,
                                             Type elementType);

} // namespace mlir::tilegpu

#endif // TILEC_LIB_DIALECT_TILEGPU_TRANSFORMS_DOTLAYOUTS_H
