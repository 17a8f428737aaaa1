//===- Builtins.cpp - triton.language, attributes and calls ---------------===//
//
// The `tl.*` library, Python's few builtins a kernel uses, methods such as
// `x.to(dtype)`, and inlined calls of other @triton.jit functions.
//
//===----------------------------------------------------------------------===//

#include "MLIRGenImpl.h"
#include "PythonInt.h"

#include "tilec/Dialect/Tile/IR/Libdevice.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace tilec;
using llvm::StringRef;
using llvm::Twine;

/// The tl functions tilec implements; any other name is an error.
static const llvm::StringSet<> kLanguage = {
    "program_id", "num_programs", "arange",   "zeros",       "full",
    "load",       "store",        "where",    "maximum",     "minimum",
    "exp",        "exp2",         "log",      "log2",        "sqrt",
    "sqrt_rn",    "rsqrt",        "floor",    "ceil",        "sigmoid",
    "clamp",      "fma",          "umulhi",   "rand",        "randint",
    "randint4x",  "randn",        "randn4x",  "rand4x",
    "abs",        "cdiv",         "broadcast_to", "range",   "static_range",
    "multiple_of", "max_contiguous", "max_constancy", "assume",
    "static_assert", "pointer_type",
    "sum",        "max",          "min",      "atomic_add",  "atomic_max",
    "atomic_min", "atomic_and",   "atomic_or", "atomic_xor", "atomic_xchg",
    "atomic_cas", "debug_barrier", "static_print", "div_rn",
    "fdiv",       "dot",          "sin",      "cos",         "erf",
    "trans",      "permute",      "reshape",  "view",        "ravel",
    "expand_dims", "broadcast",   "join",     "split",       "interleave",
    "device_print", "device_assert", "make_block_ptr", "advance",
    "make_tensor_descriptor", "xor_sum", "argmax", "argmin", "reduce",
    "associative_scan", "cumsum", "cumprod", "sort", "topk", "flip",
    "histogram", "tensor", "tensor_descriptor",
};

/// The shape functions (Shapes.cpp).
static bool isShapeFunction(StringRef name) {
  return llvm::is_contained({"tl.trans", "tl.permute", "tl.reshape", "tl.view",
                             "tl.ravel", "tl.expand_dims", "tl.broadcast",
                             "tl.join", "tl.split", "tl.interleave"},
                            name);
}

/// tl functions that are not methods of tiles: the rest are, as in Triton
/// (`x.sum(axis=0)`, `x.reshape(4, 8)`, `ptrs.load()`).
static const llvm::StringSet<> kNotMethods = {
    "program_id", "num_programs", "arange", "zeros", "full", "range",
    "static_range", "static_assert", "static_print", "pointer_type",
    "debug_barrier", "assume", "rand", "randint", "randint4x", "randn",
    "randn4x", "rand4x", "cdiv", "where", "dot", "maximum", "minimum",
    "fdiv", "div_rn", "clamp", "fma", "umulhi", "device_print",
    "device_assert", "make_block_ptr", "make_tensor_descriptor", "tensor",
    "tensor_descriptor"};

static Type dtypeNamed(Builder &b, StringRef name) {
  return llvm::StringSwitch<Type>(name)
      .Case("float16", b.getF16Type())
      .Case("bfloat16", b.getBF16Type())
      .Case("float32", b.getF32Type())
      .Case("float64", b.getF64Type())
      .Case("int1", b.getI1Type())
      .Case("int8", b.getI8Type())
      .Case("int16", b.getI16Type())
      .Case("int32", b.getI32Type())
      .Case("int64", b.getI64Type())
      .Case("uint8", b.getIntegerType(8, /*isSigned=*/false))
      .Case("uint16", b.getIntegerType(16, /*isSigned=*/false))
      .Case("uint32", b.getIntegerType(32, /*isSigned=*/false))
      .Case("uint64", b.getIntegerType(64, /*isSigned=*/false))
      // fp8: e5m2 and e4m3 (NVIDIA's); AMD's are known so that kernels can
      // test for them (dtypeArg refuses them).
      .Case("float8e5", b.getType<Float8E5M2Type>())
      .Case("float8e4nv", b.getType<Float8E4M3FNType>())
      .Case("float8e4b8", b.getType<Float8E4M3FNUZType>())
      .Case("float8e5b16", b.getType<Float8E5M2FNUZType>())
      .Default(Type());
}

TValue MLIRGenImpl::attribute(const TValue &base, const std::string &attr,
                              const ast::Location &l) {
  switch (base.kind) {
  case TValue::Kind::Module:
    if (base.name == "triton") {
      if (attr == "language")
        return TValue::named(TValue::Kind::Module, "tl");
      if (attr == "jit" || attr == "autotune" || attr == "heuristics")
        return TValue::named(TValue::Kind::Builtin, "triton." + attr);
      if (attr == "cdiv")
        return TValue::named(TValue::Kind::Builtin, "tl.cdiv");
      fail(l, "triton." + attr + " is not supported in kernels");
    }
    // tl.extra.cuda.libdevice (and tl.extra.libdevice): CUDA's libdevice.
    if (base.name == "libdevice") {
      if (tile::lookupLibdevice(attr))
        return TValue::named(TValue::Kind::Builtin, "libdevice." + attr);
      fail(l, "libdevice." + attr + " is not supported by tilec, which "
              "offers libdevice's float functions (sin, asin, erfinv, pow, "
              "...)");
    }
    if (base.name == "tl.extra" && attr == "cuda")
      return TValue::named(TValue::Kind::Module, "tl.extra.cuda");
    if (StringRef(base.name).starts_with("tl.extra")) {
      if (attr == "libdevice")
        return TValue::named(TValue::Kind::Module, "libdevice");
      fail(l, base.name + "." + attr + " is not supported by tilec");
    }
    if (attr == "extra")
      return TValue::named(TValue::Kind::Module, "tl.extra");
    if (attr == "constexpr")
      return TValue::named(TValue::Kind::Builtin, "tl.constexpr");
    if (attr == "math")
      return base;
    if (Type t = dtypeNamed(builder, attr))
      return TValue::ofDType(t);
    if (kLanguage.contains(attr))
      return TValue::named(TValue::Kind::Builtin, "tl." + attr);
    fail(l, "tl." + attr + " is not supported by tilec");
  case TValue::Kind::Runtime:
    if (attr == "to") {
      TValue method = TValue::named(TValue::Kind::Method, "to");
      method.elements.push_back(base);
      return method;
    }
    if (attr == "dtype")
      return TValue::ofDType(dtypeOf(base));
    if (attr == "type") // a tile's block type, a scalar's dtype
      return TValue::ofDType(typeOf(base));
    if (attr == "T") {
      // Triton's `x.T`: the transpose of a 2-D tile.
      auto type = dyn_cast<RankedTensorType>(base.value.getType());
      if (!type || type.getRank() != 2)
        fail(l, "x.T needs a 2-D tile, got " + describe(base.value.getType()));
      auto result = RankedTensorType::get({type.getDimSize(1), type.getDimSize(0)},
                                          type.getElementType());
      return TValue::ofValue(tile::TransOp::create(
          builder, loc(l), result, base.value,
          builder.getDenseI32ArrayAttr({1, 0})), base.isUnsigned);
    }
    if (kLanguage.contains(attr) && !kNotMethods.contains(attr)) {
      // A method of the tile: the tl function with the tile first.
      TValue method = TValue::named(TValue::Kind::Method, "tl." + attr);
      method.elements.push_back(base);
      return method;
    }
    if (attr == "shape") {
      std::vector<TValue> dims;
      for (int64_t d : shapeOf(base.value))
        dims.push_back(TValue::ofInt(d));
      return TValue::ofTuple(std::move(dims));
    }
    fail(l, describe(base) + " has no attribute '" + attr + "'");
  case TValue::Kind::TensorDesc:
    if (attr == "load" || attr == "store") {
      TValue method = TValue::named(TValue::Kind::Method, "desc." + attr);
      method.elements.push_back(base);
      return method;
    }
    if (attr == "block_shape")
      return base.elements[4];
    if (attr == "shape")
      return base.elements[1];
    if (attr == "strides")
      return base.elements[2];
    if (attr == "dtype")
      return TValue::ofDType(llvm::cast<tile::PointerType>(base.elements[0].value.getType())
                                 .getPointeeType());
    fail(l, "a tensor descriptor has no attribute '" + attr + "'");
  case TValue::Kind::DType:
    if (auto block = dyn_cast<RankedTensorType>(base.type)) {
      // `x.type`: the block type of a tile.
      if (attr == "element_ty" || attr == "scalar")
        return TValue::ofDType(block.getElementType());
      if (attr == "shape") {
        std::vector<TValue> dims;
        for (int64_t d : block.getShape())
          dims.push_back(TValue::ofInt(d));
        return TValue::ofTuple(std::move(dims));
      }
    }
    if (attr == "element_ty") {
      if (auto ptr = dyn_cast<tile::PointerType>(base.type))
        return TValue::ofDType(ptr.getPointeeType());
      fail(l, describe(base.type) + " is not a pointer type");
    }
    fail(l, "dtype " + describe(base.type) + " has no attribute '" + attr + "'");
  default:
    fail(l, describe(base) + " has no attribute '" + attr + "'");
  }
}

