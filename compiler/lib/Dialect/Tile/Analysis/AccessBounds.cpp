//===- AccessBounds.cpp - What a kernel's memory accesses reach -----------===//
//
// Every integer on the way to an address is followed symbolically, as a
// linear form over the launch's atoms -- a program id, a position along a
// dimension of a tile, a loop's iteration number, each running over
// [0, its count) independently of the others -- whose coefficients are
// polynomials in the scalar parameters and the grid's extents. A pointer is
// a parameter plus such a form (in elements); a mask a conjunction of
// comparisons, each a form in the atoms below a bound. Where one comparison
// bounds one or two atoms (a coarse one times a constant plus a position)
// and the pointer moves by one stride along the same combination, they make
// a bounded term of tile::AccessInfo; atoms no comparison bounds make
// unbounded terms of their own.
//
// Only what every program certainly does is followed: accesses in the
// kernel's body or in scf.for loops (not under scf.if), masks that are
// conjunctions of signed comparisons, add/sub, mul by a factor free of
// atoms, splat, broadcast, expand_dims, trans, sign extension, and
// divisions, minimums and maximums of values free of atoms. Anything else
// leaves the access without a bound: nothing is checked for it.
//
// The kernel's integers wrap where the formulas do not. Add, sub and mul
// wrap alike in any order, so the kernel's results differ from the exact
// ones only where a value leaves that ring: an address's offset, a
// comparison's operands, an extension's or a division's operand, a loop's
// bounds. Each of those is recorded as a fit, which the runtime checks over
// the whole launch before it trusts the formulas.
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/Tile/Analysis/AccessBounds.h"

#include "tilec/Dialect/Tile/IR/Tile.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/TypeSwitch.h"

#include <map>
#include <optional>
#include <set>

using namespace mlir;
using namespace mlir::tile;
using ::tile::AccessInfo;
using ::tile::HostExpr;

namespace {

//===----------------------------------------------------------------------===//
// Polynomials in the launch's symbols, and linear forms in its atoms
//===----------------------------------------------------------------------===//

/// A product of symbols, sorted.
using Monomial = std::vector<unsigned>;

/// A polynomial with integer coefficients in the symbols (scalar
/// parameters, grid extents, values derived from them). Arithmetic that
/// overflows sets `overflow`, which poisons whatever is built from it.
struct Poly {
  std::map<Monomial, int64_t> terms;
  bool overflow = false;

  static Poly constant(int64_t c) {
    Poly p;
    if (c)
      p.terms[{}] = c;
    return p;
  }
  static Poly symbol(unsigned s) {
    Poly p;
    p.terms[{s}] = 1;
    return p;
  }
  bool isZero() const { return terms.empty(); }
  /// The value, when free of symbols.
  std::optional<int64_t> asConstant() const {
    if (terms.empty())
      return 0;
    if (terms.size() == 1 && terms.begin()->first.empty())
      return terms.begin()->second;
    return std::nullopt;
  }
  bool operator==(const Poly &other) const { return terms == other.terms; }
  bool operator!=(const Poly &other) const { return !(*this == other); }

  void addTerm(const Monomial &m, int64_t c) {
    int64_t &slot = terms[m];
    if (__builtin_add_overflow(slot, c, &slot))
      overflow = true;
    if (slot == 0)
      terms.erase(m);
  }
};

Poly operator+(const Poly &a, const Poly &b) {
  Poly r = a;
  r.overflow |= b.overflow;
  for (const auto &[m, c] : b.terms)
    r.addTerm(m, c);
  return r;
}

Poly scale(const Poly &a, int64_t k) {
  Poly r;
  r.overflow = a.overflow;
  for (const auto &[m, c] : a.terms) {
    int64_t v;
    if (__builtin_mul_overflow(c, k, &v))
      r.overflow = true;
    r.addTerm(m, v);
  }
  return r;
}

Poly operator-(const Poly &a, const Poly &b) { return a + scale(b, -1); }

Poly operator*(const Poly &a, const Poly &b) {
  Poly r;
  r.overflow = a.overflow || b.overflow;
  for (const auto &[ma, ca] : a.terms)
    for (const auto &[mb, cb] : b.terms) {
      Monomial m = ma;
      m.insert(m.end(), mb.begin(), mb.end());
      std::sort(m.begin(), m.end());
      int64_t c;
      if (__builtin_mul_overflow(ca, cb, &c))
        r.overflow = true;
      r.addTerm(m, c);
    }
  return r;
}

/// `a / k` where every coefficient divides exactly.
std::optional<Poly> divideExactly(const Poly &a, int64_t k) {
  Poly r;
  r.overflow = a.overflow;
  for (const auto &[m, c] : a.terms) {
    if (k == 0 || c % k != 0)
      return std::nullopt;
    r.terms[m] = c / k;
  }
  return r;
}

/// Atoms: positions along a tile's dimensions (0 to kPid - 1), program ids
/// (kPid + axis), loop iterations (kLoop + the loop's index), and a loop's
/// iteration argument standing for itself while its update is read.
constexpr int kPid = 16;
constexpr int kLoop = 32;
constexpr int kPlaceholder = 1 << 24;

bool isPosition(int atom) { return atom < kPid; }

/// constant + sum of coefficient * atom.
struct Lin {
  std::map<int, Poly> coefs;
  Poly constant;

