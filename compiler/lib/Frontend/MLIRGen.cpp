//===- MLIRGen.cpp - Emits the tile IR of a kernel ------------------------===//
//
// The language core: values and types, operators, statements, and the
// kernel's signature. The `tl.*` library lives in Builtins.cpp.
//
//===----------------------------------------------------------------------===//

#include "MLIRGenImpl.h"

#include "tilec/Frontend/HostScalar.h"
#include "tilec/Frontend/Parser.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <functional>
#include <set>

using namespace mlir;
using namespace tilec;
using llvm::StringRef;
using llvm::Twine;

//===----------------------------------------------------------------------===//
// TValue
//===----------------------------------------------------------------------===//

// A scalar's kind is its HostScalar's, enumerator for enumerator.
static_assert(int(TValue::Kind::None) == int(HostScalar::Kind::None) &&
              int(TValue::Kind::Int) == int(HostScalar::Kind::Int) &&
              int(TValue::Kind::Float) == int(HostScalar::Kind::Float) &&
              int(TValue::Kind::Bool) == int(HostScalar::Kind::Bool) &&
              int(TValue::Kind::String) == int(HostScalar::Kind::String));

TValue TValue::of(const HostScalar &scalar) {
  TValue t;
  // Launch arguments hold no constexpr: they read as None.
  if (scalar.kind == HostScalar::Kind::Pointer ||
      scalar.kind == HostScalar::Kind::Unknown)
    return t;
  t.kind = Kind(scalar.kind);
  t.scalar = scalar;
  return t;
}
TValue TValue::ofFunction(const ast::FunctionDef *function) {
  TValue t;
  t.kind = Kind::Function;
  t.function = function;
  return t;
}
TValue TValue::ofInt(int64_t v) { return of(HostScalar::ofInt(v)); }
TValue TValue::ofFloat(double v) { return of(HostScalar::ofFloat(v)); }
TValue TValue::ofBool(bool v) { return of(HostScalar::ofBool(v)); }
TValue TValue::ofString(std::string s) {
  return of(HostScalar::ofString(std::move(s)));
}
TValue TValue::ofDType(Type type) {
  TValue t;
  t.kind = Kind::DType;
  t.type = type;
  return t;
}
TValue TValue::named(Kind kind, std::string name) {
  TValue t;
  t.kind = kind;
  t.name = std::move(name);
  return t;
}
TValue TValue::ofValue(Value v, bool isUnsigned) {
  TValue t;
  t.kind = Kind::Runtime;
  t.value = v;
  t.isUnsigned = isUnsigned;
  return t;
}
TValue TValue::ofTuple(std::vector<TValue> elements) {
  TValue t;
  t.kind = Kind::Tuple;
  t.elements = std::move(elements);
  return t;
}

bool TValue::operator==(const TValue &o) const {
  return kind == o.kind && isUnsigned == o.isUnsigned && scalar == o.scalar &&
         name == o.name && type == o.type &&
         value == o.value && elements == o.elements &&
         function == o.function && module == o.module;
}

//===----------------------------------------------------------------------===//
// Errors, types and values
//===----------------------------------------------------------------------===//

bool tilec::isUnsignedInt(Type t) {
  auto integer = dyn_cast<IntegerType>(t);
  return integer && integer.isUnsigned();
}

bool tilec::hasUnsignedElements(Type t) {
  t = getElementTypeOrSelf(t);
  if (auto ptr = dyn_cast<tile::PointerType>(t))
    return isUnsignedInt(ptr.getPointeeType());
  return isUnsignedInt(t);
}

Type tilec::signless(Type t) {
  if (auto tensor = dyn_cast<RankedTensorType>(t))
    return RankedTensorType::get(tensor.getShape(),
                                 signless(tensor.getElementType()),
                                 tensor.getEncoding());
  if (auto ptr = dyn_cast<tile::PointerType>(t))
    return tile::PointerType::get(t.getContext(), signless(ptr.getPointeeType()));
  if (auto integer = dyn_cast<IntegerType>(t); integer && !integer.isSignless())
    return IntegerType::get(t.getContext(), integer.getWidth());
  return t;
}

/// `t` (signless) as the unsigned dtype of its width, or a pointer to one.
static Type unsignedForm(Type t) {
  if (auto ptr = dyn_cast<tile::PointerType>(t))
    return tile::PointerType::get(t.getContext(),
                                  unsignedForm(ptr.getPointeeType()));
  if (auto integer = dyn_cast<IntegerType>(t); integer && integer.getWidth() > 1)
    return IntegerType::get(t.getContext(), integer.getWidth(),
                            IntegerType::Unsigned);
  return t;
}

Type MLIRGenImpl::dtypeOf(const TValue &v) {
  Type element = getElementTypeOrSelf(v.value.getType());
  return v.isUnsigned ? unsignedForm(element) : element;
}

Type MLIRGenImpl::typeOf(const TValue &v) {
  return tile::withElementType(v.value.getType(), dtypeOf(v));
}

TValue MLIRGenImpl::castTo(const TValue &v, Type dtype, const ast::Location &l) {
  Value x = toValue(v, l, "the value");
  return TValue::ofValue(cast(x, dtype, l, v.isUnsigned),
                         hasUnsignedElements(dtype));
}

MLIRGenImpl::MLIRGenImpl(MLIRContext &context, ModuleLoader &loader)
    : context(context), loader(loader), builder(&context) {}

Location MLIRGenImpl::loc(const ast::Location &l) {
  Location here = FileLineColLoc::get(&context, l.file ? *l.file : "<source>",
                                      l.line, l.col);
  if (callSites.empty())
    return here;
  auto [helper, caller] = callSites.back();
  return CallSiteLoc::get(NameLoc::get(helper, here), caller);
}

void MLIRGenImpl::fail(const ast::Location &l, const Twine &message) {
  emitError(loc(l)) << message.str();
  throw GenError();
}

std::string MLIRGenImpl::describe(const TValue &v) {
  switch (v.kind) {
  case TValue::Kind::None:
    return "None";
  case TValue::Kind::Int:
    return "constexpr int " + std::to_string(v.intValue());
  case TValue::Kind::Float:
    return "constexpr float";
  case TValue::Kind::Bool:
    return v.intValue() ? "constexpr True" : "constexpr False";
  case TValue::Kind::String:
    return "string \"" + v.text() + "\"";
  case TValue::Kind::DType:
    return "dtype " + describe(v.type);
  case TValue::Kind::Module:
    return "module '" + v.name + "'";
  case TValue::Kind::Builtin:
  case TValue::Kind::Method:
    return "function '" + v.name + "'";
  case TValue::Kind::Function:
    return "function '" + v.function->name + "'";
  case TValue::Kind::Tuple:
    return "tuple";
  case TValue::Kind::Slice:
    return "slice";
  case TValue::Kind::Runtime:
    return describe(typeOf(v));
  case TValue::Kind::BlockPtr:
    return "a block pointer";
  case TValue::Kind::TensorDesc:
    return "a tensor descriptor";
  }
  return "value";
}

std::string MLIRGenImpl::pythonText(const TValue &v, bool repr) {
  if (v.isScalar())
    return repr ? v.scalar.repr() : python::str(v.scalar);
  if (v.kind == TValue::Kind::DType) {
    std::string name = tritonDTypeName(v.type);
    return repr ? "triton.language." + name : name;
  }
  if (v.kind == TValue::Kind::Tuple) {
    std::string out = "(";
    for (auto [i, e] : llvm::enumerate(v.elements))
      out += (i ? ", " : "") + pythonText(e, /*repr=*/true);
    return out + (v.elements.size() == 1 ? ",)" : ")");
  }
  if (v.kind == TValue::Kind::None)
    return "None";
  return describe(v);
}

Value MLIRGenImpl::materialize(const TValue &v, const ast::Location &l) {
  Location location = loc(l);
  switch (v.kind) {
  case TValue::Kind::Bool:
    return arith::ConstantOp::create(builder, location,
                                     builder.getBoolAttr(v.intValue() != 0));
  case TValue::Kind::Int: {
    // Past int64 (Python's ints are unbounded): up to 2^64 - 1 a uint64, as
    // Triton makes it, and no further.
    if (v.scalar.wide) {
      WideInt w = v.scalar.wideValue();
      if (w < 0 || w > WideInt(UINT64_MAX))
        fail(l, "the int " + v.scalar.repr() + " does not fit in 64 bits");
      return arith::ConstantOp::create(builder, location,
                                       builder.getI64IntegerAttr(v.intValue()));
    }
    bool fits32 = v.intValue() >= INT32_MIN && v.intValue() <= INT32_MAX;
    Type type = fits32 ? builder.getI32Type() : builder.getI64Type();
    return arith::ConstantOp::create(builder, location,
                                     builder.getIntegerAttr(type, v.intValue()));
  }
  case TValue::Kind::Float:
    return arith::ConstantOp::create(builder, location,
                                     builder.getF32FloatAttr(v.scalar.floatValue));
  default:
    fail(l, "expected a number, got " + describe(v));
  }
}

Value MLIRGenImpl::toValue(const TValue &v, const ast::Location &l,
                           StringRef what) {
  if (v.isRuntime())
    return v.value;
  if (v.isNumber())
    return materialize(v, l);
  fail(l, what + " must be a number or a tile, got " + describe(v));
}

/// A scalar constant of `type` with the value of a number.
static Value constantOf(OpBuilder &b, Location loc, const TValue &v, Type type) {
  if (isa<FloatType>(type)) {
    double d = v.kind == TValue::Kind::Float ? v.scalar.floatValue : double(v.intValue());
    return arith::ConstantOp::create(b, loc, b.getFloatAttr(type, d));
  }
  int64_t i = v.kind == TValue::Kind::Float ? int64_t(v.scalar.floatValue) : v.intValue();
  return arith::ConstantOp::create(b, loc, b.getIntegerAttr(type, i));
}

