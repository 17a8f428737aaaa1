//===- Combine.cpp - Combining groups of values, for reductions and scans -===//

#include "Combine.h"
#include "Utility.h"

#include "tilec/Dialect/Tile/IR/Tile.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;
using namespace mlir::tilegpu;

SmallVector<Partial> mlir::tilegpu::getSourcePartials(
    OpBuilder &b, Location loc, const ThreadLayout &layout, unsigned axis,
    ArrayRef<ValueRange> srcs) {
  SmallVector<Value> valid;
  if (layout.isPadded(axis))
    valid = emitValidity(b, loc, layout);
  SmallVector<Partial> partials(layout.getNumElems());
  for (auto [e, p] : llvm::enumerate(partials)) {
    for (ValueRange values : srcs)
      p.values.push_back(values[e]);
    if (!valid.empty())
      p.valid = valid[e];
  }
  return partials;
}

SmallVector<SmallVector<Value>>
mlir::tilegpu::getResultValues(ArrayRef<Partial> groups, unsigned numResults) {
  SmallVector<SmallVector<Value>> values(numResults);
  for (const Partial &p : groups)
    for (auto [k, v] : llvm::enumerate(p.values))
      values[k].push_back(v);
  return values;
}

unsigned mlir::tilegpu::getRootDim(const ThreadLayout &layout,
                                   unsigned tensorDim) {
  for (unsigned d = 0; d < layout.getRootRank(); ++d)
    if (layout.getTensorDim(d) == int(tensorDim))
      return d;
  llvm_unreachable("a tensor dimension without root dimension");
}

SmallVector<Value>
mlir::tilegpu::emitCombineRegion(ConversionPatternRewriter &rewriter,
                                 Region &region, ValueRange left,
                                 ValueRange right) {
  Block &body = region.front();
  IRMapping map;
  for (auto [arg, v] :
       llvm::zip(body.getArguments(), llvm::concat<const Value>(left, right)))
    map.map(arg, v);
  for (Operation &op : body.without_terminator())
    rewriter.clone(op, map);
  auto yield = cast<tile::YieldOp>(body.getTerminator());
  return llvm::map_to_vector(yield.getValues(), [&](Value v) {
    return map.lookupOrDefault(v);
  });
}

Partial mlir::tilegpu::selectPartial(OpBuilder &b, Location loc,
                                     Value condition, const Partial &whenTrue,
                                     const Partial &whenFalse) {
  Partial result;
  for (auto [t, f] : llvm::zip(whenTrue.values, whenFalse.values))
    result.values.push_back(LLVM::SelectOp::create(b, loc, condition, t, f));
  if (whenTrue.valid && whenFalse.valid)
    result.valid = LLVM::SelectOp::create(b, loc, condition, whenTrue.valid,
                                          whenFalse.valid);
  return result;
}

Partial mlir::tilegpu::combinePartials(OpBuilder &b, Location loc,
                                       const CombineFn &combine,
                                       const Partial &left,
                                       const Partial &right) {
  Partial result{combine(left.values, right.values), Value()};
  if (!left.valid && !right.valid)
    return result;
  // Where one side is empty, the other as it is.
  if (left.valid && right.valid) {
    Value both = LLVM::AndOp::create(b, loc, left.valid, right.valid);
    Partial one = selectPartial(b, loc, left.valid, left, right);
    for (auto [r, o] : llvm::zip(result.values, one.values))
      r = LLVM::SelectOp::create(b, loc, both, r, o);
    result.valid = LLVM::OrOp::create(b, loc, left.valid, right.valid);
    return result;
  }
  const Partial &flagged = left.valid ? left : right;
  const Partial &other = left.valid ? right : left;
  for (auto [r, o] : llvm::zip(result.values, other.values))
    r = LLVM::SelectOp::create(b, loc, flagged.valid, r, o);
  return result;
}

