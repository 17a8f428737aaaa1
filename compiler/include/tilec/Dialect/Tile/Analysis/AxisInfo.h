//===- AxisInfo.h - Contiguity, divisibility, constancy ---------*- C++ -*-===//
//
// What the layout and memory lowering need to know about integer and pointer
// tiles to vectorize: along each dimension, how long the runs of consecutive
// values are, what power of two divides their first values, and how long the
// runs of equal values are. Same definitions as Triton's AxisInfo.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_DIALECT_TILE_ANALYSIS_AXISINFO_H
#define TILEC_DIALECT_TILE_ANALYSIS_AXISINFO_H

#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace mlir::scf {
class ForOp;
} // namespace mlir::scf
namespace mlir::func {
class FuncOp;
} // namespace mlir::func

namespace mlir::tile {

/// Facts about one value, per dimension (one entry for a scalar).
struct AxisInfo {
  /// Values come in runs of `contiguity[d]` consecutive integers (pointers:
  /// consecutive elements), each run starting at a multiple of its length.
  SmallVector<int64_t> contiguity;
  /// The first value of each such run is a multiple of `divisibility[d]`
  /// (pointers: in bytes).
  SmallVector<int64_t> divisibility;
  /// Values come in runs of `constancy[d]` equal values, aligned likewise.
  SmallVector<int64_t> constancy;
  /// The value when it is one compile-time integer for all elements.
  std::optional<int64_t> constant;

  unsigned getRank() const { return contiguity.size(); }
  /// Nothing known, for a value of `rank` dimensions (0: scalar).
  static AxisInfo unknown(unsigned rank);
  bool operator==(const AxisInfo &other) const;
  void print(llvm::raw_ostream &os) const;
};

/// The largest power of two (up to 2^30) that divides `value`.
int64_t highestPowerOf2Divisor(int64_t value);

/// Name of the function-argument attribute that carries a specialization's
/// divisibility (`--signature "*fp32:16"`).

/// AxisInfo for every value in a function, computed in one forward walk
/// (loops to a fixed point), with the facts of `tile.hint` and of
/// `tile.assume(x % k == 0)`.
class AxisInfoAnalysis {
public:
  explicit AxisInfoAnalysis(Operation *root);
  const AxisInfo &get(Value value);

  /// Elements a thread can access as one vector along dimension `dim`
  /// through pointers `ptr` of element size `elemBytes` under `mask`
  /// (may be null), bounded by 16 bytes.
  unsigned getMaxVectorWidth(Value ptr, Value mask, unsigned dim,
                             unsigned elemBytes);
  /// The runs of consecutive elements `ptr` points to along dimension
  /// `dim`, whatever their alignment: the largest power of two dividing
  /// the analysis's runs.
  unsigned getContiguousRun(Value ptr, unsigned dim);

private:
  /// Visits the ops of `block` in order, loops to a fixed point.
  void visitBlock(Block &block);
  void visitLoop(scf::ForOp loop);
  void visitFunc(func::FuncOp func);
  void visit(Operation *op);
  /// Raises a scalar's divisibility to what `tile.assume`s say of it.
  void applyAssumptions(Value value, AxisInfo &info);
  llvm::DenseMap<Value, AxisInfo> infos;
  /// Divisors `tile.assume(x % k == 0)` asserts, by value.
  llvm::DenseMap<Value, int64_t> assumedDivisibility;
};

} // namespace mlir::tile

#endif // TILEC_DIALECT_TILE_ANALYSIS_AXISINFO_H