MLIRGenImpl::Args MLIRGenImpl::bindArgs(const ast::CallExpr &call,
                                        StringRef function,
                                        ArrayRef<StringRef> params,
                                        unsigned required,
                                        ArrayRef<StringRef> ignored) {
  Args args;
  args.values.resize(params.size());
  args.locs.resize(params.size(), call.loc);
  // A method's tile, then the call's own arguments.
  unsigned first = 0;
  if (const TValue *self = std::exchange(boundSelf, nullptr)) {
    if (!params.empty())
      args.values[0] = *self;
    first = 1;
  }
  if (first + call.args.size() > params.size())
    fail(call.loc, function + "() takes at most " + Twine(params.size()) +
                       " arguments (" + Twine(first + call.args.size()) +
                       " given)");
  for (auto [i, arg] : llvm::enumerate(call.args)) {
    args.values[first + i] = gen(*arg);
    args.locs[first + i] = arg->loc;
  }
  for (const ast::Keyword &keyword : call.keywords) {
    auto it = llvm::find(params, keyword.name);
    if (it == params.end()) {
      if (llvm::is_contained(ignored, keyword.name)) {
        (void)gen(*keyword.value);
        continue;
      }
      fail(keyword.loc, function + "() got an unexpected keyword argument '" +
                            keyword.name + "'");
    }
    unsigned i = it - params.begin();
    if (args.values[i])
      fail(keyword.loc, function + "() got multiple values for argument '" +
                            keyword.name + "'");
    args.values[i] = gen(*keyword.value);
    args.locs[i] = keyword.value->loc;
  }
  for (unsigned i = 0; i < required; ++i)
    if (!args.values[i])
      fail(call.loc, function + "() missing required argument '" + params[i] +
                         "'");
  return args;
}

Type MLIRGenImpl::dtypeArg(const TValue &v, const ast::Location &l,
                           StringRef what) {
  if (v.kind == TValue::Kind::DType) {
    Type element = v.type;
    if (auto ptr = dyn_cast<tile::PointerType>(element))
      element = ptr.getPointeeType();
    if (isa<Float8E4M3FNUZType, Float8E5M2FNUZType>(element))
      fail(l, describe(element) + " is AMD's fp8; tilec (for NVIDIA GPUs) "
              "has tl.float8e5 and tl.float8e4nv");
    return v.type;
  }
  if (v.kind == TValue::Kind::String)
    if (Type t = parseTypeString(v.name))
      return t;
  fail(l, what + " must be a dtype such as tl.float32, got " + describe(v));
}

TValue MLIRGenImpl::call(const ast::CallExpr &c) {
  TValue callee = gen(*c.callee);
  switch (callee.kind) {
  case TValue::Kind::Builtin:
    return callBuiltin(callee.name, c, nullptr);
  case TValue::Kind::Method:
    // A tl function called as a method binds the tile to its first
    // parameter.
    if (callee.name != "to" && !isShapeFunction(callee.name) &&
        !StringRef(callee.name).starts_with("desc."))
      boundSelf = &callee.elements.front();
    {
      TValue result = callBuiltin(callee.name, c, &callee.elements.front());
      // A builtin that binds no arguments never took the tile.
      if (std::exchange(boundSelf, nullptr))
        fail(c.loc, callee.name + " cannot be called as a method of a tile");
      return result;
    }
  case TValue::Kind::Function:
    return callFunction(*callee.function, c);
  default:
    fail(c.loc, describe(callee) + " is not callable");
  }
}

TValue MLIRGenImpl::callFunction(const ast::FunctionDef &function,
                                 const ast::CallExpr &c) {
  SmallVector<StringRef> names;
  for (const ast::Param &p : function.params)
    names.push_back(p.name);
  Args args = bindArgs(c, function.name, names, 0);
  std::vector<TValue> values;
  for (auto [i, p] : llvm::enumerate(function.params)) {
    if (!args.values[i] && p.defaultValue)
      args.values[i] = gen(*p.defaultValue);
    if (!args.values[i])
      fail(c.loc, function.name + "() missing required argument '" + p.name + "'");
    values.push_back(*args.values[i]);
  }
  return inlineCall(function, values, c.loc);
}

TValue MLIRGenImpl::inlineCall(const ast::FunctionDef &function,
                               ArrayRef<TValue> args, const ast::Location &l) {
  if (callDepth > 32)
    fail(l, "calls nest too deep (recursion is not supported)");
  if (args.size() > function.params.size())
    fail(l, function.name + "() takes " + Twine(function.params.size()) +
                " arguments, " + Twine(args.size()) + " were given");
  Scope inner;
  for (auto [i, p] : llvm::enumerate(function.params)) {
    // A helper's `tl.constexpr` annotations bind nothing: Triton passes
    // runtime values to them too (its attention tutorial's offs_m, N_CTX).
    if (i < args.size())
      inner[p.name] = args[i];
    else if (p.defaultValue)
      inner[p.name] = gen(*p.defaultValue);
    else
      fail(l, function.name + "() missing required argument '" + p.name + "'");
  }
  Scope saved = std::move(scope);
  std::optional<TValue> savedReturn = std::move(returned);
  scope = std::move(inner);
  returned.reset();
  ++callDepth;
  gen(function.body);
  --callDepth;
  TValue result = returned ? *returned : TValue::none();
  scope = std::move(saved);
  returned = std::move(savedReturn);
  return result;
}

