//===- Random.cpp - tl.rand, tl.randn, tl.randint and their 4x forms ------===//
//
// Triton's counter-based random numbers: Philox-4x32 (Salmon et al.,
// "Parallel random numbers: as easy as 1, 2, 3", SC'11) with the counter
// (offset, 0, 0, 0) and the key (the seed's low and high 32 bits), Triton's
// round constants and 10 rounds by default, so that the same seed and
// offsets give the same bits as Triton. Each round:
//   c0' = hi(B * c2) ^ c1 ^ k0,  c2' = hi(A * c0) ^ c3 ^ k1,
//   c1' = lo(B * c2),            c3' = lo(A * c0),
//   k0 += KEY_A, k1 += KEY_B.
// tl.rand maps the first word to [0, 1) as Triton does: as an int32 x,
// (x < 0 ? -x - 1 : x) * 4.6566127342e-10, and tl.randn applies Triton's
// Box-Muller transform to the first two words (tl.sin and tl.cos are
// libdevice's on the GPU). Offsets are int32 (Triton's 64-bit variant for
// int64 offsets is not here yet).
//
//===----------------------------------------------------------------------===//

#include "MLIRGenImpl.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace tilec;
using llvm::Twine;

namespace {

constexpr uint32_t kKeyA = 0x9E3779B9, kKeyB = 0xBB67AE85;
constexpr uint32_t kRoundA = 0xD2511F53, kRoundB = 0xCD9E8D57;

/// i32 arithmetic on values of one shape (a tile's or a scalar's).
struct Words {
  OpBuilder &b;
  Location loc;
  Type type; // i32 or tensor<...xi32>

  Value constant(uint32_t bits) const {
    auto i32 = b.getI32Type();
    Attribute value = b.getIntegerAttr(i32, int32_t(bits));
    if (auto tensor = dyn_cast<RankedTensorType>(type))
      value = DenseElementsAttr::get(tensor, value);
    return arith::ConstantOp::create(b, loc, cast<TypedAttr>(value));
  }
  Value mul(Value x, Value y) const { return arith::MulIOp::create(b, loc, x, y); }
  Value add(Value x, Value y) const { return arith::AddIOp::create(b, loc, x, y); }
  Value xor_(Value x, Value y) const { return arith::XOrIOp::create(b, loc, x, y); }
  /// The high 32 bits of the unsigned 64-bit product.
  Value mulHigh(Value x, Value y) const {
    Type wide = b.getI64Type();
    if (auto tensor = dyn_cast<RankedTensorType>(type))
      wide = RankedTensorType::get(tensor.getShape(), wide);
    Value p = arith::MulIOp::create(b, loc, arith::ExtUIOp::create(b, loc, wide, x),
                                    arith::ExtUIOp::create(b, loc, wide, y));
    Value shift = arith::ConstantOp::create(
        b, loc, isa<RankedTensorType>(wide)
                    ? (TypedAttr)DenseElementsAttr::get(
                          cast<RankedTensorType>(wide), b.getI64IntegerAttr(32))
                    : (TypedAttr)b.getI64IntegerAttr(32));
    return arith::TruncIOp::create(b, loc, type,
                                   arith::ShRUIOp::create(b, loc, p, shift));
  }
};

} // namespace

