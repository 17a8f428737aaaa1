//===- AxisInfo.cpp - Contiguity, divisibility, constancy -----------------===//

#include "tilec/Dialect/Tile/Analysis/AxisInfo.h"

#include "tilec/Dialect/Tile/IR/Tile.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <numeric>

using namespace mlir;
using namespace mlir::tile;

static constexpr int64_t kMaxDivisor = int64_t(1) << 30;

int64_t mlir::tile::highestPowerOf2Divisor(int64_t value) {
  if (value == 0)
    return kMaxDivisor;
  return std::min<int64_t>(int64_t(1) << llvm::countr_zero(uint64_t(value)),
                           kMaxDivisor);
}

AxisInfo AxisInfo::unknown(unsigned rank) {
  unsigned n = std::max(rank, 1u);
  return AxisInfo{SmallVector<int64_t>(n, 1), SmallVector<int64_t>(n, 1),
                  SmallVector<int64_t>(n, 1), std::nullopt};
}

bool AxisInfo::operator==(const AxisInfo &o) const {
  return contiguity == o.contiguity && divisibility == o.divisibility &&
         constancy == o.constancy && constant == o.constant;
}

void AxisInfo::print(llvm::raw_ostream &os) const {
  auto list = [&](ArrayRef<int64_t> v) {
    os << "[";
    llvm::interleaveComma(v, os);
    os << "]";
  };
  os << "contiguity = ";
  list(contiguity);
  os << ", divisibility = ";
  list(divisibility);
  os << ", constancy = ";
  list(constancy);
  if (constant)
    os << ", constant = " << *constant;
}

static SmallVector<int64_t> shapeOf(Type type) {
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    return SmallVector<int64_t>(tensor.getShape());
  return {1};
}

/// A value that is `constant` everywhere in a tensor of `shape`.
static AxisInfo constantInfo(ArrayRef<int64_t> shape, int64_t value) {
  AxisInfo info;
  for (int64_t size : shape) {
    info.contiguity.push_back(1);
    info.divisibility.push_back(highestPowerOf2Divisor(value));
    info.constancy.push_back(size);
  }
  info.constant = value;
  return info;
}

static int64_t gcd(int64_t a, int64_t b) { return std::gcd(a, b); }

/// Divisibility of a run's first value when the run is treated elementwise:
/// inside a run of consecutive values only the first one is known aligned.
static int64_t elementDivisibility(const AxisInfo &info, unsigned d) {
  return info.contiguity[d] > 1 ? 1 : info.divisibility[d];
}

/// What holds of both `a` and `b` (a loop-carried value is one or the other).
static AxisInfo meet(const AxisInfo &a, const AxisInfo &b) {
  AxisInfo o = a;
  for (unsigned d = 0; d < a.getRank(); ++d) {
    o.contiguity[d] = gcd(a.contiguity[d], b.contiguity[d]);
    o.divisibility[d] = gcd(a.divisibility[d], b.divisibility[d]);
    o.constancy[d] = gcd(a.constancy[d], b.constancy[d]);
  }
  if (a.constant != b.constant)
    o.constant.reset();
  return o;
}

/// What `tile.assume %c` says of a value's divisibility: c is
/// `x % k == 0` (or `x & (k - 1) == 0`, k a power of two), with the zero
/// on either side.
static std::optional<std::pair<Value, int64_t>> assumedDivisor(AssumeOp assume) {
  auto cmp = assume.getCond().getDefiningOp<arith::CmpIOp>();
  if (!cmp || cmp.getPredicate() != arith::CmpIPredicate::eq)
    return std::nullopt;
  Value lhs = cmp.getLhs(), rhs = cmp.getRhs();
  if (matchPattern(lhs, m_Zero()))
    std::swap(lhs, rhs);
  if (!matchPattern(rhs, m_Zero()))
    return std::nullopt;
  APInt k;
  Operation *def = lhs.getDefiningOp();
  if (isa_and_nonnull<arith::RemSIOp, arith::RemUIOp>(def) &&
      matchPattern(def->getOperand(1), m_ConstantInt(&k)) && k.isStrictlyPositive())
    return std::pair(def->getOperand(0), highestPowerOf2Divisor(k.getSExtValue()));
  if (isa_and_nonnull<arith::AndIOp>(def) &&
      matchPattern(def->getOperand(1), m_ConstantInt(&k)) && k.isMask())
    return std::pair(def->getOperand(0), k.getSExtValue() + 1);
  return std::nullopt;
}

