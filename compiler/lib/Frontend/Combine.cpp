//===- Combine.cpp - tl.reduce, associative_scan, cumsum, cumprod ---------===//
//
// Triton 3.6's reductions and scans by a combine function (their
// parameters: the table's rows at the end of this file).
// `input` is a tile or a tuple of tiles of one shape; `combine_fn` a
// @triton.jit function of two groups of scalars that returns one group. Its
// body is generated once, on scalar block arguments, into the region of a
// tile.reduce_with or tile.scan, which the interpreter and the GPU run as
// often as they combine. cumsum and cumprod are scans whose region is one
// add or multiply; cumsum sums small integers in int32, as tl.sum does.
//
//===----------------------------------------------------------------------===//

#include "MLIRGenImpl.h"

using namespace mlir;
using namespace tilec;
using llvm::StringRef;
using llvm::Twine;

namespace {

/// How a region combines two groups of scalars: a user function, or a
/// binary operator of the language (cumsum's +, cumprod's *).
struct Combiner {
  const ast::FunctionDef *function = nullptr;
  ast::BinaryOp op = ast::BinaryOp::Add;
};

} // namespace

/// Fills `region` with one block taking two groups of `elements` (dtypes:
/// an unsigned one is a signless argument the function sees as unsigned)
/// and yielding what `combiner` makes of them.
static void buildCombineRegion(MLIRGenImpl &g, Region &region,
                               ArrayRef<Type> elements,
                               const Combiner &combiner, StringRef name,
                               const ast::Location &l) {
  Location location = g.loc(l);
  auto *block = new Block();
  region.push_back(block);
  std::vector<TValue> args;
  for (int group = 0; group < 2; ++group)
    for (Type element : elements)
      args.push_back(TValue::ofValue(
          block->addArgument(signless(element), location), isUnsignedInt(element)));
  OpBuilder::InsertionGuard guard(g.builder);
  g.builder.setInsertionPointToStart(block);

  TValue combined;
  if (combiner.function)
    combined = g.inlineCall(*combiner.function, args, l);
  else
    combined = g.binary(combiner.op, args[0], args[1], l);
  std::vector<TValue> items = combined.kind == TValue::Kind::Tuple
                                  ? combined.elements
                                  : std::vector<TValue>{combined};
  if (items.size() != elements.size())
    g.fail(l, "the combine function of " + name + " must return " +
                  Twine(elements.size()) + " value" +
                  (elements.size() == 1 ? "" : "s") + ", one per input; it " +
                  "returned " + Twine(items.size()));
  SmallVector<Value> yielded;
  for (auto [item, element] : llvm::zip(items, elements)) {
    if (item.isRuntime() && item.value.getType() != signless(element))
      g.fail(l, "the combine function of " + name + " returned " +
                    g.describe(item.value.getType()) + " for an input of " +
                    g.describe(element));
    yielded.push_back(g.convertTo(item, element, l, "a combined value"));
  }
  tile::YieldOp::create(g.builder, location, yielded);

  // Everything the function did must be arithmetic on its scalars: the
  // GPU runs the region many times, in any thread.
  WalkResult walk = block->walk([&](Operation *op) {
    bool tensors = llvm::any_of(op->getResultTypes(),
                                [](Type t) { return isa<ShapedType>(t); });
    return tensors || !isMemoryEffectFree(op) ? WalkResult::interrupt()
                                              : WalkResult::advance();
  });
  if (walk.wasInterrupted())
    g.fail(l, "the combine function of " + name +
                  " may only compute on its scalar arguments (no tiles, "
                  "loads, stores or atomics)");
}