Value MLIRGenImpl::cast(Value v, Type to, const ast::Location &l,
                         bool fromUnsigned) {
  bool toUnsigned = isUnsignedInt(to);
  to = signless(to);
  Type from = getElementTypeOrSelf(v.getType());
  if (from == to)
    return v;
  Location location = loc(l);
  Type resultType = tile::withElementType(v.getType(), to);
  if (isa<tile::PointerType>(from) || isa<tile::PointerType>(to)) {
    // Pointers and addresses, as Triton's casts: through an int64.
    if (isa<FloatType>(from) || isa<FloatType>(to))
      fail(l, "cannot convert " + describe(from) + " to " + describe(to));
    Type i64 = builder.getI64Type();
    Value address = v;
    if (isa<tile::PointerType>(from))
      address = tile::PtrToIntOp::create(
          builder, location, tile::withElementType(v.getType(), i64), v);
    else
      address = cast(v, i64, l, fromUnsigned);
    if (!isa<tile::PointerType>(to))
      return cast(address, to, l);
    return tile::IntToPtrOp::create(builder, location, resultType, address);
  }
  bool fromFloat = isa<FloatType>(from), toFloat = isa<FloatType>(to);
  // fp8 converts to and from fp16 and fp32 only (what PTX's cvt does);
  // everything else goes through fp32.
  Type f32 = builder.getF32Type();
  using tile::isFP8;
  if (isFP8(from) || isFP8(to))
    checkFP8Target(l);
  if ((isFP8(from) && !to.isF16() && !to.isF32()) ||
      (isFP8(to) && !from.isF16() && !from.isF32()))
    return cast(cast(v, f32, l, fromUnsigned),
                toUnsigned ? builder.getIntegerType(to.getIntOrFloatBitWidth(),
                                                    /*isSigned=*/false)
                           : to,
                l);
  if (fromFloat && toFloat) {
    // fp16 <-> bf16 goes through fp32: neither contains the other.
    if (from.getIntOrFloatBitWidth() == to.getIntOrFloatBitWidth())
      return cast(cast(v, builder.getF32Type(), l), to, l);
    if (from.getIntOrFloatBitWidth() < to.getIntOrFloatBitWidth())
      return arith::ExtFOp::create(builder, location, resultType, v);
    return arith::TruncFOp::create(builder, location, resultType, v);
  }
  if (!fromFloat && !toFloat) {
    if (to.isInteger(1)) {
      Value zero = arith::ConstantOp::create(builder, location,
                                             builder.getIntegerAttr(from, 0));
      zero = broadcastTo(zero, shapeOf(v), l, "zero");
      return arith::CmpIOp::create(builder, location, arith::CmpIPredicate::ne,
                                   v, zero);
    }
    if (from.getIntOrFloatBitWidth() < to.getIntOrFloatBitWidth()) {
      // True is 1, not -1.
      if (from.isInteger(1) || fromUnsigned)
        return arith::ExtUIOp::create(builder, location, resultType, v);
      return arith::ExtSIOp::create(builder, location, resultType, v);
    }
    return arith::TruncIOp::create(builder, location, resultType, v);
  }
  if (!fromFloat) {
    if (from.isInteger(1) || fromUnsigned)
      return arith::UIToFPOp::create(builder, location, resultType, v);
    return arith::SIToFPOp::create(builder, location, resultType, v);
  }
  if (to.isInteger(1)) {
    Value zero = arith::ConstantOp::create(builder, location,
                                           builder.getFloatAttr(from, 0.0));
    if (auto tensor = dyn_cast<RankedTensorType>(v.getType()))
      zero = tile::SplatOp::create(builder, location, tensor, zero);
    return arith::CmpFOp::create(builder, location, arith::CmpFPredicate::UNE,
                                 v, zero);
  }
  if (toUnsigned)
    return arith::FPToUIOp::create(builder, location, resultType, v);
  return arith::FPToSIOp::create(builder, location, resultType, v);
}

static std::string shapeString(ArrayRef<int64_t> shape) {
  std::string s = "[";
  llvm::raw_string_ostream os(s);
  llvm::interleaveComma(shape, os);
  return s + "]";
}

SmallVector<int64_t> MLIRGenImpl::broadcastShapes(ArrayRef<int64_t> a,
                                                  ArrayRef<int64_t> b,
                                                  const ast::Location &l) {
  size_t rank = std::max(a.size(), b.size());
  SmallVector<int64_t> result(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t x = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t y = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (x != y && x != 1 && y != 1)
      fail(l, "cannot broadcast shapes " + shapeString(a) + " and " +
                  shapeString(b));
    result[i] = std::max(x, y);
  }
  return result;
}

Value MLIRGenImpl::expandDims(Value v, int64_t axis, const ast::Location &l) {
  SmallVector<int64_t> shape(shapeOf(v));
  shape.insert(shape.begin() + axis, 1);
  auto type = RankedTensorType::get(shape, getElementTypeOrSelf(v.getType()));
  if (!isa<RankedTensorType>(v.getType()))
    return tile::SplatOp::create(builder, loc(l), type, v);
  return tile::ExpandDimsOp::create(builder, loc(l), type, v,
                                    builder.getI32IntegerAttr(int32_t(axis)));
}

Value MLIRGenImpl::broadcastTo(Value v, ArrayRef<int64_t> shape,
                               const ast::Location &l, StringRef what) {
  Location location = loc(l);
  Type element = getElementTypeOrSelf(v.getType());
  if (shape.empty()) {
    if (!shapeOf(v).empty())
      fail(l, what + " must be a scalar, got " + describe(v.getType()));
    return v;
  }
  auto target = RankedTensorType::get(shape, element);
  if (!isa<RankedTensorType>(v.getType()))
    return tile::SplatOp::create(builder, location, target, v);
  ArrayRef<int64_t> from = shapeOf(v);
  if (from.size() > shape.size())
    fail(l, "cannot broadcast " + what + " of shape " + shapeString(from) +
                " to shape " + shapeString(shape));
  while (shapeOf(v).size() < shape.size())
    v = expandDims(v, 0, l);
  for (auto [x, y] : llvm::zip(shapeOf(v), shape))
    if (x != y && x != 1)
      fail(l, "cannot broadcast " + what + " of shape " + shapeString(from) +
                  " to shape " + shapeString(shape));
  if (shapeOf(v) == shape)
    return v;
  return tile::BroadcastOp::create(builder, location, target, v);
}

/// Rank of a dtype in promotion: wider floats and wider integers win.
static bool isFloat(Type t) { return isa<FloatType>(t); }

Type MLIRGenImpl::promote(const TValue &a, const TValue &b,
                          const ast::Location &l) {
  // Python numbers are weakly typed: they take the other operand's type.
  auto numberType = [&](const TValue &v) -> Type {
    if (v.kind == TValue::Kind::Float)
      return builder.getF32Type();
    if (v.kind == TValue::Kind::Bool)
      return builder.getI1Type();
    bool fits32 = !v.scalar.wide && v.intValue() >= INT32_MIN &&
                  v.intValue() <= INT32_MAX;
    return fits32 ? builder.getI32Type() : builder.getI64Type();
  };
  if (!a.isRuntime() && !b.isRuntime())
    fail(l, "expected a runtime operand");
  if (!a.isRuntime() || !b.isRuntime()) {
    const TValue &runtime = a.isRuntime() ? a : b;
    const TValue &number = a.isRuntime() ? b : a;
    Type t = dtypeOf(runtime);
    if (isa<tile::PointerType>(t))
      return t;
    if (number.kind == TValue::Kind::Float && !isFloat(t))
      return builder.getF32Type();
    if (number.kind == TValue::Kind::Int && t.isInteger(1))
      return numberType(number);
    // As in Triton, an int takes an integer tile's type and must fit in it.
    unsigned bits = t.isInteger() ? t.getIntOrFloatBitWidth() : 64;
    bool isUnsigned = isUnsignedInt(t);
    if (number.kind == TValue::Kind::Int && isUnsigned &&
        number.scalar.wideValue() < 0)
      fail(l, "the number " + number.scalar.repr() + " is negative and the "
              "other operand is unsigned (" + describe(t) +
              "): cast one of them first, as Triton asks");
    if (number.kind == TValue::Kind::Int && t.isInteger()) {
      WideInt value = number.scalar.wideValue();
      WideInt low = isUnsigned ? 0 : -(WideInt(1) << (bits - 1));
      WideInt high = WideInt(1) << (isUnsigned ? bits : bits - 1);
      if (value < low || value >= high)
        fail(l, "the number " + number.scalar.repr() +
                    " is out of range for " + describe(t) +
                    ", the type of the other operand");
    }
    return t;
  }
  Type x = dtypeOf(a);
  Type y = dtypeOf(b);
  if (x == y)
    return x;
  if (isa<tile::PointerType>(x) || isa<tile::PointerType>(y))
    fail(l, "incompatible operand types " + describe(x) + " and " + describe(y));
  // Floats as Triton's computation_type_impl, in its order: fp64 with
  // anything is fp64, then fp32 fp32, then fp16 fp16 (bf16 and fp8 too);
  // bf16 stays bf16 only with bf16 and is fp32 with anything else (an
  // integer too), two fp8 types are fp16; another float with an integer
  // is that float.
  if (isFloat(x) || isFloat(y)) {
    auto either = [&](auto is) { return is(x) || is(y); };
    if (either([](Type t) { return t.isF64(); }))
      return builder.getF64Type();
    if (either([](Type t) { return t.isF32(); }))
      return builder.getF32Type();
    if (either([](Type t) { return t.isF16(); }))
      return builder.getF16Type();
    if (either([](Type t) { return t.isBF16(); }))
      return builder.getF32Type();
    if (tile::isFP8(x) && tile::isFP8(y))
      return builder.getF16Type();
    return isFloat(x) ? x : y;
  }
  unsigned wx = x.getIntOrFloatBitWidth(), wy = y.getIntOrFloatBitWidth();
  // Integers as C's usual arithmetic conversions (Triton's
  // integer_promote_impl): the wider wins, and of one width the unsigned.
  if (isUnsignedInt(x) != isUnsignedInt(y))
    return isUnsignedInt(x) ? (wx >= wy ? x : y) : (wy >= wx ? y : x);
  return wx >= wy ? x : y;
}

Value MLIRGenImpl::convertTo(const TValue &v, Type element,
                             const ast::Location &l, StringRef what) {
  if (v.isRuntime())
    return cast(v.value, element, l, v.isUnsigned);
  if (!v.isNumber())
    fail(l, what + " must be a number or a tile, got " + describe(v));
  return constantOf(builder, loc(l), v, signless(element));
}

std::pair<Value, Value> MLIRGenImpl::unify(const TValue &a, const TValue &b,
                                           Type element,
                                           const ast::Location &l) {
  Value x = convertTo(a, element, l, "an operand");
  Value y = convertTo(b, element, l, "an operand");
  SmallVector<int64_t> shape = broadcastShapes(shapeOf(x), shapeOf(y), l);
  return {broadcastTo(x, shape, l, "left operand"),
          broadcastTo(y, shape, l, "right operand")};
}

//===----------------------------------------------------------------------===//
// Operators
//===----------------------------------------------------------------------===//

void MLIRGenImpl::checkFP8Target(const ast::Location &l) {
  if (computeCapability < 89)
    fail(l, "fp8 conversions and tl.dot need sm_89 or newer (Ada, Hopper); "
            "this kernel is compiled for sm_" + Twine(computeCapability));
}

void MLIRGenImpl::failFP8Arithmetic(const Twine &what, const ast::Location &l) {
  fail(l, "'" + what + "' on fp8: tilec loads, stores, converts and "
          "multiplies fp8 (tl.dot), and computes nothing else in it; convert "
          "with .to(tl.float16) or .to(tl.float32) first");
}

