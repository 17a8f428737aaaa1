//===- Atomic.cpp - tile.atomic_rmw and tile.atomic_cas on the interpreter ===//
//
// Programs run one after another, so every element's read-modify-write is
// atomic by construction. The results are the GPU's, bit for bit:
// - add wraps integers and rounds floats once in their format;
// - max and min of floats compare as the GPU lowering does, through integer
//   atoms on the bits (a value with its sign bit clear: signed max / min;
//   set: unsigned min / max), which orders every non-NaN float;
// - compare-and-swap compares bits (so -0.0 is not 0.0 and a NaN equals
//   itself when its bits do);
// - masked-off elements are untouched and return 0.
//
//===----------------------------------------------------------------------===//

#include "Executor.h"

#include "tilec/Dialect/Tile/IR/Tile.h"

#include <algorithm>
#include <cstring>

using namespace mlir;
using namespace tilec::interp;

namespace {

unsigned elementBytes(ElemKind kind) { return bitWidth(kind) / 8; }

uint64_t readBits(const uint8_t *p, unsigned bytes) {
  uint64_t bits = 0;
  std::memcpy(&bits, p, bytes);
  return bits;
}

/// The bits of element `i` of `v` in the format of its kind.
uint64_t bitsOf(const TValue &v, size_t i) {
  ElemKind kind = v.kind;
  if (isInt(kind))
    return zeroExtend(v.ints[i], bitWidth(kind));
  switch (kind) {
  case ElemKind::F8E5M2:
  case ElemKind::F8E4M3:
  case ElemKind::F16:
  case ElemKind::BF16:
    return toHalfBits(v.floats[i], kind);
  case ElemKind::F32: {
    float f = float(v.floats[i]);
    uint32_t bits;
    std::memcpy(&bits, &f, 4);
    return bits;
  }
  default: {
    uint64_t bits;
    std::memcpy(&bits, &v.floats[i], 8);
    return bits;
  }
  }
}

/// Float max (or min) as the GPU computes it on the bits `old` in memory
/// and `val`, `width` bits wide.
uint64_t floatMaxMinBits(uint64_t old, uint64_t val, unsigned width, bool max) {
  uint64_t sign = uint64_t(1) << (width - 1);
  auto asSigned = [&](uint64_t bits) {
    return int64_t(bits << (64 - width)) >> (64 - width);
  };
  bool negative = val & sign;
  // Non-negative val: signed max (min); negative: unsigned min (max).
  if (max)
    return negative ? (val < old ? val : old)
                    : (asSigned(val) > asSigned(old) ? val : old);
  return negative ? (val > old ? val : old)
                  : (asSigned(val) < asSigned(old) ? val : old);
}

} // namespace

LogicalResult Executor::executeAtomic(Operation *op) {
  auto rmw = dyn_cast<tile::AtomicRMWOp>(op);
  auto cas = dyn_cast<tile::AtomicCASOp>(op);
  std::string name =
      rmw ? ("tl.atomic_" + tile::stringifyAtomicRMWKind(rmw.getKind())).str()
          : "tl.atomic_cas";
  const char *what = name.c_str();
  const TValue &ptrs = get(rmw ? rmw.getPtr() : cas.getPtr());
  const TValue &vals = get(rmw ? rmw.getVal() : cas.getVal());
  const TValue *cmps = cas ? &get(cas.getCmp()) : nullptr;
  const TValue *mask = rmw && rmw.getMask() ? &get(rmw.getMask()) : nullptr;
  TValue &result = define(op->getResult(0));
  size_t n = result.size();
  if (ptrs.size() != n || vals.size() != n || (mask && mask->size() != n) ||
      (cmps && cmps->size() != n))
    return fail(op, llvm::Twine(what) + ": the pointer, value and mask tiles "
                    "differ in size at " + program());
  ElemKind kind = result.kind;
  bool intKind = isInt(kind);
  unsigned width = bitWidth(kind);
  for (size_t i = 0; i < n; ++i) {
    int64_t oldInt = 0;
    double oldFloat = 0;
    if (!mask || mask->ints[i] != 0) {
      uint8_t *address = this->address(op, what, ptrs, i, kind);
      if (!address)
        return failure();
      readElement(address, kind, oldInt, oldFloat);
      uint64_t oldBits = readBits(address, elementBytes(kind));
      if (cas) {
        if (oldBits == bitsOf(*cmps, i))
          writeElement(address, kind, vals.ints.empty() ? 0 : vals.ints[i],
                       vals.floats.empty() ? 0 : vals.floats[i]);
      } else {
        int64_t v = intKind ? vals.ints[i] : 0;
        double f = intKind ? 0 : vals.floats[i];
        switch (rmw.getKind()) {
        case tile::AtomicRMWKind::Add:
          if (intKind)
            v = wrapInt(int64_t(uint64_t(oldInt) + uint64_t(v)), width);
          else
            f = roundFloat(oldFloat + f, kind);
          break;
        case tile::AtomicRMWKind::Max:
        case tile::AtomicRMWKind::Min: {
          bool max = rmw.getKind() == tile::AtomicRMWKind::Max;
          if (intKind) {
            v = max ? std::max(oldInt, v) : std::min(oldInt, v);
            break;
          }
          uint64_t bits = floatMaxMinBits(oldBits, bitsOf(vals, i), width, max);
          std::memcpy(address, &bits, elementBytes(kind));
          break;
        }
        case tile::AtomicRMWKind::UMax:
        case tile::AtomicRMWKind::UMin: {
          uint64_t a = zeroExtend(oldInt, width), b = zeroExtend(v, width);
          bool max = rmw.getKind() == tile::AtomicRMWKind::UMax;
          v = (max ? a < b : b < a) ? v : oldInt;
          break;
        }
        case tile::AtomicRMWKind::And:
          v = oldInt & v;
          break;
        case tile::AtomicRMWKind::Or:
          v = oldInt | v;
          break;
        case tile::AtomicRMWKind::Xor:
          v = oldInt ^ v;
          break;
        case tile::AtomicRMWKind::Xchg:
          break;
        }
        bool floatMaxMin = !intKind && (rmw.getKind() == tile::AtomicRMWKind::Max ||
                                        rmw.getKind() == tile::AtomicRMWKind::Min);
        if (!floatMaxMin)
          writeElement(address, kind, v, f);
      }
    }
    if (intKind)
      result.ints[i] = oldInt;
    else
      result.floats[i] = oldFloat;
  }
  return success();
}
