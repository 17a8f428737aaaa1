//===- ExprBuilder.h - Random elementwise computations ----------*- C++ -*-===//
//
// Builds a random straight-line computation over a kernel's loaded tiles
// (the leaves), one `tN = ...` statement per operation, and keeps for each
// value what the generator needs to judge the results:
//
//   - the Python text, and the dtype Triton gives it;
//   - an evaluator: the value of every node for given leaf values, rounded
//     as Triton's semantics round (the C++ reference);
//   - `mag`, a bound on |value|, and `err`, a bound on how far two faithful
//     implementations may differ. They differ where one may fuse a * b + c
//     into an fma, where the GPU approximates (`/` is div.full, exp, log,
//     sqrt are the approx instructions), and wherever a difference already
//     in an operand carries through. Values with err == 0 are bit for bit
//     the same everywhere: only those feed comparisons, casts to integers,
//     floor and ceil, so that a last-bit difference never flips a branch;
//   - `q`: the values are multiples of 2^-q (q = -1: unknown). Within
//     mag * 2^q <= 2^precision no operation rounds, so inputs drawn on such
//     grids (small integers, dyadics) give exact sums, products and dots,
//     compared without tolerance.
//
// Magnitudes stay under a cap per dtype (1e4 for fp16), so no finite input
// overflows; special inputs (inf, nan) get only the operations whose IEEE
// results are fixed (+ - * min max abs where compares, casts among floats).
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_DIFFERENTIAL_EXPRBUILDER_H
#define TILEC_DIFFERENTIAL_EXPRBUILDER_H

#include "DType.h"
#include "Random.h"

#include <string>
#include <vector>

namespace difftest {

enum class Op : uint8_t {
  Leaf,
  Const,
  Add,
  Sub,
  Mul,
  Div,
  DivRn,
  FloorDiv,
  Mod,
  And,
  Or,
  Xor,
  Shl,
  Shr,
  Max,
  Min,
  Neg,
  Abs,
  Not,
  Cast,
  Exp,
  Exp2,
  Log,
  Log2,
  Sqrt,
  SqrtRn,
  Sigmoid,
  Floor,
  Ceil,
  Fma,
  Clamp,
  Where,
  Lt,
  Le,
  Gt,
  Ge,
  Eq,
  Ne,
  LogicalAnd,
  LogicalOr,
};

/// One value of the computation.
struct Node {
  Op op = Op::Leaf;
  DType dt = DType::F32;
  int a = -1, b = -1, c = -1; ///< operands
  double k = 0, k2 = 0;       ///< Const's value; Clamp's bounds
  int leaf = -1;              ///< Leaf's index among the leaves
  std::string text;           ///< how the kernel names it

  double mag = 0;
  double err = 0;
  int q = -1;
  /// The rounding an fma could skip: set on inexact products.
  double fusable = 0;
  /// May be inf or nan (from special inputs).
  bool special = false;
  /// A runtime scalar: combined only with tiles of its own dtype (Triton
  /// and tilec agree there).
  bool scalar = false;
};

class ExprBuilder {
public:
  struct Options {
    bool math = true;    ///< exp, log, sqrt, sigmoid, div
    bool bitwise = true; ///< & | ^ << >> ~ // %
    bool casts = true;
  };

  /// Statements go to `lines`, each after `indent`; temporaries are named
  /// `<prefix>N`.
  ExprBuilder(Rng &rng, std::vector<std::string> &lines, std::string indent,
              std::string prefix, Options options);

  /// A loaded tile (or scalar) the computation may use.
  int leaf(const std::string &text, DType dt, double mag, int q,
           bool special = false, bool scalar = false);
  /// `ops` random operations over the leaves (and constants); returns the
  /// last value.
  int random(int ops);
  /// `id` converted to `dt` (with a clamp first where a float goes to an
  /// integer type, or a float down to fp16 beyond its cap).
  int castTo(int id, DType dt);
  /// `tl.where(cond, id, other)` etc. for the families: a value of `id`'s
  /// dtype made from a constant.
  int constant(DType dt, double value);

  const Node &node(int id) const { return nodes[size_t(id)]; }
  size_t size() const { return nodes.size(); }
  size_t leafCount() const { return leaves; }

  /// Every node's value for these leaf values (`regs` is resized).
  void evaluate(const std::vector<double> &leafValues,
                std::vector<double> &regs) const;

  /// The largest magnitude a value of `dt` may reach here.
  static double cap(DType dt);
  /// Whether multiples of 2^-q up to mag are all exact in dt.
  static bool onGrid(DType dt, double mag, int q);

private:
  int emit(Node n, const std::string &expr);
  int tryOp(int kind);
  int pickValue(bool (*filter)(const Node &), bool preferRecent = true);
  int binary(Op op, int a, int b);
  int unary(Op op, int a);
  int toFloat32(int a);
  /// tl.clamp(a, lo, hi) on a float.
  int clamp(int a, double lo, double hi);
  int compareOp(Op op, int a, int b);
  int randomConstantFor(int other);
  double eval(const Node &n, const std::vector<double> &regs,
              const std::vector<double> &leafValues) const;

  Rng &rng;
  std::vector<std::string> &lines;
  std::string indent, prefix;
  Options options;
  std::vector<Node> nodes;
  size_t leaves = 0;
  int temps = 0;
};

/// A Python literal of `v` ("0.5", "-3.0", "7") for a float or an integer
/// type.
std::string literal(double v, bool isFloat);

} // namespace difftest

#endif // TILEC_DIFFERENTIAL_EXPRBUILDER_H