/// The shape argument of tl.zeros/tl.full/tl.broadcast_to.
static SmallVector<int64_t> shapeArg(MLIRGenImpl &g, const TValue &v,
                                     const ast::Location &l) {
  SmallVector<int64_t> shape;
  if (v.kind == TValue::Kind::Tuple) {
    for (const TValue &d : v.elements)
      shape.push_back(g.constInt(d, l, "a shape dimension"));
  } else {
    shape.push_back(g.constInt(v, l, "a shape dimension"));
  }
  // Any positive extent: unlike Triton, the GPU lowering pads tiles to
  // powers of two and leaves the padding out of every memory access.
  for (int64_t d : shape)
    if (d <= 0)
      g.fail(l, "tile dimensions must be positive, got " + Twine(d));
  return shape;
}

/// Argument 0 of a memory operation: a pointer or a tile of pointers.
static std::pair<Value, tile::PointerType>
pointerArg(MLIRGenImpl &g, const MLIRGenImpl::Args &args, StringRef error) {
  const TValue &arg = *args.get(0);
  Value ptr = arg.isRuntime() ? arg.value : Value();
  auto type = ptr ? dyn_cast<tile::PointerType>(getElementTypeOrSelf(ptr.getType()))
                  : nullptr;
  if (!type)
    g.fail(args.locs[0], error + ", got " + g.describe(arg));
  return {ptr, type};
}

/// An optional boolean `mask` argument; null when absent or None.
/// Triton's cache_modifier ("", ".ca", ".cg", ".cv" for loads; ".wb",
/// ".cg", ".cs", ".wt" for stores) and eviction_policy ("", "evict_first",
/// "evict_last") arguments.
static std::pair<tile::CacheModifier, tile::EvictionPolicy>
memoryHints(MLIRGenImpl &g, const MLIRGenImpl::Args &args, unsigned cacheIndex,
            bool isLoad) {
  auto text = [&](unsigned i) -> std::string {
    const TValue *v = args.get(i);
    if (!v || v->kind == TValue::Kind::None)
      return "";
    if (v->kind != TValue::Kind::String)
      g.fail(args.locs[i], "expected a string");
    return v->name;
  };
  // Triton spells a cache operator as PTX does (".cg"), and none as "".
  std::string cacheText = text(cacheIndex);
  std::optional<tile::CacheModifier> cache = tile::CacheModifier::None;
  if (!cacheText.empty())
    cache = StringRef(cacheText).starts_with(".") && cacheText != ".none"
                ? tile::symbolizeCacheModifier(StringRef(cacheText).drop_front())
                : std::nullopt;
  if (!cache || !tile::isCacheModifierFor(*cache, isLoad))
    g.fail(args.locs[cacheIndex],
           "cache_modifier '" + cacheText + "' is not one of " +
               (isLoad ? "'.ca', '.cg', '.cv'" : "'.wb', '.cg', '.cs', '.wt'") +
               " or ''");
  std::string evictText = text(cacheIndex + 1);
  std::optional<tile::EvictionPolicy> evict = tile::EvictionPolicy::Normal;
  if (!evictText.empty())
    evict = evictText != "normal" ? tile::symbolizeEvictionPolicy(evictText)
                                  : std::nullopt;
  if (!evict)
    g.fail(args.locs[cacheIndex + 1],
           "eviction_policy '" + evictText +
               "' is not one of 'evict_first', 'evict_last' or ''");
  return {*cache, *evict};
}

static Value optionalMask(MLIRGenImpl &g, const MLIRGenImpl::Args &args,
                          unsigned index) {
  const TValue *arg = args.get(index);
  if (!arg || arg->kind == TValue::Kind::None)
    return Value();
  Value mask = g.toValue(*arg, args.locs[index], "the mask");
  if (!getElementTypeOrSelf(mask.getType()).isInteger(1))
    g.fail(args.locs[index], "the mask must be boolean (i1), got " +
                                 g.describe(mask.getType()));
  return mask;
}

/// A boundary_check other than Triton's default, ().
static bool givesBoundaryCheck(const TValue *check) {
  return check && check->kind != TValue::Kind::None &&
         !(check->kind == TValue::Kind::Tuple && check->elements.empty());
}

/// A float as Python's repr prints it: the shortest digits that read back
/// the same, with a ".0" for whole numbers.
static std::string pythonFloatRepr(double d) {
  if (std::isnan(d))
    return "nan";
  if (std::isinf(d))
    return d > 0 ? "inf" : "-inf";
  std::string text;
  for (int precision = 1; precision <= 17; ++precision) {
    text = llvm::formatv("{0}", llvm::format("%.*g", precision, d)).str();
    if (std::strtod(text.c_str(), nullptr) == d)
      break;
  }
  if (text.find_first_of(".eninf") == std::string::npos)
    text += ".0";
  return text;
}

