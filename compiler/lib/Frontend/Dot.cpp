//===- Dot.cpp - tl.dot ---------------------------------------------------===//
//
// `tl.dot` (its parameters: the table's row at the end of this file) with
// Triton 3.6's rules
// (core.dot and semantic.dot): operands of one dtype among int8, float16,
// bfloat16, float32 and float64, both 2-D or both 3-D (batched); int8
// accumulates in int32, float16 in out_dtype (float32 or float16),
// bfloat16 and float32 in float32, float64 in float64; fp32 inputs default
// to tf32, and `allow_tf32` is the older spelling of tf32 / ieee.
//
// Two departures, both accepting more than Triton and nothing it gives
// another meaning: any M, N, K >= 1 (Triton wants 16 and up; the GPU
// lowering pads to its instruction shapes), and with `acc` given and no
// out_dtype, the dot accumulates in acc's dtype (Triton asserts that acc's
// dtype equals out_dtype, which rejects an int32 acc unless out_dtype is
// spelled tl.int32).
//
// Without `acc` the accumulator is a zero `arith.constant` splat, which
// tile-combine folds into a following add (`acc += tl.dot(a, b)`).
//
//===----------------------------------------------------------------------===//

#include "MLIRGenImpl.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace tilec;
using llvm::StringRef;
using llvm::Twine;

namespace {
enum DotParam {
  Input,
  Other,
  Acc,
  InputPrecision,
  AllowTF32,
  MaxNumImpreciseAcc,
  OutDType
};
} // namespace

static bool isDotOperandType(Type t) {
  return t.isInteger(8) || t.isF16() || t.isBF16() || t.isF32() ||
         t.isF64() || tile::isFP8(t);
}

static std::string shapeString(ArrayRef<int64_t> shape) {
  std::string s = "[";
  for (auto [i, d] : llvm::enumerate(shape))
    s += (i ? ", " : "") + std::to_string(d);
  return s + "]";
}

/// How fp32 operands are multiplied: `input_precision` or `allow_tf32`, or
/// tf32, Triton's default on NVIDIA GPUs. `bf16Parts` is set for bf16x3
/// (3) and bf16x6 (6): each operand split into bfloat16 parts, multiplied
/// part by part.
static tile::InputPrecision precisionArg(MLIRGenImpl &g, const BoundArgs &args,
                                         unsigned &bf16Parts) {
  auto given = [&](unsigned i) {
    return args.get(i) && args.get(i)->kind != TValue::Kind::None;
  };
  if (given(InputPrecision) && given(AllowTF32))
    g.fail(args.locs[AllowTF32],
           "tl.dot: give only one of input_precision and allow_tf32 "
           "(allow_tf32 is the older spelling of input_precision)");
  if (given(AllowTF32))
    return g.isTrue(*args.get(AllowTF32), args.locs[AllowTF32])
               ? tile::InputPrecision::TF32
               : tile::InputPrecision::IEEE;
  if (!given(InputPrecision))
    return tile::InputPrecision::TF32;
  const TValue &v = *args.get(InputPrecision);
  const ast::Location &l = args.locs[InputPrecision];
  if (v.kind != TValue::Kind::String)
    g.fail(l, "tl.dot: input_precision must be a string such as \"ieee\", "
              "got " +
                  g.describe(v));
  // Triton compares in lower case.
  std::string name = llvm::StringRef(v.text()).lower();
  if (std::optional<tile::InputPrecision> p =
          tile::symbolizeInputPrecision(name))
    return *p;
  if (name == "bf16x3" || name == "bf16x6") {
    bf16Parts = name == "bf16x3" ? 3 : 6;
    return tile::InputPrecision::IEEE;
  }
  if (name == "hf32")
    g.fail(l, "tl.dot: input_precision \"hf32\" is AMD's, not supported by "
              "tilec; use \"tf32\", \"tf32x3\", \"bf16x3\", \"bf16x6\" "
              "or \"ieee\"");
  g.fail(l, "tl.dot: input_precision must be \"tf32\", \"tf32x3\", "
            "\"bf16x3\", \"bf16x6\" or \"ieee\", got \"" +
                v.text() + "\"");
}

