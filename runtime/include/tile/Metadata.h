//===- Metadata.h - Kernel metadata (the .json beside the PTX) --*- C++ -*-===//
//
// tilec writes `k.json` beside `k.ptx`: everything a host needs to launch the
// kernel (entry name, block size, dynamic shared memory, parameter types and
// the specialization assumptions the code was compiled under).
//
//===----------------------------------------------------------------------===//

#ifndef TILE_METADATA_H
#define TILE_METADATA_H

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
  /// of its bulk copies). When not 0 the PTX entry takes one more pointer
  /// after `params`: the address of programs x globalScratchBytes bytes,
  /// 128-byte aligned, that the launch provides (the runtime allocates it
  /// on the launch's stream).
  unsigned globalScratchBytes = 0;
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
