//===- Shapes.cpp - tl.trans, tl.reshape, tl.join and their kin -----------===//
//
// Triton's shape functions (core.py and semantic.py of Triton 3.6), each
// also a method of tiles (`x.reshape(4, 8)`, `x.T`); their parameters are
// the table's rows at the end of this file. join(a, b) stacks along a new
// last dimension of 2, split(a) undoes it, interleave(a, b) is join with
// the last two dimensions merged.
//
// `*dims` and `*shape` are varargs or one tuple. tilec never reorders
// elements in a reshape (Triton may where can_reorder is set), so
// can_reorder is accepted and changes nothing.
//
//===----------------------------------------------------------------------===//

#include "MLIRGenImpl.h"

using namespace mlir;
using namespace tilec;
using llvm::StringRef;
using llvm::Twine;

namespace {

/// A call's arguments by position, varargs unwrapped as Triton's
/// `_unwrap_iterable` does.
struct ShapeArgs {
  std::vector<TValue> positional;
  std::vector<ast::Location> locs;
};

std::string shapeString(ArrayRef<int64_t> shape) {
  std::string s = "[";
  for (auto [i, d] : llvm::enumerate(shape))
    s += (i ? ", " : "") + std::to_string(d);
  return s + "]";
}

} // namespace

TValue MLIRGenImpl::genShape(const BoundArgs &bound, const ast::CallExpr &c) {
  Location location = loc(c.loc);
  const std::string &name = bound.function;
  StringRef fn = StringRef(name).rsplit('.').second; // "tl.trans", "tensor.item"
  // The required parameters in order, then what `*dims` / `*shape` took;
  // can_reorder, the one with a default, changes nothing here.
  ShapeArgs args;
  for (auto [i, param] : llvm::enumerate(getParams(*bound.spec))) {
    if (param.variadic) {
      llvm::append_range(args.positional, bound.varargs);
      llvm::append_range(args.locs, bound.varargLocs);
    } else if (param.required()) {
      args.positional.push_back(*bound.get(i));
      args.locs.push_back(bound.locs[i]);
    } else {
      (void)isTrue(*bound.get(i), bound.locs[i]);
    }
  }

  auto tile = [&](unsigned i) {
    return toValue(args.positional[i], args.locs[i], "the input");
  };
  // Results keep the signedness of the input they come from.
  auto out = [&](Value v, unsigned i = 0) {
    return TValue::ofValue(v, args.positional[i].isUnsigned);
  };
  // The ints of `*dims` / `*shape`: the arguments from `first` on, or the
  // elements of one tuple there.
  auto intList = [&](unsigned first, StringRef what) {
    SmallVector<int64_t> values;
    std::vector<TValue> items(args.positional.begin() + first,
                              args.positional.end());
    std::vector<ast::Location> locs(args.locs.begin() + first, args.locs.end());
    if (items.size() == 1 && items[0].kind == TValue::Kind::Tuple) {
      std::vector<TValue> inner = items[0].elements;
      locs.assign(inner.size(), locs[0]);
      items = std::move(inner);
    }
    for (auto [item, l] : llvm::zip(items, locs))
      values.push_back(constInt(item, l, what));
    return values;
  };
  auto expectCount = [&](size_t n) {
    if (args.positional.size() != n)
      fail(c.loc, name + "() takes " + Twine(n) + " argument" +
                      (n == 1 ? "" : "s") + " (" +
                      Twine(args.positional.size()) + " given)");
  };
  auto tensorType = [&](Value v, unsigned i) {
    auto type = dyn_cast<RankedTensorType>(v.getType());
    if (!type)
      fail(args.locs[i], name + " needs a tile, got " + describe(v.getType()));
    return type;
  };
  auto reshape = [&](Value v, ArrayRef<int64_t> shape) -> Value {
    auto type = llvm::cast<RankedTensorType>(v.getType());
    if (type.getShape() == shape)
      return v;
    // A 0-d result is a scalar (as tl.split's of a pair): its one element,
    // as a reduction of one element is.
    if (shape.empty()) {
      if (type.getRank() != 1)
        v = tile::ReshapeOp::create(
            builder, location,
            RankedTensorType::get({1}, type.getElementType()), v);
      return tile::ReduceOp::create(builder, location, type.getElementType(),
                                    v, tile::ReduceKind::Sum, 0);
    }
    return tile::ReshapeOp::create(
        builder, location, RankedTensorType::get(shape, type.getElementType()),
        v);
  };

  if (fn == "trans" || fn == "permute") {
    Value x = tile(0);
    auto type = tensorType(x, 0);
    SmallVector<int64_t> dims = intList(1, "a dimension");
    int64_t rank = type.getRank();
    if (dims.empty()) {
      if (fn == "permute")
        fail(c.loc, "tl.permute needs the order of the dimensions");
      // As Triton: the last two dimensions swapped (a batched transpose).
      for (int64_t d = 0; d + 2 < rank; ++d)
        dims.push_back(d);
      dims.push_back(rank - 1);
      if (rank >= 2)
        dims.push_back(rank - 2);
    }
    if (int64_t(dims.size()) != rank)
      fail(c.loc, name + ": the order " + shapeString(dims) + " must list each of the " +
                      Twine(rank) + " dimensions of a " + shapeString(type.getShape()) +
                      " tile once");
    SmallVector<int32_t> order;
    SmallVector<int64_t> shape;
    SmallVector<bool> seen(rank, false);
    for (int64_t d : dims) {
      if (d < 0 || d >= rank || seen[d])
        fail(c.loc, name + ": the order " + shapeString(dims) +
                        " is not a permutation of 0.." + Twine(rank - 1));
      seen[d] = true;
      order.push_back(int32_t(d));
      shape.push_back(type.getDimSize(d));
    }
    if (llvm::equal(order, llvm::seq<int32_t>(0, rank)))
      return out(x);
    return out(tile::TransOp::create(
        builder, location, RankedTensorType::get(shape, type.getElementType()),
        x, builder.getDenseI32ArrayAttr(order)));
  }

  if (fn == "reshape" || fn == "view" || fn == "ravel") {
    Value x = tile(0);
    // A scalar is a tile of one element, as Triton's 0-d tensors are.
    if (shapeOf(x).empty())
      x = tile::SplatOp::create(builder, location,
                                RankedTensorType::get({1}, x.getType()), x);
    auto type = tensorType(x, 0);
    SmallVector<int64_t> shape;
    if (fn == "ravel") {
      expectCount(1);
      shape = {type.getNumElements()};
    } else {
      shape = intList(1, "a shape dimension");
    }
    int64_t count = 1;
    for (int64_t d : shape) {
      if (d <= 0)
        fail(c.loc, name + ": shape " + shapeString(shape) +
                        " has a dimension that is not positive");
      count *= d;
    }
    if (count != type.getNumElements())
      fail(c.loc, name + ": cannot reshape a " + shapeString(type.getShape()) +
                      " tile of " + Twine(type.getNumElements()) +
                      " elements to " + shapeString(shape));
    if (type.getShape() == ArrayRef<int64_t>(shape))
      return out(x); // ravel of a 1-D tile
    // Each thread's elements are renamed, not moved, which needs the
    // positions of both shapes to be bit fields (see ThreadLayout).
    for (ArrayRef<int64_t> s : {type.getShape(), ArrayRef<int64_t>(shape)})
      for (int64_t d : s)
        if (!llvm::isPowerOf2_64(d))
          fail(c.loc, name + " needs power-of-two dimensions, as in Triton: " +
                          shapeString(type.getShape()) + " to " +
                          shapeString(shape));
    return out(reshape(x, shape));
  }

  if (fn == "expand_dims") {
    expectCount(2);
    Value x = tile(0);
    SmallVector<int64_t> axes = intList(1, "an axis");
    int64_t rank = shapeOf(x).size() + axes.size();
    SmallVector<int64_t> normalized;
    for (int64_t axis : axes) {
      if (axis < -rank || axis >= rank)
        fail(args.locs[1], "tl.expand_dims: axis " + Twine(axis) +
                               " is out of range for a " + Twine(rank) +
                               "-D result");
      int64_t a = axis < 0 ? axis + rank : axis;
      if (llvm::is_contained(normalized, a))
        fail(args.locs[1], "tl.expand_dims: axis " + Twine(axis) +
                               " is given twice");
      normalized.push_back(a);
    }
    llvm::sort(normalized);
    for (int64_t axis : normalized)
      x = expandDims(x, axis, c.loc);
    return out(x);
  }

  if (fn == "broadcast") {
    expectCount(2);
    Value x = tile(0), y = tile(1);
    SmallVector<int64_t> shape = broadcastShapes(shapeOf(x), shapeOf(y), c.loc);
    return TValue::ofTuple(
        {out(broadcastTo(x, shape, args.locs[0], "the input")),
         out(broadcastTo(y, shape, args.locs[1], "other"), 1)});
  }

  if (fn == "join" || fn == "interleave") {
    expectCount(2);
    Value a = tile(0), b = tile(1);
    if (a.getType() != b.getType())
      fail(c.loc, name + " needs two tiles of one shape and dtype, got " +
                      describe(a.getType()) + " and " + describe(b.getType()));
    // Scalars join as tiles of one element, then lose that dimension.
    bool scalars = shapeOf(a).empty();
    if (scalars) {
      auto one = RankedTensorType::get({1}, a.getType());
      a = tile::SplatOp::create(builder, location, one, a);
      b = tile::SplatOp::create(builder, location, one, b);
    }
    auto type = llvm::cast<RankedTensorType>(a.getType());
    SmallVector<int64_t> shape(type.getShape());
    shape.push_back(2);
    Value joined = tile::JoinOp::create(
        builder, location, RankedTensorType::get(shape, type.getElementType()),
        a, b);
    if (scalars)
      return out(reshape(joined, {2}));
    if (fn == "join")
      return out(joined);
    shape.pop_back();
    shape.back() *= 2;
    for (int64_t d : shape)
      if (!llvm::isPowerOf2_64(d))
        fail(c.loc, "tl.interleave needs power-of-two dimensions, as in "
                    "Triton, got " + shapeString(type.getShape()));
    return out(reshape(joined, shape));
  }

  if (fn == "cat") {
    // The first tile, then the second, along dimension 0: stacked on a new
    // last dimension, that dimension moved to the front, the two merged.
    // The order is kept whatever can_reorder says (Triton's may reorder).
    expectCount(2);
    Value a = tile(0), b = tile(1);
    if (a.getType() != b.getType() || shapeOf(a).empty())
      fail(c.loc, "tl.cat needs two tiles of one shape and dtype, got " +
                      describe(a.getType()) + " and " + describe(b.getType()));
    auto type = llvm::cast<RankedTensorType>(a.getType());
    // The merge pads nothing on the GPU only where the first dimension is
    // a power of two (as all of Triton's tile dimensions are).
    if (!llvm::isPowerOf2_64(type.getDimSize(0)))
      fail(c.loc, "tl.cat needs a power-of-two first dimension, as in "
                  "Triton, got a " + shapeString(type.getShape()) + " tile");
    int64_t rank = type.getRank();
    SmallVector<int64_t> stacked(type.getShape());
    stacked.push_back(2);
    Value joined = tile::JoinOp::create(
        builder, location,
        RankedTensorType::get(stacked, type.getElementType()), a, b);
    SmallVector<int32_t> order{int32_t(rank)};
    SmallVector<int64_t> moved{2};
    for (int64_t d = 0; d < rank; ++d) {
      order.push_back(int32_t(d));
      moved.push_back(type.getDimSize(d));
    }
    Value front = tile::TransOp::create(
        builder, location, RankedTensorType::get(moved, type.getElementType()),
        joined, builder.getDenseI32ArrayAttr(order));
    SmallVector<int64_t> shape(type.getShape());
    shape[0] *= 2;
    return out(reshape(front, shape));
  }

  if (fn == "split") {
    expectCount(1);
    Value x = tile(0);
    auto type = tensorType(x, 0);
    if (type.getShape().back() != 2)
      fail(args.locs[0], "tl.split needs a last dimension of 2, got a " +
                             shapeString(type.getShape()) + " tile");
    // A 1-D pair splits as a 1 x 2 tile into two scalars.
    bool scalars = type.getRank() == 1;
    if (scalars)
      x = reshape(x, {1, 2});
    ArrayRef<int64_t> srcShape = llvm::cast<RankedTensorType>(x.getType()).getShape();
    auto half = RankedTensorType::get(srcShape.drop_back(), type.getElementType());
    auto split = tile::SplitOp::create(builder, location, half, half, x);
    std::vector<TValue> halves;
    for (Value v : {split.getLhs(), split.getRhs()}) {
      if (scalars)
        v = tile::ReduceOp::create(builder, location, type.getElementType(), v,
                                   tile::ReduceKind::Sum, 0);
      halves.push_back(out(v));
    }
    return TValue::ofTuple(std::move(halves));
  }
  if (fn == "item") {
    // The one element of a tile, as a scalar (a sum over one element,
    // which is that element, as tl.split's scalars are).
    Value x = tile(0);
    auto type = tensorType(x, 0);
    if (type.getNumElements() != 1)
      fail(args.locs[0], "x.item() needs a tile of one element, got a " +
                             shapeString(type.getShape()) + " tile");
    return out(tile::ReduceOp::create(builder, location, type.getElementType(),
                                      reshape(x, {1}), tile::ReduceKind::Sum, 0));
  }
  if (fn == "gather") {
    Value src = tile(0), index = tile(1);
    auto srcType = dyn_cast<RankedTensorType>(src.getType());
    auto indexType = dyn_cast<RankedTensorType>(index.getType());
    if (!srcType)
      fail(args.locs[0], "tl.gather needs a tile, got " + describe(src.getType()));
    if (!indexType || !indexType.getElementType().isInteger() ||
        indexType.getElementType().isInteger(1))
      fail(args.locs[1], "tl.gather's index must be a tile of integers, got " +
                             describe(index.getType()));
    int64_t rank = srcType.getRank();
    int64_t axis = constInt(args.positional[2], args.locs[2], "axis");
    if (axis < -rank || axis >= rank)
      fail(args.locs[2], "axis " + Twine(axis) + " is not a dimension of " +
                             describe(srcType));
    axis = axis < 0 ? axis + rank : axis;
    if (indexType.getRank() != rank)
      fail(args.locs[1], "tl.gather's index must have the source's rank " +
                             Twine(rank) + ", got " + describe(indexType));
    for (int64_t d = 0; d < rank; ++d)
      if (d != axis && indexType.getDimSize(d) != srcType.getDimSize(d))
        fail(args.locs[1], "tl.gather's index must have the source's extent "
                           "along every dimension but the axis: " +
                               describe(indexType) + " for " + describe(srcType));
    auto result = RankedTensorType::get(indexType.getShape(),
                                        srcType.getElementType());
    return out(tile::GatherOp::create(builder, location, result, src, index,
                                      builder.getI32IntegerAttr(int32_t(axis))));
  }
  fail(c.loc, name + " is not a shape function");
}