TValue MLIRGenImpl::callBuiltin(const std::string &name,
                                const ast::CallExpr &c, const TValue *self) {
  Location location = loc(c.loc);

  if (self && name == "to") {
    Args args = bindArgs(c, "to", {"dtype", "fp_downcast_rounding", "bitcast"}, 1);
    Type to = dtypeArg(*args.get(0), args.locs[0], "the target type");
    if (args.get(2) && isTrue(*args.get(2), args.locs[2])) {
      // The same bits as another type of the same width, as Triton's.
      Value v = self->value;
      Type from = getElementTypeOrSelf(v.getType());
      if (isa<tile::PointerType>(from) || isa<tile::PointerType>(to) ||
          from.getIntOrFloatBitWidth() != to.getIntOrFloatBitWidth())
        fail(c.loc, "cannot bitcast " + describe(from) + " to " + describe(to) +
                        ": a bitcast keeps the width (and takes no pointers)");
      Type result = tile::withElementType(v.getType(), signless(to));
      Value bits = result == v.getType()
                       ? v
                       : (Value)arith::BitcastOp::create(builder, location,
                                                         result, v);
      return TValue::ofValue(bits, isUnsignedInt(to));
    }
    return castTo(*self, to, c.loc);
  }
  if (StringRef(name).starts_with("libdevice."))
    return genLibdevice(c, name);
  if (name == "triton.jit" || name == "triton.autotune" ||
      name == "triton.heuristics")
    fail(c.loc, name + " is a decorator, not a function to call in a kernel");

  if (name == "tl.program_id" || name == "tl.num_programs") {
    Args args = bindArgs(c, name, {"axis"}, 1);
    int64_t axis = constInt(*args.get(0), args.locs[0], "axis");
    if (axis < 0 || axis > 2)
      fail(args.locs[0], "axis must be 0, 1 or 2, got " + Twine(axis));
    Value v = name == "tl.program_id"
                  ? (Value)tile::ProgramIdOp::create(builder, location, axis)
                  : (Value)tile::NumProgramsOp::create(builder, location, axis);
    return TValue::ofValue(v);
  }
  if (name == "tl.arange") {
    Args args = bindArgs(c, name, {"start", "end"}, 2);
    int64_t start = constInt(*args.get(0), args.locs[0], "tl.arange start");
    int64_t end = constInt(*args.get(1), args.locs[1], "tl.arange end");
    if (end <= start)
      fail(c.loc, "tl.arange needs start < end, got [" + Twine(start) + ", " +
                      Twine(end) + ")");
    auto type = RankedTensorType::get({end - start}, builder.getI32Type());
    return TValue::ofValue(tile::MakeRangeOp::create(
        builder, location, type, builder.getI32IntegerAttr(start),
        builder.getI32IntegerAttr(end)));
  }
  if (name == "tl.zeros" || name == "tl.full") {
    bool full = name == "tl.full";
    Args args = full ? bindArgs(c, name, {"shape", "value", "dtype"}, 3)
                     : bindArgs(c, name, {"shape", "dtype"}, 2);
    SmallVector<int64_t> shape = shapeArg(*this, *args.get(0), args.locs[0]);
    unsigned dtypeIndex = full ? 2 : 1;
    Type dtype = dtypeArg(*args.get(dtypeIndex), args.locs[dtypeIndex], "dtype");
    bool isUnsigned = hasUnsignedElements(dtype);
    Type element = signless(dtype);
    auto type = RankedTensorType::get(shape, element);
    TValue value = full ? *args.get(1) : TValue::ofInt(0);
    if (value.isRuntime()) {
      Value scalar = castTo(value, dtype, args.locs[1]).value;
      return TValue::ofValue(broadcastTo(scalar, shape, c.loc, "value"),
                             isUnsigned);
    }
    if (!value.isNumber())
      fail(args.locs[1], "the fill value must be a number");
    Attribute scalar;
    double d = value.kind == TValue::Kind::Float ? value.floatValue
                                                 : double(value.intValue);
    if (isa<FloatType>(element))
      scalar = builder.getFloatAttr(element, d);
    else
      scalar = builder.getIntegerAttr(
          element, value.kind == TValue::Kind::Float ? int64_t(d) : value.intValue);
    return TValue::ofValue(arith::ConstantOp::create(
        builder, location, DenseElementsAttr::get(type, scalar)), isUnsigned);
  }
  if (name == "tl.load") {
    Args args = bindArgs(c, name,
                         {"pointer", "mask", "other", "boundary_check",
                          "padding_option", "cache_modifier", "eviction_policy",
                          "volatile"},
                         1);
    auto [cache, evict] = memoryHints(*this, args, 5, /*isLoad=*/true);
    bool isVolatile = args.get(7) && isTrue(*args.get(7), args.locs[7]);
    if (isVolatile && (cache != tile::CacheModifier::None ||
                       evict != tile::EvictionPolicy::Normal))
      fail(c.loc, "a volatile tl.load takes no cache_modifier or "
                  "eviction_policy (PTX's ld.volatile has neither)");
    if (args.get(0)->kind == TValue::Kind::BlockPtr) {
      if (args.get(1) || args.get(2))
        fail(c.loc, "a load through a block pointer takes no mask or other: "
                    "its boundary_check and padding_option say which "
                    "elements exist");
      BlockAccess access = blockAccess(*args.get(0), nullptr, args.get(3),
                                       args.get(4), c.loc);
      return TValue::ofValue(tile::LoadOp::create(
          builder, location, access.ptr, access.mask, access.other, cache,
          evict, isVolatile), args.get(0)->elements[0].isUnsigned);
    }
    if (givesBoundaryCheck(args.get(3)))
      fail(args.locs[3], "boundary_check needs a block pointer: a tile of "
                         "pointers takes a mask");
    auto [ptr, ptrType] = pointerArg(*this, args, "tl.load needs a pointer");
    Value mask = optionalMask(*this, args, 1), other;
    const TValue *otherArg = args.get(2);
    if (otherArg && otherArg->kind == TValue::Kind::None)
      otherArg = nullptr;
    if (otherArg && !mask)
      fail(args.locs[2], "tl.load: 'other' needs a 'mask'");
    if (mask) {
      // A scalar pointer takes the mask's shape, as in Triton.
      if (shapeOf(mask).size() > shapeOf(ptr).size())
        ptr = broadcastTo(ptr, shapeOf(mask), args.locs[0], "the pointer");
      mask = broadcastTo(mask, shapeOf(ptr), args.locs[1], "the mask");
    }
    if (otherArg) {
      Value o = convertTo(*otherArg, ptrType.getPointeeType(), args.locs[2],
                          "'other'");
      other = broadcastTo(o, shapeOf(ptr), args.locs[2], "'other'");
    }
    return TValue::ofValue(tile::LoadOp::create(builder, location, ptr, mask,
                                                other, cache, evict, isVolatile),
                           args.get(0)->isUnsigned);
  }
  if (name == "tl.store") {
    Args args = bindArgs(c, name,
                         {"pointer", "value", "mask", "boundary_check",
                          "cache_modifier", "eviction_policy"},
                         2);
    auto [cache, evict] = memoryHints(*this, args, 4, /*isLoad=*/false);
    if (args.get(0)->kind == TValue::Kind::BlockPtr) {
      if (args.get(2))
        fail(c.loc, "a store through a block pointer takes no mask: its "
                    "boundary_check says which elements exist");
      BlockAccess access =
          blockAccess(*args.get(0), nullptr, args.get(3), nullptr, c.loc);
      Type element =
          llvm::cast<tile::PointerType>(dtypeOf(args.get(0)->elements[0]))
              .getPointeeType();
      Value value = broadcastTo(
          cast(toValue(*args.get(1), args.locs[1], "the stored value"), element,
               args.locs[1], args.get(1)->isUnsigned),
          shapeOf(access.ptr), args.locs[1], "the stored value");
      tile::StoreOp::create(builder, location, access.ptr, value, access.mask,
                            cache, evict);
      return TValue::none();
    }
    if (givesBoundaryCheck(args.get(3)))
      fail(args.locs[3], "boundary_check needs a block pointer: a tile of "
                         "pointers takes a mask");
    auto [ptr, ptrType] =
        pointerArg(*this, args, "tl.store needs a pointer to store to");
    Type pointee =
        llvm::cast<tile::PointerType>(dtypeOf(*args.get(0))).getPointeeType();
    Value value = cast(toValue(*args.get(1), args.locs[1], "the stored value"),
                       pointee, args.locs[1], args.get(1)->isUnsigned);
    Value mask = optionalMask(*this, args, 2);
    // The pointer takes the shape of the value or mask it is stored with.
    SmallVector<int64_t> shape(shapeOf(ptr));
    if (shapeOf(value).size() > shape.size())
      shape.assign(shapeOf(value).begin(), shapeOf(value).end());
    ptr = broadcastTo(ptr, shape, args.locs[0], "the pointer");
    value = broadcastTo(value, shape, args.locs[1], "the stored value");
    if (mask)
      mask = broadcastTo(mask, shape, args.locs[2], "the mask");
    tile::StoreOp::create(builder, location, ptr, value, mask, cache, evict);
    return TValue::none();
  }
  if (name == "tl.static_print") {
    // At compile time, to stderr (stdout may be the compiler's output):
    // strings as they are, constexprs as Python prints them, runtime values
    // as their types.
    std::string sep = " ", end = "\n";
    for (const ast::Keyword &k : c.keywords) {
      TValue v = gen(*k.value);
      if ((k.name == "sep" || k.name == "end") && v.kind == TValue::Kind::String)
        (k.name == "sep" ? sep : end) = v.name;
      else if (k.name != "file" && k.name != "flush")
        fail(k.value->loc, "tl.static_print takes sep=, end=, file= and "
                           "flush=, not " + k.name + "=");
    }
    std::string text;
    for (auto [i, arg] : llvm::enumerate(c.args)) {
      TValue v = gen(*arg);
      if (i)
        text += sep;
      switch (v.kind) {
      case TValue::Kind::String:
        text += v.name;
        break;
      case TValue::Kind::Int:
        text += std::to_string(v.intValue);
        break;
      case TValue::Kind::Bool:
        text += v.intValue ? "True" : "False";
        break;
      case TValue::Kind::Float:
        text += pythonFloatRepr(v.floatValue);
        break;
      default:
        text += describe(v);
      }
    }
    llvm::errs() << text << end;
    return TValue::none();
  }
  if (name == "tl.debug_barrier") {
    bindArgs(c, name, {}, 0);
    tile::DebugBarrierOp::create(builder, location);
    return TValue::none();
  }
  if (std::optional<tile::AtomicRMWKind> kind = atomicKind(name))
    return genAtomic(c, name, *kind);
  if (name == "tl.atomic_cas")
    return genAtomic(c, name, std::nullopt);
  if (name == "tl.dot")
    return genDot(c);
  if (isShapeFunction(name))
    return genShape(c, name, self);
  if (name == "tl.device_print")
    return genDevicePrint(c);
  if (name == "tl.make_block_ptr" || name == "tl.advance" ||
      name == "tl.make_tensor_descriptor")
    return genBlockPointer(c, name);
  if (self && self->kind == TValue::Kind::TensorDesc &&
      (name == "desc.load" || name == "desc.store")) {
    // desc.load(offsets), desc.store(offsets, value): the whole block,
    // bounds-checked.
    bool isLoad = name == "desc.load";
    Args args = isLoad ? bindArgs(c, "load", {"offsets"}, 1)
                       : bindArgs(c, "store", {"offsets", "value"}, 2);
    BlockAccess access =
        blockAccess(*self, args.get(0), nullptr, nullptr, c.loc);
    if (isLoad)
      return TValue::ofValue(tile::LoadOp::create(
          builder, location, access.ptr, access.mask, access.other,
          tile::CacheModifier::None, tile::EvictionPolicy::Normal, false),
          self->elements[0].isUnsigned);
    Type element =
        llvm::cast<tile::PointerType>(dtypeOf(self->elements[0])).getPointeeType();
    Value value = broadcastTo(cast(toValue(*args.get(1), args.locs[1],
                                           "the stored value"),
                                   element, args.locs[1], args.get(1)->isUnsigned),
                              shapeOf(access.ptr), args.locs[1],
                              "the stored value");
    tile::StoreOp::create(builder, location, access.ptr, value, access.mask,
                          tile::CacheModifier::None,
                          tile::EvictionPolicy::Normal);
    return TValue::none();
  }
  if (name == "tl.device_assert")
    return genDeviceAssertCall(c);
  if (name == "tl.rand" || name == "tl.randint" || name == "tl.randint4x" ||
      name == "tl.randn" || name == "tl.randn4x" || name == "tl.rand4x")
    return genRandom(c, name);
  if (name == "tl.where") {
    Args args = bindArgs(c, name, {"condition", "x", "y"}, 3);
    Value cond = cast(toValue(*args.get(0), args.locs[0], "the condition"),
                      builder.getI1Type(), args.locs[0]);
    const TValue &x = *args.get(1), &y = *args.get(2);
    Type element =
        (x.isRuntime() || y.isRuntime())
            ? promote(x, y, c.loc)
            : getElementTypeOrSelf(toValue(x, args.locs[1], "x").getType());
    auto [a, b] = unify(x, y, element, c.loc);
    SmallVector<int64_t> shape = broadcastShapes(shapeOf(cond), shapeOf(a), c.loc);
    cond = broadcastTo(cond, shape, args.locs[0], "the condition");
    a = broadcastTo(a, shape, args.locs[1], "x");
    b = broadcastTo(b, shape, args.locs[2], "y");
    return TValue::ofValue(arith::SelectOp::create(builder, location, cond, a, b),
                           hasUnsignedElements(element));
  }
  if (name == "tl.maximum" || name == "tl.minimum") {
    Args args = bindArgs(c, name, {"x", "y", "propagate_nan"}, 2);
    const TValue &x = *args.get(0), &y = *args.get(1);
    if (!x.isRuntime() && !y.isRuntime())
      fail(c.loc, name + " needs at least one tile or runtime value");
    return minMax(name == "tl.maximum", x, y, c.loc);
  }
  if (name == "tl.sigmoid") {
    // Triton's: 1 / (1 + exp(-x)), its '/' and exp.
    Args args = bindArgs(c, name, {"x"}, 1);
    TValue x = *args.get(0);
    TValue e = callMath("tl.exp", binary(ast::BinaryOp::Sub, TValue::ofFloat(0.0),
                                         x, args.locs[0]), args.locs[0]);
    return binary(ast::BinaryOp::Div, TValue::ofFloat(1.0),
                  binary(ast::BinaryOp::Add, TValue::ofFloat(1.0), e, c.loc),
                  c.loc);
  }
  if (name == "tl.clamp") {
    // Triton's: minimum(maximum(x, min), max).
    Args args = bindArgs(c, name, {"x", "min", "max", "propagate_nan"}, 3);
    TValue lo = minMax(true, *args.get(0), *args.get(1), args.locs[1]);
    return minMax(false, lo, *args.get(2), args.locs[2]);
  }
  if (name == "tl.fma") {
    Args args = bindArgs(c, name, {"x", "y", "z"}, 3);
    const TValue &x = *args.get(0), &y = *args.get(1), &z = *args.get(2);
    // One element type and shape for the three.
    Type element = promote(x, y, c.loc);
    auto [a, b] = unify(x, y, element, c.loc);
    element = promote(TValue::ofValue(a), z, c.loc);
    if (!isa<FloatType>(element))
      fail(args.locs[0], "tl.fma needs floats, got " + describe(element));
    auto [a2, d] = unify(TValue::ofValue(a), z, element, c.loc);
    auto [b2, d2] = unify(TValue::ofValue(b), TValue::ofValue(d), element, c.loc);
    return TValue::ofValue(math::FmaOp::create(builder, location, a2, b2, d2));
  }
  if (name == "tl.umulhi") {
    // The high 32 bits of the unsigned 64-bit product of two int32s.
    Args args = bindArgs(c, name, {"x", "y"}, 2);
    Type i32 = builder.getI32Type(), i64 = builder.getI64Type();
    auto [a, b] = unify(*args.get(0), *args.get(1), i32, c.loc);
    auto wide = [&](Value v) {
      Type t = isa<RankedTensorType>(v.getType())
                   ? (Type)RankedTensorType::get(shapeOf(v), i64)
                   : i64;
      return arith::ExtUIOp::create(builder, location, t, v).getResult();
    };
    Value product = arith::MulIOp::create(builder, location, wide(a), wide(b));
    Value shift = toValue(TValue::ofInt(32), c.loc, "the shift");
    Value high = arith::ShRUIOp::create(
        builder, location, product,
        broadcastTo(cast(shift, i64, c.loc), shapeOf(product), c.loc, "the shift"));
    // Of the operands' type, as Triton's: int32, or uint32 from one.
    bool isUnsigned = args.get(0)->isUnsigned || args.get(1)->isUnsigned;
    return TValue::ofValue(cast(high, i32, c.loc), isUnsigned);
  }
  if (name == "tl.exp" || name == "tl.exp2" || name == "tl.log" ||
      name == "tl.log2" || name == "tl.sqrt" || name == "tl.sqrt_rn" ||
      name == "tl.rsqrt" || name == "tl.floor" || name == "tl.ceil" ||
      name == "tl.abs" || name == "tl.sin" || name == "tl.cos" ||
      name == "tl.erf") {
    Args args = bindArgs(c, name, {"x"}, 1);
    return callMath(name, *args.get(0), args.locs[0]);
  }
  if (name == "tl.div_rn" || name == "tl.fdiv") {
    bool fdiv = name == "tl.fdiv";
    Args args = fdiv ? bindArgs(c, name, {"x", "y", "ieee_rounding"}, 2)
                     : bindArgs(c, name, {"x", "y"}, 2);
    TValue q = binary(ast::BinaryOp::Div, *args.get(0), *args.get(1), c.loc);
    // Correctly rounded: without the `arcp` of Triton's '/'.
    bool ieee = !fdiv || (args.get(2) && isTrue(*args.get(2), args.locs[2]));
    if (ieee && q.isRuntime())
      if (auto divide = q.value.getDefiningOp<arith::DivFOp>())
        divide.setFastmath(arith::FastMathFlags::none);
    return q;
  }
  if (name == "tl.constexpr") {
    // `BLOCK = tl.constexpr(128)`: how Triton marks a global kernels read.
    Args args = bindArgs(c, name, {"value"}, 1);
    if (args.get(0)->isRuntime())
      fail(args.locs[0], "tl.constexpr needs a compile-time value");
    return *args.get(0);
  }
  if (name == "tl.cdiv") {
    Args args = bindArgs(c, name, {"x", "div"}, 2);
    const TValue &x = *args.get(0), &d = *args.get(1);
    TValue sum = binary(ast::BinaryOp::Add, x, d, c.loc);
    TValue minusOne = binary(ast::BinaryOp::Sub, sum, TValue::ofInt(1), c.loc);
    return binary(ast::BinaryOp::FloorDiv, minusOne, d, c.loc);
  }
  if (name == "tl.broadcast_to") {
    Args args = bindArgs(c, name, {"input", "shape"}, 2);
    Value x = toValue(*args.get(0), args.locs[0], "the input");
    SmallVector<int64_t> shape = shapeArg(*this, *args.get(1), args.locs[1]);
    return TValue::ofValue(broadcastTo(x, shape, c.loc, "the input"),
                           args.get(0)->isUnsigned);
  }
  if (name == "tl.sum" || name == "tl.max" || name == "tl.min" ||
      name == "tl.xor_sum" || name == "tl.argmax" || name == "tl.argmin")
    return genReduction(c, name);
  if (name == "tl.reduce" || name == "tl.associative_scan" ||
      name == "tl.cumsum" || name == "tl.cumprod")
    return genCombine(c, name);
  if (name == "tl.sort" || name == "tl.topk" || name == "tl.flip")
    return genSort(c, name);
  if (name == "tl.histogram")
    return genHistogram(c);
  if (name == "tl.multiple_of" || name == "tl.max_contiguous" ||
      name == "tl.max_constancy") {
    // Facts for the axis analysis, per dimension (an int for a 1-D tile or
    // a scalar), as tile.hint.
    Args args = bindArgs(c, name, {"input", "values"}, 2);
    Value x = toValue(*args.get(0), args.locs[0], "the input");
    const TValue &given = *args.get(1);
    std::vector<TValue> items =
        given.kind == TValue::Kind::Tuple ? given.elements : std::vector{given};
    SmallVector<int64_t> facts;
    for (const TValue &item : items) {
      int64_t fact = constInt(item, args.locs[1], name + " values");
      if (fact < 1)
        fail(args.locs[1], name + " values must be positive, got " + Twine(fact));
      facts.push_back(fact);
    }
    size_t rank = std::max<size_t>(1, shapeOf(x).size());
    if (facts.size() != rank)
      fail(args.locs[1], name + " needs " + Twine(rank) + " value" +
                             (rank == 1 ? "" : "s") + " (one per dimension), got " +
                             Twine(facts.size()));
    auto attr = builder.getDenseI64ArrayAttr(facts);
    auto hint = tile::HintOp::create(builder, location, x);
    if (name == "tl.multiple_of")
      hint.setDivisibilityAttr(attr);
    else if (name == "tl.max_contiguous")
      hint.setContiguityAttr(attr);
    else
      hint.setConstancyAttr(attr);
    return TValue::ofValue(hint);
  }
  if (name == "tl.assume") {
    Args args = bindArgs(c, name, {"cond"}, 1);
    const TValue &cond = *args.get(0);
    if (!cond.isRuntime()) {
      if (!isTrue(cond, args.locs[0]))
        fail(args.locs[0], "tl.assume of a condition that is false");
      return TValue::none();
    }
    Value v = cast(cond.value, builder.getI1Type(), args.locs[0]);
    if (isa<RankedTensorType>(v.getType()))
      fail(args.locs[0], "tl.assume needs a scalar condition, not a tile");
    tile::AssumeOp::create(builder, location, v);
    return TValue::none();
  }
  if (name == "tl.static_assert") {
    Args args = bindArgs(c, name, {"cond", "msg"}, 1);
    if (!isTrue(*args.get(0), args.locs[0]))
      fail(c.loc, "static assertion failed" +
                      (args.get(1) && args.get(1)->kind == TValue::Kind::String
                           ? ": " + args.get(1)->name
                           : std::string()));
    return TValue::none();
  }
  if (name == "tl.pointer_type") {
    Args args = bindArgs(c, name, {"element_ty"}, 1);
    return TValue::ofDType(tile::PointerType::get(
        &context, dtypeArg(*args.get(0), args.locs[0], "the element type")));
  }
  if (name == "range" || name == "tl.range" || name == "tl.static_range")
    fail(c.loc, name + "() can only be the iterable of a 'for' loop");
  if (name == "min" || name == "max") {
    // Python's on constexprs; on runtime values tl.minimum / tl.maximum, as
    // Triton maps them.
    if (c.args.size() < 2 || !c.keywords.empty())
      fail(c.loc, name + "() in a kernel takes two or more values");
    TValue best = gen(*c.args[0]);
    for (const ast::ExprPtr &arg : llvm::drop_begin(c.args)) {
      TValue v = gen(*arg);
      if (best.isRuntime() || v.isRuntime()) {
        best = minMax(name == "max", best, v, arg->loc);
        continue;
      }
      if (!best.isNumber() || !v.isNumber())
        fail(arg->loc, name + "() needs numbers, got " + describe(v));
      TValue less = compare(ast::CompareOp::Lt, v, best, arg->loc);
      if ((name == "min") == (less.intValue != 0))
        best = v;
    }
    return best;
  }
  if (name == "abs") {
    Args args = bindArgs(c, name, {"x"}, 1);
    const TValue &x = *args.get(0);
    if (x.kind == TValue::Kind::Float)
      return TValue::ofFloat(std::fabs(x.floatValue));
    if (x.kind == TValue::Kind::Int) {
      if (python_int::Result r = python_int::absolute(x.intValue))
        return TValue::ofInt(*r);
      fail(args.locs[0], "abs(" + Twine(x.intValue) +
                             ") does not fit in 64 bits (tilec's constexpr "
                             "ints are 64-bit)");
    }
    if (x.kind == TValue::Kind::Bool)
      return TValue::ofInt(x.intValue);
    return absolute(x, args.locs[0]);
  }
  if (name == "isinstance") {
    // At compile time, as Triton's code generator runs it: against the
    // language's classes (tl.tensor, tl.tensor_descriptor, tl.constexpr)
    // and Python's (int, float, bool, tuple), or a tuple of them.
    Args args = bindArgs(c, name, {"obj", "class_or_tuple"}, 2);
    const TValue &obj = *args.get(0), &cls = *args.get(1);
    std::vector<TValue> classes =
        cls.kind == TValue::Kind::Tuple ? cls.elements : std::vector{cls};
    bool result = false;
    for (const TValue &k : classes) {
      if (k.kind != TValue::Kind::Builtin)
        fail(args.locs[1], "isinstance() needs a class, got " + describe(k));
      StringRef n = k.name;
      if (n == "tl.tensor")
        result |= obj.isRuntime();
      else if (n == "tl.tensor_descriptor")
        result |= obj.kind == TValue::Kind::TensorDesc;
      else if (n == "tl.constexpr")
        result |= obj.isNumber() || obj.kind == TValue::Kind::String ||
                   obj.kind == TValue::Kind::None;
      else if (n == "int")
        result |= obj.kind == TValue::Kind::Int || obj.kind == TValue::Kind::Bool;
      else if (n == "float")
        result |= obj.kind == TValue::Kind::Float;
      else if (n == "bool")
        result |= obj.kind == TValue::Kind::Bool;
      else if (n == "tuple")
        result |= obj.kind == TValue::Kind::Tuple;
      else
        fail(args.locs[1], "isinstance() with " + n.str() +
                               " is not supported by tilec (tl.tensor, "
                               "tl.tensor_descriptor, tl.constexpr, int, "
                               "float, bool and tuple are)");
    }
    return TValue::ofBool(result);
  }
  if (name == "len") {
    Args args = bindArgs(c, name, {"obj"}, 1);
    if (args.get(0)->kind != TValue::Kind::Tuple)
      fail(args.locs[0], "len() needs a tuple");
    return TValue::ofInt(args.get(0)->elements.size());
  }
  if (name == "int" || name == "float" || name == "bool") {
    Args args = bindArgs(c, name, {"x"}, 1);
    const TValue &x = *args.get(0);
    if (name == "float" && x.kind == TValue::Kind::String) {
      // float('inf'), float('-inf'), float('nan'), float('1.5'): Python's.
      std::string text = StringRef(x.name).trim().lower();
      StringRef body = StringRef(text);
      bool negative = body.consume_front("-");
      if (!negative)
        body.consume_front("+");
      double d;
      if (body == "inf" || body == "infinity")
        d = std::numeric_limits<double>::infinity();
      else if (body == "nan")
        d = std::numeric_limits<double>::quiet_NaN();
      else if (body.getAsDouble(d))
        fail(args.locs[0], "could not convert string to float: '" + x.name + "'");
      return TValue::ofFloat(negative ? -d : d);
    }
    if (!x.isNumber())
      fail(args.locs[0], name + "() works on constexprs; use .to() on tiles");
    double d = x.kind == TValue::Kind::Float ? x.floatValue : double(x.intValue);
    if (name == "int")
      return TValue::ofInt(int64_t(d));
    if (name == "float")
      return TValue::ofFloat(d);
    return TValue::ofBool(d != 0);
  }
  if (name == "print")
    return genDevicePrint(c);
  fail(c.loc, name + " cannot be called here");
}

