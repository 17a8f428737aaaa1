//===- BlockPointers.cpp - Block pointers and tensor descriptors ----------===//
//
// Triton's two ways of naming a tile of a strided tensor:
//
//   p = tl.make_block_ptr(base, shape, strides, offsets, block_shape, order)
//   p = tl.advance(p, offsets)
//   tl.load(p, boundary_check=(0, 1), padding_option="zero")
//   tl.store(p, value, boundary_check=(0,))
//
//   d = tl.make_tensor_descriptor(base, shape, strides, block_shape)
//   d.load([m, n]);  d.store([m, n], value)
//
// Both are compile-time records here (TValue::Kind::BlockPtr and
// TensorDesc) of runtime and constexpr parts; a loop carries a block
// pointer's base and offsets (its shape and strides may not change there). A load or store through one becomes the tile of
// pointers base + sum_d (offset_d + arange(block_d)) * stride_d, masked by
// 0 <= index_d < shape_d along the checked dimensions (every dimension of a
// descriptor), with out-of-bounds elements read as zero (or NaN): the
// portable lowering; the Hopper bulk-copy one comes with the tensor-core
// path. A descriptor passed from the host (a `tensordesc<fp16[64, 64]>`
// parameter) is the same record of the kernel's base, shape and stride
// arguments.
//
//===----------------------------------------------------------------------===//

#include "MLIRGenImpl.h"

#include <limits>

using namespace mlir;
using namespace tilec;
using llvm::StringRef;
using llvm::Twine;

namespace {
/// A record's fields, in TValue::elements.
enum BlockField { Base, Shape, Strides, Offsets, BlockShape, Order };
} // namespace

/// The items of a tuple argument (or a lone value), `rank` of them.
static std::vector<TValue> tupleArg(MLIRGenImpl &g, const TValue &v,
                                    const ast::Location &l, StringRef what,
                                    size_t rank) {
  std::vector<TValue> items =
      v.kind == TValue::Kind::Tuple ? v.elements : std::vector<TValue>{v};
  if (items.size() != rank)
    g.fail(l, what + " needs " + Twine(rank) + " entries (one per dimension), got " +
                  Twine(items.size()));
  for (const TValue &item : items) {
    bool integer = item.kind == TValue::Kind::Int ||
                   (item.isRuntime() &&
                    getElementTypeOrSelf(item.value.getType()).isInteger() &&
                    !isa<RankedTensorType>(item.value.getType()));
    if (!integer)
      g.fail(l, what + " must be integers, got " + g.describe(item));
  }
  return items;
}

Value MLIRGenImpl::rangeAlong(int64_t n, int64_t dim, int64_t rank,
                              const ast::Location &l) {
  Location location = loc(l);
  Type i32 = builder.getI32Type();
  Value range = tile::MakeRangeOp::create(
      builder, location, RankedTensorType::get({n}, i32),
      builder.getI32IntegerAttr(0), builder.getI32IntegerAttr(int32_t(n)));
  for (int64_t d = 0; d < rank; ++d)
    if (d != dim)
      range = expandDims(range, d, l);
  return range;
}