namespace {

using Kind = BuiltinKind;
constexpr BuiltinHandler kShape = member<&MLIRGenImpl::genShape>;

const BuiltinSpec kShapes[] = {
    {"tl.trans", "input, *dims", Kind::Both, kShape,
     "permutes dimensions; the last two swapped by default (also x.T)"},
    {"tl.permute", "input, *dims", Kind::Both, kShape, "permutes dimensions"},
    {"tl.reshape", "input, *shape, can_reorder=False", Kind::Both, kShape,
     "a new shape of power-of-two dimensions, never reordered"},
    {"tl.view", "input, *shape", Kind::Both, kShape, "tl.reshape"},
    {"tl.ravel", "x, can_reorder=False", Kind::Both, kShape, "flattens to 1-D"},
    {"tl.expand_dims", "input, axis", Kind::Both, kShape,
     "inserts dimensions of extent 1 (an axis or a sequence)"},
    {"tl.broadcast", "input, other", Kind::Both, kShape,
     "both operands broadcast to each other"},
    {"tl.join", "a, b", Kind::Both, kShape,
     "stacks two tiles along a new last dimension of 2"},
    {"tl.cat", "input, other, can_reorder=False", Kind::Function, kShape,
     "the two tiles one after the other along dimension 0 (in order)"},
    {"tl.split", "a", Kind::Both, kShape,
     "the two halves of a last dimension of 2"},
    {"tensor.item", "self", Kind::Method, kShape,
     "the element of a one-element tile, as a scalar"},
    {"tl.gather", "src, index, axis", Kind::Both, kShape,
     "src's elements picked along an axis by an integer tile of indices"},
    {"tl.interleave", "a, b", Kind::Both, kShape,
     "alternates the elements of two tiles along the last dimension"},
};

} // namespace

ArrayRef<BuiltinSpec> tilec::getShapeBuiltins() { return kShapes; }
