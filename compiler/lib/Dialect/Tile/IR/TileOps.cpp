//===- TileOps.cpp - Verifiers, builders and folders of tile ops ----------===//

#include "tilec/Dialect/Tile/IR/Tile.h"
#include "tilec/Dialect/Tile/IR/Libdevice.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace mlir::tile;

LogicalResult MakeRangeOp::verify() {
  int64_t start = getStart(), end = getEnd();
  if (end <= start)
    return emitOpError("needs start < end, got [") << start << ", " << end
                                                    << ")";
  auto type = getResult().getType();
  if (type.getRank() != 1 || type.getDimSize(0) != end - start)
    return emitOpError("result must be a 1-D tensor of ")
           << end - start << " elements";
  return success();
}

LogicalResult BroadcastOp::verify() {
  auto src = getSrc().getType();
  auto dst = getResult().getType();
  if (src.getRank() != dst.getRank())
    return emitOpError("cannot change the rank, from ")
           << src.getRank() << " to " << dst.getRank();
  for (auto [s, d] : llvm::zip(src.getShape(), dst.getShape()))
    if (s != d && s != 1)
      return emitOpError("can only broadcast dimensions of size 1, not ")
             << s << " to " << d;
  return success();
}

OpFoldResult BroadcastOp::fold(FoldAdaptor) {
  if (getSrc().getType() == getResult().getType())
    return getSrc();
  return {};
}

LogicalResult ExpandDimsOp::verify() {
  auto src = getSrc().getType();
  auto dst = getResult().getType();
  int64_t axis = getAxis();
  if (axis < 0 || axis > src.getRank())
    return emitOpError("axis ") << axis << " out of range for rank "
                                << src.getRank();
  SmallVector<int64_t> expected(src.getShape());
  expected.insert(expected.begin() + axis, 1);
  if (dst.getShape() != ArrayRef<int64_t>(expected))
    return emitOpError("result shape must be the source shape with 1 at axis ")
           << axis;
  return success();
}

LogicalResult TransOp::verify() {
  auto src = getSrc().getType();
  auto dst = getResult().getType();
  ArrayRef<int32_t> order = getOrder();
  if (int64_t(order.size()) != src.getRank())
    return emitOpError("order needs one entry per dimension of the source, "
                       "got ")
           << order.size() << " for rank " << src.getRank();
  SmallVector<bool> seen(order.size(), false);
  SmallVector<int64_t> expected;
  for (int32_t d : order) {
    if (d < 0 || d >= int32_t(order.size()) || seen[d])
      return emitOpError("order must be a permutation of 0..")
             << order.size() - 1;
    seen[d] = true;
    expected.push_back(src.getDimSize(d));
  }
  if (dst.getShape() != ArrayRef<int64_t>(expected))
    return emitOpError("result shape must be the source's permuted by order");
  return success();
}

LogicalResult ReshapeOp::verify() {
  if (getSrc().getType().getNumElements() !=
      getResult().getType().getNumElements())
    return emitOpError("cannot reshape ")
           << getSrc().getType().getNumElements() << " elements into "
           << getResult().getType().getNumElements();
  return success();
}

LogicalResult ButterflyOp::verify() {
  RankedTensorType src = getSrc().getType();
  int64_t axis = getAxis(), bit = getBit();
  if (axis < 0 || axis >= src.getRank())
    return emitOpError("axis ") << axis << " out of range for rank "
                                << src.getRank();
  if (bit < 0 || bit > 30 || src.getDimSize(axis) % (int64_t(2) << bit) != 0)
    return emitOpError("2^(bit + 1) must divide the axis's extent ")
           << src.getDimSize(axis) << ", got bit " << bit;
  return success();
}

