//===- Arith.cpp - arith and math ops in the tile interpreter -------------===//
//
// Elementwise on scalars and tiles with Triton's semantics: integers wrap at
// their width, signed division truncates toward zero, every float result is
// rounded to its type (nearest-even) after each op, casts are C's (float to
// integer truncates, saturating, NaN to 0).
//
//===----------------------------------------------------------------------===//

#include "Executor.h"

#include "tilec/Dialect/Tile/IR/Libdevice.h"
#include "tilec/Dialect/Tile/IR/Tile.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/ADT/bit.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace tilec::interp;

namespace {

using I = int64_t;
using U = uint64_t;

LogicalResult sizeError(Executor &ex, Operation *op) {
  return ex.fail(op, "operands of '" + op->getName().getStringRef() +
                         "' do not have the result's shape at " + ex.program());
}

/// `v` has `n` elements, or one to broadcast.
bool fits(const TValue &v, size_t n) { return v.size() == n || v.size() == 1; }

double toDouble(APFloat value) {
  bool losesInfo = false;
  value.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven,
                &losesInfo);
  return value.convertToDouble();
}

/// Stores `f(x)` rounded to the result's format, for every element.
template <typename F> void storeFloats(TValue &r, size_t n, F f) {
  double *z = r.floats.data();
  switch (r.kind) {
  case ElemKind::F32:
    for (size_t i = 0; i < n; ++i)
      z[i] = double(float(f(i)));
    break;
  case ElemKind::F64:
    for (size_t i = 0; i < n; ++i)
      z[i] = f(i);
    break;
  default:
    for (size_t i = 0; i < n; ++i)
      z[i] = roundToFormatSlow(f(i), r.kind);
  }
}

template <typename F>
LogicalResult intBinary(Executor &ex, Operation *op, F f) {
  const TValue &a = ex.get(op->getOperand(0)), &b = ex.get(op->getOperand(1));
  TValue &r = ex.define(op->getResult(0));
  size_t n = r.size();
  if (a.size() != n || b.size() != n)
    return sizeError(ex, op);
  unsigned w = bitWidth(r.kind);
  const I *x = a.ints.data(), *y = b.ints.data();
  I *z = r.ints.data();
  for (size_t i = 0; i < n; ++i)
    z[i] = wrapInt(f(x[i], y[i], w), w);
  return success();
}

/// `f` of each element's bits (zero-extended from `w`), wrapped to `w`.
template <typename F> LogicalResult intUnary(Executor &ex, Operation *op, F f) {
  const TValue &a = ex.get(op->getOperand(0));
  TValue &r = ex.define(op->getResult(0));
  size_t n = r.size();
  if (a.size() != n)
    return sizeError(ex, op);
  unsigned w = bitWidth(r.kind);
  for (size_t i = 0; i < n; ++i)
    r.ints[i] = wrapInt(f(zeroExtend(a.ints[i], w), w), w);
  return success();
}

template <typename F>
LogicalResult floatBinary(Executor &ex, Operation *op, F f) {
  const TValue &a = ex.get(op->getOperand(0)), &b = ex.get(op->getOperand(1));
  TValue &r = ex.define(op->getResult(0));
  size_t n = r.size();
  if (a.size() != n || b.size() != n)
    return sizeError(ex, op);
  const double *x = a.floats.data(), *y = b.floats.data();
  storeFloats(r, n, [&](size_t i) { return f(x[i], y[i]); });
  return success();
}

template <typename F>
LogicalResult floatUnary(Executor &ex, Operation *op, F f) {
  const TValue &a = ex.get(op->getOperand(0));
  TValue &r = ex.define(op->getResult(0));
  size_t n = r.size();
  if (a.size() != n)
    return sizeError(ex, op);
  const double *x = a.floats.data();
  storeFloats(r, n, [&](size_t i) { return f(x[i]); });
  return success();
}