TValue MLIRGenImpl::genCombine(const BoundArgs &args, const ast::CallExpr &c) {
  Location location = loc(c.loc);
  const std::string &name = args.function;
  StringRef fn = StringRef(name).drop_front(3); // "tl."
  bool isReduce = fn == "reduce";
  bool isCumulative = fn == "cumsum" || fn == "cumprod";
  enum { Input, Axis, Third, Fourth };

  // The inputs: a tile or a tuple of tiles of one shape.
  const TValue &input = *args.get(Input);
  bool tuple = input.kind == TValue::Kind::Tuple;
  if (tuple && isCumulative)
    fail(args.locs[Input], name + " takes one tile, got a tuple");
  std::vector<TValue> items = tuple ? input.elements : std::vector{input};
  if (items.empty())
    fail(args.locs[Input], name + " needs at least one tile");
  SmallVector<Value> srcs;
  SmallVector<Type> elements; // the sources' dtypes
  for (const TValue &item : items) {
    Value x = item.isRuntime() ? item.value : Value();
    if (!x || !isa<RankedTensorType>(x.getType()))
      fail(args.locs[Input], name + " needs tiles, got " + describe(item));
    if (isa<tile::PointerType>(getElementTypeOrSelf(x.getType())))
      fail(args.locs[Input], name + " cannot combine pointers");
    if (!srcs.empty() && shapeOf(x) != shapeOf(srcs.front()))
      fail(args.locs[Input], name + " needs tiles of one shape, got " +
                                 describe(srcs.front().getType()) + " and " +
                                 describe(x.getType()));
    srcs.push_back(x);
    elements.push_back(dtypeOf(item));
  }

  // The combination.
  Combiner combiner;
  if (isReduce || !isCumulative) {
    const TValue &f = *args.get(Third);
    if ((f.kind != TValue::Kind::Function && f.kind != TValue::Kind::String) ||
        !f.function)
      fail(args.locs[Third], "the combine_fn of " + name +
                                 " must be a @triton.jit function, got " +
                                 describe(f));
    combiner.function = f.function;
  } else {
    combiner.op = fn == "cumsum" ? ast::BinaryOp::Add : ast::BinaryOp::Mul;
    // bf16 scans in fp32; cumsum also sums small integers in (u)int32.
    Type element = elements.front();
    Type work = element;
    if (element.isBF16())
      work = builder.getF32Type();
    if (fn == "cumsum" && element.isInteger() &&
        element.getIntOrFloatBitWidth() < 32)
      work = isUnsignedInt(element) ? builder.getIntegerType(32, false)
                                    : builder.getI32Type();
    if (fn == "cumsum" && args.get(Fourth) &&
        args.get(Fourth)->kind != TValue::Kind::None)
      work = dtypeArg(*args.get(Fourth), args.locs[Fourth], "dtype");
    srcs.front() = cast(srcs.front(), work, c.loc, items.front().isUnsigned);
    elements.front() = work;
  }

  // The axis: tl.reduce with axis=None reduces the tiles flattened (and
  // a tile whose extents are not powers of two, which cannot be reshaped
  // for free, one axis after another: the same for an associative and
  // commutative combination).
  auto type = llvm::cast<RankedTensorType>(srcs.front().getType());
  int64_t rank = type.getRank();
  const TValue *axisArg = args.get(Axis);
  bool allAxes = !axisArg || axisArg->kind == TValue::Kind::None;
  if (allAxes && !isReduce && !isCumulative)
    fail(c.loc, name + " needs an axis");
  int64_t axis = 0;
  SmallVector<int64_t> moreAxes; // reduced after `axis`, in this order
  if (allAxes && rank > 1) {
    if (!isReduce)
      fail(c.loc, name + " needs an axis for a tile of rank " + Twine(rank));
    if (llvm::all_of(type.getShape(),
                     [](int64_t d) { return llvm::isPowerOf2_64(d); })) {
      for (Value &x : srcs)
        x = tile::ReshapeOp::create(
            builder, location,
            RankedTensorType::get({type.getNumElements()},
                                  getElementTypeOrSelf(x.getType())),
            x);
      rank = 1;
    } else {
      axis = rank - 1;
      for (int64_t d = rank - 2; d >= 0; --d)
        moreAxes.push_back(d);
    }
  } else if (!allAxes) {
    axis = constInt(*axisArg, args.locs[Axis], "axis");
    if (axis < -rank || axis >= rank)
      fail(args.locs[Axis], "axis " + Twine(axis) + " is out of range for a " +
                                Twine(rank) + "-D tile");
    if (axis < 0)
      axis += rank;
  }

  std::vector<TValue> results;
  if (isReduce) {
    SmallVector<Value> reduced(srcs);
    moreAxes.insert(moreAxes.begin(), axis);
    for (int64_t along : moreAxes) {
      SmallVector<Type> resultTypes;
      for (Value x : reduced)
        resultTypes.push_back(tile::getReducedType(
            llvm::cast<RankedTensorType>(x.getType()), along));
      auto op = tile::ReduceWithOp::create(builder, location, resultTypes,
                                           reduced, int32_t(along));
      buildCombineRegion(*this, op.getCombine(), elements, combiner, name,
                         c.loc);
      reduced.assign(op.getResults().begin(), op.getResults().end());
    }
    bool keep = args.get(Fourth) && isTrue(*args.get(Fourth), args.locs[Fourth]);
    for (auto [r, element] : llvm::zip(reduced, elements)) {
      if (keep && allAxes) {
        // Every dimension back, of extent 1.
        SmallVector<int64_t> ones(type.getRank(), 1);
        r = tile::SplatOp::create(
            builder, location,
            RankedTensorType::get(ones, getElementTypeOrSelf(r.getType())), r);
      } else if (keep) {
        r = expandDims(r, axis, c.loc);
      }
      results.push_back(TValue::ofValue(r, isUnsignedInt(element)));
    }
  } else {
    const TValue *reverseArg = args.get(isCumulative ? Third : Fourth);
    bool reverse =
        reverseArg && isTrue(*reverseArg, args.locs[isCumulative ? Third : Fourth]);
    SmallVector<Type> resultTypes;
    for (Value x : srcs)
      resultTypes.push_back(x.getType());
    auto op = tile::ScanOp::create(builder, location, resultTypes, srcs,
                                   int32_t(axis), reverse);
    buildCombineRegion(*this, op.getCombine(), elements, combiner, name, c.loc);
    for (auto [r, element] : llvm::zip(op.getResults(), elements))
      results.push_back(TValue::ofValue(r, isUnsignedInt(element)));
  }
  return tuple ? TValue::ofTuple(results) : results.front();
}

namespace {

using Kind = BuiltinKind;
constexpr BuiltinHandler kCombineFn = member<&MLIRGenImpl::genCombine>;

const BuiltinSpec kCombine[] = {
    {"tl.reduce", "input, axis, combine_fn, keep_dims=False", Kind::Both,
     kCombineFn,
     "reduces a tile or a tuple of tiles by a @triton.jit combine_fn"},
    {"tl.associative_scan", "input, axis, combine_fn, reverse=False",
     Kind::Both, kCombineFn, "inclusive scan by a @triton.jit combine_fn"},
    {"tl.cumsum", "input, axis=0, reverse=False, dtype=None", Kind::Both,
     kCombineFn, "inclusive prefix sum; small integers in int32"},
    {"tl.cumprod", "input, axis=0, reverse=False", Kind::Both, kCombineFn,
     "inclusive prefix product"},
};

} // namespace

ArrayRef<BuiltinSpec> tilec::getCombineBuiltins() { return kCombine; }