TValue MLIRGenImpl::binary(ast::BinaryOp op, const TValue &a, const TValue &b,
                           const ast::Location &l) {
  using ast::BinaryOp;
  if (a.isScalar() && b.isScalar())
    return fold(python::binary(op, a.scalar, b.scalar), l);
  // Tuples and lists (both tuples here), as Python: `+` joins, `*` repeats
  // (`[1] * (RANK - 2)`).
  if (op == BinaryOp::Add && a.kind == TValue::Kind::Tuple &&
      b.kind == TValue::Kind::Tuple) {
    std::vector<TValue> joined = a.elements;
    llvm::append_range(joined, b.elements);
    return TValue::ofTuple(std::move(joined));
  }
  if (op == BinaryOp::Mul && (a.kind == TValue::Kind::Tuple) !=
                                 (b.kind == TValue::Kind::Tuple)) {
    const TValue &tuple = a.kind == TValue::Kind::Tuple ? a : b;
    const TValue &count = a.kind == TValue::Kind::Tuple ? b : a;
    if (count.kind == TValue::Kind::Int || count.kind == TValue::Kind::Bool) {
      if (count.intValue() > 4096)
        fail(l, "a tuple repeated " + Twine(count.intValue()) +
                    " times is too long for a kernel");
      std::vector<TValue> repeated;
      for (int64_t k = 0; k < count.intValue(); ++k)
        llvm::append_range(repeated, tuple.elements);
      return TValue::ofTuple(std::move(repeated));
    }
  }
  if ((!a.isRuntime() && !a.isNumber()) || (!b.isRuntime() && !b.isNumber()))
    fail(l, Twine("unsupported operand types for ") + ast::spelling(op) + ": " +
                describe(a) + " and " + describe(b));
  Location location = loc(l);

  // Pointer arithmetic: ptr + int, int + ptr, ptr - int.
  auto isPtr = [](const TValue &v) {
    return v.isRuntime() &&
           isa<tile::PointerType>(getElementTypeOrSelf(v.value.getType()));
  };
  if (isPtr(a) || isPtr(b)) {
    if (isPtr(a) && isPtr(b))
      fail(l, Twine("unsupported operand types for ") + ast::spelling(op) + ": " +
                  describe(a) + " and " + describe(b));
    bool ptrFirst = isPtr(a);
    const TValue &ptr = ptrFirst ? a : b;
    const TValue &offset = ptrFirst ? b : a;
    if (op != BinaryOp::Add && !(op == BinaryOp::Sub && ptrFirst))
      fail(l, Twine("unsupported pointer operation '") + ast::spelling(op) + "'");
    Value off = toValue(offset, l, "pointer offset");
    Type offType = getElementTypeOrSelf(off.getType());
    if (!offType.isInteger() || offType.isInteger(1))
      fail(l, "pointer offsets must be integers, got " + describe(off.getType()));
    // The offset counts as signed: an unsigned one is widened first.
    if (offset.isUnsigned && offType.getIntOrFloatBitWidth() < 64) {
      offType = builder.getI64Type();
      off = cast(off, offType, l, /*fromUnsigned=*/true);
    }
    if (op == BinaryOp::Sub) {
      Value zero = arith::ConstantOp::create(builder, location,
                                             builder.getIntegerAttr(offType, 0));
      zero = broadcastTo(zero, shapeOf(off), l, "offset");
      off = arith::SubIOp::create(builder, location, zero, off);
    }
    SmallVector<int64_t> shape =
        broadcastShapes(shapeOf(ptr.value), shapeOf(off), l);
    Value p = broadcastTo(ptr.value, shape, l, "pointer");
    off = broadcastTo(off, shape, l, "offset");
    return TValue::ofValue(
        tile::AddPtrOp::create(builder, location, p.getType(), p, off),
        ptr.isUnsigned);
  }

  Type element = promote(a, b, l);
  bool fp = isFloat(element);
  bool isUnsigned = isUnsignedInt(element);
  if (tile::isFP8(element))
    failFP8Arithmetic(ast::spelling(op), l);
  if ((op == BinaryOp::FloorDiv || op == BinaryOp::Mod) && !fp &&
      a.isRuntime() && b.isRuntime() && a.isUnsigned != b.isUnsigned &&
      !dtypeOf(a).isInteger(1) && !dtypeOf(b).isInteger(1))
    fail(l, Twine("'") + ast::spelling(op) + "' of " + describe(dtypeOf(a)) +
                " and " + describe(dtypeOf(b)) +
                ": their signedness differs; cast them to one, as Triton asks");
  switch (op) {
  case BinaryOp::Div:
    // True division: integers divide as fp32, as in Triton; so do fp16 and
    // bf16, which PTX cannot divide.
    if (!fp || element.getIntOrFloatBitWidth() == 16)
      element = builder.getF32Type(), fp = true;
    break;
  case BinaryOp::Mod:
    if (fp && element.getIntOrFloatBitWidth() == 16)
      element = builder.getF32Type();
    break;
  case BinaryOp::FloorDiv:
    if (fp)
      fail(l, "'//' needs integer operands, got " + describe(element));
    break;
  case BinaryOp::BitAnd:
  case BinaryOp::BitOr:
  case BinaryOp::BitXor:
  case BinaryOp::LShift:
  case BinaryOp::RShift:
    if (fp)
      fail(l, Twine("'") + ast::spelling(op) + "' needs integer or boolean operands, got " +
                  describe(element));
    break;
  case BinaryOp::Pow:
  case BinaryOp::MatMul:
    fail(l, Twine("'") + ast::spelling(op) +
                "' on tiles is not supported; use tl.dot for matrix products");
  default:
    break;
  }
  auto [x, y] = unify(a, b, element, l);
  Value r;
  switch (op) {
  case BinaryOp::Add:
    r = fp ? (Value)arith::AddFOp::create(builder, location, x, y)
           : (Value)arith::AddIOp::create(builder, location, x, y);
    break;
  case BinaryOp::Sub:
    r = fp ? (Value)arith::SubFOp::create(builder, location, x, y)
           : (Value)arith::SubIOp::create(builder, location, x, y);
    break;
  case BinaryOp::Mul:
    r = fp ? (Value)arith::MulFOp::create(builder, location, x, y)
           : (Value)arith::MulIOp::create(builder, location, x, y);
    break;
  case BinaryOp::Div:
    // Triton's '/' is not correctly rounded (div.full.f32 on the GPU, within
    // 2 ulp); `arcp` says so, and tl.div_rn drops it.
    r = arith::DivFOp::create(
        builder, location, x, y,
        arith::FastMathFlagsAttr::get(builder.getContext(),
                                      arith::FastMathFlags::arcp));
    break;
  case BinaryOp::FloorDiv:
    // Triton (like C) truncates toward zero.
    r = isUnsigned ? (Value)arith::DivUIOp::create(builder, location, x, y)
                   : (Value)arith::DivSIOp::create(builder, location, x, y);
    break;
  case BinaryOp::Mod:
    r = fp           ? (Value)arith::RemFOp::create(builder, location, x, y)
        : isUnsigned ? (Value)arith::RemUIOp::create(builder, location, x, y)
                     : (Value)arith::RemSIOp::create(builder, location, x, y);
    break;
  case BinaryOp::BitAnd:
    r = arith::AndIOp::create(builder, location, x, y);
    break;
  case BinaryOp::BitOr:
    r = arith::OrIOp::create(builder, location, x, y);
    break;
  case BinaryOp::BitXor:
    r = arith::XOrIOp::create(builder, location, x, y);
    break;
  case BinaryOp::LShift:
    r = arith::ShLIOp::create(builder, location, x, y);
    break;
  case BinaryOp::RShift: {
    // As Triton's tensor.__rshift__ and __rrshift__: the tile whose method
    // runs (the left operand when it is a tile) picks the shift by its own
    // dtype, before promotion: int8 -17 >> uint8 6 shifts arithmetically,
    // and the result, a uint8, is 255.
    const TValue &self = a.isRuntime() ? a : b;
    Type selfType = dtypeOf(self);
    bool arithmetic = selfType.isInteger() && !selfType.isInteger(1) &&
                      !self.isUnsigned;
    r = arithmetic ? (Value)arith::ShRSIOp::create(builder, location, x, y)
                   : (Value)arith::ShRUIOp::create(builder, location, x, y);
    break;
  }
  default:
    fail(l, "unsupported operator");
  }
  return TValue::ofValue(r, isUnsigned && !isFloat(getElementTypeOrSelf(r.getType())));
}

TValue MLIRGenImpl::compare(ast::CompareOp op, const TValue &a,
                            const TValue &b, const ast::Location &l) {
  using ast::CompareOp;
  if (op == CompareOp::Is || op == CompareOp::IsNot) {
    bool same = a == b || (a.kind == TValue::Kind::None &&
                           b.kind == TValue::Kind::None);
    if (!a.isRuntime() || !b.isRuntime())
      return TValue::ofBool((op == CompareOp::Is) == same);
  }
  if (op == CompareOp::In || op == CompareOp::NotIn)
    fail(l, "'in' is not supported in kernels");
  if (a.isScalar() && b.isScalar())
    return fold(python::compare(op, a.scalar, b.scalar), l);
  if (!a.isRuntime() && !b.isRuntime()) {
    if (op == CompareOp::Eq || op == CompareOp::Ne)
      return TValue::ofBool((op == CompareOp::Eq) == (a == b));
    fail(l, "cannot compare " + describe(a) + " and " + describe(b));
  }
  Type element = promote(a, b, l);
  if (isa<tile::PointerType>(element))
    fail(l, "comparing pointers is not supported");
  if (tile::isFP8(element))
    failFP8Arithmetic("comparison", l);
  auto [x, y] = unify(a, b, element, l);
  Location location = loc(l);
  if (isFloat(element)) {
    using P = arith::CmpFPredicate;
    P pred = op == CompareOp::Lt   ? P::OLT
             : op == CompareOp::Le ? P::OLE
             : op == CompareOp::Gt ? P::OGT
             : op == CompareOp::Ge ? P::OGE
             : (op == CompareOp::Eq || op == CompareOp::Is) ? P::OEQ
                                                             : P::UNE;
    return TValue::ofValue(arith::CmpFOp::create(builder, location, pred, x, y));
  }
  using P = arith::CmpIPredicate;
  bool u = isUnsignedInt(element);
  P pred = op == CompareOp::Lt   ? (u ? P::ult : P::slt)
           : op == CompareOp::Le ? (u ? P::ule : P::sle)
           : op == CompareOp::Gt ? (u ? P::ugt : P::sgt)
           : op == CompareOp::Ge ? (u ? P::uge : P::sge)
           : (op == CompareOp::Eq || op == CompareOp::Is) ? P::eq
                                                           : P::ne;
  return TValue::ofValue(arith::CmpIOp::create(builder, location, pred, x, y));
}

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

int64_t MLIRGenImpl::constInt(const TValue &v, const ast::Location &l,
                              StringRef what) {
  if (v.kind == TValue::Kind::Int && v.scalar.wide)
    fail(l, what + " must fit in 64 bits, got " + v.scalar.repr());
  if (v.kind == TValue::Kind::Int || v.kind == TValue::Kind::Bool)
    return v.intValue();
  if (v.isRuntime())
    fail(l, what + " must be a constexpr (a compile-time constant), but it is "
                   "a runtime " + describe(v));
  fail(l, what + " must be a constexpr int, got " + describe(v));
}

TValue MLIRGenImpl::tensorize(const TValue &v, const ast::Location &l) {
  if (v.isNumber()) // an int past int64 is a uint64
    return TValue::ofValue(materialize(v, l),
                           v.kind == TValue::Kind::Int && v.scalar.wide);
  if (v.kind != TValue::Kind::Tuple)
    return v;
  std::vector<TValue> elements;
  for (const TValue &e : v.elements)
    elements.push_back(tensorize(e, l));
  return TValue::ofTuple(std::move(elements));
}

TValue MLIRGenImpl::fold(const python::Result &r, const ast::Location &l) {
  if (!r)
    fail(l, r.error());
  return TValue::of(*r);
}

bool MLIRGenImpl::isTrue(const TValue &v, const ast::Location &l) {
  if (v.isScalar())
    return python::truthy(v.scalar);
  switch (v.kind) {
  case TValue::Kind::Tuple:
    return !v.elements.empty();
  case TValue::Kind::Runtime:
    fail(l, "a runtime value has no compile-time truth value");
  default:
    return true;
  }
}

