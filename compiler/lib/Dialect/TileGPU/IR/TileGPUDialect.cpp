//===- TileGPUDialect.cpp - Layout encodings and their operations ---------===//

#include "tilec/Dialect/TileGPU/IR/SharedLayout.h"
#include "tilec/Dialect/TileGPU/IR/TileGPU.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::tilegpu;

#include "tilec/Dialect/TileGPU/IR/TileGPUDialect.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "tilec/Dialect/TileGPU/IR/TileGPUAttrs.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "tilec/Dialect/TileGPU/IR/TileGPUTypes.cpp.inc"

#define GET_OP_CLASSES
#include "tilec/Dialect/TileGPU/IR/TileGPUOps.cpp.inc"

namespace {
/// Prints layouts as `#blocked`, `#blocked1`, `#slice`... aliases, so laid-out
/// IR stays readable.
struct TileGPUOpAsmInterface : OpAsmDialectInterface {
  using OpAsmDialectInterface::OpAsmDialectInterface;
  AliasResult getAlias(Attribute attr, raw_ostream &os) const override {
    if (isa<BlockedEncodingAttr>(attr)) {
      os << "blocked";
      return AliasResult::FinalAlias;
    }
    if (isa<SliceEncodingAttr>(attr)) {
      os << "slice";
      return AliasResult::FinalAlias;
    }
    if (isa<MmaEncodingAttr>(attr)) {
      os << "mma";
      return AliasResult::FinalAlias;
    }
    if (isa<DotOperandEncodingAttr>(attr)) {
      os << "dot_op";
      return AliasResult::FinalAlias;
    }
    if (isa<SharedEncodingAttr>(attr)) {
      os << "shared";
      return AliasResult::FinalAlias;
    }
    if (isa<LinearEncodingAttr>(attr)) {
      os << "linear";
      return AliasResult::FinalAlias;
    }
    return AliasResult::NoAlias;
  }
};
} // namespace

void TileGPUDialect::initialize() {
  addInterfaces<TileGPUOpAsmInterface>();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "tilec/Dialect/TileGPU/IR/TileGPUAttrs.cpp.inc"
      >();
  addTypes<
#define GET_TYPEDEF_LIST
#include "tilec/Dialect/TileGPU/IR/TileGPUTypes.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "tilec/Dialect/TileGPU/IR/TileGPUOps.cpp.inc"
      >();
}

LogicalResult BlockedEncodingAttr::verify(
    function_ref<InFlightDiagnostic()> emitError, ArrayRef<unsigned> sizePerThread,
    ArrayRef<unsigned> threadsPerWarp, ArrayRef<unsigned> warpsPerCTA,
    ArrayRef<unsigned> order) {
  size_t rank = sizePerThread.size();
  if (threadsPerWarp.size() != rank || warpsPerCTA.size() != rank ||
      order.size() != rank)
    return emitError() << "blocked layout parameters must all have rank "
                       << rank;
  unsigned lanes = 1;
  for (unsigned t : threadsPerWarp)
    lanes *= t;
  if (lanes != 32)
    return emitError() << "threadsPerWarp must multiply to 32, not " << lanes;
  SmallVector<bool> seen(rank, false);
  for (unsigned d : order) {
    if (d >= rank || seen[d])
      return emitError() << "order must be a permutation of 0.." << rank - 1;
    seen[d] = true;
  }
  // Layouts are linear in the bits of thread and register ids (see
  // ThreadLayout): every count is a power of two.
  for (ArrayRef<unsigned> counts : {sizePerThread, threadsPerWarp, warpsPerCTA})
    for (unsigned s : counts)
      if (!llvm::isPowerOf2_32(s))
        return emitError() << "blocked layout counts must be powers of two, "
                              "not "
                           << s;
  return success();
}