  bool isAtomFree() const { return coefs.empty(); }
  bool overflow() const {
    if (constant.overflow)
      return true;
    for (const auto &[atom, c] : coefs)
      if (c.overflow)
        return true;
    return false;
  }
  bool operator==(const Lin &other) const {
    return constant == other.constant && coefs == other.coefs;
  }
  Poly coefficient(int atom) const {
    auto it = coefs.find(atom);
    return it == coefs.end() ? Poly() : it->second;
  }
  void addAtom(int atom, const Poly &c) {
    Poly sum = coefficient(atom) + c;
    if (sum.isZero() && !sum.overflow)
      coefs.erase(atom);
    else
      coefs[atom] = sum;
  }
};

Lin operator+(const Lin &a, const Lin &b) {
  Lin r = a;
  r.constant = a.constant + b.constant;
  for (const auto &[atom, c] : b.coefs)
    r.addAtom(atom, c);
  return r;
}

Lin operator*(const Lin &a, const Poly &k) {
  Lin r;
  r.constant = a.constant * k;
  for (const auto &[atom, c] : a.coefs)
    r.addAtom(atom, c * k);
  return r;
}

Lin operator-(const Lin &a, const Lin &b) { return a + b * Poly::constant(-1); }

Lin linOf(const Poly &p) {
  Lin r;
  r.constant = p;
  return r;
}

Lin atomLin(int atom, int64_t c = 1) {
  Lin r;
  r.addAtom(atom, Poly::constant(c));
  return r;
}

//===----------------------------------------------------------------------===//
// What the analysis knows of a value
//===----------------------------------------------------------------------===//

/// A value the kernel computes in `bits`-bit integers that must not wrap,
/// over the atoms of a value of `shape`.
struct FitRecord {
  unsigned bits;
  Lin lin;
  SmallVector<int64_t> shape;
};

struct Info {
  enum class Kind { Int, Ptr, Mask };
  Kind kind = Kind::Int;
  /// Int: the integer width.
  unsigned bits = 0;
  /// Empty for a scalar.
  SmallVector<int64_t> shape;
  /// Int: the value; Ptr: the offset from the parameter, in elements.
  Lin lin;
  /// Ptr: the parameter.
  unsigned param = 0;
  /// Mask: true where every one of these is negative.
  std::vector<Lin> conds;
  /// Indices of the fits the value relies on.
  std::set<unsigned> fits;
};

/// An scf.for the analysis follows: its iteration atom runs over
/// [0, trip).
struct Loop {
  HostExpr trip;
  std::set<unsigned> fits;
};

/// What every evaluation of one kernel shares.
struct Tables {
  explicit Tables(const std::vector<::tile::ParamInfo> &params)
      : params(params) {}

  const std::vector<::tile::ParamInfo> &params;
  std::vector<HostExpr> symbols;
  /// Each symbol's integer width in the kernel.
  std::vector<unsigned> symbolBits;
  /// Symbols of the parameters, the grid's extents and derived values.
  DenseMap<Value, unsigned> symbolOfValue;
  unsigned gridSymbol[3] = {~0u, ~0u, ~0u};
  std::vector<FitRecord> fits;
  std::vector<Loop> loops;
  /// The loop's index, or ~0u for one that cannot be followed.
  DenseMap<Operation *, unsigned> loopOf;
  /// Iteration arguments whose update is being read (a cycle fails).
  DenseSet<Value> iterArgsInProgress;

  unsigned addSymbol(HostExpr expr, unsigned bits) {
    symbols.push_back(std::move(expr));
    symbolBits.push_back(bits);
    return unsigned(symbols.size() - 1);
  }
  unsigned addFit(unsigned bits, const Lin &lin, ArrayRef<int64_t> shape) {
    fits.push_back({bits, lin, SmallVector<int64_t>(shape)});
    return unsigned(fits.size() - 1);
  }

  HostExpr toHost(const Poly &p) const {
    auto constant = [](int64_t c) {
      HostExpr e;
      e.value = c;
      return e;
    };
    auto binary = [](HostExpr::Op op, HostExpr a, HostExpr b) {
      HostExpr e;
      e.op = op;
      e.operands.push_back(std::move(a));
      e.operands.push_back(std::move(b));
      return e;
    };
    std::optional<HostExpr> sum;
    for (const auto &[m, c] : p.terms) {
      std::optional<HostExpr> product;
      if (c != 1 || m.empty())
        product = constant(c);
      for (unsigned s : m)
        product = product ? binary(HostExpr::Op::Mul, *product, symbols[s])
                          : symbols[s];
      sum = sum ? binary(HostExpr::Op::Add, *sum, *product) : *product;
    }
    return sum ? *sum : constant(0);
  }

