//===- Metadata.h - Kernel metadata (the .json beside the PTX) --*- C++ -*-===//
//
// tilec writes `k.json` beside `k.ptx`: everything a host needs to launch the
// kernel (entry name, block size, dynamic shared memory, parameter types and
// the specialization assumptions the code was compiled under).
//
//===----------------------------------------------------------------------===//

#ifndef TILE_METADATA_H
#define TILE_METADATA_H

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tile {

/// One entry parameter of a kernel, in PTX order.
struct ParamInfo {
  std::string name;
  /// "*fp32", "*fp16", "*bf16", "*i32", "*i64", "*i8", "*i1" (pointers), or
  /// "i32", "i64", "fp32", "fp16", "bf16", "i1" (scalars).
  std::string type;
  /// Pointers: the address alignment in bytes the kernel assumes. Integers:
  /// the divisibility of the value the kernel was specialized on. 1 = none.
  unsigned divisibility = 1;

  /// True when `type` names a pointer ("*...").
  bool isPointer() const { return !type.empty() && type[0] == '*'; }
};

/// An integer a launcher computes from the launch's arguments: a field of
/// a tensor map it builds (TensorMapInfo). In the JSON, a number, or an
/// array naming the operation first: ["arg", i] is parameter i's value (a
/// pointer's address); ["add" | "sub" | "mul" | "div" | "ceildiv" | "rem" |
/// "min" | "max", a, b] combine two, dividing signed and rounding toward
/// zero (ceildiv: up); ["i32", a] wraps a to 32 bits as the kernel's i32
/// arithmetic does; ["grid", d] is the launch's number of programs along
/// d (0, 1, 2: x, y, z). Everything else is 64-bit.
struct HostExpr {
  enum class Op { Constant, Arg, Grid, Add, Sub, Mul, Div, CeilDiv, Rem, Min, Max, I32 };
  Op op = Op::Constant;
  /// Op::Constant: the value; Op::Arg: the parameter's index; Op::Grid:
  /// the dimension.
  int64_t value = 0;
  std::vector<HostExpr> operands;

  /// The value for the launch of `grid` programs whose parameters have
  /// `args` (pointers as their addresses, integers sign-extended).
  /// Division by zero gives 0.
  int64_t evaluate(const std::vector<int64_t> &args,
                   const std::array<int64_t, 3> &grid = {1, 1, 1}) const;
};

/// A bulk-copy tensor map (CUtensorMap) the launcher builds, with
/// cuTensorMapEncodeTiled, and passes by value (128 bytes, 64-byte
/// aligned) after `params`, in order: tiled, unsigned integer elements of
/// `elementBytes`, zeros outside the tensor, no interleave.
struct TensorMapInfo {
  /// The tensor's address.
  HostExpr base;
  /// Extents in elements, innermost first.
  std::vector<HostExpr> dims;
  /// Strides in elements of every dimension but the innermost.
  std::vector<HostExpr> strides;
  /// The box one copy moves, innermost first.
  std::vector<unsigned> box;
  unsigned elementBytes = 1;
  /// Shared-memory swizzle span in bytes: 32, 64, 128, or 0 for none.
  unsigned swizzle = 0;

  /// Parses one entry of the metadata's "tensor_maps" for a kernel of
  /// `numParams` parameters; throws tile::Error as KernelMetadata::fromJSON.
  static TensorMapInfo fromJSON(std::string_view text, size_t numParams);
};

/// CUtensorMapDataType of a tensor map over `elementBytes`-wide elements:
/// unsigned integers, as the copy engine moves bits and fills zeros. The
/// runtime's encoder and the kernels' own maps (tensormap.replace takes the
/// same values) both use it.
int getTensorMapDataType(unsigned elementBytes);
/// CUtensorMapSwizzle of a shared-memory swizzle span of `bytes` (32, 64,
/// 128; anything else: none).
int getTensorMapSwizzle(unsigned bytes);

/// The contents of a kernel's metadata file (design.md section 3).
struct KernelMetadata {
  /// The PTX entry name.
  std::string kernel;
  unsigned numWarps = 4;
  unsigned threadsPerBlock = 128;
  /// Dynamic shared memory in bytes the launch must provide.
  unsigned sharedBytes = 0;
  std::string arch = "sm_90";
  /// Bytes of global memory each program needs for itself (the tensor maps
  /// of its bulk copies that it builds). When not 0 the PTX entry takes one
  /// more pointer after `params` and `tensorMaps`: the address of programs x globalScratchBytes bytes,
  /// 128-byte aligned, that the launch provides (the runtime allocates it
  /// on the launch's stream).
  unsigned globalScratchBytes = 0;
  /// Deterministic atomics (tilec --deterministic): the PTX entry takes one
  /// more pointer, last: 4 bytes per program of zeroed global memory, the
  /// turnstiles by which programs take turns at their floating-point atomic
  /// adds (the runtime allocates and zeroes it on the launch's stream).
  bool turnstiles = false;
  /// Tensor maps the launch builds and passes after `params` (before the
  /// global scratch).
  std::vector<TensorMapInfo> tensorMaps;
  /// Software-pipeline stages the kernel was compiled for (Triton's
  /// num_stages); informational, a launch does not need it.
  unsigned numStages = 3;
  std::vector<ParamInfo> params;
  /// Constexpr name -> value as JSON text, e.g. "1024", "1.5", "true".
  std::vector<std::pair<std::string, std::string>> constexprs;

  /// Parses metadata JSON. Throws tile::Error("invalid kernel metadata: ...")
  /// naming what is wrong (syntax error position, missing or mistyped field).
  static KernelMetadata fromJSON(std::string_view text);

  /// Serializes to the JSON that fromJSON reads back; throws tile::Error if a
  /// constexpr value is not valid JSON text.
  std::string toJSON() const;
};

/// True when `type` is one of the parameter types listed in ParamInfo.
bool isKnownParamType(std::string_view type);

} // namespace tile

#endif // TILE_METADATA_H