TValue MLIRGenImpl::genBlockPointer(const BoundArgs &args,
                                    const ast::CallExpr &c) {
  const std::string &name = args.function;
  if (name == "tl.make_block_ptr" || name == "tl.make_tensor_descriptor") {
    bool isDesc = name == "tl.make_tensor_descriptor";
    Value base = toValue(*args.get(0), args.locs[0], "the base");
    if (!isa<tile::PointerType>(base.getType()))
      fail(args.locs[0], name + " needs a scalar pointer as its base, got " +
                             describe(base.getType()));
    unsigned blockIndex = isDesc ? 3 : 4;
    const TValue &blockArg = *args.get(blockIndex);
    std::vector<TValue> block =
        blockArg.kind == TValue::Kind::Tuple ? blockArg.elements
                                             : std::vector<TValue>{blockArg};
    size_t rank = block.size();
    SmallVector<int64_t> blockShape;
    for (const TValue &b : block) {
      int64_t n = constInt(b, args.locs[blockIndex], "a block dimension");
      if (n <= 0 || !llvm::isPowerOf2_64(n))
        fail(args.locs[blockIndex], name + ": block dimensions must be "
                                           "powers of two, got " + Twine(n));
      blockShape.push_back(n);
    }
    TValue record = descriptorRecord(
        TValue::ofValue(base, args.get(0)->isUnsigned),
        tupleArg(*this, *args.get(1), args.locs[1], "shape", rank),
        tupleArg(*this, *args.get(2), args.locs[2], "strides", rank), blockShape);
    if (!isDesc) {
      // A block pointer: the same record with offsets and an order.
      record.kind = TValue::Kind::BlockPtr;
      record.elements[Offsets] = TValue::ofTuple(
          tupleArg(*this, *args.get(3), args.locs[3], "offsets", rank));
      std::vector<TValue> order =
          tupleArg(*this, *args.get(5), args.locs[5], "order", rank);
      for (const TValue &o : order)
        if (o.kind != TValue::Kind::Int)
          fail(args.locs[5], "order must be constexpr ints");
      record.elements[Order] = TValue::ofTuple(order);
    } else if (const TValue *padding = args.get(4)) {
      if (padding->kind != TValue::Kind::String ||
          (padding->text() != "zero" && padding->text() != "nan"))
        fail(args.locs[4], "padding_option must be \"zero\" or \"nan\"");
      record.elements[Order] = *padding;
    }
    return record;
  }
  // tl.advance
  TValue p = *args.get(0);
  if (p.kind != TValue::Kind::BlockPtr)
    fail(args.locs[0], "tl.advance needs a block pointer, got " + describe(p));
  std::vector<TValue> &offsets = p.elements[Offsets].elements;
  std::vector<TValue> by =
      tupleArg(*this, *args.get(1), args.locs[1], "offsets", offsets.size());
  for (auto [o, d] : llvm::zip(offsets, by))
    o = binary(ast::BinaryOp::Add, o, d, args.locs[1]);
  return p;
}

TValue MLIRGenImpl::descriptorRecord(const TValue &base,
                                     std::vector<TValue> shape,
                                     std::vector<TValue> strides,
                                     ArrayRef<int64_t> blockShape) {
  TValue record = TValue::named(TValue::Kind::TensorDesc, "tensordesc");
  std::vector<TValue> block;
  for (int64_t n : blockShape)
    block.push_back(TValue::ofInt(n));
  record.elements = {base,
                     TValue::ofTuple(std::move(shape)),
                     TValue::ofTuple(std::move(strides)),
                     TValue::ofTuple(std::vector<TValue>(blockShape.size(),
                                                         TValue::ofInt(0))),
                     TValue::ofTuple(std::move(block)),
                     TValue::none()};
  return record;
}