  enum class Fits { Always, Never, AtLaunch };
  /// Whether `record` fits whatever the launch: a constant, a position
  /// times a constant, one symbol no wider than the bits.
  Fits fitsAtCompileTime(const FitRecord &record) const {
    std::optional<int64_t> value = record.lin.constant.asConstant();
    if (!value) {
      const auto &terms = record.lin.constant.terms;
      if (!record.lin.isAtomFree() || terms.size() != 1 ||
          terms.begin()->first.size() != 1 || terms.begin()->second != 1)
        return Fits::AtLaunch;
      unsigned symbol = terms.begin()->first[0];
      const HostExpr &e = symbols[symbol];
      if (record.bits < symbolBits[symbol])
        return Fits::AtLaunch;
      // A parameter's value, the grid's extent (at most 2^31 - 1).
      if (e.op == HostExpr::Op::Arg || e.op == HostExpr::Op::Grid)
        return Fits::Always;
      // A minimum, a maximum or a quotient by a constant fits where its
      // operands do, and their fits come with it.
      bool byConstant = e.operands.size() == 2 &&
                        e.operands[1].op == HostExpr::Op::Constant &&
                        e.operands[1].value != 0 && e.operands[1].value != -1;
      if (e.op == HostExpr::Op::Min || e.op == HostExpr::Op::Max ||
          (byConstant && (e.op == HostExpr::Op::Div ||
                          e.op == HostExpr::Op::CeilDiv ||
                          e.op == HostExpr::Op::Rem)))
        return Fits::Always;
      return Fits::AtLaunch;
    }
    // Constants over positions: the extremes are known now.
    __int128 low = *value, high = *value;
    for (const auto &[atom, c] : record.lin.coefs) {
      std::optional<int64_t> k = c.asConstant();
      if (!k || !isPosition(atom))
        return Fits::AtLaunch;
      __int128 span = __int128(*k) * (record.shape[size_t(atom)] - 1);
      (span < 0 ? low : high) += span;
    }
    __int128 limit = (__int128(1) << (record.bits - 1)) - 1;
    return high <= limit && low >= -limit - 1 ? Fits::Always : Fits::Never;
  }

  /// The count an atom runs over, in a value of `shape`.
  HostExpr range(int atom, ArrayRef<int64_t> shape) const {
    HostExpr e;
    if (isPosition(atom)) {
      e.value = shape[size_t(atom)];
    } else if (atom < kLoop) {
      e.op = HostExpr::Op::Grid;
      e.value = atom - kPid;
    } else {
      e = loops[size_t(atom - kLoop)].trip;
    }
    return e;
  }
};

/// Drops the positions along dimensions of extent 1, which are always 0
/// (and would wrongly vary once broadcast).
void dropUnitPositions(Lin &lin, ArrayRef<int64_t> shape) {
  for (auto it = lin.coefs.begin(); it != lin.coefs.end();) {
    if (isPosition(it->first) &&
        (size_t(it->first) >= shape.size() || shape[size_t(it->first)] == 1))
      it = lin.coefs.erase(it);
    else
      ++it;
  }
}

/// Renames the positions of `lin` by `map` (old dimension -> new).
Lin remapPositions(const Lin &lin, llvm::function_ref<int(int)> map) {
  Lin r;
  r.constant = lin.constant;
  for (const auto &[atom, c] : lin.coefs)
    r.addAtom(isPosition(atom) ? map(atom) : atom, c);
  return r;
}

SmallVector<int64_t> shapeOf(Type type) {
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    return SmallVector<int64_t>(tensor.getShape());
  return {};
}

unsigned intBits(Type type) {
  Type element = getElementTypeOrSelf(type);
  return element.isInteger() ? element.getIntOrFloatBitWidth() : 0;
}

/// Follows values demand-first; one per kernel, plus one for each reading
/// of a loop's update, where the iteration argument stands for itself.
class Evaluator {
public:
  explicit Evaluator(Tables &tables) : t(tables) {}
  Evaluator(Tables &tables, Value placeholderFor, Info placeholder)
      : t(tables), placeholderFor(placeholderFor),
        placeholder(std::move(placeholder)) {}

  std::optional<Info> get(Value v) {
    if (v == placeholderFor)
      return placeholder;
    auto it = memo.find(v);
    if (it != memo.end())
      return it->second;
    std::optional<Info> info = compute(v);
    if (info) {
      info->shape = shapeOf(v.getType());
      bool overflow = false;
      for (Lin &cond : info->conds) {
        dropUnitPositions(cond, info->shape);
        overflow |= cond.overflow();
      }
      dropUnitPositions(info->lin, info->shape);
      overflow |= info->lin.overflow();
      // Integers of 8 bits and more (not `index`), as the runtime's fits.
      if (overflow || (info->kind == Info::Kind::Int && info->bits < 8))
        info.reset();
    }
    memo[v] = info;
    return info;
  }