TValue MLIRGenImpl::genDot(const BoundArgs &args, const ast::CallExpr &c) {
  auto given = [&](unsigned i) {
    return args.get(i) && args.get(i)->kind != TValue::Kind::None;
  };

  // The operands: tiles of one supported dtype.
  auto tileArg = [&](unsigned i, StringRef what) {
    const TValue &v = *args.get(i);
    auto type = v.isRuntime() ? dyn_cast<RankedTensorType>(v.value.getType())
                              : RankedTensorType();
    if (!type)
      fail(args.locs[i], "tl.dot: " + what +
                             " must be a 2-D or 3-D tile, got " + describe(v));
    if (!isDotOperandType(type.getElementType()) || v.isUnsigned)
      fail(args.locs[i], "tl.dot does not multiply " +
                             describe(dtypeOf(v)) + " tiles (" +
                             what + " is " + describe(typeOf(v)) +
                             "): use int8, float16, bfloat16, float32 or "
                             "float64");
    if (type.getRank() != 2 && type.getRank() != 3)
      fail(args.locs[i], "tl.dot: " + what +
                             " must be 2-D, or 3-D for a "
                             "batched product, but it is " +
                             describe(type) + " (" + Twine(type.getRank()) +
                             "-D)");
    return std::make_pair(v.value, type);
  };
  auto [a, aType] = tileArg(Input, "input");
  auto [b, bType] = tileArg(Other, "other");
  Type element = aType.getElementType();
  if (bType.getElementType() != element)
    fail(c.loc, "tl.dot operands must have the same dtype, got " +
                    describe(aType) + " and " + describe(bType));
  if (tile::isFP8(element))
    checkFP8Target(c.loc);
  int64_t rank = aType.getRank();
  if (bType.getRank() != rank)
    fail(c.loc, "tl.dot operands must both be 2-D or both 3-D, got " +
                    describe(aType) + " and " + describe(bType));
  ArrayRef<int64_t> as = aType.getShape(), bs = bType.getShape();
  if (as[rank - 1] != bs[rank - 2])
    fail(c.loc, "tl.dot: incompatible shapes " + shapeString(as) + " and " +
                    shapeString(bs) + ": input has K = " + Twine(as[rank - 1]) +
                    " columns but other has " + Twine(bs[rank - 2]) + " rows");
  if (rank == 3 && as[0] != bs[0])
    fail(c.loc, "tl.dot: batch sizes differ: input " + shapeString(as) +
                    " has " + Twine(as[0]) + ", other " + shapeString(bs) +
                    " has " + Twine(bs[0]));
  SmallVector<int64_t> shape(as.drop_back());
  shape.push_back(bs[rank - 1]);

  unsigned bf16Parts = 0;
  tile::InputPrecision precision = precisionArg(*this, args, bf16Parts);

  // The accumulator's dtype.
  Type outDType = builder.getF32Type();
  if (given(OutDType)) {
    outDType = dtypeArg(*args.get(OutDType), args.locs[OutDType], "out_dtype");
    if (outDType.isBF16())
      fail(args.locs[OutDType],
           "tl.dot: out_dtype=bfloat16 is not supported: accumulate in "
           "float32 and convert the result with .to(tl.bfloat16)");
  }
  Value acc;
  Type accElement;
  if (given(Acc)) {
    const TValue &v = *args.get(Acc);
    auto type = v.isRuntime() ? dyn_cast<RankedTensorType>(v.value.getType())
                              : RankedTensorType();
    if (!type)
      fail(args.locs[Acc], "tl.dot: acc must be a tile of shape " +
                               shapeString(shape) + ", got " + describe(v));
    if (type.getShape() != ArrayRef<int64_t>(shape))
      fail(args.locs[Acc], "tl.dot: acc must have the result's shape " +
                               shapeString(shape) + ", got " + describe(type));
    acc = v.value;
    accElement = type.getElementType();
    if (given(OutDType) && accElement != outDType)
      fail(args.locs[Acc], "tl.dot: acc is " + describe(type) +
                               " but out_dtype is " + describe(outDType) +
                               ": they must agree");
    // Without out_dtype, acc says what to accumulate in.
    if (!given(OutDType))
      outDType = accElement;
  }
  Type result;
  if (element.isInteger(8))
    result = builder.getI32Type();
  else if (element.isF16())
    result = outDType.isF16() ? outDType : Type(builder.getF32Type());
  else if (element.isF64())
    result = builder.getF64Type();
  else
    result = builder.getF32Type();
  if (element.isF16() && !outDType.isF16() && !outDType.isF32())
    fail(given(Acc) && !given(OutDType) ? args.locs[Acc] : args.locs[OutDType],
         "tl.dot of fp16 tiles accumulates in fp32 or fp16, not " +
             describe(outDType));
  if (acc && accElement != result)
    fail(args.locs[Acc], "tl.dot of " + describe(element) +
                             " tiles accumulates in " + describe(result) +
                             ", but acc is " + describe(acc.getType()));
  auto resultType = RankedTensorType::get(shape, result);

  IntegerAttr maxImprecise;
  if (given(MaxNumImpreciseAcc)) {
    int64_t n =
        constInt(*args.get(MaxNumImpreciseAcc), args.locs[MaxNumImpreciseAcc],
                 "max_num_imprecise_acc");
    if (n < 0 || n > INT32_MAX)
      fail(args.locs[MaxNumImpreciseAcc],
           "tl.dot: max_num_imprecise_acc must be a non-negative int32, got " +
               Twine(n));
    maxImprecise = builder.getI32IntegerAttr(int32_t(n));
  }

  Location location = loc(c.loc);
  if (!acc)
    acc = arith::ConstantOp::create(
        builder, location,
        DenseElementsAttr::get(resultType, builder.getZeroAttr(result)));
  if (bf16Parts && element.isF32())
    return TValue::ofValue(bf16SplitDot(a, b, acc, bf16Parts, c.loc));
  return TValue::ofValue(tile::DotOp::create(builder, location, a, b, acc,
                                             precision, maxImprecise));
}