TValue MLIRGenImpl::gen(const ast::Expr &e) {
  using namespace ast;
  switch (e.kind) {
  case ExprKind::Name: {
    const auto &name = llvm::cast<NameExpr>(e).name;
    auto it = scope.find(name);
    if (it != scope.end())
      return it->second;
    if (std::optional<TValue> global = lookupGlobal(name, e.loc))
      return *global;
    // Python's builtins: the table's names without a module.
    if (lookupBuiltin(name))
      return TValue::named(TValue::Kind::Builtin, name);
    for (const ast::HostDef &def : current->ast().hostDefs) {
      if (def.name != name)
        continue;
      fail(e.loc, "'" + name + "' is host code (defined at line " +
                        Twine(def.loc.line) +
                        " without @triton.jit); kernels can only call "
                        "@triton.jit functions and constexpr functions");
    }
    fail(e.loc, "name '" + name + "' is not defined");
  }
  case ExprKind::Int: {
    const auto &literal = llvm::cast<IntExpr>(e);
    if (!literal.unsigned64)
      return TValue::ofInt(literal.value);
    return TValue::of(HostScalar::ofWideInt(WideInt(uint64_t(literal.value))));
  }
  case ExprKind::Float:
    return TValue::ofFloat(llvm::cast<FloatExpr>(e).value);
  case ExprKind::Bool:
    return TValue::ofBool(llvm::cast<BoolExpr>(e).value);
  case ExprKind::None:
    return TValue::none();
  case ExprKind::String:
    return TValue::ofString(llvm::cast<StringExpr>(e).value);
  case ExprKind::FString: {
    // As Triton's code generator: every field a constexpr, formatted with
    // "{}" or "{!r}".
    const auto &f = llvm::cast<ast::FStringExpr>(e);
    std::string text = f.texts[0];
    for (auto [i, field] : llvm::enumerate(f.fields)) {
      TValue value = gen(*field.value);
      if (value.isRuntime())
        fail(field.value->loc, "an f-string formats constexprs only, as in "
                               "Triton; this field is a runtime " +
                                   describe(value));
      text += pythonText(value, field.conversion == 'r' ||
                                    field.conversion == 'a');
      text += f.texts[i + 1];
    }
    return TValue::ofString(std::move(text));
  }
  case ExprKind::Attribute: {
    const auto &attr = llvm::cast<AttributeExpr>(e);
    return attribute(gen(*attr.base), attr.attr, e.loc);
  }
  case ExprKind::Call:
    return call(llvm::cast<CallExpr>(e));
  case ExprKind::Tuple: {
    std::vector<TValue> elements;
    for (const ExprPtr &element : llvm::cast<TupleExpr>(e).elements)
      elements.push_back(gen(*element));
    return TValue::ofTuple(std::move(elements));
  }
  case ExprKind::Slice: {
    const auto &slice = llvm::cast<SliceExpr>(e);
    if (slice.lower || slice.upper || slice.step)
      fail(e.loc, "only ':' and None are supported in tile subscripts");
    TValue v;
    v.kind = TValue::Kind::Slice;
    return v;
  }
  case ExprKind::Subscript: {
    const auto &sub = llvm::cast<SubscriptExpr>(e);
    TValue base = gen(*sub.base);
    if (base.kind == TValue::Kind::Tuple) {
      if (sub.indices.size() != 1)
        fail(e.loc, "a tuple takes one index");
      int64_t i = constInt(gen(*sub.indices[0]), sub.indices[0]->loc, "index");
      int64_t n = base.elements.size();
      if (i < -n || i >= n)
        fail(e.loc, "tuple index out of range");
      return base.elements[i < 0 ? i + n : i];
    }
    if (!base.isRuntime())
      fail(e.loc, "only tiles can be subscripted, not " + describe(base));
    Value v = base.value;
    // A scalar is a 0-d tile here: `ptr[None, :]` makes a [1] tile, and
    // its ':'s stand for nothing (Triton counts none).
    bool scalar = !isa<RankedTensorType>(v.getType());
    if (scalar)
      v = tile::SplatOp::create(builder, loc(e.loc),
                                RankedTensorType::get({}, v.getType()), v);
    auto tensor = llvm::cast<RankedTensorType>(v.getType());
    unsigned slices = 0, dim = 0;
    for (const ExprPtr &index : sub.indices) {
      TValue i = gen(*index);
      if (i.kind == TValue::Kind::Slice) {
        ++slices;
        ++dim;
        continue;
      }
      if (i.kind != TValue::Kind::None)
        fail(index->loc, "only ':' and None are supported in tile subscripts");
      // As Triton, None inserts a dimension at its position, which must be
      // within the tile's dimensions so far (a scalar has none for ':').
      int64_t rank = llvm::cast<RankedTensorType>(v.getType()).getRank();
      if (int64_t(dim) > rank)
        fail(index->loc, "None at position " + Twine(dim) +
                             " of a subscript, past the " + Twine(rank) +
                             " dimension(s) of the " +
                             (scalar ? "scalar" : "tile"));
      v = expandDims(v, dim, index->loc);
      ++dim;
    }
    if (!scalar && slices != tensor.getRank())
      fail(e.loc, "subscript has " + Twine(slices) + " ':' but the tile has " +
                      Twine(tensor.getRank()) + " dimensions");
    return TValue::ofValue(v, base.isUnsigned);
  }
  case ExprKind::Unary: {
    const auto &u = llvm::cast<UnaryExpr>(e);
    TValue x = gen(*u.operand);
    if (x.isScalar())
      return fold(python::unary(u.op, x.scalar), e.loc);
    switch (u.op) {
    case UnaryOp::Pos:
      return x;
    case UnaryOp::Not:
      if (!x.isRuntime())
        return TValue::ofBool(!isTrue(x, e.loc));
      if (getElementTypeOrSelf(x.value.getType()).isInteger(1))
        return binary(BinaryOp::BitXor, x, TValue::ofBool(true), e.loc);
      // A number's truth is Python's: nonzero.
      if (isa<RankedTensorType>(x.value.getType()))
        fail(e.loc, "'not' of a tile needs booleans, got " + describe(x));
      if (isa<tile::PointerType>(x.value.getType()))
        fail(e.loc, "'not' needs a number or boolean, got " + describe(x));
      return compare(CompareOp::Eq, x, TValue::ofInt(0), e.loc);
    case UnaryOp::Neg:
      if (x.isRuntime() && isFloat(getElementTypeOrSelf(x.value.getType())))
        return TValue::ofValue(
            arith::NegFOp::create(builder, loc(e.loc), x.value));
      return binary(BinaryOp::Sub, TValue::ofInt(0), x, e.loc);
    case UnaryOp::Invert:
      // A boolean tile stays boolean, as in Triton: `mask & ~done`.
      if (x.isRuntime() &&
          getElementTypeOrSelf(x.value.getType()).isInteger(1))
        return binary(BinaryOp::BitXor, x, TValue::ofBool(true), e.loc);
      if (x.isUnsigned) {
        // All ones, which no Python number of an unsigned type spells.
        Type element = getElementTypeOrSelf(x.value.getType());
        Value ones = broadcastTo(
            arith::ConstantOp::create(builder, loc(e.loc),
                                      builder.getIntegerAttr(element, -1)),
            shapeOf(x.value), e.loc, "the mask");
        return TValue::ofValue(
            arith::XOrIOp::create(builder, loc(e.loc), x.value, ones), true);
      }
      return binary(BinaryOp::BitXor, x, TValue::ofInt(-1), e.loc);
    }
    fail(e.loc, "unsupported unary operator");
  }
  case ExprKind::Binary: {
    const auto &b = llvm::cast<BinaryExpr>(e);
    TValue lhs = gen(*b.lhs);
    TValue rhs = gen(*b.rhs);
    return binary(b.op, lhs, rhs, e.loc);
  }
  case ExprKind::Compare: {
    const auto &c = llvm::cast<CompareExpr>(e);
    TValue lhs = gen(*c.lhs);
    TValue rhs = gen(*c.rhs);
    return compare(c.op, lhs, rhs, e.loc);
  }
  case ExprKind::BoolOp: {
    const auto &b = llvm::cast<BoolOpExpr>(e);
    TValue lhs = gen(*b.lhs);
    if (!lhs.isRuntime()) {
      // Python semantics, short-circuiting at compile time.
      bool t = isTrue(lhs, e.loc);
      if ((b.op == BoolOpKind::And) != t)
        return lhs;
      return gen(*b.rhs);
    }
    // On runtime values, as Triton's logical_and / logical_or: both
    // operands as booleans, combined elementwise (no short circuit).
    TValue rhs = gen(*b.rhs);
    auto boolean = [&](const TValue &v, const ast::Location &l) {
      return TValue::ofValue(cast(toValue(v, l, "an operand"),
                                  builder.getI1Type(), l, v.isUnsigned));
    };
    return binary(b.op == BoolOpKind::And ? BinaryOp::BitAnd : BinaryOp::BitOr,
                  boolean(lhs, b.lhs->loc), boolean(rhs, b.rhs->loc), e.loc);
  }
  case ExprKind::IfExp: {
    const auto &i = llvm::cast<IfExpExpr>(e);
    TValue cond = gen(*i.cond);
    if (!cond.isRuntime())
      return gen(isTrue(cond, e.loc) ? *i.thenValue : *i.elseValue);
    TValue x = gen(*i.thenValue), y = gen(*i.elseValue);
    Value c = cast(cond.value, builder.getI1Type(), e.loc);
    if (isa<RankedTensorType>(c.getType()))
      fail(e.loc, "a conditional expression needs a scalar condition; use "
                  "tl.where on tiles");
    Type element = promote(x.isRuntime() ? x : TValue::ofValue(toValue(x, e.loc, "value")),
                           y.isRuntime() ? y : TValue::ofValue(toValue(y, e.loc, "value")),
                           e.loc);
    auto [a, b] = unify(x, y, element, e.loc);
    return TValue::ofValue(arith::SelectOp::create(builder, loc(e.loc), c, a, b));
  }
  case ExprKind::Dict:
    fail(e.loc, "a dict is host-side Python; kernels cannot use one");
  case ExprKind::Lambda:
    fail(e.loc, "a lambda is host-side Python; kernels cannot use one");
  case ExprKind::Comprehension:
    fail(e.loc, "a comprehension is host-side Python; kernels cannot use one");
  case ExprKind::Starred:
    fail(e.loc, "a starred expression is host-side Python; kernels cannot "
                "use one");
  case ExprKind::Host:
    fail(e.loc, llvm::cast<HostExpr>(e).what +
                    " is host-side Python; kernels cannot use one");
  }
  fail(e.loc, "unsupported expression");
}

//===----------------------------------------------------------------------===//
// Statements
//===----------------------------------------------------------------------===//

/// Names a block assigns, looking into nested blocks.
static void collectAssigned(const ast::Block &block, std::set<std::string> &names) {
  using namespace ast;
  std::function<void(const Expr &)> target = [&](const Expr &t) {
    if (auto *name = llvm::dyn_cast<NameExpr>(&t))
      names.insert(name->name);
    else if (auto *tuple = llvm::dyn_cast<TupleExpr>(&t))
      for (const ExprPtr &element : tuple->elements)
        target(*element);
  };
  for (const StmtPtr &s : block) {
    if (auto *assign = llvm::dyn_cast<AssignStmt>(s.get()))
      for (const ExprPtr &t : assign->targets)
        target(*t);
    else if (auto *aug = llvm::dyn_cast<AugAssignStmt>(s.get()))
      target(*aug->target);
    else if (auto *branch = llvm::dyn_cast<IfStmt>(s.get())) {
      collectAssigned(branch->then, names);
      collectAssigned(branch->orelse, names);
    } else if (auto *loop = llvm::dyn_cast<ForStmt>(s.get())) {
      target(*loop->target);
      collectAssigned(loop->body, names);
    } else if (auto *loop = llvm::dyn_cast<WhileStmt>(s.get()))
      collectAssigned(loop->body, names);
  }
}