/// An fp32 op that the GPU computes with one flush-to-zero instruction
/// (MathToNVVM: floor, ceil, exp2, rsqrt and the approximate sqrt, as under
/// Triton's nvvm-reflect-ftz): subnormal inputs and results become zeros of
/// their sign. 16-bit floats compute in f32, where theirs are normal.
template <typename F>
LogicalResult flushingUnary(Executor &ex, Operation *op, F f) {
  if (ex.get(op->getOperand(0)).kind != ElemKind::F32)
    return floatUnary(ex, op, f);
  auto flush = [](double x) {
    return std::fabs(x) < double(std::numeric_limits<float>::min())
               ? std::copysign(0.0, x)
               : x;
  };
  return floatUnary(ex, op, [&](double x) { return flush(f(flush(x))); });
}

/// A 64-bit magnitude as a double that rounds to `kind` as `m` itself
/// would, once: for f64 the nearest; for narrower floats, past 53 bits,
/// rounded to odd (toward zero, the last bit set where that dropped
/// anything), which the rounding to `kind` then cannot round twice.
double toDoubleRoundedOnce(U m, ElemKind kind) {
  if (kind == ElemKind::F64 || m < (U(1) << 53))
    return double(m);
  int shift = 64 - 53 - llvm::countl_zero(m);
  U kept = (m >> shift) | U((m & ((U(1) << shift) - 1)) != 0);
  return std::ldexp(double(kept), shift);
}

/// A libdevice function, computed by its reference in double precision.
LogicalResult externElementwise(Executor &ex, tile::ExternElementwiseOp op) {
  const tile::LibdeviceFunction *function = tile::lookupLibdeviceSymbol(
      op.getSymbol(), getElementTypeOrSelf(op.getType()));
  TValue &r = ex.define(op.getResult());
  size_t n = r.size();
  SmallVector<const double *, 3> srcs;
  for (Value src : op.getSrcs()) {
    const TValue &a = ex.get(src);
    if (a.size() != n)
      return sizeError(ex, op);
    srcs.push_back(a.floats.data());
  }
  SmallVector<double, 3> args(srcs.size());
  storeFloats(r, n, [&](size_t i) {
    for (auto [arg, src] : llvm::zip(args, srcs))
      arg = src[i];
    return tile::evaluateLibdevice(*function, args, r.kind == ElemKind::F32);
  });
  return success();
}

/// What an integer division by zero gives: the GPU's answer for / and %,
/// an error for the others.
enum class ByZero { Quotient, Remainder, Error };

/// The GPU's x / 0 and x % 0 (measured on the H100, Triton's the same):
/// NVPTX's 32-bit division (to which LLVM takes 8-, 16- and 64-bit ones
/// whose operands fit in 32 bits) gives a quotient of all ones and the
/// dividend as remainder; ptxas's 64-bit division gives all ones too.
I divideByZero(ByZero kind, I x, unsigned w) {
  if (kind == ByZero::Remainder)
    return x;
  if (w == 64 && zeroExtend(x, 64) >> 32 == 0)
    return I(0xFFFFFFFF);
  return wrapInt(-1, w);
}

/// Integer division and remainder: `f` runs on nonzero divisors only.
template <typename F>
LogicalResult intDivision(Executor &ex, Operation *op, bool isUnsigned,
                          ByZero byZero, F f) {
  const TValue &a = ex.get(op->getOperand(0)), &b = ex.get(op->getOperand(1));
  TValue &r = ex.define(op->getResult(0));
  size_t n = r.size();
  if (a.size() != n || b.size() != n)
    return sizeError(ex, op);
  unsigned w = bitWidth(r.kind);
  for (size_t i = 0; i < n; ++i) {
    I x = a.ints[i], y = b.ints[i];
    if (y == 0 && byZero != ByZero::Error)
      r.ints[i] = divideByZero(byZero, x, w);
    else if (y == 0)
      return ex.fail(op, "integer division by zero in '" +
                             op->getName().getStringRef() + "'" +
                             (r.isScalar()
                                  ? std::string()
                                  : " at element " + formatIndex(r.shape, i)) +
                             " at " + ex.program());
    else if (isUnsigned)
      r.ints[i] = wrapInt(I(f(zeroExtend(x, w), zeroExtend(y, w))), w);
    else if (x == std::numeric_limits<I>::min() && y == -1)
      r.ints[i] = wrapInt(I(f(U(x), U(y))), w); // i64 overflow: see below
    else
      r.ints[i] = wrapInt(f(x, y), w);
  }
  return success();
}