Value MLIRGenImpl::bf16SplitDot(Value a, Value b, Value acc, unsigned parts,
                                const ast::Location &l) {
  // x = hi + mid (+ lo for bf16x6), each a bfloat16 of what the ones
  // before it leave.
  Type bf16 = builder.getBF16Type(), f32 = builder.getF32Type();
  unsigned pieceCount = parts == 3 ? 2 : 3;
  auto split = [&](Value x) {
    SmallVector<Value> pieces;
    for (unsigned i = 0; i < pieceCount; ++i) {
      Value piece = cast(x, bf16, l);
      pieces.push_back(piece);
      if (i + 1 < pieceCount)
        x = arith::SubFOp::create(builder, loc(l), x, cast(piece, f32, l));
    }
    return pieces;
  };
  SmallVector<Value> as = split(a), bs = split(b);
  // The products that matter, the smallest first so that they are not
  // lost against the large ones: bf16x3 keeps those of the high and
  // middle parts, bf16x6 also the low parts' and mid * mid.
  SmallVector<std::pair<int, int>> products =
      parts == 3 ? SmallVector<std::pair<int, int>>{{1, 0}, {0, 1}, {0, 0}}
                 : SmallVector<std::pair<int, int>>{
                       {2, 0}, {0, 2}, {1, 1}, {1, 0}, {0, 1}, {0, 0}};
  for (auto [i, j] : products)
    acc = tile::DotOp::create(builder, loc(l), as[i], bs[j], acc,
                              tile::InputPrecision::IEEE, IntegerAttr());
  return acc;
}

