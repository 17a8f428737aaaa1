//===- HostTensorMaps.h - Tensor maps the launcher builds -------*- C++ -*-===//
//
// A bulk copy reads its tensor map (128 bytes: the tensor's address,
// extents and strides, the box, the swizzle) through the copy engine. A
// kernel can build the map itself (tilegpu.tensormap_create: every program
// writes its own, fences it and waits for the engine to fetch it, about a
// microsecond before its first byte moves), or the launcher can build it
// once per launch with cuTensorMapEncodeTiled and pass it by value as a
// `__grid_constant__` kernel parameter, as Triton's host-side tensor
// descriptors are.
//
// The launcher can when every field is a function of the kernel's
// arguments: the field's computation, from the arguments and constants
// through integer arithmetic and pointer offsets, is then a recipe the
// metadata carries (the argument's tilegpu.host_tensor_map attribute, the
// metadata's "tensor_maps"), which the runtime and any other launcher
// evaluate on the launch's arguments. A recipe is an expression tree of
// JSON-shaped attributes:
//
//   5                          a constant
//   ["arg", 3]                 parameter 3's value (a pointer: its address)
//   ["add", a, b]              also "sub", "mul", "div" (signed, rounding
//                              toward zero), "ceildiv", "rem", "min", "max"
//   ["i32", a]                 a wrapped to 32 bits, as the kernel's i32
//                              arithmetic wraps
//   ["grid", d]                the launch's number of programs along d
//
// A base that the program's number offsets, `ptr + sum(c_i * stride_i)`
// (a batch's origin: `ptr + program_id(d) * stride`, or attention's
// `ptr + (hz // H) * stride_z + (hz % H) * stride_h`), is no function of the
// arguments, but the launcher can still build the map: from `ptr`, with one
// more, outer dimension per term, of stride `stride_i` and an extent that
// bounds `c_i` (["grid", d] for program_id(d), `m` for `c % m`,
// ["ceildiv", extent(c), m] for `c // m`), which the copies index with c_i.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_DIALECT_TILEGPU_TRANSFORMS_HOSTTENSORMAPS_H
#define TILEC_LIB_DIALECT_TILEGPU_TRANSFORMS_HOSTTENSORMAPS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <optional>

namespace mlir {
namespace tilegpu {

/// A base `pointer + sum(coords[i] * strides[i])`: i32 coordinates computed
/// from the program's number, 16-byte aligned strides in elements.
struct BatchOffset {
  Value pointer;
  SmallVector<Value> coords;
  SmallVector<Value> strides;
};

/// What a tensor map holds, as tilegpu.tensormap_create takes it.
struct TensorMapFields {
  Value base;                  ///< a scalar !tile.ptr
  SmallVector<Value> dims;     ///< i32 extents, innermost first
  SmallVector<Value> strides;  ///< element strides of all but the innermost
  ArrayRef<int32_t> box;       ///< the extents one copy moves
  int32_t swizzle = 0;         ///< bytes: 32, 64, 128, or 0
  /// `base` split, where it has that form (see above).
  std::optional<BatchOffset> batchOffset;
};

/// A map the launcher builds: the argument that carries it, and the
/// coordinates its copies take after the box's (a batch offset's, where
/// the map spans the batch).
struct HostTensorMap {
  Value map;
  SmallVector<Value> outerCoords;
};

/// A new argument of `func`, before its global scratch if it has one,
/// that carries the map of `fields` built by the launcher; nullopt when
/// a field is not a function of the kernel's arguments.
std::optional<HostTensorMap> addHostTensorMap(func::FuncOp func,
                                              const TensorMapFields &fields);

} // namespace tilegpu
} // namespace mlir

#endif // TILEC_LIB_DIALECT_TILEGPU_TRANSFORMS_HOSTTENSORMAPS_H