AxisInfoAnalysis::AxisInfoAnalysis(Operation *root) {
  root->walk([&](AssumeOp assume) {
    if (auto divisor = assumedDivisor(assume)) {
      int64_t &known = assumedDivisibility[divisor->first];
      known = std::max(known, divisor->second);
    }
  });
  if (isa<func::FuncOp>(root)) {
    visitFunc(cast<func::FuncOp>(root));
    return;
  }
  for (Region &region : root->getRegions())
    for (Block &block : region)
      visitBlock(block);
}

void AxisInfoAnalysis::visitFunc(func::FuncOp func) {
  for (BlockArgument arg : func.getArguments()) {
    // Of the argument's rank: a tensor argument (tile-opt's tests have them)
    // must not read as a scalar's one dimension.
    AxisInfo info = AxisInfo::unknown(shapeOf(arg.getType()).size());
    if (auto div = func.getArgAttrOfType<IntegerAttr>(arg.getArgNumber(),
                                                      TileDialect::getDivisibilityAttrName()))
      info.divisibility[0] = div.getInt();
    applyAssumptions(arg, info);
    infos[arg] = info;
  }
  if (!func.getBody().empty())
    visitBlock(func.getBody().front());
}

void AxisInfoAnalysis::visitBlock(Block &block) {
  for (Operation &op : block) {
    if (auto func = dyn_cast<func::FuncOp>(op)) {
      visitFunc(func);
      continue;
    }
    if (auto loop = dyn_cast<scf::ForOp>(op)) {
      visitLoop(loop);
      continue;
    }
    for (Region &region : op.getRegions())
      for (Block &inner : region)
        visitBlock(inner);
    visit(&op);
  }
}

void AxisInfoAnalysis::visitLoop(scf::ForOp loop) {
  // The induction variable takes lb, lb + step, ...: divisible by what
  // divides both. A loop-carried value holds what both its initial value
  // and every yielded one do: start from the initial values and meet them
  // with what the body yields until nothing changes (facts only shrink, so
  // this ends; a cap keeps pathological chains short).
  AxisInfo iv = AxisInfo::unknown(0);
  iv.divisibility[0] = gcd(get(loop.getLowerBound()).divisibility[0],
                           get(loop.getStep()).divisibility[0]);
  infos[loop.getInductionVar()] = iv;
  auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
  for (auto [arg, init] : llvm::zip(loop.getRegionIterArgs(), loop.getInitArgs())) {
    AxisInfo info = get(init);
    infos[arg] = info;
  }
  bool stable = false;
  for (int round = 0; round < 8 && !stable; ++round) {
    visitBlock(*loop.getBody());
    stable = true;
    for (auto [arg, next] : llvm::zip(loop.getRegionIterArgs(), yield.getOperands())) {
      AxisInfo yielded = get(next);
      AxisInfo joined = meet(get(arg), yielded);
      if (!(joined == get(arg))) {
        infos[arg] = joined;
        stable = false;
      }
    }
  }
  if (!stable) {
    // Nothing known, as get() says of values without facts.
    for (BlockArgument arg : loop.getRegionIterArgs())
      infos.erase(arg);
    visitBlock(*loop.getBody());
  }
  // Copies, here and above: inserting into the map may move its entries.
  for (auto [result, arg] : llvm::zip(loop.getResults(), loop.getRegionIterArgs())) {
    AxisInfo info = get(arg);
    infos[result] = info;
  }
}

const AxisInfo &AxisInfoAnalysis::get(Value value) {
  auto it = infos.find(value);
  if (it != infos.end())
    return it->second;
  unsigned rank = 0;
  if (auto tensor = dyn_cast<RankedTensorType>(value.getType()))
    rank = tensor.getRank();
  return infos[value] = AxisInfo::unknown(rank);
}