/// One operand of tl.dot_scaled as fp32 values of shape [M, K] (`isLhs`)
/// or [K, N]: decoded from its format and multiplied by 2^(scale - 127)
/// per group of 32 along K (scale 255 is NaN, as e8m0 has it).
Value MLIRGenImpl::scaledOperand(const TValue &x, const TValue *scale,
                                 StringRef format, bool isLhs,
                                 const ast::Location &l,
                                 const ast::Location &scaleLoc) {
  Location location = loc(l);
  Type f32 = builder.getF32Type(), i32 = builder.getI32Type();
  Value v = toValue(x, l, "the operand");
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (!type || type.getRank() != 2)
    fail(l, "tl.dot_scaled: the operands must be 2-D tiles, got " +
                describe(v.getType()));
  Type element = type.getElementType();
  auto splat = [&](ArrayRef<int64_t> shape, Attribute value) -> Value {
    auto t = RankedTensorType::get(shape, llvm::cast<TypedAttr>(value).getType());
    return arith::ConstantOp::create(builder, location,
                                     DenseElementsAttr::get(t, value));
  };
  auto i32s = [&](ArrayRef<int64_t> shape, int64_t n) {
    return splat(shape, builder.getI32IntegerAttr(int32_t(n)));
  };
  auto f32s = [&](ArrayRef<int64_t> shape, double d) {
    return splat(shape, builder.getF32FloatAttr(float(d)));
  };
  auto select = [&](Value c, Value a, Value b) -> Value {
    return arith::SelectOp::create(builder, location, c, a, b);
  };
  auto equals = [&](Value a, Value b) -> Value {
    return arith::CmpIOp::create(builder, location, arith::CmpIPredicate::eq, a, b);
  };

  Value values;
  if (format == "e2m1") {
    // Two values a byte, packed along K, the first in the low nibble.
    if (!element.isInteger(8))
      fail(l, "tl.dot_scaled: e2m1 operands are uint8 tiles of two values "
              "a byte, got " + describe(v.getType()));
    ArrayRef<int64_t> packed = type.getShape();
    Value bytes = cast(v, i32, l, /*fromUnsigned=*/true);
    auto decode = [&](Value nibble) -> Value {
      // sign, 2 exponent bits, 1 mantissa bit: 0, 0.5, 1, 1.5, 2, 3, 4, 6.
      Value e = arith::AndIOp::create(
          builder, location,
          arith::ShRUIOp::create(builder, location, nibble, i32s(packed, 1)),
          i32s(packed, 3));
      Value m = cast(arith::AndIOp::create(builder, location, nibble, i32s(packed, 1)),
                     f32, l);
      Value pow = select(equals(e, i32s(packed, 3)), f32s(packed, 4.0),
                         select(equals(e, i32s(packed, 2)), f32s(packed, 2.0),
                                f32s(packed, 1.0)));
      Value normal = arith::MulFOp::create(
          builder, location,
          arith::AddFOp::create(builder, location, f32s(packed, 1.0),
                                arith::MulFOp::create(builder, location, m,
                                                      f32s(packed, 0.5))),
          pow);
      Value magnitude = select(equals(e, i32s(packed, 0)),
                               arith::MulFOp::create(builder, location, m,
                                                     f32s(packed, 0.5)),
                               normal);
      Value negative = arith::CmpIOp::create(
          builder, location, arith::CmpIPredicate::ne,
          arith::AndIOp::create(builder, location, nibble, i32s(packed, 8)),
          i32s(packed, 0));
      return select(negative, arith::NegFOp::create(builder, location, magnitude),
                    magnitude);
    };
    Value low = decode(arith::AndIOp::create(builder, location, bytes, i32s(packed, 15)));
    Value high = decode(arith::ShRUIOp::create(builder, location, bytes, i32s(packed, 4)));
    SmallVector<int64_t> pairs(packed);
    pairs.push_back(2);
    Value joined = tile::JoinOp::create(builder, location,
                                        RankedTensorType::get(pairs, f32), low, high);
    if (!isLhs) {
      // [K/2, N, 2] -> [K/2, 2, N]: the pair runs along K.
      SmallVector<int64_t> moved = {packed[0], 2, packed[1]};
      joined = tile::TransOp::create(builder, location, RankedTensorType::get(moved, f32),
                                     joined, builder.getDenseI32ArrayAttr({0, 2, 1}));
    }
    SmallVector<int64_t> unpacked(packed);
    unpacked[isLhs ? 1 : 0] *= 2;
    values = tile::ReshapeOp::create(builder, location,
                                     RankedTensorType::get(unpacked, f32), joined);
  } else if (format == "e4m3" || format == "e5m2") {
    Type fp8 = format == "e4m3" ? Type(builder.getType<Float8E4M3FNType>())
                                : Type(builder.getType<Float8E5M2Type>());
    if (element.isInteger(8))
      v = arith::BitcastOp::create(builder, location, tile::withElementType(type, fp8), v);
    else if (element != fp8)
      fail(l, "tl.dot_scaled: " + format.str() + " operands are uint8 or " +
                  describe(fp8) + " tiles, got " + describe(v.getType()));
    checkFP8Target(l);
    values = cast(v, f32, l);
  } else if (format == "bf16" || format == "fp16") {
    Type want = format == "bf16" ? Type(builder.getBF16Type()) : Type(builder.getF16Type());
    if (element != want)
      fail(l, "tl.dot_scaled: " + format.str() + " operands are " +
                  describe(want) + " tiles, got " + describe(v.getType()));
    values = cast(v, f32, l);
  } else {
    fail(l, "tl.dot_scaled: format '" + format.str() +
                "' is not one of e2m1, e4m3, e5m2, bf16 and fp16");
  }

  if (!scale || scale->kind == TValue::Kind::None)
    return values;
  ArrayRef<int64_t> shape = llvm::cast<RankedTensorType>(values.getType()).getShape();
  int64_t rows = isLhs ? shape[0] : shape[1], k = isLhs ? shape[1] : shape[0];
  Value s = toValue(*scale, scaleLoc, "the scale");
  auto scaleType = dyn_cast<RankedTensorType>(s.getType());
  if (!scaleType || !scaleType.getElementType().isInteger(8) || k % 32 ||
      scaleType.getShape() != ArrayRef<int64_t>{rows, k / 32})
    fail(scaleLoc, "tl.dot_scaled: the scale must be a uint8 tile of [" +
                       Twine(rows) + ", " + Twine(k / 32) +
                       "] (one e8m0 exponent per 32 along K), got " +
                       describe(s.getType()));
  // 2^(e - 127) as fp32's bits: e << 23, but 2^-127 (e = 0) is subnormal
  // and e = 255 is NaN.
  ArrayRef<int64_t> groups = scaleType.getShape();
  Value e = cast(s, i32, scaleLoc, /*fromUnsigned=*/true);
  Value bits = arith::ShLIOp::create(builder, location, e, i32s(groups, 23));
  bits = select(equals(e, i32s(groups, 0)), i32s(groups, 0x00400000), bits);
  bits = select(equals(e, i32s(groups, 255)), i32s(groups, 0x7fc00000), bits);
  Value factor = arith::BitcastOp::create(builder, location,
                                          RankedTensorType::get(groups, f32), bits);
  // [rows, K/32] -> [rows, K/32, 32] -> [rows, K], then [K, N] for rhs.
  factor = broadcastTo(expandDims(factor, 2, scaleLoc), {rows, k / 32, 32},
                       scaleLoc, "the scale");
  factor = tile::ReshapeOp::create(builder, location,
                                   RankedTensorType::get({rows, k}, f32), factor);
  if (!isLhs)
    factor = tile::TransOp::create(builder, location, RankedTensorType::get({k, rows}, f32),
                                   factor, builder.getDenseI32ArrayAttr({1, 0}));
  return arith::MulFOp::create(builder, location, values, factor);
}