LogicalResult MmaEncodingAttr::verify(
    function_ref<InFlightDiagnostic()> emitError, unsigned version,
    ArrayRef<unsigned> warpsPerCTA, ArrayRef<unsigned> instrShape,
    bool swapped) {
  if (swapped && version != 3)
    return emitError() << "only wgmma's layouts (version 3) swap operands";
  if (version != 2 && version != 3)
    return emitError() << "mma version " << version
                       << " is not supported (2: mma.sync, 3: wgmma)";
  if (warpsPerCTA.size() != instrShape.size() ||
      (instrShape.size() != 2 && instrShape.size() != 3))
    return emitError() << "mma layouts are 2-D or 3-D, with one warp count "
                          "and one instruction extent per dimension";
  for (unsigned w : warpsPerCTA)
    if (!llvm::isPowerOf2_32(w))
      return emitError() << "warpsPerCTA must be powers of two";
  size_t rank = instrShape.size();
  if (version == 3) {
    if (rank != 2 || instrShape[0] != 64 || instrShape[1] % 8 != 0 ||
        instrShape[1] < 8 || instrShape[1] > 256)
      return emitError() << "wgmma's accumulator tiles are 64 x N, N a "
                            "multiple of 8 up to 256";
    if (warpsPerCTA[0] % 4 != 0)
      return emitError() << "wgmma's warps come in warpgroups of 4 along M";
    return success();
  }
  if (instrShape[rank - 2] != 16 || instrShape[rank - 1] != 8 ||
      (rank == 3 && instrShape[0] != 1))
    return emitError() << "mma.sync's accumulator tiles are 16 x 8";
  return success();
}

LogicalResult DotOperandEncodingAttr::verify(
    function_ref<InFlightDiagnostic()> emitError, unsigned opIdx,
    Attribute parent, unsigned kWidth) {
  if (opIdx > 1)
    return emitError() << "opIdx is 0 (A) or 1 (B), not " << opIdx;
  if (isa<MmaEncodingAttr>(parent)) {
    if (kWidth != 1 && kWidth != 2 && kWidth != 4)
      return emitError() << "kWidth of an mma operand is 1, 2 or 4";
    return success();
  }
  if (isa<BlockedEncodingAttr>(parent))
    return success();
  return emitError() << "a dot operand's parent is an mma or blocked layout";
}

//===----------------------------------------------------------------------===//
// Linear encodings: bases stored flat, `rank` offsets each
//===----------------------------------------------------------------------===//

static SmallVector<LayoutBasis> unpackBases(ArrayRef<int64_t> flat,
                                            unsigned rank) {
  SmallVector<LayoutBasis> bases;
  for (size_t i = 0; rank && i + rank <= flat.size(); i += rank) {
    LayoutBasis basis;
    for (unsigned d = 0; d < rank; ++d)
      if (flat[i + d] != 0)
        basis = {int(d), flat[i + d]};
    bases.push_back(basis);
  }
  return bases;
}

static SmallVector<int64_t> packBases(ArrayRef<LayoutBasis> bases,
                                      unsigned rank) {
  SmallVector<int64_t> flat;
  for (LayoutBasis basis : bases)
    for (unsigned d = 0; d < rank; ++d)
      flat.push_back(int(d) == basis.dim ? basis.offset : 0);
  return flat;
}

SmallVector<LayoutBasis> LinearEncodingAttr::getRegBases() const {
  return unpackBases(getReg(), getRank());
}
SmallVector<LayoutBasis> LinearEncodingAttr::getLaneBases() const {
  return unpackBases(getLane(), getRank());
}
SmallVector<LayoutBasis> LinearEncodingAttr::getWarpBases() const {
  return unpackBases(getWarp(), getRank());
}

LinearEncodingAttr LinearEncodingAttr::get(MLIRContext *context, unsigned rank,
                                           ArrayRef<LayoutBasis> reg,
                                           ArrayRef<LayoutBasis> lane,
                                           ArrayRef<LayoutBasis> warp) {
  return get(context, rank, packBases(reg, rank), packBases(lane, rank),
             packBases(warp, rank));
}

LogicalResult LinearEncodingAttr::verify(
    function_ref<InFlightDiagnostic()> emitError, unsigned rank,
    ArrayRef<int64_t> reg, ArrayRef<int64_t> lane, ArrayRef<int64_t> warp) {
  if (rank == 0)
    return emitError() << "a linear layout has rank 1 or more";
  for (ArrayRef<int64_t> flat : {reg, lane, warp}) {
    if (flat.size() % rank)
      return emitError() << "each basis has one offset per dimension (" << rank
                         << ")";
    for (size_t i = 0; i < flat.size(); i += rank) {
      unsigned moves = 0;
      for (unsigned d = 0; d < rank; ++d) {
        if (flat[i + d] == 0)
          continue;
        ++moves;
        if (flat[i + d] < 0 || !llvm::isPowerOf2_64(flat[i + d]))
          return emitError() << "a basis moves by a power of two, not "
                             << flat[i + d];
      }
      if (moves > 1)
        return emitError() << "a basis moves along one dimension at most";
    }
  }
  if (lane.size() != 5 * rank)
    return emitError() << "a linear layout has five lane bases";
  for (size_t i = 0; i < reg.size(); i += rank)
    if (llvm::all_of(reg.slice(i, rank), [](int64_t o) { return o == 0; }))
      return emitError() << "a register basis must move";
  return success();
}