LogicalResult GatherOp::verify() {
  auto src = cast<RankedTensorType>(getSrc().getType());
  auto indices = cast<RankedTensorType>(getIndices().getType());
  auto result = cast<RankedTensorType>(getResult().getType());
  int64_t axis = getAxis();
  if (!indices.getElementType().isInteger() || indices.getElementType().isInteger(1))
    return emitOpError("indices must be integers, got ") << indices;
  if (indices.getRank() != src.getRank())
    return emitOpError("indices must have the source's rank ")
           << src.getRank() << ", got " << indices;
  if (axis < 0 || axis >= src.getRank())
    return emitOpError("axis ") << axis << " is not a dimension of " << src;
  for (int64_t d = 0; d < src.getRank(); ++d)
    if (d != axis && indices.getDimSize(d) != src.getDimSize(d))
      return emitOpError("indices must have the source's extent along "
                         "dimension ") << d << ", got " << indices;
  if (result.getShape() != indices.getShape() ||
      result.getElementType() != src.getElementType())
    return emitOpError("result must have the indices' shape and the "
                       "source's element type, got ") << result;
  return success();
}

LogicalResult HistogramOp::verify() {
  auto src = cast<RankedTensorType>(getSrc().getType());
  auto result = cast<RankedTensorType>(getResult().getType());
  if (src.getRank() != 1 || !src.getElementType().isInteger() ||
      src.getElementType().isInteger(1))
    return emitOpError("counts a 1-D tile of integers, got ") << src;
  if (result.getRank() != 1 || !result.getElementType().isInteger(32))
    return emitOpError("result must be a 1-D tile of i32, got ") << result;
  if (Value mask = getMask()) {
    auto type = cast<RankedTensorType>(mask.getType());
    if (type.getShape() != src.getShape() || !type.getElementType().isInteger(1))
      return emitOpError("mask must be i1 of the source's shape, got ") << type;
  }
  return success();
}

LogicalResult JoinOp::verify() {
  SmallVector<int64_t> expected(getLhs().getType().getShape());
  expected.push_back(2);
  if (getResult().getType().getShape() != ArrayRef<int64_t>(expected))
    return emitOpError("result shape must be the operands' with a last "
                       "dimension of 2");
  return success();
}

LogicalResult SplitOp::verify() {
  auto src = getSrc().getType();
  if (src.getShape().back() != 2)
    return emitOpError("the source's last dimension must be 2, not ")
           << src.getShape().back();
  Type expected = src.getElementType();
  if (src.getRank() > 1)
    expected = RankedTensorType::get(src.getShape().drop_back(),
                                     src.getElementType(), Attribute());
  auto lhs = dyn_cast<RankedTensorType>(getLhs().getType());
  bool ok = lhs ? isa<RankedTensorType>(expected) &&
                      lhs.getShape() ==
                          cast<RankedTensorType>(expected).getShape() &&
                      lhs.getElementType() == src.getElementType()
                : getLhs().getType() == expected;
  if (!ok)
    return emitOpError("results must be the source without its last "
                       "dimension");
  return success();
}

LogicalResult PrintOp::verify() {
  if (getIsSigned().size() != getArgs().size())
    return emitOpError("isSigned needs one entry per operand");
  return success();
}

LogicalResult PtrToIntOp::verify() {
  if (!getElementTypeOrSelf(getResult().getType()).isInteger(64))
    return emitOpError("an address is an int64");
  return success();
}

LogicalResult IntToPtrOp::verify() {
  if (!getElementTypeOrSelf(getAddress().getType()).isInteger(64))
    return emitOpError("an address is an int64");
  return success();
}

LogicalResult LoadOp::verify() {
  if (getOther() && !getMask())
    return emitOpError("`other` needs a mask");
  CacheModifier cache = getCache();
  if (!isCacheModifierFor(cache, /*isLoad=*/true))
    return emitOpError("a load's cache modifier is ca, cg or cv, not ")
           << stringifyCacheModifier(cache);
  if (getIsVolatile() && (cache != CacheModifier::None ||
                          getEvict() != EvictionPolicy::Normal))
    return emitOpError("a volatile load takes no cache modifier or eviction "
                       "policy");
  return success();
}

LogicalResult StoreOp::verify() {
  CacheModifier cache = getCache();
  if (!isCacheModifierFor(cache, /*isLoad=*/false))
    return emitOpError("a store's cache modifier is wb, cg, cs or wt, not ")
           << stringifyCacheModifier(cache);
  return success();
}

