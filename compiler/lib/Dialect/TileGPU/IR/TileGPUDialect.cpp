//===- TileGPUDialect.cpp - Layout encodings and their operations ---------===//

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
    ArrayRef<unsigned> warpsPerCTA, ArrayRef<unsigned> instrShape) {
  if (version != 2)
    return emitError() << "mma version " << version
                       << " is not supported (2: mma.sync)";
  if (warpsPerCTA.size() != instrShape.size() ||
      (instrShape.size() != 2 && instrShape.size() != 3))
    return emitError() << "mma layouts are 2-D or 3-D, with one warp count "
                          "and one instruction extent per dimension";
  size_t rank = instrShape.size();
  if (instrShape[rank - 2] != 16 || instrShape[rank - 1] != 8 ||
      (rank == 3 && instrShape[0] != 1))
    return emitError() << "mma.sync's accumulator tiles are 16 x 8";
  for (unsigned w : warpsPerCTA)
    if (!llvm::isPowerOf2_32(w))
      return emitError() << "warpsPerCTA must be powers of two";
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

OpFoldResult ConvertLayoutOp::fold(FoldAdaptor) {
  if (getSrc().getType() == getResult().getType())
    return getSrc();
  return {};
}