void MLIRGenImpl::gen(const ast::Block &block) { genStatements(block, 0); }

/// Whether `body` holds a `return` outside loops: in it, or in the
/// branches of its `if`s, at any depth.
static bool containsReturn(const ast::Block &body) {
  for (const ast::StmtPtr &s : body) {
    if (llvm::isa<ast::ReturnStmt>(s.get()))
      return true;
    if (auto *branch = llvm::dyn_cast<ast::IfStmt>(s.get()))
      if (containsReturn(branch->then) || containsReturn(branch->orelse))
        return true;
  }
  return false;
}

void MLIRGenImpl::genStatements(const ast::Block &block, size_t first) {
  for (size_t i = first; i < block.size(); ++i) {
    // Python never runs what follows a return.
    if (returned)
      return;
    const auto *branch = llvm::dyn_cast<ast::IfStmt>(block[i].get());
    if (branch && kernelFlow.contains(&block) &&
        (containsReturn(branch->then) || containsReturn(branch->orelse))) {
      genEarlyReturn(*branch, block, i + 1);
      return;
    }
    gen(*block[i]);
  }
}

void MLIRGenImpl::genFollowers() {
  // Innermost first. While one runs, the ones outside it are what follows
  // it, should it hold an early return of its own (which ends every path,
  // and so the walk).
  std::vector<std::pair<const ast::Block *, size_t>> all = followers;
  for (size_t k = all.size(); k-- > 0 && !returned;) {
    followers.assign(all.begin(), all.begin() + k);
    genStatements(*all[k].first, all[k].second);
  }
  followers = std::move(all);
}

/// The runtime values of a value a function returns, flattened (numbers
/// in their default types); `like` fixes the structure both paths share.
static bool flattenReturned(MLIRGenImpl &g, const TValue &v, const TValue &like,
                            SmallVector<Value> &out, const ast::Location &l) {
  if (like.kind == TValue::Kind::Tuple) {
    if (v.kind != TValue::Kind::Tuple || v.elements.size() != like.elements.size())
      return false;
    for (auto [e, f] : llvm::zip(v.elements, like.elements))
      if (!flattenReturned(g, e, f, out, l))
        return false;
    return true;
  }
  if (v.kind == TValue::Kind::Tuple || !(v.isRuntime() || v.isNumber()))
    return false;
  out.push_back(g.toValue(v, l, "the returned value"));
  return true;
}

/// `like` remade from the front of `values` (flattenReturned's inverse).
static TValue unflattenReturned(const TValue &like, ValueRange &values) {
  if (like.kind == TValue::Kind::Tuple) {
    std::vector<TValue> elements;
    for (const TValue &e : like.elements)
      elements.push_back(unflattenReturned(e, values));
    return TValue::ofTuple(std::move(elements));
  }
  TValue v = TValue::ofValue(values.front(), like.isUnsigned);
  values = values.drop_front();
  return v;
}

/// An `if` of a function's own statements (the kernel's or a helper's), or
/// of an `if` among them, with a `return` in a branch (at any depth,
/// outside loops), as Triton's unstructured control flow allows: each
/// branch that does not return continues with what follows the `if`, and
/// then with what follows each enclosing `if`, so that the function ends
/// on every path; the `if` yields what each path returns.
void MLIRGenImpl::genEarlyReturn(const ast::IfStmt &branch,
                                 const ast::Block &block, size_t rest) {
  TValue cond = gen(*branch.cond);
  followers.emplace_back(&block, rest);
  if (!cond.isRuntime()) {
    const ast::Block &taken = isTrue(cond, branch.loc) ? branch.then
                                                       : branch.orelse;
    kernelFlow.insert(&taken);
    genStatements(taken, 0);
    if (!returned)
      genFollowers();
    followers.pop_back();
    if (!returned)
      returned = TValue::none();
    return;
  }
  Value c = cast(cond.value, builder.getI1Type(), branch.cond->loc);
  if (isa<RankedTensorType>(c.getType()))
    fail(branch.cond->loc, "an 'if' needs a scalar condition, not a tile");
  auto ifOp = scf::IfOp::create(builder, loc(branch.loc), TypeRange{}, c,
                                /*withElseRegion=*/true);
  Scope before = scope;
  TValue results[2];
  mlir::Block *regions[2] = {ifOp.thenBlock(), ifOp.elseBlock()};
  const ast::Block *bodies[2] = {&branch.then, &branch.orelse};
  for (int i = 0; i < 2; ++i) {
    scope = before;
    returned.reset();
    builder.setInsertionPoint(regions[i]->getTerminator());
    kernelFlow.insert(bodies[i]);
    genStatements(*bodies[i], 0);
    if (!returned)
      genFollowers();
    results[i] = returned ? *returned : TValue::none();
  }
  followers.pop_back();
  builder.setInsertionPointAfter(ifOp);
  scope = before;
  if (results[0].kind == TValue::Kind::None &&
      results[1].kind == TValue::Kind::None) {
    // Every path has returned nothing; nothing follows the `if`.
    returned = TValue::none();
    return;
  }
  // The paths' values meet as the `if`'s results, of one type each.
  SmallVector<Value> yields[2];
  for (int i = 0; i < 2; ++i) {
    builder.setInsertionPoint(regions[i]->getTerminator());
    if (!flattenReturned(*this, results[i], results[0], yields[i],
                         branch.loc))
      fail(branch.loc, "the function returns " + describe(results[0]) +
                           " on one path and " + describe(results[1]) +
                           " on another");
  }
  for (auto [a, b] : llvm::zip(yields[0], yields[1]))
    if (a.getType() != b.getType())
      fail(branch.loc, "the function returns " + describe(a.getType()) +
                           " on one path and " + describe(b.getType()) +
                           " on another; Triton needs one type");
  builder.setInsertionPoint(ifOp);
  auto merged = scf::IfOp::create(builder, loc(branch.loc),
                                  ValueRange(yields[0]).getTypes(), c,
                                  /*withElseRegion=*/true);
  merged.getThenRegion().takeBody(ifOp.getThenRegion());
  merged.getElseRegion().takeBody(ifOp.getElseRegion());
  ifOp.erase();
  merged.thenBlock()->getTerminator()->setOperands(yields[0]);
  merged.elseBlock()->getTerminator()->setOperands(yields[1]);
  builder.setInsertionPointAfter(merged);
  ValueRange values = merged.getResults();
  returned = unflattenReturned(results[0], values);
}

/// Binds `value` to an assignment target.
static void assignTo(MLIRGenImpl &g, const ast::Expr &target, const TValue &value) {
  using namespace ast;
  if (auto *name = llvm::dyn_cast<NameExpr>(&target)) {
    g.scope[name->name] = value;
    return;
  }
  if (auto *tuple = llvm::dyn_cast<TupleExpr>(&target)) {
    if (value.kind != TValue::Kind::Tuple ||
        value.elements.size() != tuple->elements.size())
      g.fail(target.loc, "cannot unpack " + g.describe(value) + " into " +
                             Twine(tuple->elements.size()) + " names");
    for (auto [t, v] : llvm::zip(tuple->elements, value.elements))
      assignTo(g, *t, v);
    return;
  }
  g.fail(target.loc, "can only assign to names: tiles are values, not "
                     "memory (use tl.store or tl.where)");
}