Value mlir::tilegpu::shuffleXor(OpBuilder &b, Location loc, Value v,
                                unsigned laneMask) {
  Type i32 = b.getI32Type();
  auto shuffle = [&](Value word) -> Value {
    return NVVM::ShflOp::create(b, loc, word.getType(), i32Constant(b, loc, -1),
                                word, i32Constant(b, loc, laneMask),
                                i32Constant(b, loc, 0x1f), NVVM::ShflKind::bfly,
                                UnitAttr());
  };
  Type type = v.getType();
  if (type.isF32() || type.isInteger(32))
    return shuffle(v);
  unsigned bits = type.getIntOrFloatBitWidth();
  Type intType = b.getIntegerType(bits);
  Value asInt = isa<FloatType>(type)
                    ? (Value)LLVM::BitcastOp::create(b, loc, intType, v)
                    : v;
  Value result;
  if (bits < 32) {
    Value word = LLVM::ZExtOp::create(b, loc, i32, asInt);
    result = LLVM::TruncOp::create(b, loc, intType, shuffle(word));
  } else {
    Value shift = LLVM::ConstantOp::create(b, loc, intType,
                                           b.getIntegerAttr(intType, 32));
    Value lo = LLVM::TruncOp::create(b, loc, i32, asInt);
    Value hi = LLVM::TruncOp::create(
        b, loc, i32, LLVM::LShrOp::create(b, loc, asInt, shift));
    Value newLo = LLVM::ZExtOp::create(b, loc, intType, shuffle(lo));
    Value newHi = LLVM::ZExtOp::create(b, loc, intType, shuffle(hi));
    result = LLVM::OrOp::create(b, loc, newLo,
                                LLVM::ShlOp::create(b, loc, newHi, shift));
  }
  return isa<FloatType>(type)
             ? (Value)LLVM::BitcastOp::create(b, loc, type, result)
             : result;
}

Partial mlir::tilegpu::shufflePartial(OpBuilder &b, Location loc,
                                      const Partial &p, unsigned laneMask) {
  Partial result;
  for (Value v : p.values)
    result.values.push_back(shuffleXor(b, loc, v, laneMask));
  if (p.valid)
    result.valid = shuffleXor(b, loc, p.valid, laneMask);
  return result;
}

/// The values of `p` and then its flag, as stored.
static SmallVector<Value> storedValues(const Partial &p) {
  SmallVector<Value> values(p.values);
  if (p.valid)
    values.push_back(p.valid);
  return values;
}

/// Where each stored value's array starts, and the end of the last.
static SmallVector<int64_t> arrayOffsets(const Partial &p, int64_t count) {
  SmallVector<int64_t> offsets = {0};
  for (Value v : storedValues(p))
    offsets.push_back(offsets.back() +
                      llvm::alignTo(count * (getMemoryBits(v.getType()) / 8), 8));
  return offsets;
}

int64_t mlir::tilegpu::getPartialArrayBytes(const Partial &p, int64_t count) {
  return arrayOffsets(p, count).back();
}

/// The address of slot `index` of the array of stored value `i`.
static Value slotAddress(OpBuilder &b, Location loc, Value base,
                         int64_t offset, Type slotType, Value index) {
  Value array = LLVM::GEPOp::create(b, loc, base.getType(), b.getI8Type(),
                                    base, ArrayRef<LLVM::GEPArg>{int32_t(offset)});
  return LLVM::GEPOp::create(b, loc, base.getType(), slotType, array,
                             ValueRange{index});
}

void mlir::tilegpu::storePartial(OpBuilder &b, Location loc, Value base,
                                 int64_t count, Value index, const Partial &p) {
  SmallVector<int64_t> offsets = arrayOffsets(p, count);
  for (auto [i, v] : llvm::enumerate(storedValues(p)))
    LLVM::StoreOp::create(b, loc, toMemoryForm(b, loc, v),
                          slotAddress(b, loc, base, offsets[i],
                                      getMemoryType(v.getType()), index));
}

Partial mlir::tilegpu::loadPartial(OpBuilder &b, Location loc, Value base,
                                   int64_t count, Value index,
                                   const Partial &like) {
  SmallVector<int64_t> offsets = arrayOffsets(like, count);
  SmallVector<Value> loaded;
  for (auto [i, v] : llvm::enumerate(storedValues(like))) {
    Type slotType = getMemoryType(v.getType());
    Value x = LLVM::LoadOp::create(
        b, loc, slotType,
        slotAddress(b, loc, base, offsets[i], slotType, index));
    loaded.push_back(fromMemoryForm(b, loc, x, v.getType()));
  }
  Partial result;
  result.values.assign(loaded.begin(), loaded.begin() + like.values.size());
  if (like.valid)
    result.valid = loaded.back();
  return result;
}