LogicalResult AtomicRMWOp::verify() {
  // The element types PTX's atom takes for each operation (16-bit float
  // adds from sm_70/sm_90; float max/min go through integer atoms).
  Type element = getElementTypeOrSelf(getVal().getType());
  if (isAtomicElementType(getKind(), element))
    return success();
  StringRef types = getKind() == AtomicRMWKind::Add ? "f16, bf16, f32, f64, i32 and i64"
                    : getKind() == AtomicRMWKind::And || getKind() == AtomicRMWKind::Or ||
                            getKind() == AtomicRMWKind::Xor ||
                            getKind() == AtomicRMWKind::UMax ||
                            getKind() == AtomicRMWKind::UMin
                        ? "i32 and i64"
                        : "f32, f64, i32 and i64";
  return emitOpError("atomic ") << stringifyAtomicRMWKind(getKind())
                                << " supports " << types
                                << " elements, got " << element;
}

LogicalResult HintOp::verify() {
  auto tensor = dyn_cast<RankedTensorType>(getSrc().getType());
  size_t rank = tensor ? tensor.getRank() : 1;
  for (auto [name, facts] : {std::pair("divisibility", getDivisibility()),
                             std::pair("contiguity", getContiguity()),
                             std::pair("constancy", getConstancy())}) {
    if (!facts)
      continue;
    if (facts->size() != rank)
      return emitOpError(name) << " has " << facts->size()
                               << " entries, but the value has " << rank
                               << (tensor ? " dimensions" : " (a scalar)");
    for (int64_t fact : *facts)
      if (fact < 1)
        return emitOpError(name) << " entries must be positive, got " << fact;
  }
  return success();
}

LogicalResult ExternElementwiseOp::verify() {
  Type element = getElementTypeOrSelf(getType());
  const LibdeviceFunction *function = lookupLibdeviceSymbol(getSymbol(), element);
  if (!function)
    return emitOpError("'") << getSymbol()
                            << "' is not a libdevice function on " << element;
  if (getSrcs().size() != function->arity)
    return emitOpError("'") << getSymbol() << "' takes " << function->arity
                            << " operands, got " << getSrcs().size();
  return success();
}

LogicalResult AtomicCASOp::verify() {
  Type element = getElementTypeOrSelf(getVal().getType());
  if (!isAtomicElementType(std::nullopt, element))
    return emitOpError("atomic compare-and-swap supports 16-, 32- and 64-bit "
                       "elements, got ")
           << element;
  return success();
}