LogicalResult compareInts(Executor &ex, arith::CmpIOp op) {
  const TValue &a = ex.get(op.getLhs()), &b = ex.get(op.getRhs());
  TValue &r = ex.define(op.getResult());
  size_t n = r.size();
  if (a.size() != n || b.size() != n)
    return sizeError(ex, op);
  unsigned w = bitWidth(a.kind);
  const I *x = a.ints.data(), *y = b.ints.data();
  I *z = r.ints.data();
  auto loop = [&](auto f) {
    for (size_t i = 0; i < n; ++i)
      z[i] = f(x[i], y[i]) ? -1 : 0;
  };
  auto u = [w](I v) { return zeroExtend(v, w); };
  switch (op.getPredicate()) {
  case arith::CmpIPredicate::eq:
    loop([](I p, I q) { return p == q; });
    break;
  case arith::CmpIPredicate::ne:
    loop([](I p, I q) { return p != q; });
    break;
  case arith::CmpIPredicate::slt:
    loop([](I p, I q) { return p < q; });
    break;
  case arith::CmpIPredicate::sle:
    loop([](I p, I q) { return p <= q; });
    break;
  case arith::CmpIPredicate::sgt:
    loop([](I p, I q) { return p > q; });
    break;
  case arith::CmpIPredicate::sge:
    loop([](I p, I q) { return p >= q; });
    break;
  case arith::CmpIPredicate::ult:
    loop([&](I p, I q) { return u(p) < u(q); });
    break;
  case arith::CmpIPredicate::ule:
    loop([&](I p, I q) { return u(p) <= u(q); });
    break;
  case arith::CmpIPredicate::ugt:
    loop([&](I p, I q) { return u(p) > u(q); });
    break;
  case arith::CmpIPredicate::uge:
    loop([&](I p, I q) { return u(p) >= u(q); });
    break;
  }
  return success();
}

bool compareFloat(arith::CmpFPredicate predicate, double x, double y) {
  bool unordered = std::isnan(x) || std::isnan(y);
  using P = arith::CmpFPredicate;
  switch (predicate) {
  case P::AlwaysFalse:
    return false;
  case P::OEQ:
    return !unordered && x == y;
  case P::OGT:
    return !unordered && x > y;
  case P::OGE:
    return !unordered && x >= y;
  case P::OLT:
    return !unordered && x < y;
  case P::OLE:
    return !unordered && x <= y;
  case P::ONE:
    return !unordered && x != y;
  case P::ORD:
    return !unordered;
  case P::UEQ:
    return unordered || x == y;
  case P::UGT:
    return unordered || x > y;
  case P::UGE:
    return unordered || x >= y;
  case P::ULT:
    return unordered || x < y;
  case P::ULE:
    return unordered || x <= y;
  case P::UNE:
    return unordered || x != y;
  case P::UNO:
    return unordered;
  case P::AlwaysTrue:
    return true;
  }
  return false;
}

LogicalResult compareFloats(Executor &ex, arith::CmpFOp op) {
  const TValue &a = ex.get(op.getLhs()), &b = ex.get(op.getRhs());
  TValue &r = ex.define(op.getResult());
  size_t n = r.size();
  if (a.size() != n || b.size() != n)
    return sizeError(ex, op);
  arith::CmpFPredicate predicate = op.getPredicate();
  for (size_t i = 0; i < n; ++i)
    r.ints[i] = compareFloat(predicate, a.floats[i], b.floats[i]) ? -1 : 0;
  return success();
}