void MLIRGenImpl::gen(const ast::Stmt &s) {
  using namespace ast;
  switch (s.kind) {
  case StmtKind::Pass:
    return;
  case StmtKind::Expr: {
    const auto &e = llvm::cast<ExprStmt>(s);
    if (e.value->kind != ExprKind::String) // docstrings
      gen(*e.value);
    return;
  }
  case StmtKind::Assign: {
    const auto &assign = llvm::cast<AssignStmt>(s);
    TValue value = gen(*assign.value);
    bool isConstexpr = false;
    if (assign.annotation) {
      TValue annotation = gen(*assign.annotation);
      isConstexpr = annotation.kind == TValue::Kind::Builtin &&
                    annotation.name == "tl.constexpr";
      if (isConstexpr && value.isRuntime())
        fail(assign.value->loc, "a constexpr needs a compile-time value");
    }
    // As Triton's code generator: a number assigned to a name becomes a
    // scalar tensor (`acc = 0` has .dtype and .to()), unless the name is
    // annotated tl.constexpr.
    if (!isConstexpr)
      value = tensorize(value, assign.value->loc);
    for (const ExprPtr &target : assign.targets)
      assignTo(*this, *target, value);
    return;
  }
  case StmtKind::AugAssign: {
    const auto &aug = llvm::cast<AugAssignStmt>(s);
    TValue current = gen(*aug.target);
    TValue value = gen(*aug.value);
    assignTo(*this, *aug.target, binary(aug.op, current, value, s.loc));
    return;
  }
  case StmtKind::Return: {
    const auto &ret = llvm::cast<ReturnStmt>(s);
    returned = ret.value ? gen(*ret.value) : TValue::none();
    return;
  }
  case StmtKind::Raise:
    // Triton generates only the constexpr branches taken: a `raise` it
    // reaches is the kernel's own error.
    fail(s.loc, "the kernel raises " + ast::describeRaise(s) +
                    " here, at compile time");
  case StmtKind::Assert: {
    const auto &a = llvm::cast<AssertStmt>(s);
    TValue cond = gen(*a.cond);
    std::string text;
    if (a.message) {
      TValue m = gen(*a.message);
      if (m.kind == TValue::Kind::String)
        text = m.text();
    }
    // On runtime values a device assert, as in Triton (debug builds only).
    if (cond.isRuntime()) {
      genDeviceAssert(cond, nullptr, text, s.loc);
      return;
    }
    if (!isTrue(cond, s.loc))
      fail(s.loc, "assertion failed" + (text.empty() ? "" : ": " + text));
    return;
  }
  case StmtKind::Break:
  case StmtKind::Continue:
    fail(s.loc, "'break' and 'continue' are not supported in kernels");
  case StmtKind::While:
    genWhile(llvm::cast<WhileStmt>(s));
    return;
  case StmtKind::If:
    break;
  case StmtKind::For:
    break;
  }

  if (auto *branch = llvm::dyn_cast<IfStmt>(&s)) {
    TValue cond = gen(*branch->cond);
    if (!cond.isRuntime()) {
      gen(isTrue(cond, s.loc) ? branch->then : branch->orelse);
      return;
    }
    Value c = cast(cond.value, builder.getI1Type(), branch->cond->loc);
    if (isa<RankedTensorType>(c.getType()))
      fail(branch->cond->loc, "an 'if' needs a scalar condition, not a tile");
    mlir::Location location = loc(s.loc);
    auto ifOp = scf::IfOp::create(builder, location, TypeRange{}, c,
                                  /*withElseRegion=*/true);
    Scope before = scope;
    auto genBranch = [&](const ast::Block &body, mlir::Block *block) {
      scope = before;
      builder.setInsertionPoint(block->getTerminator());
      gen(body);
      if (returned)
        fail(s.loc, "'return' inside an 'if' is supported in a function's "
                    "own statements and the 'if's among them, not inside a "
                    "loop (nor does Triton allow it there)");
      return scope;
    };
    Scope thenScope = genBranch(branch->then, ifOp.thenBlock());
    Scope elseScope = genBranch(branch->orelse, ifOp.elseBlock());

    // Names that leave the branches: changed in either, or new in both.
    std::vector<std::string> merged;
    for (auto &[name, value] : thenScope) {
      auto other = elseScope.find(name);
      if (other == elseScope.end())
        continue;
      auto old = before.find(name);
      bool existed = old != before.end();
      if (value == other->second) {
        if (existed && !(old->second == value))
          scope[name] = value;
        continue;
      }
      merged.push_back(name);
    }
    // Materialize both sides and check they agree.
    SmallVector<Value> thenValues, elseValues;
    SmallVector<Type> types;
    for (const std::string &name : merged) {
      builder.setInsertionPoint(ifOp.thenBlock()->getTerminator());
      Value t = toValue(thenScope[name], s.loc, "'" + name + "'");
      builder.setInsertionPoint(ifOp.elseBlock()->getTerminator());
      Value e = toValue(elseScope[name], s.loc, "'" + name + "'");
      if (t.getType() != e.getType())
        fail(s.loc, "'" + name + "' is " + describe(t.getType()) +
                        " after the 'if' branch but " + describe(e.getType()) +
                        " after the 'else' branch");
      thenValues.push_back(t);
      elseValues.push_back(e);
      types.push_back(t.getType());
    }
    builder.setInsertionPoint(ifOp);
    auto result = scf::IfOp::create(builder, location, types, c,
                                    /*withElseRegion=*/true);
    result.getThenRegion().takeBody(ifOp.getThenRegion());
    result.getElseRegion().takeBody(ifOp.getElseRegion());
    ifOp.erase();
    result.thenBlock()->getTerminator()->setOperands(thenValues);
    result.elseBlock()->getTerminator()->setOperands(elseValues);
    builder.setInsertionPointAfter(result);
    scope = before;
    for (auto [i, name] : llvm::enumerate(merged))
      scope[name] = TValue::ofValue(result.getResult(i),
                                    thenScope[name].isUnsigned);
    return;
  }

  const auto &loop = llvm::cast<ForStmt>(s);
  auto *target = llvm::dyn_cast<NameExpr>(loop.target.get());
  if (!target)
    fail(loop.target->loc, "the loop variable must be a name");
  auto *iter = llvm::dyn_cast<CallExpr>(loop.iter.get());
  TValue callee = iter ? gen(*iter->callee) : TValue();
  bool isStatic = callee.kind == TValue::Kind::Builtin &&
                  callee.name == "tl.static_range";
  if (!iter || callee.kind != TValue::Kind::Builtin ||
      (callee.name != "range" && callee.name != "tl.range" && !isStatic))
    fail(loop.iter->loc, "loops must iterate over range(...), tl.range(...) "
                         "or tl.static_range(...)");
  // tl.range's options (Triton 3.6): num_stages and warp_specialize reach
  // the IR for the pipeliner; the others are scheduling hints tilec may
  // ignore. range and tl.static_range take them too, and ignore them all
  // (Triton's code generator drops a plain range's keywords).
  enum { NumStages = 3, WarpSpecialize = 7 };
  ArrayRef<BuiltinParam> params = getParams(*lookupBuiltin("tl.range"));
  BoundArgs args = bindArgs(*iter, callee.name, params);
  completeArgs(args, params, *iter);
  auto given = [&](unsigned i) { return args.given(i); };
  TValue lower = TValue::ofInt(0), upper = *args.get(0);
  TValue step = given(2) ? *args.get(2) : TValue::ofInt(1);
  if (given(1))
    lower = *args.get(0), upper = *args.get(1);
  if (step.isNumber() && step.intValue() == 0)
    fail(args.locs[2], "range() arg 3 must not be zero");
  // A negative step, as Triton takes it: a constant. The loop runs up
  // from the end to the start and its variable counts down, start + end -
  // the loop's own.
  bool descending = step.isNumber() && step.intValue() < 0;

  if (isStatic) {
    int64_t lo = constInt(lower, iter->loc, "tl.static_range bound");
    int64_t hi = constInt(upper, iter->loc, "tl.static_range bound");
    int64_t st = constInt(step, iter->loc, "tl.static_range step");
    for (int64_t i = lo; st > 0 ? i < hi : i > hi; i += st) {
      scope[target->name] = TValue::ofInt(i);
      gen(loop.body);
    }
    return;
  }

  // Bounds in one integer type: i64 if any needs it.
  Type ivType = builder.getI32Type();
  for (const TValue *v : {&lower, &upper, &step}) {
    Value x = toValue(*v, iter->loc, "range bound");
    Type t = x.getType();
    if (!t.isInteger() || t.isInteger(1))
      fail(iter->loc, "range bounds must be integers, got " + describe(t));
    if (t.getIntOrFloatBitWidth() > 32)
      ivType = builder.getI64Type();
  }
  mlir::Location location = loc(s.loc);
  auto bound = [&](const TValue &v) {
    return cast(toValue(v, iter->loc, "range bound"), ivType, iter->loc);
  };
  if (descending)
    step = TValue::ofInt(-step.intValue());
  Value lb = bound(lower), ub = bound(upper), st = bound(step);
  Value startPlusEnd;
  if (descending) {
    std::swap(lb, ub);
    startPlusEnd = arith::AddIOp::create(builder, loc(iter->loc), lb, ub);
  }

  std::vector<std::string> carried = loopCarried(loop.body, target->name);
  SmallVector<Value> inits;
  std::vector<TValue> entering;
  for (const std::string &name : carried) {
    entering.push_back(scope[name]);
    carriedValues(scope[name], inits, s.loc, "'" + name + "'");
  }
  auto forOp = scf::ForOp::create(builder, location, lb, ub, st, inits);
  // Like Triton, only tl.range passes its options on (range() ignores them).
  if (callee.name == "tl.range" && given(NumStages)) {
    int64_t n = constInt(*args.get(NumStages), args.locs[NumStages],
                         "num_stages");
    if (n < 0 || n > INT32_MAX)
      fail(args.locs[NumStages],
           "num_stages must be a non-negative int32, got " + Twine(n));
    forOp->setAttr(tile::TileDialect::getNumStagesAttrName(),
                   builder.getI32IntegerAttr(int32_t(n)));
  }
  if (callee.name == "tl.range" && given(WarpSpecialize)) {
    const TValue &v = *args.get(WarpSpecialize);
    if (v.kind != TValue::Kind::Bool && v.kind != TValue::Kind::Int)
      fail(args.locs[WarpSpecialize],
           "warp_specialize must be a constant bool, got " + describe(v));
    forOp->setAttr(tile::TileDialect::getWarpSpecializeAttrName(),
                   builder.getBoolAttr(v.intValue() != 0));
  }
  Scope before = scope;
  mlir::Block *body = forOp.getBody();
  builder.setInsertionPointToStart(body);
  Value inductionVar = forOp.getInductionVar();
  if (descending)
    inductionVar = arith::SubIOp::create(builder, loc(iter->loc),
                                         startPlusEnd, inductionVar);
  scope[target->name] = TValue::ofValue(inductionVar);
  ValueRange iterArgs = forOp.getRegionIterArgs();
  for (auto [i, name] : llvm::enumerate(carried))
    scope[name] = fromCarried(entering[i], iterArgs);
  if (body->mightHaveTerminator())
    builder.setInsertionPoint(body->getTerminator());
  gen(loop.body);
  if (returned)
    fail(s.loc, "'return' inside a loop is not supported");
  SmallVector<Value> yields =
      loopYields(carried, entering, TypeRange(ValueRange(inits)), s.loc);
  if (body->mightHaveTerminator())
    body->getTerminator()->erase();
  builder.setInsertionPointToEnd(body);
  scf::YieldOp::create(builder, location, yields);
  builder.setInsertionPointAfter(forOp);
  scope = before;
  ValueRange results = forOp.getResults();
  for (auto [i, name] : llvm::enumerate(carried))
    scope[name] = fromCarried(entering[i], results);
}

/// The names `body` assigns that exist before it as numbers or runtime
/// values: a loop carries them, starting from their current values.
std::vector<std::string> MLIRGenImpl::loopCarried(const ast::Block &body,
                                                  llvm::StringRef exclude) {
  std::set<std::string> assigned;
  collectAssigned(body, assigned);
  std::vector<std::string> carried;
  for (const std::string &name : assigned) {
    auto it = scope.find(name);
    if (it == scope.end() || name == exclude)
      continue;
    if (it->second.isRuntime() || it->second.isNumber() ||
        it->second.kind == TValue::Kind::BlockPtr)
      carried.push_back(name);
  }
  return carried;
}

/// The values of the loop-carried names at the end of a loop body, which
/// must keep the types (and a block pointer's constexpr parts) they entered
/// the loop with.
SmallVector<Value> MLIRGenImpl::loopYields(ArrayRef<std::string> carried,
                                           ArrayRef<TValue> entering,
                                           TypeRange types,
                                           const ast::Location &l) {
  SmallVector<Value> yields;
  for (auto [name, before] : llvm::zip(carried, entering)) {
    size_t first = yields.size();
    const TValue &after = scope[name];
    if (after.kind != before.kind && (before.kind == TValue::Kind::BlockPtr ||
                                      after.kind == TValue::Kind::BlockPtr))
      fail(l, "loop-carried '" + name + "' is " + describe(before) +
                  " before the loop but " + describe(after) +
                  " at the end of its body");
    if (before.kind == TValue::Kind::BlockPtr)
      for (unsigned field : {1, 2})
        for (auto [x, y] : llvm::zip(before.elements[field].elements,
                                     after.elements[field].elements))
          if (!(x == y))
            fail(l, "the block pointer '" + name + "' changes its " +
                        (field == 1 ? "shape" : "strides") +
                        " in the loop (only its offsets and base may)");
    carriedValues(after, yields, l, "'" + name + "'");
    if (yields.size() - first != 1 && before.kind != TValue::Kind::BlockPtr)
      fail(l, "loop-carried '" + name + "' changes its kind in the loop");
    for (size_t i = first; i < yields.size() && i < types.size(); ++i)
      if (yields[i].getType() != types[i])
        fail(l, "loop-carried '" + name + "' is " + describe(types[i]) +
                    " before the loop but " + describe(yields[i].getType()) +
                    " at the end of its body");
  }
  if (yields.size() != types.size())
    fail(l, "the loop's carried values change in number in its body");
  return yields;
}

void MLIRGenImpl::carriedValues(const TValue &v, SmallVector<Value> &out,
                                const ast::Location &l, StringRef what) {
  if (v.kind != TValue::Kind::BlockPtr) {
    out.push_back(toValue(v, l, what));
    return;
  }
  // The base and every offset; the shape and strides stay as they are.
  out.push_back(v.elements[0].value);
  for (const TValue &x : v.elements[3].elements)
    out.push_back(toValue(x, l, what));
}

TValue MLIRGenImpl::fromCarried(const TValue &like, ValueRange &values) {
  auto next = [&](const TValue &as) {
    TValue v = TValue::ofValue(values.front(), as.isUnsigned);
    values = values.drop_front();
    return v;
  };
  if (like.kind != TValue::Kind::BlockPtr)
    return next(like);
  TValue result = like;
  result.elements[0] = next(like.elements[0]);
  for (TValue &x : result.elements[3].elements)
    x = next(x);
  return result;
}