TValue MLIRGenImpl::minMax(bool max, const TValue &x, const TValue &y,
                           const ast::Location &l) {
  Type element = promote(x, y, l);
  if (tile::isFP8(element))
    failFP8Arithmetic(max ? "maximum" : "minimum", l);
  auto [a, b] = unify(x, y, element, l);
  Location location = loc(l);
  if (isa<FloatType>(element))
    return TValue::ofValue(
        max ? (Value)arith::MaxNumFOp::create(builder, location, a, b)
            : (Value)arith::MinNumFOp::create(builder, location, a, b));
  if (!element.isInteger())
    fail(l, Twine(max ? "max" : "min") + " needs numbers, got " +
                describe(element));
  if (isUnsignedInt(element))
    return TValue::ofValue(
        max ? (Value)arith::MaxUIOp::create(builder, location, a, b)
            : (Value)arith::MinUIOp::create(builder, location, a, b),
        true);
  return TValue::ofValue(
      max ? (Value)arith::MaxSIOp::create(builder, location, a, b)
          : (Value)arith::MinSIOp::create(builder, location, a, b));
}

TValue MLIRGenImpl::absolute(const TValue &x, const ast::Location &l) {
  Value v = toValue(x, l, "the argument");
  Type element = getElementTypeOrSelf(v.getType());
  if (isa<tile::PointerType>(element))
    fail(l, "abs needs a number, got " + describe(v.getType()));
  Location location = loc(l);
  if (x.isUnsigned)
    return x;
  return TValue::ofValue(isa<FloatType>(element)
                             ? (Value)math::AbsFOp::create(builder, location, v)
                             : (Value)math::AbsIOp::create(builder, location, v));
}