/// `#tilegpu.linear<{reg = [[0, 1]], lane = [[0, 2], ...], warp = [...]}>`
Attribute LinearEncodingAttr::parse(AsmParser &parser, Type) {
  SmallVector<int64_t> flat[3];
  int64_t rank = -1;
  auto parseBasis = [&](SmallVector<int64_t> &into) -> ParseResult {
    SmallVector<int64_t> basis;
    if (parser.parseCommaSeparatedList(
            AsmParser::Delimiter::Square,
            [&] { return parser.parseInteger(basis.emplace_back()); }))
      return failure();
    if (rank >= 0 && int64_t(basis.size()) != rank)
      return parser.emitError(parser.getCurrentLocation(),
                              "every basis needs one offset per dimension");
    rank = basis.size();
    into.append(basis);
    return success();
  };
  if (parser.parseLess() || parser.parseLBrace())
    return {};
  const char *names[] = {"reg", "lane", "warp"};
  for (unsigned i = 0; i < 3; ++i) {
    SmallVector<int64_t> &into = flat[i];
    if ((i > 0 && parser.parseComma()) || parser.parseKeyword(names[i]) ||
        parser.parseEqual() ||
        parser.parseCommaSeparatedList(
            AsmParser::Delimiter::Square,
            [&]() -> ParseResult { return parseBasis(into); }))
      return {};
  }
  if (parser.parseRBrace() || parser.parseGreater())
    return {};
  if (rank <= 0) {
    parser.emitError(parser.getNameLoc(), "a linear layout needs lane bases");
    return {};
  }
  return parser.getChecked<LinearEncodingAttr>(parser.getContext(),
                                               unsigned(rank), flat[0], flat[1],
                                               flat[2]);
}

void LinearEncodingAttr::print(AsmPrinter &printer) const {
  unsigned rank = getRank();
  auto printBases = [&](StringRef name, ArrayRef<int64_t> flat) {
    printer << name << " = [";
    for (size_t i = 0; i < flat.size(); i += rank) {
      printer << (i ? ", [" : "[");
      llvm::interleaveComma(flat.slice(i, rank), printer);
      printer << "]";
    }
    printer << "]";
  };
  printer << "<{";
  printBases("reg", getReg());
  printer << ", ";
  printBases("lane", getLane());
  printer << ", ";
  printBases("warp", getWarp());
  printer << "}>";
}

/// `!tilegpu.memdesc<3x64x32xf16, #shared>`
Type MemDescType::parse(AsmParser &parser) {
  SmallVector<int64_t> shape;
  Type elementType;
  Attribute encoding;
  if (parser.parseLess() ||
      parser.parseDimensionList(shape, /*allowDynamic=*/false) ||
      parser.parseType(elementType) || parser.parseComma() ||
      parser.parseAttribute(encoding) || parser.parseGreater())
    return {};
  return MemDescType::get(parser.getContext(), shape, elementType, encoding);
}

void MemDescType::print(AsmPrinter &printer) const {
  printer << "<";
  for (int64_t d : getShape())
    printer << d << "x";
  printer << getElementType() << ", " << getEncoding() << ">";
}

LogicalResult LocalAllocOp::verify() {
  MemDescType type = getType();
  if (!isa<SharedEncodingAttr>(type.getEncoding()))
    return emitOpError("shared-memory buffers have a #tilegpu.shared encoding");
  if (auto src = getSrc()) {
    auto tensor = cast<RankedTensorType>(src.getType());
    if (tensor.getShape() != type.getShape() ||
        tensor.getElementType() != type.getElementType())
      return emitOpError("the tile and the buffer must have one shape and "
                         "element type");
  }
  return success();
}