/// `while cond: body` as scf.while: the condition region evaluates `cond`
/// on the loop-carried names, the body region runs `body` and yields them.
void MLIRGenImpl::genWhile(const ast::WhileStmt &loop) {
  std::vector<std::string> carried = loopCarried(loop.body, "");
  SmallVector<Value> inits;
  std::vector<TValue> entering;
  for (const std::string &name : carried) {
    entering.push_back(scope[name]);
    carriedValues(scope[name], inits, loop.loc, "'" + name + "'");
  }
  SmallVector<Type> types = llvm::to_vector(ValueRange(inits).getTypes());
  mlir::Location location = loc(loop.loc);
  SmallVector<mlir::Location> locations(types.size(), location);
  auto whileOp = scf::WhileOp::create(builder, location, types, inits);
  Scope saved = scope;
  auto enter = [&](Region &region) {
    mlir::Block *block = builder.createBlock(&region, {}, types, locations);
    scope = saved;
    ValueRange args = block->getArguments();
    for (auto [i, name] : llvm::enumerate(carried))
      scope[name] = fromCarried(entering[i], args);
    return block;
  };

  mlir::Block *before = enter(whileOp.getBefore());
  TValue cond = gen(*loop.cond);
  if (!cond.isRuntime()) {
    if (isTrue(cond, loop.cond->loc))
      fail(loop.cond->loc, "this 'while' loop never ends: its condition is "
                           "always true and kernels have no 'break'");
    // Never entered: nothing runs, nothing changes.
    builder.setInsertionPoint(whileOp);
    whileOp.erase();
    scope = saved;
    return;
  }
  Value c = cast(cond.value, builder.getI1Type(), loop.cond->loc);
  if (isa<RankedTensorType>(c.getType()))
    fail(loop.cond->loc, "a 'while' needs a scalar condition, not a tile");
  scf::ConditionOp::create(builder, location, c, before->getArguments());

  enter(whileOp.getAfter());
  gen(loop.body);
  if (returned)
    fail(loop.loc, "'return' inside a loop is not supported");
  scf::YieldOp::create(builder, location,
                       loopYields(carried, entering, types, loop.loc));
  builder.setInsertionPointAfter(whileOp);
  scope = saved;
  ValueRange results = whileOp.getResults();
  for (auto [i, name] : llvm::enumerate(carried))
    scope[name] = fromCarried(entering[i], results);
}

//===----------------------------------------------------------------------===//
// The kernel
//===----------------------------------------------------------------------===//

/// Whether an argument type's hint ":1" specializes an integer to the value
/// 1, as Triton's AOT signatures and its JIT do (a pointer's ":1" is an
/// alignment of one byte: none).
static bool isSpecializedToOne(Type type, int64_t hint) {
  auto integer = dyn_cast_or_null<IntegerType>(type);
  return hint == 1 && integer && integer.getWidth() > 1;
}

/// A signature's constant (HostScalar::parseLiteral): int, float, bool,
/// None, or a string in quotes ('ieee' or "ieee", without escapes).
TValue MLIRGenImpl::constexprOf(const HostScalar &value) {
  if (value.kind == HostScalar::Kind::String) {
    StringRef text = StringRef(value.text).trim();
    if (text.consume_front("tl.") || text.consume_front("triton.language.")) {
      if (Type t = dtypeNamed(&context, text))
        return TValue::ofDType(t);
      // A dtype's repr in Triton: triton.language.fp32, triton.language.bf16.
      if (!text.starts_with("*"))
        if (Type t = parseTypeString(text))
          return TValue::ofDType(t);
    }
    if (std::optional<TValue> written = constexprExpression(value.text))
      return *written;
  }
  return TValue::of(value);
}

std::optional<TValue> MLIRGenImpl::constexprExpression(StringRef text) {
  text = text.trim();
  // Python's own spelling of what a HostScalar cannot hold: a tuple or list
  // ("(2, 3)", "[16, 16]") or a @triton.jit function of the file or of a
  // module it imports ("helper", "utils.helper"). A bare name is also the
  // string it spells (the matmul tutorial's ACTIVATION="leaky_relu" names
  // a function and is compared as a string): the value is that string,
  // and calling it calls the function. Any other text is just a string.
  bool sequence = text.starts_with("(") || text.starts_with("[");
  bool name = !text.empty() && !sequence &&
              llvm::all_of(text, [](char c) {
                return llvm::isAlnum(c) || c == '_' || c == '.';
              }) &&
              !llvm::isDigit(text.front());
  if (!sequence && !name)
    return std::nullopt;
  SourceError error;
  std::unique_ptr<ast::Module> parsed = parseModule(
      ("__constexpr__ = (" + text + ")\n").str(), "<constexpr>", error);
  if (!parsed || parsed->globals.size() != 1)
    return std::nullopt;
  ScopedDiagnosticHandler quiet(&context,
                                [](Diagnostic &) { return success(); });
  Snapshot before(*this);
  scope.clear();
  std::optional<TValue> value;
  try {
    value = gen(*parsed->globals.front()->value);
  } catch (const GenError &) {
  }
  before.restore();
  std::function<bool(const TValue &)> constant = [&](const TValue &v) {
    if (v.kind == TValue::Kind::Tuple)
      return llvm::all_of(v.elements, constant);
    return v.isScalar() || v.kind == TValue::Kind::DType ||
           v.kind == TValue::Kind::Function;
  };
  if (!value || (value->kind != TValue::Kind::Tuple &&
                 value->kind != TValue::Kind::Function) ||
      !constant(*value))
    return std::nullopt;
  constexprSources.push_back(std::move(parsed));
  if (value->kind == TValue::Kind::Function) {
    TValue named = TValue::ofString(text.str());
    named.function = value->function;
    return named;
  }
  return value;
}

std::optional<TValue> MLIRGenImpl::parseConstant(StringRef text) {
  if (std::optional<HostScalar> literal = HostScalar::parseLiteral(text.str()))
    return constexprOf(*literal);
  // A dtype, unquoted: `--signature "*fp32, tl.float16"`.
  TValue dtype = constexprOf(HostScalar::ofString(text.str()));
  if (dtype.kind == TValue::Kind::DType)
    return dtype;
  return std::nullopt;
}

/// Whether `name` is a key of a dict literal in one of the kernel's
/// decorators: a triton.Config of @triton.autotune, or @triton.heuristics.
static bool setByDecorator(const ast::FunctionDef &kernel, StringRef name) {
  using namespace ast;
  std::function<bool(const Expr *)> mentions = [&](const Expr *e) -> bool {
    if (!e)
      return false;
    if (auto *dict = llvm::dyn_cast<DictExpr>(e))
      return llvm::any_of(dict->keys, [&](const ExprPtr &key) {
        auto *s = llvm::dyn_cast_or_null<StringExpr>(key.get());
        return s && s->value == name;
      });
    if (auto *call = llvm::dyn_cast<CallExpr>(e))
      return llvm::any_of(call->args,
                          [&](const ExprPtr &a) { return mentions(a.get()); }) ||
             llvm::any_of(call->keywords, [&](const Keyword &k) {
               return mentions(k.value.get());
             });
    if (auto *tuple = llvm::dyn_cast<TupleExpr>(e))
      return llvm::any_of(tuple->elements,
                          [&](const ExprPtr &a) { return mentions(a.get()); });
    return false;
  };
  return llvm::any_of(kernel.decorators,
                      [&](const ExprPtr &d) { return mentions(d.get()); });
}

namespace {
/// A tensor descriptor passed from the host, in Triton's signature syntax
/// `tensordesc<fp16[64, 64]>`: its element type and block shape. It takes
/// the kernel arguments base pointer, then each dimension's shape (i32),
/// then each one's stride (i64).
struct DescriptorParam {
  Type element;
  SmallVector<int64_t> blockShape;
};
} // namespace

/// `text` as a tensordesc type; none when it is not one. Fails on a
/// malformed one.
static std::optional<DescriptorParam>
parseDescriptorParam(MLIRGenImpl &g, StringRef text, const ast::Location &l) {
  text = text.trim();
  StringRef whole = text;
  if (!text.consume_front("tensordesc<"))
    return std::nullopt;
  auto bad = [&]() -> std::optional<DescriptorParam> {
    g.fail(l, "'" + whole + "' is not a descriptor type like "
              "tensordesc<fp16[64, 64]> (an element type and power-of-two "
              "block dimensions)");
  };
  if (!text.consume_back(">"))
    return bad();
  auto [elementText, rest] = text.split('[');
  DescriptorParam param;
  param.element = g.parseTypeString(elementText);
  if (!param.element || isa<tile::PointerType>(param.element) ||
      !rest.consume_back("]"))
    return bad();
  SmallVector<StringRef> dims;
  rest.split(dims, ',');
  for (StringRef d : dims) {
    int64_t n;
    if (d.trim().getAsInteger(10, n) || n <= 0 || !llvm::isPowerOf2_64(n))
      return bad();
    param.blockShape.push_back(n);
  }
  return param;
}