void AxisInfoAnalysis::visit(Operation *op) {
  if (op->getNumResults() != 1)
    return;
  Value result = op->getResult(0);
  SmallVector<int64_t> shape = shapeOf(result.getType());
  unsigned rank = shape.size();
  auto binary = [&](auto combine) {
    const AxisInfo lhs = get(op->getOperand(0));
    const AxisInfo rhs = get(op->getOperand(1));
    AxisInfo info = AxisInfo::unknown(rank);
    for (unsigned d = 0; d < rank; ++d)
      combine(lhs, rhs, info, d);
    return info;
  };
  // Equal runs of both operands give equal runs of the result.
  auto constancyOfBoth = [](const AxisInfo &l, const AxisInfo &r, AxisInfo &o,
                            unsigned d) {
    o.constancy[d] = gcd(l.constancy[d], r.constancy[d]);
  };

  AxisInfo info = AxisInfo::unknown(rank);
  APInt intValue;
  if (matchPattern(result, m_ConstantInt(&intValue))) {
    info = constantInfo(shape, intValue.getSExtValue());
  } else if (auto range = dyn_cast<MakeRangeOp>(op)) {
    info.contiguity[0] = range.getEnd() - range.getStart();
    info.divisibility[0] = highestPowerOf2Divisor(range.getStart());
  } else if (auto splat = dyn_cast<SplatOp>(op)) {
    const AxisInfo src = get(splat.getSrc());
    for (unsigned d = 0; d < rank; ++d) {
      info.divisibility[d] = src.divisibility[0];
      info.constancy[d] = shape[d];
    }
    info.constant = src.constant;
  } else if (auto expand = dyn_cast<ExpandDimsOp>(op)) {
    const AxisInfo src = get(expand.getSrc());
    unsigned axis = expand.getAxis();
    int64_t elementDiv = kMaxDivisor;
    for (unsigned d = 0; d < src.getRank(); ++d)
      elementDiv = std::min(elementDiv, elementDivisibility(src, d));
    info = src;
    info.contiguity.insert(info.contiguity.begin() + axis, 1);
    info.divisibility.insert(info.divisibility.begin() + axis, elementDiv);
    info.constancy.insert(info.constancy.begin() + axis, 1);
  } else if (auto broadcast = dyn_cast<BroadcastOp>(op)) {
    info = get(broadcast.getSrc());
    auto srcShape = broadcast.getSrc().getType().getShape();
    for (unsigned d = 0; d < rank; ++d)
      if (srcShape[d] == 1 && shape[d] != 1) {
        info.contiguity[d] = 1;
        info.constancy[d] = shape[d];
      }
  } else if (isa<arith::ExtSIOp, arith::ExtUIOp, arith::TruncIOp>(op)) {
    info = get(op->getOperand(0));
  } else if (isa<arith::AddIOp, arith::SubIOp, AddPtrOp>(op)) {
    int64_t scale = 1;
    if (auto addptr = dyn_cast<AddPtrOp>(op)) {
      Type pointee =
          cast<PointerType>(getElementTypeOrSelf(addptr.getType())).getPointeeType();
      scale = std::max<int64_t>(1, pointee.getIntOrFloatBitWidth() / 8);
    }
    bool isSub = isa<arith::SubIOp>(op);
    info = binary([&](const AxisInfo &l, const AxisInfo &r, AxisInfo &o,
                      unsigned d) {
      // A run of consecutive values plus a run of equal ones stays
      // consecutive (subtracting consecutive values does not).
      int64_t contig = gcd(l.contiguity[d], r.constancy[d]);
      if (!isSub)
        contig = std::max(contig, gcd(l.constancy[d], r.contiguity[d]));
      o.contiguity[d] = contig;
      o.divisibility[d] = gcd(l.divisibility[d], r.divisibility[d] * scale);
      constancyOfBoth(l, r, o, d);
    });
    const AxisInfo &l = get(op->getOperand(0)), &r = get(op->getOperand(1));
    if (l.constant && r.constant && !isa<AddPtrOp>(op))
      info.constant = isSub ? *l.constant - *r.constant : *l.constant + *r.constant;
  } else if (isa<arith::MulIOp>(op)) {
    info = binary([&](const AxisInfo &l, const AxisInfo &r, AxisInfo &o,
                      unsigned d) {
      auto isOne = [](const AxisInfo &i) { return i.constant == 1; };
      if (isOne(r))
        o.contiguity[d] = l.contiguity[d];
      else if (isOne(l))
        o.contiguity[d] = r.contiguity[d];
      int64_t ld = isOne(r) ? l.divisibility[d] : elementDivisibility(l, d);
      int64_t rd = isOne(l) ? r.divisibility[d] : elementDivisibility(r, d);
      o.divisibility[d] = std::min(ld * rd, kMaxDivisor);
      constancyOfBoth(l, r, o, d);
    });
    const AxisInfo &l = get(op->getOperand(0)), &r = get(op->getOperand(1));
    if (l.constant && r.constant)
      info.constant = *l.constant * *r.constant;
  } else if (isa<arith::RemSIOp, arith::RemUIOp>(op)) {
    info = binary([&](const AxisInfo &l, const AxisInfo &r, AxisInfo &o,
                      unsigned d) {
      // Runs of length g = gcd(divisors) never cross a multiple of the
      // (constant) divisor, so they stay consecutive.
      if (r.constancy[d] == shapeOf(op->getOperand(1).getType())[d] ||
          r.constant) {
        int64_t g = gcd(l.divisibility[d], r.divisibility[d]);
        o.contiguity[d] = std::min(l.contiguity[d], g);
        o.divisibility[d] = g;
      }
      constancyOfBoth(l, r, o, d);
    });
  } else if (isa<arith::DivSIOp, arith::DivUIOp>(op)) {
    info = binary([&](const AxisInfo &l, const AxisInfo &r, AxisInfo &o,
                      unsigned d) {
      o.constancy[d] = gcd(l.constancy[d], r.constancy[d]);
      if (r.constant && *r.constant > 0 && l.contiguity[d] > 1)
        o.constancy[d] = std::max(
            o.constancy[d],
            gcd(l.contiguity[d], gcd(l.divisibility[d], r.divisibility[d])));
    });
  } else if (auto cmp = dyn_cast<arith::CmpIOp>(op)) {
    using P = arith::CmpIPredicate;
    P pred = cmp.getPredicate();
    info = binary([&](const AxisInfo &l, const AxisInfo &r, AxisInfo &o,
                      unsigned d) {
      o.constancy[d] = gcd(l.constancy[d], r.constancy[d]);
      // `range < n` (or >=) flips only at n; runs of g consecutive values
      // starting at multiples of g = gcd(divisors) never straddle it.
      auto runs = [&](const AxisInfo &range, const AxisInfo &bound) {
        if (range.contiguity[d] > 1 && bound.constancy[d] > 1)
          o.constancy[d] = std::max(
              o.constancy[d],
              gcd(gcd(range.contiguity[d], bound.constancy[d]),
                  gcd(range.divisibility[d], bound.divisibility[d])));
      };
      if (pred == P::slt || pred == P::ult || pred == P::sge || pred == P::uge)
        runs(l, r);
      if (pred == P::sgt || pred == P::ugt || pred == P::sle || pred == P::ule)
        runs(r, l);
    });
  } else if (isa<arith::AndIOp, arith::OrIOp, arith::XOrIOp>(op)) {
    info = binary([&](const AxisInfo &l, const AxisInfo &r, AxisInfo &o,
                      unsigned d) { constancyOfBoth(l, r, o, d); });
  } else if (auto select = dyn_cast<arith::SelectOp>(op)) {
    const AxisInfo c = get(select.getCondition());
    const AxisInfo t = get(select.getTrueValue());
    const AxisInfo f = get(select.getFalseValue());
    for (unsigned d = 0; d < rank && c.getRank() == rank; ++d)
      info.constancy[d] =
          gcd(c.constancy[d], gcd(t.constancy[d], f.constancy[d]));
  } else if (auto hint = dyn_cast<HintOp>(op)) {
    // The programmer's facts replace what the analysis found, as Triton's
    // hints do.
    info = get(hint.getSrc());
    for (auto [facts, field] :
         {std::pair(hint.getDivisibility(), &info.divisibility),
          std::pair(hint.getContiguity(), &info.contiguity),
          std::pair(hint.getConstancy(), &info.constancy)})
      if (facts && facts->size() == field->size())
        llvm::copy(*facts, field->begin());
  }
  applyAssumptions(result, info);
  infos[result] = info;
}

