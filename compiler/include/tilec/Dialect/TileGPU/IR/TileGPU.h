//===- TileGPU.h - Layout encodings and their operations --------*- C++ -*-===//

#ifndef TILEC_DIALECT_TILEGPU_IR_TILEGPU_H
#define TILEC_DIALECT_TILEGPU_IR_TILEGPU_H

#include "tilec/Dialect/Tile/IR/Tile.h"
#include "tilec/Dialect/TileGPU/IR/LayoutBasis.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "tilec/Dialect/TileGPU/IR/TileGPUDialect.h.inc"

#define GET_ATTRDEF_CLASSES
#include "tilec/Dialect/TileGPU/IR/TileGPUAttrs.h.inc"

#define GET_TYPEDEF_CLASSES
#include "tilec/Dialect/TileGPU/IR/TileGPUTypes.h.inc"

#define GET_OP_CLASSES
#include "tilec/Dialect/TileGPU/IR/TileGPUOps.h.inc"

#endif // TILEC_DIALECT_TILEGPU_IR_TILEGPU_H