  /// The index of `loop` in the tables, following it the first time.
  std::optional<unsigned> loopIndex(scf::ForOp loop);

private:
  std::optional<Info> compute(Value v);
  std::optional<Info> computeOp(Operation *op, Value v);
  std::optional<Info> iterArg(scf::ForOp loop, unsigned j);
  /// A value free of atoms as a symbol of its own (a division's result),
  /// fitting its bits as its operands do.
  std::optional<Info> derived(Operation *op, HostExpr::Op hostOp);

  std::optional<Info> integer(Value v) {
    std::optional<Info> info = get(v);
    if (!info || info->kind != Info::Kind::Int)
      return std::nullopt;
    return info;
  }
  /// Records that `info` (an integer) must fit its bits.
  unsigned fit(const Info &info) {
    return t.addFit(info.bits, info.lin, info.shape);
  }

  Tables &t;
  DenseMap<Value, std::optional<Info>> memo;
  Value placeholderFor;
  Info placeholder;
};

std::optional<unsigned> Evaluator::loopIndex(scf::ForOp loop) {
  auto found = t.loopOf.find(loop);
  if (found != t.loopOf.end())
    return found->second == ~0u ? std::nullopt
                                : std::optional<unsigned>(found->second);
  t.loopOf[loop] = ~0u;
  if (loop.getUnsignedCmp())
    return std::nullopt;
  std::optional<Info> lb = integer(loop.getLowerBound());
  std::optional<Info> ub = integer(loop.getUpperBound());
  std::optional<Info> step = integer(loop.getStep());
  if (!lb || !ub || !step || !lb->lin.isAtomFree() || !ub->lin.isAtomFree() ||
      !step->lin.isAtomFree())
    return std::nullopt;
  std::optional<int64_t> stepValue = step->lin.constant.asConstant();
  if (!stepValue || *stepValue <= 0)
    return std::nullopt;
  // max(0, ceildiv(ub - lb, step)) iterations.
  auto binary = [](HostExpr::Op op, HostExpr a, HostExpr b) {
    HostExpr e;
    e.op = op;
    e.operands.push_back(std::move(a));
    e.operands.push_back(std::move(b));
    return e;
  };
  HostExpr zero, stepExpr;
  stepExpr.value = *stepValue;
  Loop record;
  record.trip = t.toHost(ub->lin.constant - lb->lin.constant);
  if (*stepValue != 1)
    record.trip = binary(HostExpr::Op::CeilDiv, record.trip, stepExpr);
  record.trip = binary(HostExpr::Op::Max, zero, record.trip);
  record.fits = lb->fits;
  record.fits.insert(ub->fits.begin(), ub->fits.end());
  record.fits.insert(fit(*lb));
  record.fits.insert(fit(*ub));
  t.loops.push_back(std::move(record));
  unsigned index = unsigned(t.loops.size() - 1);
  t.loopOf[loop] = index;
  return index;
}

std::optional<Info> Evaluator::compute(Value v) {
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    Operation *owner = arg.getOwner()->getParentOp();
    if (auto func = dyn_cast<func::FuncOp>(owner)) {
      unsigned i = arg.getArgNumber();
      if (i >= t.params.size())
        return std::nullopt;
      const ::tile::ParamInfo &param = t.params[i];
      Info info;
      if (isa<mlir::tile::PointerType>(v.getType()) && param.isPointer()) {
        info.kind = Info::Kind::Ptr;
        info.param = i;
        return info;
      }
      // Signed integers only: an unsigned one's value is not its bits'
      // sign extension, which the runtime evaluates with.
      if (param.type != ::tile::ParamType::scalar(::tile::DType::I32) &&
          param.type != ::tile::ParamType::scalar(::tile::DType::I64))
        return std::nullopt;
      auto found = t.symbolOfValue.find(v);
      unsigned symbol;
      if (found != t.symbolOfValue.end()) {
        symbol = found->second;
      } else {
        HostExpr e;
        e.op = HostExpr::Op::Arg;
        e.value = i;
        symbol = t.addSymbol(e, intBits(v.getType()));
        t.symbolOfValue[v] = symbol;
      }
      info.bits = intBits(v.getType());
      info.lin = linOf(Poly::symbol(symbol));
      return info;
    }
    if (auto loop = dyn_cast<scf::ForOp>(owner)) {
      if (v == loop.getInductionVar()) {
        std::optional<unsigned> index = loopIndex(loop);
        std::optional<Info> lb = integer(loop.getLowerBound());
        std::optional<Info> step = integer(loop.getStep());
        if (!index || !lb || !step)
          return std::nullopt;
        Info info;
        info.bits = intBits(v.getType());
        info.lin = lb->lin + atomLin(kLoop + int(*index),
                                     *step->lin.constant.asConstant());
        info.fits = t.loops[*index].fits;
        return info;
      }
      for (unsigned j = 0; j < loop.getRegionIterArgs().size(); ++j)
        if (v == loop.getRegionIterArgs()[j])
          return iterArg(loop, j);
    }
    return std::nullopt;
  }
  return computeOp(v.getDefiningOp(), v);
}