void AxisInfoAnalysis::applyAssumptions(Value value, AxisInfo &info) {
  auto it = assumedDivisibility.find(value);
  if (it != assumedDivisibility.end() && info.getRank() > 0)
    info.divisibility[0] = std::max(info.divisibility[0], it->second);
}

unsigned AxisInfoAnalysis::getMaxVectorWidth(Value ptr, Value mask,
                                             unsigned dim, unsigned elemBytes) {
  const AxisInfo &p = get(ptr);
  if (dim >= p.getRank())
    return 1;
  int64_t vec = std::min<int64_t>(p.contiguity[dim], 16 / std::max(1u, elemBytes));
  vec = std::min<int64_t>(vec, std::max<int64_t>(1, p.divisibility[dim] / elemBytes));
  if (mask)
    vec = std::min<int64_t>(vec, get(mask).constancy[dim]);
  return std::max<int64_t>(1, llvm::bit_floor(uint64_t(vec)));
}

unsigned AxisInfoAnalysis::getContiguousRun(Value ptr, unsigned dim) {
  const AxisInfo &p = get(ptr);
  if (dim >= p.getRank())
    return 1;
  // A power of two that divides the runs, so that none of its own crosses
  // one of theirs (runs of 24: 8).
  return unsigned(
      highestPowerOf2Divisor(std::max<int64_t>(1, p.contiguity[dim])));
}