LogicalResult selectOp(Executor &ex, arith::SelectOp op) {
  const TValue &c = ex.get(op.getCondition());
  const TValue &a = ex.get(op.getTrueValue()), &b = ex.get(op.getFalseValue());
  TValue &r = ex.define(op.getResult());
  size_t n = r.size();
  if (!fits(c, n) || a.size() != n || b.size() != n)
    return sizeError(ex, op);
  size_t step = c.size() != 1;
  for (size_t i = 0; i < n; ++i)
    r.copyElement(i, c.ints[i * step] ? a : b, i);
  return success();
}

LogicalResult constant(Executor &ex, arith::ConstantOp op) {
  TValue &r = ex.define(op.getResult());
  Attribute value = op.getValue();
  bool intKind = isInt(r.kind);
  auto fill = [&](I i, double f) {
    if (intKind)
      std::fill(r.ints.begin(), r.ints.end(), i);
    else
      std::fill(r.floats.begin(), r.floats.end(), f);
  };
  if (auto integer = dyn_cast<IntegerAttr>(value)) {
    fill(integer.getValue().getSExtValue(), 0);
  } else if (auto real = dyn_cast<FloatAttr>(value)) {
    fill(0, toDouble(real.getValue()));
  } else if (auto dense = dyn_cast<DenseElementsAttr>(value)) {
    if (dense.getNumElements() != int64_t(r.size()) ||
        !(intKind ? dense.getElementType().isIntOrIndex()
                  : isa<FloatType>(dense.getElementType())))
      return ex.fail(op, "a constant of an unexpected shape or type");
    if (dense.isSplat())
      fill(intKind ? dense.getSplatValue<APInt>().getSExtValue() : 0,
           intKind ? 0 : toDouble(dense.getSplatValue<APFloat>()));
    else if (intKind)
      for (auto [i, v] : llvm::enumerate(dense.getValues<APInt>()))
        r.ints[i] = v.getSExtValue();
    else
      for (auto [i, v] : llvm::enumerate(dense.getValues<APFloat>()))
        r.floats[i] = toDouble(v);
  } else {
    return ex.fail(op, "the interpreter does not support this constant");
  }
  return success();
}