/// The checks `tile.reduce_with` and `tile.scan` share: sources of one
/// shape, an axis among their dimensions, and a combine region taking two
/// groups of their element types and yielding one, computing on scalars
/// without side effects (the GPU runs it any number of times).
static LogicalResult verifyCombine(Operation *op, ValueRange srcs,
                                   int64_t axis, Region &combine) {
  if (srcs.empty())
    return op->emitOpError("needs at least one source");
  auto first = cast<RankedTensorType>(srcs.front().getType());
  if (axis < 0 || axis >= first.getRank())
    return op->emitOpError("axis ") << axis << " out of range for rank "
                                    << first.getRank();
  SmallVector<Type> elements;
  for (Value src : srcs) {
    auto type = cast<RankedTensorType>(src.getType());
    if (type.getShape() != first.getShape())
      return op->emitOpError("sources must have one shape");
    if (isa<PointerType>(type.getElementType()))
      return op->emitOpError("cannot combine pointers");
    elements.push_back(type.getElementType());
  }
  Block &body = combine.front();
  SmallVector<Type> expected(elements);
  expected.append(elements);
  if (TypeRange(body.getArgumentTypes()) != TypeRange(expected))
    return op->emitOpError("combine region must take two groups of the "
                           "sources' element types");
  auto yield = dyn_cast<YieldOp>(body.getTerminator());
  if (!yield || TypeRange(yield.getValues().getTypes()) != TypeRange(elements))
    return op->emitOpError("combine region must yield one group of the "
                           "sources' element types");
  WalkResult walk = body.walk([&](Operation *inner) {
    bool tensors = llvm::any_of(inner->getResultTypes(), [](Type t) {
      return isa<ShapedType>(t);
    });
    if (tensors || !isMemoryEffectFree(inner))
      return WalkResult::interrupt();
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return op->emitOpError("combine region may only compute on scalars, "
                           "without side effects");
  return success();
}

/// Whether `result` is `src` reduced along `axis`, in any encoding (the
/// layout passes give it one).
static bool isReducedType(Type result, RankedTensorType src, int64_t axis) {
  Type expected = getReducedType(src, axis);
  auto want = dyn_cast<RankedTensorType>(expected);
  auto got = dyn_cast<RankedTensorType>(result);
  if (!want || !got)
    return result == expected;
  return got.getShape() == want.getShape() &&
         got.getElementType() == want.getElementType();
}

LogicalResult ReduceWithOp::verify() {
  if (failed(verifyCombine(*this, getSrcs(), getAxis(), getCombine())))
    return failure();
  if (getResults().size() != getSrcs().size())
    return emitOpError("needs one result per source");
  for (auto [src, result] : llvm::zip(getSrcs(), getResults()))
    if (!isReducedType(result.getType(),
                       cast<RankedTensorType>(src.getType()), getAxis()))
      return emitOpError("result must be the source without axis ")
             << getAxis();
  return success();
}

LogicalResult ScanOp::verify() {
  if (failed(verifyCombine(*this, getSrcs(), getAxis(), getCombine())))
    return failure();
  if (TypeRange(getResults().getTypes()) != TypeRange(getSrcs().getTypes()))
    return emitOpError("results must have the sources' types");
  return success();
}

LogicalResult ReduceOp::verify() {
  RankedTensorType src = getSrc().getType();
  int64_t axis = getAxis();
  if (axis < 0 || axis >= src.getRank())
    return emitOpError("axis ") << axis << " out of range for rank "
                                << src.getRank();
  if (getKind() == ReduceKind::Xor && !src.getElementType().isInteger())
    return emitOpError("xor reduces integers");
  if (isReducedType(getResult().getType(), src, axis))
    return success();
  if (src.getRank() == 1)
    return emitOpError("reducing a 1-D tile gives a scalar ")
           << src.getElementType();
  return emitOpError("result must be the source without axis ") << axis;
}

/// True when a dot of `input` elements may accumulate into `acc` elements.
static bool isDotTypePair(Type input, Type acc) {
  if (input.isF16() || isFP8(input))
    return acc.isF32() || acc.isF16();
  if (input.isBF16() || input.isF32())
    return acc.isF32();
  if (input.isInteger(8))
    return acc.isInteger(32);
  if (input.isF64())
    return acc.isF64();
  return false;
}

LogicalResult DotOp::verify() {
  auto a = cast<ShapedType>(getA().getType());
  auto b = cast<ShapedType>(getB().getType());
  RankedTensorType acc = getAcc().getType();
  int64_t rank = a.getRank();
  if (rank != 2 && rank != 3)
    return emitOpError("operands must be 2-D or 3-D (batched), not rank ")
           << rank;
  if (b.getRank() != rank || acc.getRank() != rank)
    return emitOpError("operands and accumulator must have one rank, got ")
           << rank << ", " << b.getRank() << " and " << acc.getRank();
  ArrayRef<int64_t> as = a.getShape(), bs = b.getShape(), cs = acc.getShape();
  if (as[rank - 1] != bs[rank - 2])
    return emitOpError("K must agree: ")
           << as[rank - 1] << " columns of a, " << bs[rank - 2] << " rows of b";
  if (cs[rank - 2] != as[rank - 2] || cs[rank - 1] != bs[rank - 1])
    return emitOpError("accumulator must be ")
           << as[rank - 2] << "x" << bs[rank - 1] << ", not " << cs[rank - 2]
           << "x" << cs[rank - 1];
  if (rank == 3 && (as[0] != bs[0] || as[0] != cs[0]))
    return emitOpError("batch sizes must agree, got ")
           << as[0] << " (a), " << bs[0] << " (b) and " << cs[0]
           << " (accumulator)";
  if (a.getElementType() != b.getElementType())
    return emitOpError("operands must have one element type, got ")
           << a.getElementType() << " and " << b.getElementType();
  if (!isDotTypePair(a.getElementType(), acc.getElementType()))
    return emitOpError("cannot multiply ")
           << a.getElementType() << " into a " << acc.getElementType()
           << " accumulator";
  return success();
}

#include "tilec/Dialect/Tile/IR/TileEnums.cpp.inc"

#define GET_OP_CLASSES
#include "tilec/Dialect/Tile/IR/TileOps.cpp.inc"