/// The read-modify-write of `tl.atomic_<op>`, or none for other names.
std::optional<tile::AtomicRMWKind> MLIRGenImpl::atomicKind(StringRef name) {
  return llvm::StringSwitch<std::optional<tile::AtomicRMWKind>>(name)
      .Case("tl.atomic_add", tile::AtomicRMWKind::Add)
      .Case("tl.atomic_max", tile::AtomicRMWKind::Max)
      .Case("tl.atomic_min", tile::AtomicRMWKind::Min)
      .Case("tl.atomic_and", tile::AtomicRMWKind::And)
      .Case("tl.atomic_or", tile::AtomicRMWKind::Or)
      .Case("tl.atomic_xor", tile::AtomicRMWKind::Xor)
      .Case("tl.atomic_xchg", tile::AtomicRMWKind::Xchg)
      .Default(std::nullopt);
}

/// tl.atomic_<kind>(pointer, val, mask=None, sem=None, scope=None), or
/// tl.atomic_cas(pointer, cmp, val, sem=None, scope=None) without a kind.
TValue MLIRGenImpl::genAtomic(const ast::CallExpr &c, const std::string &name,
                              std::optional<tile::AtomicRMWKind> kind) {
  Location location = loc(c.loc);
  bool cas = !kind;
  Args args = cas ? bindArgs(c, name, {"pointer", "cmp", "val", "sem", "scope"}, 3)
                  : bindArgs(c, name, {"pointer", "val", "mask", "sem", "scope"}, 2);
  auto [ptr, ptrType] = pointerArg(*this, args, name + " needs a pointer");
  Type pointee = ptrType.getPointeeType();
  // Through a pointer to unsigned integers, max and min compare unsigned.
  bool isUnsigned = args.get(0)->isUnsigned;
  if (isUnsigned && kind == tile::AtomicRMWKind::Max)
    kind = tile::AtomicRMWKind::UMax;
  if (isUnsigned && kind == tile::AtomicRMWKind::Min)
    kind = tile::AtomicRMWKind::UMin;
  if (!tile::isAtomicElementType(kind, pointee))
    fail(args.locs[0],
         name + " supports " +
             (cas ? "16-, 32- and 64-bit elements"
              : *kind == tile::AtomicRMWKind::Add
                  ? "float16, bfloat16, float32, float64, int32 and int64"
              : *kind == tile::AtomicRMWKind::And ||
                      *kind == tile::AtomicRMWKind::Or ||
                      *kind == tile::AtomicRMWKind::Xor
                  ? "int32 and int64"
              : *kind == tile::AtomicRMWKind::UMax ||
                      *kind == tile::AtomicRMWKind::UMin
                  ? "uint32 and uint64"
                  : "float32, float64, int32 and int64") +
             ", got a pointer to " + describe(pointee));
  unsigned valIndex = cas ? 2 : 1, semIndex = 3, scopeIndex = 4;
  Type dtype = isUnsigned ? llvm::cast<tile::PointerType>(dtypeOf(*args.get(0)))
                                .getPointeeType()
                          : pointee;
  Value value = convertTo(*args.get(valIndex), dtype, args.locs[valIndex],
                          "the value");
  Value cmp = cas ? convertTo(*args.get(1), dtype, args.locs[1],
                              "the compared value")
                  : Value();
  Value mask = cas ? Value() : optionalMask(*this, args, 2);
  // Triton's strings; None takes its defaults (acq_rel, gpu).
  auto stringArg = [&](unsigned i, StringRef what) -> std::optional<std::string> {
    const TValue *v = args.get(i);
    if (!v || v->kind == TValue::Kind::None)
      return std::nullopt;
    if (v->kind != TValue::Kind::String)
      fail(args.locs[i], what + " must be a string, got " + describe(*v));
    return v->name;
  };
  tile::MemSemantic sem = tile::MemSemantic::AcqRel;
  if (std::optional<std::string> s = stringArg(semIndex, "sem")) {
    std::optional<tile::MemSemantic> parsed = tile::symbolizeMemSemantic(*s);
    if (!parsed)
      fail(args.locs[semIndex], "sem must be 'relaxed', 'acquire', 'release' or "
                                "'acq_rel', got '" + *s + "'");
    sem = *parsed;
  }
  tile::MemScope scope = tile::MemScope::GPU;
  if (std::optional<std::string> s = stringArg(scopeIndex, "scope")) {
    std::optional<tile::MemScope> parsed = tile::symbolizeMemScope(*s);
    if (!parsed)
      fail(args.locs[scopeIndex],
           "scope must be 'gpu', 'cta' or 'sys', got '" + *s + "'");
    scope = *parsed;
  }
  // Pointer, values and mask broadcast against each other, as in Triton.
  SmallVector<int64_t> shape =
      broadcastShapes(shapeOf(ptr), shapeOf(value), c.loc);
  for (Value v : {cmp, mask})
    if (v)
      shape = broadcastShapes(shape, shapeOf(v), c.loc);
  ptr = broadcastTo(ptr, shape, args.locs[0], "the pointer");
  value = broadcastTo(value, shape, args.locs[valIndex], "the value");
  if (cas) {
    cmp = broadcastTo(cmp, shape, args.locs[1], "the compared value");
    return TValue::ofValue(tile::AtomicCASOp::create(builder, location,
                                                     value.getType(), sem,
                                                     scope, ptr, cmp, value),
                           isUnsigned);
  }
  if (mask)
    mask = broadcastTo(mask, shape, args.locs[2], "the mask");
  return TValue::ofValue(tile::AtomicRMWOp::create(builder, location,
                                                   value.getType(), *kind, sem,
                                                   scope, ptr, value, mask),
                         isUnsigned);
}