/// Casts between integer and float kinds.
LogicalResult convert(Executor &ex, Operation *op) {
  const TValue &a = ex.get(op->getOperand(0));
  TValue &r = ex.define(op->getResult(0));
  size_t n = r.size();
  if (a.size() != n)
    return sizeError(ex, op);
  unsigned from = bitWidth(a.kind), to = bitWidth(r.kind);
  auto toInt = [&](auto f) {
    for (size_t i = 0; i < n; ++i)
      r.ints[i] = wrapInt(f(i), to);
  };
  // Float to integer: truncation toward zero, saturating, NaN to 0 (what
  // PTX's cvt.rzi does, where C leaves it undefined).
  auto fromFloat = [&](bool isUnsigned) {
    double lo = isUnsigned ? 0 : -std::ldexp(1.0, int(to) - 1);
    double hi =
        isUnsigned ? std::ldexp(1.0, int(to)) : std::ldexp(1.0, int(to) - 1);
    toInt([&](size_t i) -> I {
      double x = std::trunc(a.floats[i]);
      if (std::isnan(x))
        return 0;
      if (x < lo)
        return isUnsigned ? 0 : I(U(1) << 63) >> (64 - to);
      if (x >= hi)
        return isUnsigned ? I(zeroExtend(-1, to)) : I((U(1) << (to - 1)) - 1);
      return isUnsigned && x >= 9223372036854775808.0 ? I(U(x)) : I(x);
    });
  };
  return llvm::TypeSwitch<Operation *, LogicalResult>(op)
      .Case<arith::ExtSIOp, arith::TruncIOp, arith::IndexCastOp>([&](auto) {
        toInt([&](size_t i) { return a.ints[i]; });
        return success();
      })
      .Case<arith::ExtUIOp, arith::IndexCastUIOp>([&](auto) {
        toInt([&](size_t i) { return I(zeroExtend(a.ints[i], from)); });
        return success();
      })
      .Case([&](arith::SIToFPOp) {
        storeFloats(r, n, [&](size_t i) {
          I x = a.ints[i];
          double m = toDoubleRoundedOnce(x < 0 ? U(0) - U(x) : U(x), r.kind);
          return x < 0 ? -m : m;
        });
        return success();
      })
      .Case([&](arith::UIToFPOp) {
        storeFloats(r, n, [&](size_t i) {
          return toDoubleRoundedOnce(zeroExtend(a.ints[i], from), r.kind);
        });
        return success();
      })
      .Case([&](arith::ExtFOp) {
        storeFloats(r, n, [&](size_t i) { return a.floats[i]; });
        return success();
      })
      .Case([&](arith::TruncFOp truncf) {
        if (truncf.getRoundingmode() != arith::RoundingMode::toward_zero) {
          storeFloats(r, n, [&](size_t i) { return a.floats[i]; });
          return success();
        }
        // Toward zero (PTX's cvt.rz): past the largest finite value, that
        // value; the result is exact in its format, so storing keeps it.
        if (r.kind != ElemKind::F32 && r.kind != ElemKind::F16 &&
            r.kind != ElemKind::BF16)
          return ex.fail(op, "the interpreter rounds toward zero only to "
                             "f32, f16 and bf16");
        const llvm::fltSemantics &format =
            r.kind == ElemKind::F32    ? APFloat::IEEEsingle()
            : r.kind == ElemKind::BF16 ? APFloat::BFloat()
                                       : APFloat::IEEEhalf();
        storeFloats(r, n, [&](size_t i) {
          APFloat value(a.floats[i]);
          bool losesInfo = false;
          value.convert(format, APFloat::rmTowardZero, &losesInfo);
          return toDouble(value);
        });
        return success();
      })
      .Case([&](arith::FPToSIOp) {
        fromFloat(false);
        return success();
      })
      .Case([&](arith::FPToUIOp) {
        fromFloat(true);
        return success();
      })
      .Case([&](arith::BitcastOp) {
        if (from != to || r.kind == ElemKind::Ptr || a.kind == ElemKind::Ptr)
          return ex.fail(op, "the interpreter does not support this bitcast");
        for (size_t i = 0; i < n; ++i) {
          uint8_t bytes[8] = {};
          int64_t ii = 0;
          double ff = 0;
          writeElement(bytes, a.kind, isInt(a.kind) ? a.ints[i] : 0,
                       isInt(a.kind) ? 0 : a.floats[i]);
          readElement(bytes, r.kind, ii, ff);
          if (isInt(r.kind))
            r.ints[i] = ii;
          else
            r.floats[i] = ff;
        }
        return success();
      })
      .Default([&](Operation *) {
        return ex.fail(op, "the interpreter does not support '" +
                               op->getName().getStringRef() + "'");
      });
}

I shiftLeft(I x, I y, unsigned w) { return U(y) >= w ? 0 : I(U(x) << y); }
I shiftRightSigned(I x, I y, unsigned w) {
  return U(y) >= w ? (x < 0 ? -1 : 0) : (x >> y);
}
I shiftRightUnsigned(I x, I y, unsigned w) {
  return U(y) >= w ? 0 : I(zeroExtend(x, w) >> y);
}