std::optional<Info> Evaluator::iterArg(scf::ForOp loop, unsigned j) {
  Value arg = loop.getRegionIterArgs()[j];
  std::optional<unsigned> index = loopIndex(loop);
  std::optional<Info> init = get(loop.getInitArgs()[j]);
  if (!index || !init || init->kind == Info::Kind::Mask ||
      !t.iterArgsInProgress.insert(arg).second)
    return std::nullopt;
  // The update, with the argument standing for itself: it must add the
  // same amount, free of atoms, at every iteration.
  Info self = *init;
  self.lin = atomLin(kPlaceholder);
  self.fits.clear();
  Evaluator update(t, arg, self);
  Value yielded = loop.getBody()->getTerminator()->getOperand(j);
  std::optional<Info> next = update.get(yielded);
  t.iterArgsInProgress.erase(arg);
  if (!next || next->kind != init->kind || next->param != init->param)
    return std::nullopt;
  Lin step = next->lin - atomLin(kPlaceholder);
  if (!step.isAtomFree())
    return std::nullopt;
  for (unsigned f : next->fits)
    if (t.fits[f].lin.coefs.count(kPlaceholder))
      return std::nullopt;
  Info info = *init;
  info.lin = init->lin + atomLin(kLoop + int(*index)) * step.constant;
  info.fits.insert(next->fits.begin(), next->fits.end());
  info.fits.insert(t.loops[*index].fits.begin(), t.loops[*index].fits.end());
  return info;
}

std::optional<Info> Evaluator::derived(Operation *op, HostExpr::Op hostOp) {
  std::optional<Info> a = integer(op->getOperand(0));
  std::optional<Info> b = integer(op->getOperand(1));
  if (!a || !b || !a->lin.isAtomFree() || !b->lin.isAtomFree())
    return std::nullopt;
  Value result = op->getResult(0);
  unsigned symbol;
  auto found = t.symbolOfValue.find(result);
  if (found != t.symbolOfValue.end()) {
    symbol = found->second;
  } else {
    HostExpr e;
    e.op = hostOp;
    e.operands = {t.toHost(a->lin.constant), t.toHost(b->lin.constant)};
    symbol = t.addSymbol(std::move(e), intBits(result.getType()));
    t.symbolOfValue[result] = symbol;
  }
  Info info;
  info.bits = intBits(result.getType());
  info.lin = linOf(Poly::symbol(symbol));
  info.fits = a->fits;
  info.fits.insert(b->fits.begin(), b->fits.end());
  info.fits.insert(fit(*a));
  info.fits.insert(fit(*b));
  // A minimum or maximum is one of its operands; a quotient is no larger
  // than its dividend, but for INT_MIN / -1.
  std::optional<int64_t> divisor = b->lin.constant.asConstant();
  bool division = hostOp == HostExpr::Op::Div ||
                  hostOp == HostExpr::Op::CeilDiv ||
                  hostOp == HostExpr::Op::Rem;
  if (division && (!divisor || *divisor == -1))
    info.fits.insert(t.addFit(info.bits, info.lin, {}));
  return info;
}