/// tl.exp, tl.exp2, tl.log, tl.log2, tl.sqrt (and sqrt_rn), tl.rsqrt,
/// tl.floor, tl.ceil, tl.sin, tl.cos, tl.erf and tl.abs of one value: 16-bit floats compute in
/// fp32, integers convert to fp32 first (tl.abs keeps them).
TValue MLIRGenImpl::callMath(const std::string &name, const TValue &arg,
                             const ast::Location &l) {
  Location location = loc(l);
  Value x = toValue(arg, l, "the argument");
  Type element = getElementTypeOrSelf(x.getType());
  if (name == "tl.abs")
    return absolute(TValue::ofValue(x, arg.isUnsigned), l);
  if (!isa<FloatType>(element)) {
    if (!element.isInteger())
      fail(l, name + " needs a number, got " + describe(x.getType()));
    x = cast(x, builder.getF32Type(), l, arg.isUnsigned);
    element = builder.getF32Type();
  }
  // 16-bit floats compute in fp32, as Triton's libdevice calls do.
  Value wide = element.getIntOrFloatBitWidth() < 32
                   ? cast(x, builder.getF32Type(), l)
                   : x;
  Value r = name == "tl.exp"     ? (Value)math::ExpOp::create(builder, location, wide)
            : name == "tl.exp2"  ? (Value)math::Exp2Op::create(builder, location, wide)
            : name == "tl.log"   ? (Value)math::LogOp::create(builder, location, wide)
            : name == "tl.log2"  ? (Value)math::Log2Op::create(builder, location, wide)
            : name == "tl.rsqrt" ? (Value)math::RsqrtOp::create(builder, location, wide)
            : name == "tl.floor" ? (Value)math::FloorOp::create(builder, location, wide)
            : name == "tl.ceil"  ? (Value)math::CeilOp::create(builder, location, wide)
            : name == "tl.sin"   ? (Value)math::SinOp::create(builder, location, wide)
            : name == "tl.cos"   ? (Value)math::CosOp::create(builder, location, wide)
            : name == "tl.erf"   ? (Value)math::ErfOp::create(builder, location, wide)
                                 : (Value)math::SqrtOp::create(builder, location, wide);
  // tl.sqrt may approximate (Triton's is sqrt.approx); tl.sqrt_rn may not.
  if (name == "tl.sqrt")
    llvm::cast<math::SqrtOp>(r.getDefiningOp()).setFastmath(arith::FastMathFlags::afn);
  return TValue::ofValue(cast(r, element, l));
}
