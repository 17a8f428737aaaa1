//===- Core.cpp - Program ids, ranges, constants, hints, Python's builtins ===//
//
// The rows of triton.language's core that make tiles and constants
// (tl.program_id, tl.arange, tl.zeros, tl.full, tl.broadcast_to), state facts
// (tl.multiple_of and its kin, tl.assume, tl.static_assert), or only exist
// at compile time (tl.constexpr, tl.static_print, tl.pointer_type), and the
// few Python builtins a kernel calls, with Triton's meaning of each.
//
//===----------------------------------------------------------------------===//

#include "MLIRGenImpl.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/ADT/StringSwitch.h"

using namespace mlir;
using namespace tilec;
using llvm::StringRef;
using llvm::Twine;

namespace {

using Kind = BuiltinKind;

/// The shape argument of tl.zeros/tl.full/tl.broadcast_to.
SmallVector<int64_t> shapeArg(MLIRGenImpl &g, const TValue &v,
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

TValue programId(MLIRGenImpl &g, const BoundArgs &args,
                 const ast::CallExpr &c) {
  int64_t axis = g.constInt(*args.get(0), args.locs[0], "axis");
  if (axis < 0 || axis > 2)
    g.fail(args.locs[0], "axis must be 0, 1 or 2, got " + Twine(axis));
  Location location = g.loc(c.loc);
  Value v = args.function == "tl.program_id"
                ? (Value)tile::ProgramIdOp::create(g.builder, location, axis)
                : (Value)tile::NumProgramsOp::create(g.builder, location, axis);
  return TValue::ofValue(v);
}

/// tl.extra.cuda.num_warps() and num_threads(): constexprs, as in Triton.
TValue programSize(MLIRGenImpl &g, const BoundArgs &args,
                   const ast::CallExpr &) {
  return TValue::ofInt(args.function == "tl.extra.cuda.num_threads"
                           ? 32 * g.numWarps
                           : g.numWarps);
}

TValue arange(MLIRGenImpl &g, const BoundArgs &args, const ast::CallExpr &c) {
  int64_t start = g.constInt(*args.get(0), args.locs[0], "tl.arange start");
  int64_t end = g.constInt(*args.get(1), args.locs[1], "tl.arange end");
  if (end <= start)
    g.fail(c.loc, "tl.arange needs start < end, got [" + Twine(start) + ", " +
                      Twine(end) + ")");
  auto type = RankedTensorType::get({end - start}, g.builder.getI32Type());
  return TValue::ofValue(tile::MakeRangeOp::create(
      g.builder, g.loc(c.loc), type, g.builder.getI32IntegerAttr(start),
      g.builder.getI32IntegerAttr(end)));
}

/// tl.zeros(shape, dtype) and tl.full(shape, value, dtype).
TValue fill(MLIRGenImpl &g, const BoundArgs &args, const ast::CallExpr &c) {
  bool full = args.function == "tl.full";
  SmallVector<int64_t> shape = shapeArg(g, *args.get(0), args.locs[0]);
  unsigned dtypeIndex = full ? 2 : 1;
  Type dtype =
      g.dtypeArg(*args.get(dtypeIndex), args.locs[dtypeIndex], "dtype");
  bool isUnsigned = hasUnsignedElements(dtype);
  Type element = signless(dtype);
  TValue value = full ? *args.get(1) : TValue::ofInt(0);
  // A 0-d tile (`tl.zeros([])`, `tl.full((), v, dt)`) is a scalar, as in
  // Triton: it takes part in arithmetic with scalars and tiles alike.
  if (shape.empty())
    return g.castTo(value, dtype, args.locs[full ? 1 : 0]);
  auto type = RankedTensorType::get(shape, element);
  if (value.isRuntime()) {
    Value scalar = g.castTo(value, dtype, args.locs[1]).value;
    return TValue::ofValue(g.broadcastTo(scalar, shape, c.loc, "value"),
                           isUnsigned);
  }
  if (!value.isNumber())
    g.fail(args.locs[1], "the fill value must be a number");
  Attribute scalar;
  double d = value.kind == TValue::Kind::Float ? value.scalar.floatValue
                                               : double(value.intValue());
  if (isa<FloatType>(element))
    scalar = g.builder.getFloatAttr(element, d);
  else
    scalar = g.builder.getIntegerAttr(element, value.kind == TValue::Kind::Float
                                                   ? int64_t(d)
                                                   : value.intValue());
  return TValue::ofValue(
      arith::ConstantOp::create(g.builder, g.loc(c.loc),
                                DenseElementsAttr::get(type, scalar)),
      isUnsigned);
}

TValue broadcastToShape(MLIRGenImpl &g, const BoundArgs &args,
                        const ast::CallExpr &c) {
  Value x = g.toValue(*args.get(0), args.locs[0], "the input");
  SmallVector<int64_t> shape = shapeArg(g, *args.get(1), args.locs[1]);
  return TValue::ofValue(g.broadcastTo(x, shape, c.loc, "the input"),
                         args.get(0)->isUnsigned);
}

/// `BLOCK = tl.constexpr(128)`: how Triton marks a global kernels read.
TValue constexprValue(MLIRGenImpl &g, const BoundArgs &args,
                      const ast::CallExpr &) {
  if (args.get(0)->isRuntime())
    g.fail(args.locs[0], "tl.constexpr needs a compile-time value");
  return *args.get(0);
}

/// tl.multiple_of, tl.max_contiguous, tl.max_constancy: facts for the axis
/// analysis, per dimension (an int for a 1-D tile or a scalar), as
/// tile.hint.
TValue hint(MLIRGenImpl &g, const BoundArgs &args, const ast::CallExpr &c) {
  const std::string &name = args.function;
  Value x = g.toValue(*args.get(0), args.locs[0], "the input");
  const TValue &given = *args.get(1);
  std::vector<TValue> items =
      given.kind == TValue::Kind::Tuple ? given.elements : std::vector{given};
  SmallVector<int64_t> facts;
  for (const TValue &item : items) {
    int64_t fact = g.constInt(item, args.locs[1], name + " values");
    if (fact < 1)
      g.fail(args.locs[1],
             name + " values must be positive, got " + Twine(fact));
    facts.push_back(fact);
  }
  size_t rank = std::max<size_t>(1, shapeOf(x).size());
  if (facts.size() != rank)
    g.fail(args.locs[1],
           name + " needs " + Twine(rank) + " value" + (rank == 1 ? "" : "s") +
               " (one per dimension), got " + Twine(facts.size()));
  auto attr = g.builder.getDenseI64ArrayAttr(facts);
  auto op = tile::HintOp::create(g.builder, g.loc(c.loc), x);
  if (name == "tl.multiple_of")
    op.setDivisibilityAttr(attr);
  else if (name == "tl.max_contiguous")
    op.setContiguityAttr(attr);
  else
    op.setConstancyAttr(attr);
  return TValue::ofValue(op);
}

TValue assume(MLIRGenImpl &g, const BoundArgs &args, const ast::CallExpr &c) {
  const TValue &cond = *args.get(0);
  if (!cond.isRuntime()) {
    if (!g.isTrue(cond, args.locs[0]))
      g.fail(args.locs[0], "tl.assume of a condition that is false");
    return TValue::none();
  }
  Value v = g.cast(cond.value, g.builder.getI1Type(), args.locs[0]);
  if (isa<RankedTensorType>(v.getType()))
    g.fail(args.locs[0], "tl.assume needs a scalar condition, not a tile");
  tile::AssumeOp::create(g.builder, g.loc(c.loc), v);
  return TValue::none();
}

TValue staticAssert(MLIRGenImpl &g, const BoundArgs &args,
                    const ast::CallExpr &c) {
  if (g.isTrue(*args.get(0), args.locs[0]))
    return TValue::none();
  const TValue &msg = *args.get(1);
  g.fail(c.loc, "static assertion failed" +
                    (msg.kind == TValue::Kind::String && !msg.text().empty()
                         ? ": " + msg.text()
                         : std::string()));
}

/// Python's repr of a compile-time value: a tuple of constexprs as
/// "(2, 2, 4)"; what has no Python form (a tile) as the frontend names it.
std::string pythonRepr(MLIRGenImpl &g, const TValue &v) {
  if (v.isScalar())
    return v.scalar.repr();
  if (v.kind != TValue::Kind::Tuple)
    return g.describe(v);
  std::string out = "(";
  for (auto [i, e] : llvm::enumerate(v.elements))
    out += (i ? ", " : "") + pythonRepr(g, e);
  return out + (v.elements.size() == 1 ? ",)" : ")");
}

/// At compile time, to stderr (stdout may be the compiler's output): strings
/// as they are, constexprs as Python prints them, runtime values as their
/// types.
TValue staticPrint(MLIRGenImpl &g, const BoundArgs &args,
                   const ast::CallExpr &) {
  auto text = [&](unsigned i, std::string fallback) {
    const TValue *v = args.get(i);
    return v && v->kind == TValue::Kind::String ? v->text() : fallback;
  };
  std::string sep = text(1, " "), end = text(2, "\n");
  std::string out;
  for (auto [i, v] : llvm::enumerate(args.varargs)) {
    if (i)
      out += sep;
    out += v.isScalar() ? python::str(v.scalar) : pythonRepr(g, v);
  }
  llvm::errs() << out << end;
  return TValue::none();
}

/// getattr(obj, name[, default]) and hasattr(obj, name), at compile time:
/// the attribute as `obj.name` would give it, or whether that fails.
TValue pythonGetattr(MLIRGenImpl &g, const BoundArgs &args,
                     const ast::CallExpr &c) {
  bool has = args.function == "hasattr";
  size_t most = has ? 2 : 3;
  if (args.varargs.size() < 2 || args.varargs.size() > most)
    g.fail(c.loc, args.function + "() takes 2" + (has ? "" : " or 3") +
                      " arguments (" + Twine(args.varargs.size()) + " given)");
  const TValue &name = args.varargs[1];
  if (name.kind != TValue::Kind::String)
    g.fail(args.varargLocs[1], args.function +
                                   "(): the attribute name must be a string, "
                                   "got " + g.describe(name));
  if (!has && args.varargs.size() == 2)
    return g.attribute(args.varargs[0], name.text(), c.loc);
  // Whether `obj.name` fails, its error swallowed.
  std::optional<TValue> found;
  {
    ScopedDiagnosticHandler swallow(&g.context,
                                    [](Diagnostic &) { return success(); });
    MLIRGenImpl::Snapshot before(g);
    try {
      found = g.attribute(args.varargs[0], name.text(), c.loc);
    } catch (const GenError &) {
      before.restore();
    }
  }
  if (has)
    return TValue::ofBool(found.has_value());
  return found ? *found : args.varargs[2];
}

TValue pointerType(MLIRGenImpl &g, const BoundArgs &args,
                   const ast::CallExpr &) {
  return TValue::ofDType(tile::PointerType::get(
      &g.context, g.dtypeArg(*args.get(0), args.locs[0], "the element type")));
}

TValue debugBarrier(MLIRGenImpl &g, const BoundArgs &, const ast::CallExpr &c) {
  tile::DebugBarrierOp::create(g.builder, g.loc(c.loc));
  return TValue::none();
}

/// tl.dtype("uint8"): the dtype of that name, as Triton's dtype(name)
/// spells them (tl.dtype(f"uint{bits}")).
TValue dtypeByName(MLIRGenImpl &g, const BoundArgs &args,
                   const ast::CallExpr &) {
  const TValue &name = *args.get(0);
  Type type = name.kind == TValue::Kind::String
                  ? tritonDTypeByName(&g.context, name.text())
                  : Type();
  if (!type)
    g.fail(args.locs[0], "tl.dtype() takes the name of a dtype as Triton "
                         "spells it (\"int32\", \"uint8\", \"fp16\", "
                         "\"bf16\", \"fp32\"...), got " +
                             g.describe(name));
  return TValue::ofDType(type);
}

/// tl.extra.cuda.gdc_wait() and gdc_launch_dependents().
TValue gridDependency(MLIRGenImpl &g, const BoundArgs &args,
                      const ast::CallExpr &c) {
  tile::GridDependencyOp::create(
      g.builder, g.loc(c.loc),
      args.function == "tl.extra.cuda.gdc_wait"
          ? tile::GridDependencyKind::Wait
          : tile::GridDependencyKind::LaunchDependents);
  return TValue::none();
}

/// range, tl.range and tl.static_range outside a `for` header (MLIRGen's
/// genFor reads the row's parameters there).
TValue loopRange(MLIRGenImpl &g, const BoundArgs &args,
                 const ast::CallExpr &c) {
  g.fail(c.loc, args.function + "() can only be the iterable of a 'for' loop");
}

/// Python's min and max on constexprs; on runtime values tl.minimum and
/// tl.maximum, as Triton maps them.
TValue pythonMinMax(MLIRGenImpl &g, const BoundArgs &args,
                    const ast::CallExpr &c) {
  const std::string &name = args.function;
  if (args.varargs.size() < 2)
    g.fail(c.loc, name + "() in a kernel takes two or more values");
  TValue best = args.varargs.front();
  for (auto [v, l] :
       llvm::drop_begin(llvm::zip(args.varargs, args.varargLocs))) {
    if (best.isRuntime() || v.isRuntime()) {
      best = g.minMax(name == "max", best, v, l);
      continue;
    }
    if (!best.isNumber() || !v.isNumber())
      g.fail(l, name + "() needs numbers, got " + g.describe(v));
    TValue less = g.compare(ast::CompareOp::Lt, v, best, l);
    if ((name == "min") == (less.intValue() != 0))
      best = v;
  }
  return best;
}

TValue pythonAbs(MLIRGenImpl &g, const BoundArgs &args, const ast::CallExpr &) {
  const TValue &x = *args.get(0);
  if (x.isScalar())
    return g.fold(python::absolute(x.scalar), args.locs[0]);
  return g.absolute(x, args.locs[0]);
}

/// At compile time, as Triton's code generator runs it: against the
/// language's classes (tl.tensor, tl.tensor_descriptor, tl.constexpr) and
/// Python's (int, float, bool, tuple), or a tuple of them.
TValue pythonIsinstance(MLIRGenImpl &g, const BoundArgs &args,
                        const ast::CallExpr &) {
  const TValue &obj = *args.get(0), &cls = *args.get(1);
  std::vector<TValue> classes =
      cls.kind == TValue::Kind::Tuple ? cls.elements : std::vector{cls};
  bool result = false;
  for (const TValue &k : classes) {
    if (k.kind != TValue::Kind::Builtin)
      g.fail(args.locs[1], "isinstance() needs a class, got " + g.describe(k));
    StringRef n = k.name;
    if (n == "tl.tensor")
      result |= obj.isRuntime();
    else if (n == "tl.tensor_descriptor")
      result |= obj.kind == TValue::Kind::TensorDesc;
    else if (n == "tl.dtype")
      result |= obj.kind == TValue::Kind::DType;
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
      g.fail(args.locs[1], "isinstance() with " + n.str() +
                               " is not supported by tilec (tl.tensor, "
                               "tl.tensor_descriptor, tl.dtype, tl.constexpr, int, "
                               "float, bool and tuple are)");
  }
  return TValue::ofBool(result);
}

TValue pythonLen(MLIRGenImpl &g, const BoundArgs &args, const ast::CallExpr &) {
  if (args.get(0)->kind != TValue::Kind::Tuple)
    g.fail(args.locs[0], "len() needs a tuple");
  return TValue::ofInt(args.get(0)->elements.size());
}

/// int(), float() and bool() of constexprs.
TValue pythonNumber(MLIRGenImpl &g, const BoundArgs &args,
                    const ast::CallExpr &) {
  const std::string &name = args.function;
  const TValue &x = *args.get(0);
  if (!x.isScalar())
    g.fail(args.locs[0], name + "() works on constexprs; use .to() on tiles");
  if (name == "bool")
    return TValue::ofBool(python::truthy(x.scalar));
  return g.fold(name == "int" ? python::toInt(x.scalar)
                              : python::toFloat(x.scalar),
                args.locs[0]);
}

/// A dtype's predicates (`dt.is_floating()`, ...), as tl.dtype has them.
TValue dtypeQuery(MLIRGenImpl &, const BoundArgs &args, const ast::CallExpr &) {
  Type t = args.get(0)->type;
  StringRef query = StringRef(args.function).rsplit('.').second;
  bool isInt = t.isInteger() && !t.isInteger(1);
  bool isUnsigned = isUnsignedInt(t);
  bool result = llvm::StringSwitch<bool>(query)
                    .Case("is_floating", isa<FloatType>(t))
                    .Case("is_int", isInt)
                    .Case("is_int_signed", isInt && !isUnsigned)
                    .Case("is_int_unsigned", isInt && isUnsigned)
                    .Case("is_bool", t.isInteger(1))
                    .Case("is_ptr", isa<tile::PointerType>(t))
                    .Case("is_fp8", tile::isFP8(t))
                    .Case("is_fp16", t.isF16())
                    .Case("is_bf16", t.isBF16())
                    .Case("is_fp32", t.isF32())
                    .Case("is_fp64", t.isF64())
                    .Default(false);
  return TValue::ofBool(result);
}

#define DTYPE_QUERY(NAME, WHAT)                                                \
  { "dtype." NAME, "self", Kind::Method, dtypeQuery, WHAT }
const BuiltinSpec kCore[] = {
    DTYPE_QUERY("is_floating", "whether a dtype is a float type"),
    DTYPE_QUERY("is_int", "whether a dtype is an integer type (not bool)"),
    DTYPE_QUERY("is_int_signed", "whether a dtype is a signed integer type"),
    DTYPE_QUERY("is_int_unsigned", "whether a dtype is an unsigned integer type"),
    DTYPE_QUERY("is_bool", "whether a dtype is tl.int1"),
    DTYPE_QUERY("is_ptr", "whether a dtype is a pointer type"),
    DTYPE_QUERY("is_fp8", "whether a dtype is an fp8 type"),
    DTYPE_QUERY("is_fp16", "whether a dtype is tl.float16"),
    DTYPE_QUERY("is_bf16", "whether a dtype is tl.bfloat16"),
    DTYPE_QUERY("is_fp32", "whether a dtype is tl.float32"),
    DTYPE_QUERY("is_fp64", "whether a dtype is tl.float64"),
    {"tl.program_id", "axis", Kind::Function, programId,
     "this program's index along grid axis 0, 1 or 2"},
    {"tl.num_programs", "axis", Kind::Function, programId,
     "the number of programs along grid axis 0, 1 or 2"},
    {"tl.extra.cuda.num_warps", "", Kind::Function, programSize,
     "the program's warps (num_warps), a constexpr"},
    {"tl.extra.cuda.num_threads", "", Kind::Function, programSize,
     "the program's threads (32 * num_warps), a constexpr"},
    {"tl.arange", "start, end", Kind::Function, arange,
     "int32 tile [start, end); any extent, not only powers of two"},
    {"tl.zeros", "shape, dtype", Kind::Function, fill, "a tile of zeros"},
    {"tl.full", "shape, value, dtype", Kind::Function, fill,
     "a tile of one value (a constexpr or a runtime scalar)"},
    {"tl.broadcast_to", "input, shape", Kind::Both, broadcastToShape,
     "broadcasts to a shape (a tuple or one int)"},
    {"tl.constexpr", "value", Kind::Function, constexprValue,
     "a compile-time constant; also the annotation of constexpr parameters"},
    {"tl.multiple_of", "input, values", Kind::Both, hint,
     "states divisibility per dimension, for vectorization"},
    {"tl.max_contiguous", "input, values", Kind::Both, hint,
     "states runs of consecutive values per dimension"},
    {"tl.max_constancy", "input, values", Kind::Both, hint,
     "states runs of equal values per dimension"},
    {"tl.assume", "cond", Kind::Function, assume,
     "a scalar fact for the axis analysis (the interpreter checks it)"},
    {"tl.static_assert", "cond, msg=\"\"", Kind::Function, staticAssert,
     "a compile-time check"},
    {"tl.static_print", R"(*values, sep=" ", end="\n", file=None, flush=False)",
     Kind::Function, staticPrint, "prints at compile time, to stderr"},
    {"tl.pointer_type", "element_ty", Kind::Function, pointerType,
     "the dtype of pointers to element_ty"},
    {"tl.debug_barrier", "", Kind::Function, debugBarrier,
     "synchronizes the threads of a program"},
    {"tl.extra.cuda.gdc_wait", "", Kind::Function, gridDependency,
     "waits for the grid this one depends on (programmatic dependent "
     "launch; a no-op without it)"},
    {"tl.extra.cuda.gdc_launch_dependents", "", Kind::Function, gridDependency,
     "lets the dependent grid start (programmatic dependent launch; a "
     "no-op without it)"},
    {"tl.range",
     "arg1, arg2=None, step=None, num_stages=None, loop_unroll_factor=None, "
     "disallow_acc_multi_buffer=False, flatten=False, warp_specialize=None, "
     "disable_licm=False",
     Kind::Function, loopRange,
     "a for loop's range; num_stages and warp_specialize reach the "
     "pipeliner, the other options are accepted and ignored"},
    {"tl.static_range", "arg1, arg2=None, step=None", Kind::Function, loopRange,
     "a for loop unrolled at compile time"},
    {"tl.tensor", "", Kind::Function, nullptr,
     "the class of tiles, for isinstance()"},
    {"tl.tensor_descriptor", "", Kind::Function, nullptr,
     "the class of tensor descriptors, for isinstance()"},
    {"tl.dtype", "name", Kind::Function, dtypeByName,
     "the class of dtypes, for isinstance() and annotations; "
     "tl.dtype(\"uint8\") is the dtype Triton names so"},
    // Python's builtins, as Triton's code generator treats them.
    {"range", "arg1, arg2=None, step=None", Kind::Function, loopRange,
     "a for loop's range"},
    {"min", "*args", Kind::Function, pythonMinMax,
     "of constexprs, or tl.minimum of runtime values"},
    {"max", "*args", Kind::Function, pythonMinMax,
     "of constexprs, or tl.maximum of runtime values"},
    {"abs", "x", Kind::Function, pythonAbs,
     "of a constexpr, or tl.abs of a runtime value"},
    {"len", "obj", Kind::Function, pythonLen, "the length of a tuple"},
    {"getattr", "*args", Kind::Function, pythonGetattr,
     "getattr(obj, name[, default]) at compile time"},
    {"hasattr", "*args", Kind::Function, pythonGetattr,
     "hasattr(obj, name) at compile time"},
    {"int", "x", Kind::Function, pythonNumber, "of a constexpr"},
    {"float", "x", Kind::Function, pythonNumber,
     "of a constexpr or a string ('inf', 'nan', ...)"},
    {"bool", "x", Kind::Function, pythonNumber, "of a constexpr"},
    {"isinstance", "obj, class_or_tuple", Kind::Function, pythonIsinstance,
     "decided at compile time, as Triton does"},
    {"tuple", "", Kind::Function, nullptr, "the class, for isinstance()"},
};

} // namespace

ArrayRef<BuiltinSpec> tilec::getCoreBuiltins() { return kCore; }