/// tl.dot_scaled, as Triton runs it on Hopper: both operands decoded and
/// scaled, then a bf16 product (exact for e2m1, fp8 and bf16 values times
/// powers of two) or, where an operand is fp16, an fp32 one.
TValue MLIRGenImpl::genDotScaled(const BoundArgs &args, const ast::CallExpr &c) {
  auto format = [&](unsigned i) {
    const TValue &f = *args.get(i);
    if (f.kind != TValue::Kind::String)
      fail(args.locs[i], "tl.dot_scaled: a format must be a string such as "
                         "\"e4m3\", got " + describe(f));
    return f.text();
  };
  std::string lhsFormat = format(2), rhsFormat = format(5);
  for (unsigned i : {8u, 9u})
    if (const TValue *pack = args.get(i); pack && !isTrue(*pack, args.locs[i]))
      fail(args.locs[i], "tl.dot_scaled: e2m1 packed along M or N (k_pack=False) "
                         "is not supported by tilec");
  if (const TValue *out = args.get(10); out && out->kind != TValue::Kind::None &&
                                        !dtypeArg(*out, args.locs[10], "out_dtype").isF32())
    fail(args.locs[10], "tl.dot_scaled accumulates in float32 only in tilec");
  Value a = scaledOperand(*args.get(0), args.get(1), lhsFormat, true,
                          args.locs[0], args.locs[1]);
  Value b = scaledOperand(*args.get(3), args.get(4), rhsFormat, false,
                          args.locs[3], args.locs[4]);
  ArrayRef<int64_t> as = llvm::cast<RankedTensorType>(a.getType()).getShape();
  ArrayRef<int64_t> bs = llvm::cast<RankedTensorType>(b.getType()).getShape();
  if (as[1] != bs[0])
    fail(c.loc, "tl.dot_scaled: incompatible shapes: lhs has K = " +
                    Twine(as[1]) + ", rhs " + Twine(bs[0]));
  bool exactInBF16 = lhsFormat != "fp16" && rhsFormat != "fp16";
  Type operand = exactInBF16 ? Type(builder.getBF16Type()) : Type(builder.getF32Type());
  a = cast(a, operand, c.loc);
  b = cast(b, operand, c.loc);
  Location location = loc(c.loc);
  auto resultType = RankedTensorType::get({as[0], bs[1]}, builder.getF32Type());
  Value acc;
  if (const TValue *given = args.get(6); given && given->kind != TValue::Kind::None) {
    acc = toValue(*given, args.locs[6], "acc");
    if (acc.getType() != resultType)
      fail(args.locs[6], "tl.dot_scaled: acc must be " + describe(resultType) +
                             ", got " + describe(acc.getType()));
  } else {
    acc = arith::ConstantOp::create(
        builder, location,
        DenseElementsAttr::get(resultType, builder.getZeroAttr(builder.getF32Type())));
  }
  return TValue::ofValue(tile::DotOp::create(
      builder, location, a, b, acc,
      exactInBF16 ? tile::InputPrecision::TF32 : tile::InputPrecision::IEEE,
      IntegerAttr()));
}

// out_dtype defaults to None, not Triton's tl.float32: without it the dot
// accumulates in acc's dtype where acc is given (fp32 otherwise).
static const BuiltinSpec kDot[] = {
    {"tl.dot",
     "input, other, acc=None, input_precision=None, allow_tf32=None, "
     "max_num_imprecise_acc=None, out_dtype=None",
     BuiltinKind::Function, member<&MLIRGenImpl::genDot>,
     "(M, K) @ (K, N) or batched, plus acc: mma.sync, wgmma or FMAs"},
    {"tl.dot_scaled",
     "lhs, lhs_scale, lhs_format, rhs, rhs_scale, rhs_format, acc=None, "
     "fast_math=False, lhs_k_pack=True, rhs_k_pack=True, out_dtype=None",
     BuiltinKind::Function, member<&MLIRGenImpl::genDotScaled>,
     "microscaled (M, K) @ (K, N): e2m1/e4m3/e5m2/bf16/fp16 operands times "
     "2^(e8m0 scale - 127) per 32 along K, as a bf16 (or fp32) tl.dot"},
};

ArrayRef<BuiltinSpec> tilec::getDotBuiltins() { return kDot; }
