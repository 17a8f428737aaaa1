//===- CaseBuilder.h - What every kernel family draws alike -----*- C++ -*-===//
//
// Problem extents (1, primes, powers of two and their neighbours, anything),
// block sizes (powers of two, as Triton requires), input data on grids that
// make sums exact or drawn uniformly (and, where asked, with inf, nan, -0
// and subnormals), and the parameter list: buffers and scalars in the order
// a family adds them, constexprs last.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_DIFFERENTIAL_CASEBUILDER_H
#define TILEC_DIFFERENTIAL_CASEBUILDER_H

#include "KernelCase.h"
#include "Random.h"

#include <string>
#include <vector>

namespace difftest {

/// A problem extent in [1, maxValue]: 1, a prime, a power of two or one
/// off it, or any number.
int randomExtent(Rng &rng, int maxValue);
/// A power of two in [lo, hi] (both powers of two).
int randomPow2(Rng &rng, int lo, int hi);
int nextPow2(int v);
inline int cdiv(int a, int b) { return (a + b - 1) / b; }

enum class DataKind {
  SmallInt, ///< integers in [-r, r]: sums and products exact
  Dyadic,   ///< multiples of 1/8 in [-4, 4]
  Uniform,  ///< uniform in [-a, a], rounded to the dtype
  Special,  ///< uniform with inf, -inf, nan, +-0 and subnormals among them
};

/// Random elements of a dtype, with what the expression analysis needs.
struct Data {
  std::vector<double> values;
  double mag = 0; ///< bound on the finite values' magnitude
  int q = -1;     ///< a multiple of 2^-q each (floats), -1 unknown
  bool special = false;
};

Data randomData(Rng &rng, DType dt, size_t n, DataKind kind);
/// fp32, fp16, bf16, int32 or int8 (floats only without `ints`).
DType randomDType(Rng &rng, bool ints = true);
/// A masked load's `other=`: a small exact number of the dtype (inf or nan
/// too with `special`).
double randomOther(Rng &rng, DType dt, bool special);
/// A kind for a float input: grids half the time, specials when allowed.
DataKind randomKind(Rng &rng, bool allowSpecial);

class CaseBuilder {
public:
  CaseBuilder(Rng &rng, KernelCase &c) : rng(rng), c(c) {}

  /// A pointer parameter; returns the buffer's index. Some buffers are
  /// passed misaligned (a pointer off 16 bytes).
  size_t buffer(const std::string &name, DType dt, std::vector<double> init,
                bool output);
  /// An output of `n` elements, filled with random values of its dtype
  /// (what the kernel leaves alone must stay so).
  size_t output(const std::string &name, DType dt, size_t n);
  void scalarInt(const std::string &name, int32_t value);
  void scalarFloat(const std::string &name, float value);
  void constexprInt(const std::string &name, int64_t value);

  /// The module: imports, @triton.jit and the def line, then `body`.
  void finish(const std::string &kernel, const std::vector<std::string> &body);
  /// Random num_warps and arch.
  void randomTarget();

private:
  Rng &rng;
  KernelCase &c;
  std::vector<std::string> names;
};

} // namespace difftest

#endif // TILEC_DIFFERENTIAL_CASEBUILDER_H
