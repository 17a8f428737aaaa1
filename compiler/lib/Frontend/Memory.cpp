//===- Memory.cpp - tl.load, tl.store, atomics, descriptor loads ----------===//
//
// Loads and stores through a pointer, a tile of pointers (masked, with
// `other` for the masked-off elements), a block pointer or a tensor
// descriptor (bounds-checked blocks, BlockPointers.cpp), with Triton's
// cache_modifier, eviction_policy and volatile; and the atomics, which
// broadcast pointer, value and mask against each other as Triton's do.
//
//===----------------------------------------------------------------------===//

#include "MLIRGenImpl.h"

#include "llvm/ADT/StringSwitch.h"

using namespace mlir;
using namespace tilec;
using llvm::StringRef;
using llvm::Twine;

namespace {

using Kind = BuiltinKind;

/// Argument 0 of a memory operation: a pointer or a tile of pointers.
std::pair<Value, tile::PointerType>
pointerArg(MLIRGenImpl &g, const BoundArgs &args, StringRef error) {
  const TValue &arg = *args.get(0);
  Value ptr = arg.isRuntime() ? arg.value : Value();
  auto type =
      ptr ? dyn_cast<tile::PointerType>(getElementTypeOrSelf(ptr.getType()))
          : nullptr;
  if (!type)
    g.fail(args.locs[0], error + ", got " + g.describe(arg));
  return {ptr, type};
}

/// Triton's cache_modifier ("", ".ca", ".cg", ".cv" for loads; ".wb",
/// ".cg", ".cs", ".wt" for stores) and eviction_policy ("", "evict_first",
/// "evict_last") arguments.
std::pair<tile::CacheModifier, tile::EvictionPolicy>
memoryHints(MLIRGenImpl &g, const BoundArgs &args, unsigned cacheIndex,
            bool isLoad) {
  auto text = [&](unsigned i) -> std::string {
    const TValue *v = args.get(i);
    if (!v || v->kind == TValue::Kind::None)
      return "";
    if (v->kind != TValue::Kind::String)
      g.fail(args.locs[i], "expected a string");
    return v->text();
  };
  // Triton spells a cache operator as PTX does (".cg"), and none as "".
  std::string cacheText = text(cacheIndex);
  std::optional<tile::CacheModifier> cache = tile::CacheModifier::None;
  if (!cacheText.empty())
    cache =
        StringRef(cacheText).starts_with(".") && cacheText != ".none"
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

/// An optional boolean `mask` argument; null when absent or None.
Value optionalMask(MLIRGenImpl &g, const BoundArgs &args, unsigned index) {
  const TValue *arg = args.get(index);
  if (!arg || arg->kind == TValue::Kind::None)
    return Value();
  Value mask = g.toValue(*arg, args.locs[index], "the mask");
  if (!getElementTypeOrSelf(mask.getType()).isInteger(1))
    g.fail(args.locs[index],
           "the mask must be boolean (i1), got " + g.describe(mask.getType()));
  return mask;
}

/// A boundary_check other than Triton's default, ().
bool givesBoundaryCheck(const TValue *check) {
  return check && check->kind != TValue::Kind::None &&
         !(check->kind == TValue::Kind::Tuple && check->elements.empty());
}

TValue load(MLIRGenImpl &g, const BoundArgs &args, const ast::CallExpr &c) {
  Location location = g.loc(c.loc);
  auto [cache, evict] = memoryHints(g, args, 5, /*isLoad=*/true);
  bool isVolatile = args.get(7) && g.isTrue(*args.get(7), args.locs[7]);
  if (isVolatile && (cache != tile::CacheModifier::None ||
                     evict != tile::EvictionPolicy::Normal))
    g.fail(c.loc, "a volatile tl.load takes no cache_modifier or "
                  "eviction_policy (PTX's ld.volatile has neither)");
  if (args.get(0)->kind == TValue::Kind::BlockPtr) {
    if (args.get(1) || args.get(2))
      g.fail(c.loc, "a load through a block pointer takes no mask or other: "
                    "its boundary_check and padding_option say which "
                    "elements exist");
    MLIRGenImpl::BlockAccess access =
        g.blockAccess(*args.get(0), nullptr, args.get(3), args.get(4), c.loc);
    return TValue::ofValue(tile::LoadOp::create(g.builder, location, access.ptr,
                                                access.mask, access.other,
                                                cache, evict, isVolatile),
                           args.get(0)->elements[0].isUnsigned);
  }
  if (givesBoundaryCheck(args.get(3)))
    g.fail(args.locs[3], "boundary_check needs a block pointer: a tile of "
                         "pointers takes a mask");
  auto [ptr, ptrType] = pointerArg(g, args, "tl.load needs a pointer");
  Value mask = optionalMask(g, args, 1), other;
  const TValue *otherArg = args.get(2);
  if (otherArg && otherArg->kind == TValue::Kind::None)
    otherArg = nullptr;
  if (otherArg && !mask)
    g.fail(args.locs[2], "tl.load: 'other' needs a 'mask'");
  if (mask) {
    // A scalar pointer takes the mask's shape, as in Triton.
    if (shapeOf(mask).size() > shapeOf(ptr).size())
      ptr = g.broadcastTo(ptr, shapeOf(mask), args.locs[0], "the pointer");
    mask = g.broadcastTo(mask, shapeOf(ptr), args.locs[1], "the mask");
  }
  if (otherArg) {
    Value o = g.convertTo(*otherArg, ptrType.getPointeeType(), args.locs[2],
                          "'other'");
    other = g.broadcastTo(o, shapeOf(ptr), args.locs[2], "'other'");
  }
  return TValue::ofValue(tile::LoadOp::create(g.builder, location, ptr, mask,
                                              other, cache, evict, isVolatile),
                         args.get(0)->isUnsigned);
}

TValue store(MLIRGenImpl &g, const BoundArgs &args, const ast::CallExpr &c) {
  Location location = g.loc(c.loc);
  auto [cache, evict] = memoryHints(g, args, 4, /*isLoad=*/false);
  if (args.get(0)->kind == TValue::Kind::BlockPtr) {
    if (args.get(2))
      g.fail(c.loc, "a store through a block pointer takes no mask: its "
                    "boundary_check says which elements exist");
    MLIRGenImpl::BlockAccess access =
        g.blockAccess(*args.get(0), nullptr, args.get(3), nullptr, c.loc);
    Type element =
        llvm::cast<tile::PointerType>(g.dtypeOf(args.get(0)->elements[0]))
            .getPointeeType();
    Value value = g.broadcastTo(
        g.cast(g.toValue(*args.get(1), args.locs[1], "the stored value"),
               element, args.locs[1], args.get(1)->isUnsigned),
        shapeOf(access.ptr), args.locs[1], "the stored value");
    tile::StoreOp::create(g.builder, location, access.ptr, value, access.mask,
                          cache, evict);
    return TValue::none();
  }
  if (givesBoundaryCheck(args.get(3)))
    g.fail(args.locs[3], "boundary_check needs a block pointer: a tile of "
                         "pointers takes a mask");
  auto [ptr, ptrType] =
      pointerArg(g, args, "tl.store needs a pointer to store to");
  Type pointee =
      llvm::cast<tile::PointerType>(g.dtypeOf(*args.get(0))).getPointeeType();
  Value value =
      g.cast(g.toValue(*args.get(1), args.locs[1], "the stored value"), pointee,
             args.locs[1], args.get(1)->isUnsigned);
  Value mask = optionalMask(g, args, 2);
  // The pointer takes the shape of the value or mask it is stored with.
  SmallVector<int64_t> shape(shapeOf(ptr));
  if (shapeOf(value).size() > shape.size())
    shape.assign(shapeOf(value).begin(), shapeOf(value).end());
  ptr = g.broadcastTo(ptr, shape, args.locs[0], "the pointer");
  value = g.broadcastTo(value, shape, args.locs[1], "the stored value");
  if (mask)
    mask = g.broadcastTo(mask, shape, args.locs[2], "the mask");
  tile::StoreOp::create(g.builder, location, ptr, value, mask, cache, evict);
  return TValue::none();
}

/// desc.load(offsets), desc.store(offsets, value): the whole block,
/// bounds-checked.
TValue descriptorAccess(MLIRGenImpl &g, const BoundArgs &args,
                        const ast::CallExpr &c) {
  Location location = g.loc(c.loc);
  const TValue &desc = *args.get(0);
  MLIRGenImpl::BlockAccess access =
      g.blockAccess(desc, args.get(1), nullptr, nullptr, c.loc);
  if (args.function == "tensor_descriptor.load")
    return TValue::ofValue(
        tile::LoadOp::create(g.builder, location, access.ptr, access.mask,
                             access.other, tile::CacheModifier::None,
                             tile::EvictionPolicy::Normal, false),
        desc.elements[0].isUnsigned);
  Type element = llvm::cast<tile::PointerType>(g.dtypeOf(desc.elements[0]))
                     .getPointeeType();
  const TValue &stored = *args.get(2);
  Value value =
      g.broadcastTo(g.cast(g.toValue(stored, args.locs[2], "the stored value"),
                           element, args.locs[2], stored.isUnsigned),
                    shapeOf(access.ptr), args.locs[2], "the stored value");
  tile::StoreOp::create(g.builder, location, access.ptr, value, access.mask,
                        tile::CacheModifier::None,
                        tile::EvictionPolicy::Normal);
  return TValue::none();
}

/// The read-modify-write of `tl.atomic_<op>`, or none for tl.atomic_cas.
std::optional<tile::AtomicRMWKind> atomicKind(StringRef name) {
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

} // namespace

/// tl.atomic_<kind>(pointer, val, mask=None, sem=None, scope=None), or
/// tl.atomic_cas(pointer, cmp, val, sem=None, scope=None) without a kind.
TValue MLIRGenImpl::genAtomic(const BoundArgs &args, const ast::CallExpr &c) {
  Location location = loc(c.loc);
  const std::string &name = args.function;
  std::optional<tile::AtomicRMWKind> kind = atomicKind(name);
  bool cas = !kind;
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
  Value value =
      convertTo(*args.get(valIndex), dtype, args.locs[valIndex], "the value");
  Value cmp =
      cas ? convertTo(*args.get(1), dtype, args.locs[1], "the compared value")
          : Value();
  Value mask = cas ? Value() : optionalMask(*this, args, 2);
  // Triton's strings; None takes its defaults (acq_rel, gpu).
  auto stringArg = [&](unsigned i,
                       StringRef what) -> std::optional<std::string> {
    const TValue *v = args.get(i);
    if (!v || v->kind == TValue::Kind::None)
      return std::nullopt;
    if (v->kind != TValue::Kind::String)
      fail(args.locs[i], what + " must be a string, got " + describe(*v));
    return v->text();
  };
  tile::MemSemantic sem = tile::MemSemantic::AcqRel;
  if (std::optional<std::string> s = stringArg(semIndex, "sem")) {
    std::optional<tile::MemSemantic> parsed = tile::symbolizeMemSemantic(*s);
    if (!parsed)
      fail(args.locs[semIndex],
           "sem must be 'relaxed', 'acquire', 'release' or "
           "'acq_rel', got '" +
               *s + "'");
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

namespace {

#define ATOMIC(NAME, WHAT)                                                     \
  {                                                                            \
    "tl.atomic_" NAME, "pointer, val, mask=None, sem=None, scope=None",        \
        Kind::Both, member<&MLIRGenImpl::genAtomic>, WHAT                      \
  }
const BuiltinSpec kMemory[] = {
    {"tl.load",
     "pointer, mask=None, other=None, boundary_check=(), "
     "padding_option=\"\", cache_modifier=\"\", eviction_policy=\"\", "
     "volatile=False",
     Kind::Both, load,
     "loads through a pointer, a tile of pointers or a block pointer"},
    {"tl.store",
     "pointer, value, mask=None, boundary_check=(), cache_modifier=\"\", "
     "eviction_policy=\"\"",
     Kind::Both, store,
     "stores through a pointer, a tile of pointers or a block pointer"},
    ATOMIC("add", "adds; returns the old values (fp16, bf16, fp32, fp64, "
                  "int32, int64)"),
    ATOMIC("max", "maximum; unsigned through a pointer to unsigned"),
    ATOMIC("min", "minimum; unsigned through a pointer to unsigned"),
    ATOMIC("and", "bitwise and (int32, int64)"),
    ATOMIC("or", "bitwise or (int32, int64)"),
    ATOMIC("xor", "bitwise xor (int32, int64)"),
    ATOMIC("xchg", "exchange"),
    {"tl.atomic_cas", "pointer, cmp, val, sem=None, scope=None", Kind::Both,
     member<&MLIRGenImpl::genAtomic>,
     "compare and swap (16-, 32- and 64-bit elements)"},
    {"tensor_descriptor.load", "self, offsets", Kind::Method, descriptorAccess,
     "loads the block at offsets, bounds-checked"},
    {"tensor_descriptor.store", "self, offsets, value", Kind::Method,
     descriptorAccess, "stores a block at offsets, bounds-checked"},
};
#undef ATOMIC

} // namespace

ArrayRef<BuiltinSpec> tilec::getMemoryBuiltins() { return kMemory; }