OwningOpRef<ModuleOp> MLIRGenImpl::generate(const Specialization &spec) {
  current = &scopeOf(loader.main());
  const ast::Module &module = current->ast();
  ast::Location top{module.file, 1, 1};
  std::vector<const ast::FunctionDef *> kernels;
  // A kernel once, however many of jit/autotune/heuristics decorate it.
  for (const ast::FunctionDef &f : module.functions)
    if (llvm::any_of(f.decorators, [&](const ast::ExprPtr &d) {
          return isJitDecorator(*d);
        }))
      kernels.push_back(&f);

  const ast::FunctionDef *kernel = nullptr;
  if (!spec.kernel.empty()) {
    for (const ast::FunctionDef *f : kernels)
      if (f->name == spec.kernel)
        kernel = f;
    if (!kernel)
      fail(top, "no @triton.jit function named '" + spec.kernel + "' in this file");
  } else if (kernels.size() == 1) {
    kernel = kernels.front();
  } else if (kernels.empty()) {
    fail(top, "no @triton.jit function in this file");
  } else {
    std::string names;
    for (const ast::FunctionDef *f : kernels)
      names += (names.empty() ? "" : ", ") + f->name;
    fail(top, "this file has several kernels (" + names +
                  "): choose one with --kernel");
  }
  // Triton compiles the function's source whatever else decorates it; the
  // others are the host's business (an autotune cache, a wrapper).
  for (const ast::ExprPtr &d : kernel->decorators)
    if (!isJitDecorator(*d))
      emitWarning(loc(d->loc))
          << "tilec ignores the decorator '" << decoratorName(*d)
          << "' of '" << kernel->name
          << "': it is not Triton's, and host code applies it";

  // Signature entries, one per parameter.
  SmallVector<StringRef> signature;
  if (!spec.signature.empty()) {
    // Entries split at commas outside brackets (tensordesc<fp16[64, 64]>).
    StringRef text = spec.signature;
    int depth = 0;
    size_t start = 0;
    for (size_t i = 0; i <= text.size(); ++i) {
      char ch = i < text.size() ? text[i] : ',';
      depth += (ch == '[' || ch == '<') - (ch == ']' || ch == '>');
      if (ch == ',' && depth == 0) {
        signature.push_back(text.slice(start, i));
        start = i + 1;
      }
    }
    // Trailing constexprs may be left out, for -D or --config to give.
    if (signature.size() < kernel->params.size() &&
        std::all_of(kernel->params.begin() + signature.size(),
                    kernel->params.end(), [](const ast::Param &p) {
                      return ast::isConstexprAnnotation(p.annotation.get());
                    }))
      signature.resize(kernel->params.size(), "");
    if (signature.size() != kernel->params.size())
      fail(kernel->loc, "--signature has " + Twine(signature.size()) +
                            " entries but '" + kernel->name + "' has " +
                            Twine(kernel->params.size()) + " parameters");
  }

  struct Param {
    std::string name;
    Type type;
    int64_t divisibility = 0;
    bool isUnsigned = false;
  };
  std::vector<Param> runtimeParams;
  /// Host descriptors: the name and the index of the first of their
  /// runtime parameters.
  std::vector<std::tuple<std::string, size_t, DescriptorParam>> descriptors;
  NamedAttrList constexprAttrs;
  // How tile.constexprs records a value: a tuple as an array, a function
  // by its name.
  std::function<Attribute(const TValue &)> constexprAttr =
      [&](const TValue &constant) -> Attribute {
    switch (constant.kind) {
    case TValue::Kind::None:
      return builder.getUnitAttr();
    case TValue::Kind::Float:
      return builder.getF64FloatAttr(constant.scalar.floatValue);
    case TValue::Kind::Bool:
      return builder.getBoolAttr(constant.intValue());
    case TValue::Kind::String:
      return builder.getStringAttr(constant.text());
    case TValue::Kind::DType:
      return builder.getStringAttr(describeDType(constant.type));
    case TValue::Kind::Function:
      return builder.getStringAttr(constant.function->name);
    case TValue::Kind::Tuple: {
      SmallVector<Attribute> elements;
      for (const TValue &e : constant.elements)
        elements.push_back(constexprAttr(e));
      return builder.getArrayAttr(elements);
    }
    default:
      // Past 64 bits (a heuristic's 3 ** 40), by its digits: the kernel
      // fails where it uses the value.
      if (constant.scalar.wide)
        return builder.getStringAttr(constant.scalar.repr());
      return builder.getI64IntegerAttr(constant.intValue());
    }
  };
  auto bindConstexpr = [&](const std::string &name, const TValue &constant) {
    scope[name] = constant;
    constexprAttrs.append(name, constexprAttr(constant));
  };
  // Integer arguments specialized to 1 (":1", as Triton's) are constexprs
  // of the kernel, not parameters; they still take their place among the
  // arguments' types.
  size_t specializedToOne = 0;
  for (auto [index, p] : llvm::enumerate(kernel->params)) {
    size_t argIndex = runtimeParams.size() + specializedToOne;
    TValue annotation;
    if (p.annotation)
      annotation = parameterAnnotation(*p.annotation);
    bool isConstexpr = annotation.kind == TValue::Kind::Builtin &&
                       annotation.name == "tl.constexpr";
    std::optional<TValue> constant;
    Type type;
    std::optional<DescriptorParam> descriptor;
    int64_t divisibility = 0;
    for (auto &[name, value] : spec.constexprs)
      if (name == p.name)
        constant = constexprOf(value);
    // An empty --signature entry leaves a runtime parameter's type to its
    // annotation or argument (and a constexpr's value to -D).
    StringRef entry = signature.empty() ? "" : signature[index].trim();
    if (!entry.empty() && !constant) {
      std::string what =
          "--signature entry '" + entry.str() + "' for '" + p.name + "'";
      std::optional<TypedText> typed = parseTypedText(entry, p.loc, what);
      if (std::optional<TValue> c = parseConstant(entry)) {
        constant = c;
      } else if (isConstexpr && typed) {
        fail(p.loc, "'" + p.name +
                        "' is a constexpr: --signature must give "
                        "it a value, not the type " +
                        describe(typed->type));
      } else if (isConstexpr) {
        constant = TValue::ofString(entry.str());
      } else if (typed) {
        type = typed->type;
        divisibility = typed->hint;
        if (isSpecializedToOne(type, divisibility)) {
          ++specializedToOne;
          constant = parseConstant("1");
        }
      } else {
        descriptor = parseDescriptorParam(*this, entry, p.loc);
        if (!descriptor)
          fail(p.loc, what + " is not a type like *fp32, i32, fp16 or "
                             "tensordesc<fp16[64, 64]>");
      }
    }
    if (isConstexpr && !constant && p.defaultValue)
      constant = gen(*p.defaultValue);
    if (isConstexpr && !constant && setByDecorator(*kernel, p.name))
      fail(p.loc, "constexpr parameter '" + p.name +
                      "' is chosen at launch by @triton.autotune or "
                      "@triton.heuristics: give it with -D " + p.name +
                      "=VALUE, or pick a config with --config N "
                      "(tile-run --autotune times them)");
    if (isConstexpr && !constant)
      fail(p.loc, "constexpr parameter '" + p.name +
                      "' has no value: give it with -D " + p.name +
                      "=VALUE or in --signature");
    if (constant) {
      bindConstexpr(p.name, *constant);
      continue;
    }
    if (!type && annotation.kind == TValue::Kind::DType)
      type = annotation.type;
    if (!type && annotation.kind == TValue::Kind::String) {
      std::optional<TypedText> typed = parseTypedText(
          annotation.text(), p.annotation->loc, "'" + annotation.text() + "'");
      if (!typed)
        fail(p.annotation->loc, "'" + annotation.text() +
                                    "' is not a type like \"*fp32\" or \"i32\"");
      type = typed->type;
      divisibility = typed->hint;
    }
    // The launch's (the JIT's, tile-run's) type of this argument.
    std::optional<TypedText> launched;
    if (!descriptor && argIndex < spec.argTypes.size()) {
      StringRef text = spec.argTypes[argIndex];
      launched = parseTypedText(
          text, p.loc, "argument type '" + text + "' for '" + p.name + "'");
      if (!launched)
        fail(p.loc, "argument for '" + p.name + "' has unsupported type '" +
                        text + "'");
    }
    if (!type && launched) {
      type = launched->type;
      divisibility = launched->hint;
      if (isSpecializedToOne(type, divisibility)) {
        ++specializedToOne;
        bindConstexpr(p.name, *parseConstant("1"));
        continue;
      }
    }
    // A launch's ":1" specializes an annotated integer too, as the JIT
    // leaves its argument out.
    if (type && signature.empty() && launched && launched->hint == 1 &&
        isSpecializedToOne(type, 1)) {
      ++specializedToOne;
      bindConstexpr(p.name, *parseConstant("1"));
      continue;
    }
    if (descriptor) {
      // The base (16-byte aligned, as Triton's descriptors must be), then
      // the shape and the strides.
      descriptors.emplace_back(p.name, runtimeParams.size(), *descriptor);
      Type i32 = builder.getI32Type(), i64 = builder.getI64Type();
      runtimeParams.push_back(
          {p.name, tile::PointerType::get(&context, signless(descriptor->element)),
           16, hasUnsignedElements(descriptor->element)});
      for (size_t d = 0; d < descriptor->blockShape.size(); ++d)
        runtimeParams.push_back({p.name + ".shape" + std::to_string(d), i32});
      for (size_t d = 0; d < descriptor->blockShape.size(); ++d)
        runtimeParams.push_back({p.name + ".stride" + std::to_string(d), i64});
      continue;
    }
    if (!type && p.annotation)
      fail(p.annotation->loc, "unsupported annotation for '" + p.name +
                                  "': use tl.constexpr, a dtype such as "
                                  "tl.int32, or a string such as \"*fp32\"");
    // A launch (the JIT's, tile-run's) types parameters by its arguments:
    // one without an argument is one the launch left out.
    if (!type && signature.empty() && !spec.argTypes.empty() &&
        argIndex >= spec.argTypes.size())
      fail(p.loc, "parameter '" + p.name + "' has no type: the launch gives " +
                      Twine(spec.argTypes.size()) + " argument" +
                      (spec.argTypes.size() == 1 ? "" : "s") + ", none for it");
    if (!type)
      fail(p.loc, "parameter '" + p.name +
                      "' has no type: annotate it (" + p.name +
                      ": \"*fp32\"), or give --signature");
    // A launch's argument type says what its value promises, annotated or
    // not (an unaligned pointer, an integer not divisible by 16).
    bool fromLaunch = signature.empty() && launched;
    if (fromLaunch && !divisibility)
      divisibility = launched->hint;
    // Pointers from annotations alone are assumed 16-byte aligned, as for
    // every allocation of the runtime; the metadata records it and launches
    // check.
    if (!divisibility && signature.empty() && !fromLaunch &&
        isa<tile::PointerType>(type))
      divisibility = 16;
    runtimeParams.push_back({p.name, signless(type), divisibility,
                             hasUnsignedElements(type)});
  }

  Location location = loc(kernel->loc);
  OwningOpRef<ModuleOp> result = ModuleOp::create(location);
  (*result)->setAttr(tile::TileDialect::getNumStagesAttrName(),
                     builder.getI32IntegerAttr(int32_t(spec.numStages)));
  builder.setInsertionPointToEnd(result->getBody());
  SmallVector<Type> argTypes;
  for (const Param &p : runtimeParams)
    argTypes.push_back(p.type);
  std::string entryName = kernel->name;
  auto func = func::FuncOp::create(builder, location, entryName,
                                   builder.getFunctionType(argTypes, {}));
  func->setAttr(tile::TileDialect::getConstexprsAttrName(), constexprAttrs.getDictionary(&context));
  mlir::Block *entry = func.addEntryBlock();
  for (auto [i, p] : llvm::enumerate(runtimeParams)) {
    func.setArgAttr(i, tile::TileDialect::getParamNameAttrName(), builder.getStringAttr(p.name));
    if (p.divisibility > 1)
      func.setArgAttr(i, tile::TileDialect::getDivisibilityAttrName(),
                      builder.getI32IntegerAttr(p.divisibility));
    if (p.isUnsigned)
      func.setArgAttr(i, tile::TileDialect::getUnsignedAttrName(), builder.getUnitAttr());
    scope[p.name] = TValue::ofValue(entry->getArgument(i), p.isUnsigned);
  }
  for (const auto &[name, first, descriptor] : descriptors) {
    size_t rank = descriptor.blockShape.size();
    std::vector<TValue> shape, strides;
    for (size_t d = 0; d < rank; ++d) {
      shape.push_back(TValue::ofValue(entry->getArgument(first + 1 + d)));
      strides.push_back(TValue::ofValue(entry->getArgument(first + 1 + rank + d)));
    }
    scope[name] = descriptorRecord(scope[name], std::move(shape),
                                   std::move(strides), descriptor.blockShape);
  }
  builder.setInsertionPointToEnd(entry);
  kernelFlow.insert(&kernel->body);
  debug = spec.debug;
  computeCapability = spec.computeCapability;
  numWarps = spec.numWarps;
  for (const ast::ExprPtr &decorator : kernel->decorators)
    if (auto *call = llvm::dyn_cast<ast::CallExpr>(decorator.get()))
      for (const ast::Keyword &keyword : call->keywords)
        if (keyword.name == "debug")
          debug |= isTrue(gen(*keyword.value), keyword.loc);
  gen(kernel->body);
  if (returned && returned->kind != TValue::Kind::None)
    fail(kernel->loc, "a kernel cannot return a value");
  func::ReturnOp::create(builder, location);
  // The caller verifies: IR the verifier refuses is tilec's bug, reported
  // as an internal error above the verifier's located message, never as
  // if it were the user's.
  return result;
}

OwningOpRef<ModuleOp> tilec::mlirGen(MLIRContext &context,
                                     ModuleLoader &loader,
                                     const Specialization &spec) {
  context.loadDialect<tile::TileDialect, arith::ArithDialect,
                      math::MathDialect, scf::SCFDialect, func::FuncDialect>();
  MLIRGenImpl generator(context, loader);
  try {
    return generator.generate(spec);
  } catch (const GenError &) {
    return nullptr;
  }
}