double maxNum(double x, double y) { return std::fmax(x, y); }
double minNum(double x, double y) { return std::fmin(x, y); }
double maximum(double x, double y) {
  if (std::isnan(x) || std::isnan(y))
    return std::nan("");
  if (x == 0 && y == 0)
    return std::signbit(x) ? y : x;
  return x > y ? x : y;
}
double minimum(double x, double y) {
  if (std::isnan(x) || std::isnan(y))
    return std::nan("");
  if (x == 0 && y == 0)
    return std::signbit(x) ? x : y;
  return x < y ? x : y;
}

} // namespace

bool tilec::interp::isArithOp(Operation *op) {
  return isa<
      arith::ConstantOp, arith::AddIOp, arith::SubIOp, arith::MulIOp,
      arith::DivSIOp, arith::RemSIOp, arith::DivUIOp, arith::RemUIOp,
      arith::CeilDivSIOp, arith::FloorDivSIOp, arith::AndIOp, arith::OrIOp,
      arith::XOrIOp, arith::ShLIOp, arith::ShRSIOp, arith::ShRUIOp,
      arith::MaxSIOp, arith::MinSIOp, arith::MaxUIOp, arith::MinUIOp,
      arith::AddFOp, arith::SubFOp, arith::MulFOp, arith::DivFOp, arith::RemFOp,
      arith::NegFOp, arith::MaxNumFOp, arith::MinNumFOp, arith::MaximumFOp,
      arith::MinimumFOp, arith::CmpIOp, arith::CmpFOp, arith::SelectOp,
      arith::ExtSIOp, arith::ExtUIOp, arith::TruncIOp, arith::IndexCastOp,
      arith::IndexCastUIOp, arith::SIToFPOp, arith::UIToFPOp, arith::FPToSIOp,
      arith::FPToUIOp, arith::ExtFOp, arith::TruncFOp, arith::BitcastOp,
      math::ExpOp, math::Exp2Op, math::LogOp, math::Log2Op, math::SqrtOp,
      math::RsqrtOp, math::AbsFOp, math::AbsIOp, math::SinOp, math::CosOp,
      math::TanhOp, math::FloorOp, math::CeilOp, math::TruncOp, math::ErfOp,
      math::Log1pOp, math::ExpM1Op, math::FmaOp, math::PowFOp,
      math::CopySignOp, math::CtPopOp, math::CountLeadingZerosOp,
      math::CountTrailingZerosOp, tile::ExternElementwiseOp>(op);
}