LogicalResult MemDescIndexOp::verify() {
  ArrayRef<int64_t> src = getSrc().getType().getShape();
  if (src.size() < 2 || getType().getShape() != src.drop_front() ||
      getType().getElementType() != getSrc().getType().getElementType())
    return emitOpError("the result is one buffer of the source's ring");
  return success();
}

LogicalResult MemDescTransOp::verify() {
  MemDescType src = getSrc().getType();
  if (src.getRank() != 2 || getType() != getTransposedType(src))
    return emitOpError("the result must be the 2-D source transposed: its "
                       "shape and its encoding's order reversed");
  return success();
}

LogicalResult TensorMapCreateOp::verify() {
  ArrayRef<int32_t> box = getBox();
  if (box.empty() || box.size() > 5 || getDims().size() != box.size() ||
      getStrides().size() + 1 != box.size())
    return emitOpError("needs 1 to 5 dimensions, a box extent and an extent "
                       "for each, and a stride for each but the innermost");
  if (llvm::any_of(box, [](int32_t n) { return n < 1 || n > 256; }))
    return emitOpError("box extents must lie in [1, 256]");
  int32_t swizzle = getSwizzle();
  if (swizzle != 0 && swizzle != 32 && swizzle != 64 && swizzle != 128)
    return emitOpError("swizzle must be 0, 32, 64 or 128 bytes");
  MemDescType staging = getStaging().getType();
  if (staging.getShape() != ArrayRef<int64_t>{16} ||
      !staging.getElementType().isInteger(64))
    return emitOpError("stages the map in a 128-byte buffer (memdesc<16xi64>)");
  return success();
}

LogicalResult AsyncTMACopyOp::verify() {
  if (!getShared())
    return success();
  MemDescType type = getDst().getType();
  auto encoding = dyn_cast_or_null<SharedEncodingAttr>(type.getEncoding());
  if (!encoding)
    return emitOpError("shares a copy only into a swizzled buffer");
  SharedPanels panels = getSharedPanels(encoding, type.getShape());
  int64_t count = panels.rowLength / panels.width;
  if (count % 2 != 0)
    return emitOpError("shares a copy of ")
           << count << " panel(s) between two CTAs: the count must be even";
  return success();
}

LogicalResult AsyncTMAStoreOp::verify() {
  RankedTensorType src = getSrc().getType();
  MemDescType buffer = getBuffer();
  if (src.getShape() != buffer.getShape() ||
      src.getElementType() != buffer.getElementType())
    return emitOpError("stages the tile in a buffer of its shape and element "
                       "type");
  if (!isa_and_nonnull<SharedEncodingAttr>(buffer.getEncoding()))
    return emitOpError("needs a swizzled shared-memory buffer");
  if (getCoords().size() < size_t(src.getRank()))
    return emitOpError("needs a coordinate for each dimension of the tile");
  return success();
}

LogicalResult WarpgroupDotWaitOp::verify() {
  auto mma = dyn_cast_or_null<MmaEncodingAttr>(
      cast<RankedTensorType>(getInput().getType()).getEncoding());
  if (!mma || mma.getVersion() != 3)
    return emitOpError("waits on a wgmma accumulator (mma encoding version 3)");
  if (getPendingAttr().getValue().isNegative())
    return emitOpError("pending must not be negative");
  return success();
}

LogicalResult WarpSpecializeOp::verify() {
  // setmaxnreg and the producer's own warps work on whole warpgroups.
  int32_t warps = getProducerWarps();
  if (warps < 4 || warps % 4 != 0)
    return emitOpError("producer_warps must be a positive multiple of 4 (whole "
                       "warpgroups), got ")
           << warps;
  int32_t producer = getProducerRegisters(), consumer = getConsumerRegisters();
  if (consumer == 0)
    return success();
  auto valid = [](int32_t n) { return n >= 24 && n <= 256 && n % 8 == 0; };
  if (!valid(producer) || !valid(consumer) || producer > consumer)
    return emitOpError("registers must be multiples of 8 in [24, 256], the "
                       "producer's at most the consumers', got ")
           << producer << " and " << consumer;
  return success();
}

OpFoldResult ConvertLayoutOp::fold(FoldAdaptor) {
  if (getSrc().getType() == getResult().getType())
    return getSrc();
  return {};
}