std::optional<Info> Evaluator::computeOp(Operation *op, Value v) {
  if (!op)
    return std::nullopt;
  auto unionFits = [](Info &into, const Info &from) {
    into.fits.insert(from.fits.begin(), from.fits.end());
  };
  return llvm::TypeSwitch<Operation *, std::optional<Info>>(op)
      .Case([&](arith::ConstantOp c) -> std::optional<Info> {
        Attribute value = c.getValue();
        if (auto dense = dyn_cast<SplatElementsAttr>(value))
          value = dense.getSplatValue<Attribute>();
        auto integerAttr = dyn_cast<IntegerAttr>(value);
        if (!integerAttr)
          return std::nullopt;
        Info info;
        if (intBits(v.getType()) == 1) {
          // An all-true mask is no condition; an all-false one reaches
          // nothing, which is left unchecked.
          if (!integerAttr.getValue().isAllOnes())
            return std::nullopt;
          info.kind = Info::Kind::Mask;
          return info;
        }
        info.bits = intBits(v.getType());
        info.lin = linOf(Poly::constant(integerAttr.getValue().getSExtValue()));
        return info;
      })
      .Case([&](arith::AddIOp add) -> std::optional<Info> {
        std::optional<Info> a = integer(add.getLhs()), b = integer(add.getRhs());
        if (!a || !b)
          return std::nullopt;
        a->lin = a->lin + b->lin;
        unionFits(*a, *b);
        return a;
      })
      .Case([&](arith::SubIOp sub) -> std::optional<Info> {
        std::optional<Info> a = integer(sub.getLhs()), b = integer(sub.getRhs());
        if (!a || !b)
          return std::nullopt;
        a->lin = a->lin - b->lin;
        unionFits(*a, *b);
        return a;
      })
      .Case([&](arith::MulIOp mul) -> std::optional<Info> {
        std::optional<Info> a = integer(mul.getLhs()), b = integer(mul.getRhs());
        if (!a || !b)
          return std::nullopt;
        if (!b->lin.isAtomFree())
          std::swap(a, b);
        if (!b->lin.isAtomFree())
          return std::nullopt;
        a->lin = a->lin * b->lin.constant;
        unionFits(*a, *b);
        return a;
      })
      .Case([&](arith::ExtSIOp ext) -> std::optional<Info> {
        std::optional<Info> a = integer(ext.getIn());
        if (!a)
          return std::nullopt;
        a->fits.insert(fit(*a));
        a->bits = intBits(v.getType());
        return a;
      })
      .Case([&](arith::TruncIOp trunc) -> std::optional<Info> {
        std::optional<Info> a = integer(trunc.getIn());
        if (!a)
          return std::nullopt;
        a->bits = intBits(v.getType());
        a->fits.insert(fit(*a));
        return a;
      })
      .Case([&](arith::DivSIOp) { return derived(op, HostExpr::Op::Div); })
      .Case([&](arith::RemSIOp) { return derived(op, HostExpr::Op::Rem); })
      .Case([&](arith::CeilDivSIOp) {
        return derived(op, HostExpr::Op::CeilDiv);
      })
      .Case([&](arith::MinSIOp) { return derived(op, HostExpr::Op::Min); })
      .Case([&](arith::MaxSIOp) { return derived(op, HostExpr::Op::Max); })
      .Case([&](arith::CmpIOp cmp) -> std::optional<Info> {
        std::optional<Info> a = integer(cmp.getLhs()), b = integer(cmp.getRhs());
        if (!a || !b)
          return std::nullopt;
        // As `d < 0`.
        Lin d;
        switch (cmp.getPredicate()) {
        case arith::CmpIPredicate::slt:
          d = a->lin - b->lin;
          break;
        case arith::CmpIPredicate::sle:
          d = a->lin - b->lin + linOf(Poly::constant(-1));
          break;
        case arith::CmpIPredicate::sgt:
          d = b->lin - a->lin;
          break;
        case arith::CmpIPredicate::sge:
          d = b->lin - a->lin + linOf(Poly::constant(-1));
          break;
        default:
          return std::nullopt;
        }
        Info info;
        info.kind = Info::Kind::Mask;
        info.conds.push_back(std::move(d));
        unionFits(info, *a);
        unionFits(info, *b);
        info.fits.insert(fit(*a));
        info.fits.insert(fit(*b));
        return info;
      })
      .Case([&](arith::AndIOp andOp) -> std::optional<Info> {
        std::optional<Info> a = get(andOp.getLhs()), b = get(andOp.getRhs());
        if (!a || !b || a->kind != Info::Kind::Mask ||
            b->kind != Info::Kind::Mask)
          return std::nullopt;
        a->conds.insert(a->conds.end(), b->conds.begin(), b->conds.end());
        unionFits(*a, *b);
        return a;
      })
      .Case([&](mlir::tile::ProgramIdOp pid) -> std::optional<Info> {
        Info info;
        info.bits = intBits(v.getType());
        info.lin = atomLin(kPid + int(pid.getAxis()));
        return info;
      })
      .Case([&](mlir::tile::NumProgramsOp num) -> std::optional<Info> {
        unsigned axis = unsigned(num.getAxis());
        if (t.gridSymbol[axis] == ~0u) {
          HostExpr e;
          e.op = HostExpr::Op::Grid;
          e.value = axis;
          t.gridSymbol[axis] = t.addSymbol(e, 32);
        }
        Info info;
        info.bits = intBits(v.getType());
        info.lin = linOf(Poly::symbol(t.gridSymbol[axis]));
        return info;
      })
      .Case([&](mlir::tile::MakeRangeOp range) -> std::optional<Info> {
        Info info;
        info.bits = intBits(v.getType());
        info.lin = linOf(Poly::constant(range.getStart())) + atomLin(0);
        return info;
      })
      .Case([&](mlir::tile::SplatOp splat) { return get(splat.getSrc()); })
      .Case([&](mlir::tile::BroadcastOp broadcast) {
        return get(broadcast.getSrc());
      })
      .Case([&](mlir::tile::HintOp hint) { return get(hint.getSrc()); })
      .Case([&](mlir::tile::ExpandDimsOp expand) -> std::optional<Info> {
        std::optional<Info> a = get(expand.getSrc());
        if (!a)
          return std::nullopt;
        int axis = int(expand.getAxis());
        auto shift = [&](int d) { return d < axis ? d : d + 1; };
        a->lin = remapPositions(a->lin, shift);
        for (Lin &cond : a->conds)
          cond = remapPositions(cond, shift);
        return a;
      })
      .Case([&](mlir::tile::TransOp trans) -> std::optional<Info> {
        std::optional<Info> a = get(trans.getSrc());
        if (!a)
          return std::nullopt;
        ArrayRef<int32_t> order = trans.getOrder();
        auto move = [&](int d) {
          for (size_t i = 0; i < order.size(); ++i)
            if (order[i] == d)
              return int(i);
          return d;
        };
        a->lin = remapPositions(a->lin, move);
        for (Lin &cond : a->conds)
          cond = remapPositions(cond, move);
        return a;
      })
      .Case([&](mlir::tile::AddPtrOp add) -> std::optional<Info> {
        std::optional<Info> p = get(add.getPtr());
        std::optional<Info> offset = integer(add.getOffset());
        if (!p || !offset || p->kind != Info::Kind::Ptr)
          return std::nullopt;
        p->lin = p->lin + offset->lin;
        unionFits(*p, *offset);
        p->fits.insert(fit(*offset));
        return p;
      })
      .Default([](Operation *) { return std::nullopt; });
}