MLIRGenImpl::BlockAccess
MLIRGenImpl::blockAccess(const TValue &p, const TValue *offsetsArg,
                         const TValue *boundaryCheck, const TValue *padding,
                         const ast::Location &l) {
  bool isDesc = p.kind == TValue::Kind::TensorDesc;
  const std::vector<TValue> &shape = p.elements[Shape].elements;
  const std::vector<TValue> &strides = p.elements[Strides].elements;
  const std::vector<TValue> &blockShape = p.elements[BlockShape].elements;
  size_t rank = blockShape.size();
  std::vector<TValue> offsets = p.elements[Offsets].elements;
  if (offsetsArg)
    offsets = tupleArg(*this, *offsetsArg, l, "offsets", rank);

  // The dimensions whose bounds are checked: a descriptor's all.
  SmallVector<bool> checked(rank, isDesc);
  if (boundaryCheck && boundaryCheck->kind != TValue::Kind::None) {
    std::vector<TValue> dims = boundaryCheck->kind == TValue::Kind::Tuple
                                   ? boundaryCheck->elements
                                   : std::vector<TValue>{*boundaryCheck};
    for (const TValue &d : dims) {
      int64_t dim = constInt(d, l, "boundary_check");
      if (dim < 0 || dim >= int64_t(rank))
        fail(l, "boundary_check: dimension " + Twine(dim) +
                    " is out of range for a " + Twine(rank) + "-D block");
      checked[dim] = true;
    }
  }
  std::string paddingName = isDesc && p.elements[Order].kind == TValue::Kind::String
                                ? p.elements[Order].text()
                                : "zero";
  if (padding && padding->kind != TValue::Kind::None) {
    if (padding->kind != TValue::Kind::String ||
        (padding->text() != "" && padding->text() != "zero" && padding->text() != "nan"))
      fail(l, "padding_option must be \"\", \"zero\" or \"nan\"");
    if (!padding->text().empty())
      paddingName = padding->text();
  }

  Location location = loc(l);
  TValue offset = TValue::ofInt(0), inBounds;
  for (size_t d = 0; d < rank; ++d) {
    // offsets[d] + arange(block[d]), laid along dimension d of the block.
    int64_t n = blockShape[d].intValue();
    Value range = rangeAlong(n, d, rank, l);
    TValue index = binary(ast::BinaryOp::Add, offsets[d],
                          TValue::ofValue(range), l);
    offset = binary(ast::BinaryOp::Add, offset,
                    binary(ast::BinaryOp::Mul, index, strides[d], l), l);
    if (!checked[d])
      continue;
    TValue atLeastZero = compare(ast::CompareOp::Ge, index, TValue::ofInt(0), l);
    TValue belowShape = compare(ast::CompareOp::Lt, index, shape[d], l);
    TValue inside = binary(ast::BinaryOp::BitAnd, atLeastZero, belowShape, l);
    inBounds = inBounds.kind == TValue::Kind::None
                   ? inside
                   : binary(ast::BinaryOp::BitAnd, inBounds, inside, l);
  }
  SmallVector<int64_t> fullShape;
  for (const TValue &b : blockShape)
    fullShape.push_back(b.intValue());
  TValue pointers = binary(ast::BinaryOp::Add, p.elements[Base], offset, l);
  BlockAccess access;
  access.ptr = broadcastTo(toValue(pointers, l, "the block's pointers"),
                           fullShape, l, "the block's pointers");
  if (inBounds.kind != TValue::Kind::None) {
    access.mask = broadcastTo(toValue(inBounds, l, "the block's bounds"),
                              fullShape, l, "the block's bounds");
    Type element =
        llvm::cast<tile::PointerType>(getElementTypeOrSelf(access.ptr.getType()))
            .getPointeeType();
    TValue fill = paddingName == "nan"
                      ? TValue::ofFloat(std::numeric_limits<double>::quiet_NaN())
                      : TValue::ofInt(0);
    if (paddingName == "nan" && !isa<FloatType>(element))
      fail(l, "padding_option=\"nan\" needs a float block, not " +
                  describe(element));
    access.other = broadcastTo(convertTo(fill, element, l, "the padding"),
                               fullShape, l, "the padding");
  }
  return access;
}

namespace {

using Kind = BuiltinKind;
constexpr BuiltinHandler kBlockPointer = member<&MLIRGenImpl::genBlockPointer>;

const BuiltinSpec kBlockPointers[] = {
    {"tl.make_block_ptr", "base, shape, strides, offsets, block_shape, order",
     Kind::Function, kBlockPointer,
     "a block pointer: tl.load and tl.store check its boundary_check dims"},
    {"tl.advance", "base, offsets", Kind::Both, kBlockPointer,
     "a block pointer moved by offsets"},
    {"tl.make_tensor_descriptor",
     "base, shape, strides, block_shape, padding_option=\"zero\"",
     Kind::Function, kBlockPointer,
     "a tensor descriptor (desc.load, desc.store); TMA on sm_90a"},
};

} // namespace

ArrayRef<BuiltinSpec> tilec::getBlockPointerBuiltins() {
  return kBlockPointers;
}