TValue MLIRGenImpl::genRandom(const BoundArgs &args, const ast::CallExpr &c) {
  const std::string &name = args.function;
  Location location = loc(c.loc);
  // tl.philox(seed, c0, c1, c2, c3): the four counters given (32-bit
  // integers, broadcast together); the others count (offset, 0, 0, 0).
  bool philox = name == "tl.philox";
  unsigned roundsArg = philox ? 5 : 2;
  SmallVector<Value> counters;
  for (unsigned i = 1; i <= (philox ? 4u : 1u); ++i) {
    Value v = toValue(*args.get(i), args.locs[i], "the counter");
    Type element = getElementTypeOrSelf(v.getType());
    if (!element.isInteger(32))
      fail(args.locs[i], name + " takes int32 " +
                             (philox ? "counters" : "offsets") + ", got " +
                             describe(v.getType()));
    counters.push_back(v);
  }
  SmallVector<int64_t> shape(shapeOf(counters[0]));
  for (Value v : counters)
    shape = broadcastShapes(shape, shapeOf(v), c.loc);
  for (size_t i = 0; i < counters.size(); ++i)
    counters[i] = broadcastTo(counters[i], shape, args.locs[i + 1], "the counter");
  Value offset = counters[0];
  int64_t rounds = 10;
  if (args.get(roundsArg) && args.get(roundsArg)->kind != TValue::Kind::None)
    rounds = constInt(*args.get(roundsArg), args.locs[roundsArg], "n_rounds");
  if (rounds < 0)
    fail(args.locs[roundsArg], "n_rounds must not be negative");

  // The key: the seed as 64 bits (sign-extended from an int, zero-extended
  // from a uint, as Triton's cast to uint64), low and high words.
  Value seed = toValue(*args.get(0), args.locs[0], "the seed");
  if (isa<RankedTensorType>(seed.getType()) ||
      !getElementTypeOrSelf(seed.getType()).isInteger() ||
      seed.getType().isInteger(1))
    fail(args.locs[0], name + " needs an integer scalar seed, got " +
                           describe(seed.getType()));
  seed = cast(seed, builder.getI64Type(), args.locs[0], args.get(0)->isUnsigned);
  Value seedHigh = arith::ShRUIOp::create(
      builder, location, seed,
      arith::ConstantOp::create(builder, location, builder.getI64IntegerAttr(32)));
  Words w{builder, location, offset.getType()};
  auto word = [&](Value v) {
    Value low = arith::TruncIOp::create(builder, location, builder.getI32Type(), v);
    return broadcastTo(low, shapeOf(offset), c.loc, "the seed");
  };
  Value key0 = word(seed), key1 = word(seedHigh);
  Value c0 = offset, c1 = w.constant(0), c2 = w.constant(0), c3 = w.constant(0);
  if (philox) {
    c1 = counters[1];
    c2 = counters[2];
    c3 = counters[3];
  }
  for (int64_t r = 0; r < rounds; ++r) {
    Value a = w.constant(kRoundA), b = w.constant(kRoundB);
    Value nextC0 = w.xor_(w.xor_(w.mulHigh(b, c2), c1), key0);
    Value nextC2 = w.xor_(w.xor_(w.mulHigh(a, c0), c3), key1);
    c1 = w.mul(b, c2);
    c3 = w.mul(a, c0);
    c0 = nextC0;
    c2 = nextC2;
    key0 = w.add(key0, w.constant(kKeyA));
    key1 = w.add(key1, w.constant(kKeyB));
  }
  // Philox's words are tl.uint32, as Triton's.
  if (name == "tl.randint4x" || philox)
    return TValue::ofTuple({TValue::ofValue(c0, true), TValue::ofValue(c1, true),
                            TValue::ofValue(c2, true), TValue::ofValue(c3, true)});
  if (name == "tl.randint")
    return TValue::ofValue(c0, true);
  // tl.rand: [0, 1) from a word taken as an int32 x, as Triton does.
  auto uniform = [&](Value word) {
    TValue x = TValue::ofValue(word);
    TValue negative = compare(ast::CompareOp::Lt, x, TValue::ofInt(0), c.loc);
    TValue folded = binary(ast::BinaryOp::Sub,
                           binary(ast::BinaryOp::Sub, TValue::ofInt(0), x, c.loc),
                           TValue::ofInt(1), c.loc);
    Value chosen = arith::SelectOp::create(builder, location, negative.value,
                                           folded.value, word);
    return binary(ast::BinaryOp::Mul, TValue::ofValue(chosen),
                  TValue::ofFloat(4.6566127342e-10), c.loc);
  };
  if (name == "tl.rand")
    return uniform(c0);
  if (name == "tl.rand4x")
    return TValue::ofTuple({uniform(c0), uniform(c1), uniform(c2), uniform(c3)});
  // tl.randn: Box-Muller on two uniforms, Triton's constants and order.
  auto normalPair = [&](Value a, Value b) {
    TValue u1 = minMax(/*isMax=*/true, TValue::ofFloat(1.0e-7), uniform(a), c.loc);
    TValue theta = binary(ast::BinaryOp::Mul, TValue::ofFloat(6.283185307179586),
                          uniform(b), c.loc);
    TValue r = callMath(
        "tl.sqrt",
        binary(ast::BinaryOp::Mul, TValue::ofFloat(-2.0),
               callMath("tl.log", u1, c.loc), c.loc),
        c.loc);
    return std::pair(
        binary(ast::BinaryOp::Mul, r, callMath("tl.cos", theta, c.loc), c.loc),
        binary(ast::BinaryOp::Mul, r, callMath("tl.sin", theta, c.loc), c.loc));
  };
  if (name == "tl.randn")
    return normalPair(c0, c1).first;
  auto [n1, n2] = normalPair(c0, c1);
  auto [n3, n4] = normalPair(c2, c3);
  return TValue::ofTuple({n1, n2, n3, n4});
}

namespace {

using Kind = BuiltinKind;

#define RANDOM(NAME, WHAT)                                                     \
  {                                                                            \
    "tl." NAME, "seed, offset, n_rounds=10", Kind::Function,                   \
        member<&MLIRGenImpl::genRandom>, WHAT                                  \
  }
const BuiltinSpec kRandom[] = {
    RANDOM("randint", "Philox-4x32's first uint32 word, bit-identical to "
                      "Triton's"),
    RANDOM("randint4x", "Philox-4x32's four uint32 words"),
    RANDOM("rand", "uniform fp32 in [0, 1)"),
    RANDOM("rand4x", "four uniform fp32 in [0, 1)"),
    RANDOM("randn", "standard normal fp32 (Box-Muller)"),
    RANDOM("randn4x", "four standard normal fp32"),
    {"tl.philox", "seed, c0, c1, c2, c3, n_rounds=10", Kind::Function,
     member<&MLIRGenImpl::genRandom>,
     "Philox-4x32 of four 32-bit counters: four uint32 words, as Triton's"},
};
#undef RANDOM

} // namespace

ArrayRef<BuiltinSpec> tilec::getRandomBuiltins() { return kRandom; }
