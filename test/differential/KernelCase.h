//===- KernelCase.h - One generated kernel and its launch -------*- C++ -*-===//
//
// What the generator hands the runners: the .tl source, the launch (grid,
// arguments in parameter order, constexprs, warps, stages, arch), every
// buffer's initial contents and, for outputs, the values the generator's C++
// reference expects and the tolerance each element is compared with.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_DIFFERENTIAL_KERNELCASE_H
#define TILEC_DIFFERENTIAL_KERNELCASE_H

#include "DType.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace difftest {

struct Buffer {
  std::string name; ///< the kernel parameter's
  DType dtype = DType::F32;
  std::vector<double> init; ///< the elements before the run
  bool output = false;
  /// After the run (outputs): the reference's values, or empty where the
  /// generator has none (then only the GPU is compared, with the
  /// interpreter).
  std::vector<double> expected;
  /// How far two runs' (or a run's and the reference's) elements may be
  /// apart; empty: exactly equal.
  std::vector<double> tolerance;
  /// Elements between the leading guard and the data: a pointer that is
  /// not 16-byte aligned when offset * size % 16 != 0.
  unsigned offset = 0;
  /// For messages: element i is (i / cols, i % cols) when cols > 0.
  size_t cols = 0;

  size_t size() const { return init.size(); }
};

struct Scalar {
  std::string name;
  bool isFloat = false;
  int32_t i = 0;
  float f = 0;
};

/// A runtime parameter: a buffer or a scalar, by index.
struct Param {
  bool isBuffer = true;
  size_t index = 0;
};

struct KernelCase {
  uint64_t seed = 0;
  /// "elementwise", "reduce", "softmax", "dot", "atomic".
  std::string family;
  /// One line: the variant, shapes, dtypes and blocks.
  std::string summary;
  std::string source;
  std::string kernel; ///< the @triton.jit function's name
  std::vector<Buffer> buffers;
  std::vector<Scalar> scalars;
  std::vector<Param> params;
  std::vector<std::pair<std::string, int64_t>> constexprs;
  unsigned grid[3] = {1, 1, 1};
  unsigned numWarps = 4;
  unsigned numStages = 3;
  /// The compile target: sm_90a (the JIT's choice on Hopper), sm_90 or
  /// sm_80 (the H100 runs PTX for either).
  std::string arch = "sm_90a";
  /// CTAs per program that split a dot's K loop (--cluster-split-k; the
  /// interpreter runs one program as one).
  unsigned clusterSplitK = 1;
  /// Buffers' `expected` hold the reference.
  bool reference = false;
};

/// The program's view of a case for --print: the source and the launch as
/// comments.
std::string describe(const KernelCase &c);

} // namespace difftest

#endif // TILEC_DIFFERENTIAL_KERNELCASE_H