/// The access's bound, or none.
std::optional<AccessInfo> boundAccess(Evaluator &evaluator, Tables &t,
                                      Operation *access, Value ptr,
                                      Value mask, func::FuncOp kernel) {
  // Every program runs it: in the body, or in loops in the body.
  SmallVector<unsigned> loops;
  for (Operation *parent = access->getParentOp(); parent != kernel;
       parent = parent->getParentOp()) {
    auto loop = dyn_cast_or_null<scf::ForOp>(parent);
    if (!loop)
      return std::nullopt;
    std::optional<unsigned> index = evaluator.loopIndex(loop);
    if (!index)
      return std::nullopt;
    loops.push_back(*index);
  }
  std::optional<Info> pointer = evaluator.get(ptr);
  if (!pointer || pointer->kind != Info::Kind::Ptr ||
      getElementTypeOrSelf(getPointeeType(ptr.getType())) !=
          cast<mlir::tile::PointerType>(
              kernel.getArgument(pointer->param).getType())
              .getPointeeType())
    return std::nullopt;
  Info conditions;
  conditions.kind = Info::Kind::Mask;
  if (mask) {
    std::optional<Info> m = evaluator.get(mask);
    if (!m || m->kind != Info::Kind::Mask)
      return std::nullopt;
    conditions = *m;
  }
  ArrayRef<int64_t> shape = pointer->shape;

  AccessInfo info;
  info.param = pointer->param;
  Lin offset = pointer->lin;
  std::set<int> used;
  auto constant = [](int64_t c) {
    HostExpr e;
    e.value = c;
    return e;
  };
  for (const Lin &cond : conditions.conds) {
    // atoms < -constant, each atom's coefficient a constant >= 0.
    SmallVector<std::pair<int, int64_t>, 2> atoms;
    for (const auto &[atom, c] : cond.coefs) {
      std::optional<int64_t> value = c.asConstant();
      if (!value || *value < 0 || used.count(atom))
        return std::nullopt;
      atoms.push_back({atom, *value});
      used.insert(atom);
    }
    AccessInfo::Term term;
    term.bounded = true;
    term.bound = t.toHost(Poly() - cond.constant);
    term.count = constant(1);
    term.scale = 0;
    term.extent = 1;
    std::optional<int> fine, coarse;
    int64_t coarseScale = 0;
    if (atoms.size() == 1) {
      coarse = atoms[0].first;
      coarseScale = atoms[0].second;
    } else if (atoms.size() == 2) {
      // A position with coefficient 1 fills the gaps of the other atom.
      int f = atoms[1].second == 1 && isPosition(atoms[1].first)   ? 1
              : atoms[0].second == 1 && isPosition(atoms[0].first) ? 0
                                                                   : -1;
      if (f < 0)
        return std::nullopt;
      fine = atoms[size_t(f)].first;
      coarse = atoms[size_t(1 - f)].first;
      coarseScale = atoms[size_t(1 - f)].second;
    } else if (atoms.size() > 2) {
      return std::nullopt;
    }
    // The pointer must move by one stride along the bounded combination.
    Poly stride;
    if (fine) {
      stride = offset.coefficient(*fine);
      if (!(offset.coefficient(*coarse) == stride * Poly::constant(coarseScale)))
        return std::nullopt;
    } else if (coarse) {
      std::optional<Poly> exact =
          divideExactly(offset.coefficient(*coarse), coarseScale);
      if (!exact)
        return std::nullopt;
      stride = *exact;
    }
    if (coarse) {
      term.count = t.range(*coarse, shape);
      term.scale = coarseScale;
      offset.coefs.erase(*coarse);
    }
    if (fine) {
      term.extent = shape[size_t(*fine)];
      offset.coefs.erase(*fine);
    }
    term.stride = t.toHost(stride);
    info.terms.push_back(std::move(term));
  }
  // The atoms no condition bounds run over their whole range.
  for (const auto &[atom, c] : offset.coefs) {
    if (atom >= kPlaceholder)
      return std::nullopt;
    AccessInfo::Term term;
    term.stride = t.toHost(c);
    term.count = t.range(atom, shape);
    used.insert(atom);
    info.terms.push_back(std::move(term));
  }
  // A loop that runs no iteration runs no access.
  std::set<unsigned> fits = pointer->fits;
  fits.insert(conditions.fits.begin(), conditions.fits.end());
  for (unsigned loop : loops) {
    fits.insert(t.loops[loop].fits.begin(), t.loops[loop].fits.end());
    if (used.count(kLoop + int(loop)))
      continue;
    AccessInfo::Term term;
    term.stride = constant(0);
    term.count = t.loops[loop].trip;
    term.scale = 0;
    info.terms.push_back(std::move(term));
  }
  info.offset = t.toHost(offset.constant);
  std::vector<const FitRecord *> distinct;
  for (unsigned f : fits) {
    const FitRecord &record = t.fits[f];
    switch (t.fitsAtCompileTime(record)) {
    case Tables::Fits::Always:
      continue;
    case Tables::Fits::Never:
      return std::nullopt;
    case Tables::Fits::AtLaunch:
      break;
    }
    bool seen = llvm::any_of(distinct, [&](const FitRecord *other) {
      return other->bits == record.bits && other->lin == record.lin &&
             other->shape == record.shape;
    });
    if (!seen)
      distinct.push_back(&record);
  }
  for (const FitRecord *recordPtr : distinct) {
    const FitRecord &record = *recordPtr;
    AccessInfo::Fit fit;
    fit.bits = record.bits;
    fit.value = t.toHost(record.lin.constant);
    for (const auto &[atom, c] : record.lin.coefs) {
      if (atom >= kPlaceholder)
        return std::nullopt;
      fit.terms.emplace_back(t.toHost(c), t.range(atom, record.shape));
    }
    info.fits.push_back(std::move(fit));
  }
  return info;
}