LogicalResult tilec::interp::executeArith(Executor &ex, Operation *op) {
  auto unary = [&](double (*f)(double)) { return floatUnary(ex, op, f); };
  return llvm::TypeSwitch<Operation *, LogicalResult>(op)
      .Case([&](arith::ConstantOp c) { return constant(ex, c); })
      // Integers: computed on 64 bits unsigned (no undefined overflow),
      // then wrapped to the result's width.
      .Case([&](arith::AddIOp) {
        return intBinary(ex, op,
                         [](I x, I y, unsigned) { return I(U(x) + U(y)); });
      })
      .Case([&](arith::SubIOp) {
        return intBinary(ex, op,
                         [](I x, I y, unsigned) { return I(U(x) - U(y)); });
      })
      .Case([&](arith::MulIOp) {
        return intBinary(ex, op,
                         [](I x, I y, unsigned) { return I(U(x) * U(y)); });
      })
      .Case([&](arith::AndIOp) {
        return intBinary(ex, op, [](I x, I y, unsigned) { return x & y; });
      })
      .Case([&](arith::OrIOp) {
        return intBinary(ex, op, [](I x, I y, unsigned) { return x | y; });
      })
      .Case([&](arith::XOrIOp) {
        return intBinary(ex, op, [](I x, I y, unsigned) { return x ^ y; });
      })
      .Case([&](arith::ShLIOp) { return intBinary(ex, op, shiftLeft); })
      .Case([&](arith::ShRSIOp) { return intBinary(ex, op, shiftRightSigned); })
      .Case(
          [&](arith::ShRUIOp) { return intBinary(ex, op, shiftRightUnsigned); })
      .Case([&](arith::MaxSIOp) {
        return intBinary(ex, op,
                         [](I x, I y, unsigned) { return std::max(x, y); });
      })
      .Case([&](arith::MinSIOp) {
        return intBinary(ex, op,
                         [](I x, I y, unsigned) { return std::min(x, y); });
      })
      .Case([&](arith::MaxUIOp) {
        return intBinary(ex, op, [](I x, I y, unsigned w) {
          return zeroExtend(x, w) > zeroExtend(y, w) ? x : y;
        });
      })
      .Case([&](arith::MinUIOp) {
        return intBinary(ex, op, [](I x, I y, unsigned w) {
          return zeroExtend(x, w) < zeroExtend(y, w) ? x : y;
        });
      })
      // Signed division truncates toward zero (C's / and %); the one
      // overflow, MIN / -1, wraps to MIN with remainder 0.
      .Case([&](arith::DivSIOp) {
        return intDivision(ex, op, false, ByZero::Quotient, [](auto x, auto y) {
          return y == decltype(y)(-1) ? decltype(x)(U(0) - U(x)) : x / y;
        });
      })
      .Case([&](arith::RemSIOp) {
        return intDivision(ex, op, false, ByZero::Remainder, [](auto x, auto y) {
          return y == decltype(y)(-1) ? decltype(x)(0) : x % y;
        });
      })
      .Case([&](arith::DivUIOp) {
        return intDivision(ex, op, true, ByZero::Quotient,
                           [](auto x, auto y) { return x / y; });
      })
      .Case([&](arith::RemUIOp) {
        return intDivision(ex, op, true, ByZero::Remainder,
                           [](auto x, auto y) { return x % y; });
      })
      .Case([&](arith::FloorDivSIOp) {
        return intDivision(ex, op, false, ByZero::Error, [](auto x, auto y) {
          if (y == decltype(y)(-1))
            return decltype(x)(U(0) - U(x));
          auto q = x / y;
          return (x % y != 0 && ((x < 0) != (y < 0))) ? q - 1 : q;
        });
      })
      .Case([&](arith::CeilDivSIOp) {
        return intDivision(ex, op, false, ByZero::Error, [](auto x, auto y) {
          if (y == decltype(y)(-1))
            return decltype(x)(U(0) - U(x));
          auto q = x / y;
          return (x % y != 0 && ((x < 0) == (y < 0))) ? q + 1 : q;
        });
      })
      // Floats: computed in double, rounded to the result's type.
      .Case([&](arith::AddFOp) {
        return floatBinary(ex, op, [](double x, double y) { return x + y; });
      })
      .Case([&](arith::SubFOp) {
        return floatBinary(ex, op, [](double x, double y) { return x - y; });
      })
      .Case([&](arith::MulFOp) {
        return floatBinary(ex, op, [](double x, double y) { return x * y; });
      })
      .Case([&](arith::DivFOp) {
        return floatBinary(ex, op, [](double x, double y) { return x / y; });
      })
      .Case([&](arith::RemFOp) {
        return floatBinary(ex, op,
                           [](double x, double y) { return std::fmod(x, y); });
      })
      .Case([&](arith::MaxNumFOp) { return floatBinary(ex, op, maxNum); })
      .Case([&](arith::MinNumFOp) { return floatBinary(ex, op, minNum); })
      .Case([&](arith::MaximumFOp) { return floatBinary(ex, op, maximum); })
      .Case([&](arith::MinimumFOp) { return floatBinary(ex, op, minimum); })
      .Case([&](math::PowFOp) {
        return floatBinary(ex, op,
                           [](double x, double y) { return std::pow(x, y); });
      })
      .Case([&](math::CopySignOp) {
        return floatBinary(
            ex, op, [](double x, double y) { return std::copysign(x, y); });
      })
      .Case([&](arith::NegFOp) {
        return floatUnary(ex, op, [](double x) { return -x; });
      })
      .Case([&](tile::ExternElementwiseOp e) { return externElementwise(ex, e); })
      .Case([&](math::ExpOp) { return unary(std::exp); })
      .Case([&](math::Exp2Op) {
        return flushingUnary(ex, op, [](double x) { return std::exp2(x); });
      })
      .Case([&](math::LogOp) { return unary(std::log); })
      .Case([&](math::Log2Op) { return unary(std::log2); })
      .Case([&](math::SqrtOp sqrt) {
        // tl.sqrt (afn) is the approximate instruction; tl.sqrt_rn is not.
        auto f = [](double x) { return std::sqrt(x); };
        return arith::bitEnumContainsAll(sqrt.getFastmath(),
                                         arith::FastMathFlags::afn)
                   ? flushingUnary(ex, op, f)
                   : floatUnary(ex, op, f);
      })
      .Case([&](math::RsqrtOp) {
        return flushingUnary(ex, op,
                             [](double x) { return 1 / std::sqrt(x); });
      })
      .Case([&](math::AbsFOp) { return unary(std::fabs); })
      .Case([&](math::SinOp) { return unary(std::sin); })
      .Case([&](math::CosOp) { return unary(std::cos); })
      .Case([&](math::TanhOp) { return unary(std::tanh); })
      .Case([&](math::FloorOp) {
        return flushingUnary(ex, op, [](double x) { return std::floor(x); });
      })
      .Case([&](math::CeilOp) {
        return flushingUnary(ex, op, [](double x) { return std::ceil(x); });
      })
      .Case([&](math::TruncOp) { return unary(std::trunc); })
      .Case([&](math::ErfOp) { return unary(std::erf); })
      .Case([&](math::Log1pOp) { return unary(std::log1p); })
      .Case([&](math::ExpM1Op) { return unary(std::expm1); })
      .Case([&](math::FmaOp fma) {
        const TValue &a = ex.get(fma.getA()), &b = ex.get(fma.getB()),
                     &c = ex.get(fma.getC());
        TValue &r = ex.define(fma.getResult());
        size_t n = r.size();
        if (a.size() != n || b.size() != n || c.size() != n)
          return sizeError(ex, op);
        storeFloats(r, n, [&](size_t i) {
          return std::fma(a.floats[i], b.floats[i], c.floats[i]);
        });
        return success();
      })
      .Case([&](math::AbsIOp) {
        const TValue &a = ex.get(op->getOperand(0));
        TValue &r = ex.define(op->getResult(0));
        if (a.size() != r.size())
          return sizeError(ex, op);
        unsigned w = bitWidth(r.kind);
        for (size_t i = 0, n = r.size(); i < n; ++i)
          r.ints[i] =
              wrapInt(a.ints[i] < 0 ? I(U(0) - U(a.ints[i])) : a.ints[i], w);
        return success();
      })
      // libdevice.popc, clz and ffs (clz and ctz of 0 are the width, as
      // PTX's).
      .Case([&](math::CtPopOp) {
        return intUnary(ex, op,
                        [](U x, unsigned) { return I(llvm::popcount(x)); });
      })
      .Case([&](math::CountLeadingZerosOp) {
        return intUnary(ex, op, [](U x, unsigned w) {
          return I(llvm::countl_zero(x)) - I(64 - w);
        });
      })
      .Case([&](math::CountTrailingZerosOp) {
        return intUnary(ex, op, [](U x, unsigned w) {
          return x == 0 ? I(w) : I(llvm::countr_zero(x));
        });
      })
      .Case([&](arith::CmpIOp cmp) { return compareInts(ex, cmp); })
      .Case([&](arith::CmpFOp cmp) { return compareFloats(ex, cmp); })
      .Case([&](arith::SelectOp sel) { return selectOp(ex, sel); })
      .Default([&](Operation *) { return convert(ex, op); });
}