bool sameExpr(const HostExpr &a, const HostExpr &b) {
  if (a.op != b.op || a.value != b.value ||
      a.operands.size() != b.operands.size())
    return false;
  for (size_t i = 0; i < a.operands.size(); ++i)
    if (!sameExpr(a.operands[i], b.operands[i]))
      return false;
  return true;
}

/// Whether two accesses reach alike (a load and a store of one tile).
bool sameAccess(const AccessInfo &a, const AccessInfo &b) {
  if (a.param != b.param || !sameExpr(a.offset, b.offset) ||
      a.terms.size() != b.terms.size() || a.fits.size() != b.fits.size())
    return false;
  for (size_t i = 0; i < a.terms.size(); ++i) {
    const AccessInfo::Term &s = a.terms[i], &t = b.terms[i];
    if (!sameExpr(s.stride, t.stride) || !sameExpr(s.count, t.count) ||
        s.scale != t.scale || s.extent != t.extent ||
        s.bounded != t.bounded || (s.bounded && !sameExpr(s.bound, t.bound)))
      return false;
  }
  for (size_t i = 0; i < a.fits.size(); ++i) {
    const AccessInfo::Fit &f = a.fits[i], &g = b.fits[i];
    if (f.bits != g.bits || !sameExpr(f.value, g.value) ||
        f.terms.size() != g.terms.size())
      return false;
    for (size_t k = 0; k < f.terms.size(); ++k)
      if (!sameExpr(f.terms[k].first, g.terms[k].first) ||
          !sameExpr(f.terms[k].second, g.terms[k].second))
        return false;
  }
  return true;
}

} // namespace

std::vector<AccessInfo>
mlir::tile::computeAccessBounds(func::FuncOp kernel,
                                const std::vector<::tile::ParamInfo> &params) {
  std::vector<AccessInfo> accesses;
  if (kernel.isExternal() || kernel.getNumArguments() != params.size())
    return accesses;
  Tables tables(params);
  Evaluator evaluator(tables);
  kernel.walk([&](Operation *op) {
    Value ptr, mask;
    if (auto load = dyn_cast<mlir::tile::LoadOp>(op)) {
      ptr = load.getPtr();
      mask = load.getMask();
    } else if (auto store = dyn_cast<mlir::tile::StoreOp>(op)) {
      ptr = store.getPtr();
      mask = store.getMask();
    } else if (auto rmw = dyn_cast<mlir::tile::AtomicRMWOp>(op)) {
      ptr = rmw.getPtr();
      mask = rmw.getMask();
    } else if (auto cas = dyn_cast<mlir::tile::AtomicCASOp>(op)) {
      ptr = cas.getPtr();
    } else {
      return;
    }
    std::optional<AccessInfo> access =
        boundAccess(evaluator, tables, op, ptr, mask, kernel);
    if (access && llvm::none_of(accesses, [&](const AccessInfo &other) {
          return sameAccess(*access, other);
        }))
      accesses.push_back(std::move(*access));
  });
  return accesses;
}
