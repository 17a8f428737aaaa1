//===- AtomicToLLVM.cpp - Atomic read-modify-writes of global memory ------===//
//
// Each group of consecutive elements a thread holds is one PTX `atom`,
// guarded by a predicate: the group's mask, and that this thread owns the
// elements (no thread owns padding). Groups are as wide as the layout, the
// axis analysis and the target allow: sm_90 adds up to 16 bytes of f32, f16
// or bf16 in one instruction; elsewhere a group is one element.
//
// The memory order is carried by fences around relaxed atoms, not by each
// `atom`: the elements of one tile atomic are unordered among themselves,
// so a thread's groups need one release fence before them all and one
// acquire fence after them all (PTX's release and acquire patterns), where
// an `atom.acq_rel` per group waits out a full fence and a round trip each,
// one after another (split-K's epilogue: 8 `atom.acq_rel` per thread cost
// 6.6 us of a 46 us kernel on the H100). A fence is left out where it has
// nothing to order: no access to global memory that such a fence orders
// precedes the atomic (release) or follows it (acquire) in the kernel.
// Triton programs have no shared memory of their own, and the copy
// engine's reads (bulk tensor copies) are in the async proxy, which these
// fences do not order; so split-K, whose loads are bulk copies, needs
// neither fence (1 us more).
// Replicated layouts give several threads a copy of an element, and each
// copy must not add again; a scalar atomic is one per program, done by
// thread 0. Where the old values are used, the owners share them with the
// copies through shared memory (barrier, owners write, barrier, everyone
// reads), as Triton does.
//
// bf16 has `atom.add.noftz.bf16` from sm_90 only: on sm_80 a bf16 add is a
// compare-and-swap loop.
//
//===----------------------------------------------------------------------===//

#include "Utility.h"

#include "tilec/Conversion/TileGPUToNVVM/TileGPUToNVVM.h"
#include "tilec/Dialect/TileGPU/IR/GlobalAccess.h"
#include "tilec/Dialect/TileGPU/IR/Target.h"
#include "tilec/Dialect/TileGPU/IR/TileGPU.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::tilegpu;

namespace {

/// LLVM's sync scope of a memory scope (NVPTX: fence.acq_rel.gpu, .cta,
/// .sys).
StringRef syncScope(tile::MemScope scope) {
  switch (scope) {
  case tile::MemScope::GPU:
    return "device";
  case tile::MemScope::CTA:
    return "block";
  case tile::MemScope::System:
    return "";
  }
  llvm_unreachable("unknown memory scope");
}

StringRef scopeSuffix(tile::MemScope scope) {
  switch (scope) {
  case tile::MemScope::GPU:
    return ".gpu";
  case tile::MemScope::CTA:
    return ".cta";
  case tile::MemScope::System:
    return ".sys";
  }
  llvm_unreachable("unknown memory scope");
}

/// Inline-asm register class of a `bits`-wide integer.
StringRef regClass(unsigned bits) {
  return bits == 16 ? "h" : bits == 32 ? "r" : "l";
}

/// PTX of one predicated atomic add of `width` consecutive elements: $0..
/// the old values (0 where the predicate is false), then the address, the
/// values and the predicate. `nativeBF16`: the target has
/// `atom.add.noftz.bf16` (sm_90); without it a bf16 add (of one element)
/// is a compare-and-swap loop. `returnsOld` false: the old values are not
/// wanted, and the add is a `red` with no results (operands from $0), which
/// the thread need not wait for.
std::string atomicAddPTX(Type element, unsigned width, StringRef order,
                         bool nativeBF16, bool returnsOld) {
  unsigned bits = element.getIntOrFloatBitWidth();
  unsigned results = returnsOld ? width : 0;
  unsigned address = results, pred = results + width + 1;
  std::string init;
  for (unsigned i = 0; i < results; ++i)
    init += llvm::formatv("mov.b{0} ${1}, 0;\n\t", bits, i);
  if (element.isBF16() && !nativeBF16) {
    assert(returnsOld && "the compare-and-swap loop returns the old value");
    assert(width == 1 && "no vector of bf16 adds without sm_90");
    // cur = *p; do { new = bf16(f32(cur) + f32(v)); } while (!cas(p, cur, new))
    // Rounding the f32 sum to bf16 gives the correctly rounded bf16 sum
    // (24 >= 2 * 8 + 2 bits). Built by hand: formatv would read the braces
    // of the block and of ${:uid}.
    std::string o = order.str();
    return init + "{\n\t"
                  ".reg .pred %atom_retry;\n\t"
                  ".reg .b16 %atom_cur, %atom_new;\n\t"
                  ".reg .f32 %atom_a, %atom_b;\n\t"
                  "@!$3 bra atom_done_${:uid};\n\t"
                  "ld.global.b16 %atom_cur, [ $1 + 0 ];\n\t"
                  "cvt.f32.bf16 %atom_b, $2;\n"
                  "atom_retry_${:uid}:\n\t"
                  "cvt.f32.bf16 %atom_a, %atom_cur;\n\t"
                  "add.rn.f32 %atom_a, %atom_a, %atom_b;\n\t"
                  "cvt.rn.bf16.f32 %atom_new, %atom_a;\n\t"
                  "atom" + o + ".global.cas.b16 $0, [ $1 + 0 ], %atom_cur, %atom_new;\n\t"
                  "setp.ne.b16 %atom_retry, $0, %atom_cur;\n\t"
                  "mov.b16 %atom_cur, $0;\n\t"
                  "@%atom_retry bra atom_retry_${:uid};\n"
                  "atom_done_${:uid}:\n\t"
                  "}";
  }
  std::string vector = width > 1 ? ".v" + std::to_string(width) : "";
  std::string type = element.isF16()    ? ".noftz" + vector + ".f16"
                     : element.isBF16() ? ".noftz" + vector + ".bf16"
                     : element.isF32()  ? vector + ".f32"
                     : element.isF64()  ? ".f64"
                     : bits == 32       ? ".u32"
                                        : ".u64";
  if (!returnsOld)
    return llvm::formatv("@${0} red{1}.global.add{2} [ ${3} + 0 ], {4};", pred,
                         order, type, address,
                         getPTXOperandList(address + 1, width))
        .str();
  return init + llvm::formatv("@${0} atom{1}.global.add{2} {3}, [ ${4} + 0 ], {5};",
                              pred, order, type, getPTXOperandList(0, width),
                              address, getPTXOperandList(width + 1, width))
                    .str();
}

/// PTX of one predicated atomic of one element other than an add: $0 the
/// old value (0 where no predicate holds), $1 the address, then the values
/// (`val`, or `cmp` and `val` for a compare-and-swap) as integer bits, then
/// the predicates. Float max and min take two predicates, for a value with
/// its sign bit clear and set: PTX has no float max/min atom, but a signed
/// max (min) of the bits orders non-negative floats and an unsigned min
/// (max) negative ones, as Triton does.
std::string atomicPTX(std::optional<tile::AtomicRMWKind> kind, Type element,
                      StringRef order) {
  unsigned bits = element.getIntOrFloatBitWidth();
  std::string init = llvm::formatv("mov.b{0} $0, 0;\n\t", bits).str();
  std::string atom = ("atom" + order + ".global.").str();
  if (!kind)
    return init + llvm::formatv("@$4 {0}cas.b{1} $0, [ $1 + 0 ], $2, $3;", atom,
                                bits)
                      .str();
  bool isFloat = isa<FloatType>(element);
  switch (*kind) {
  case tile::AtomicRMWKind::Max:
  case tile::AtomicRMWKind::Min: {
    bool max = *kind == tile::AtomicRMWKind::Max;
    StringRef op = max ? "max" : "min", other = max ? "min" : "max";
    if (!isFloat)
      return init + llvm::formatv("@$3 {0}{1}.s{2} $0, [ $1 + 0 ], $2;", atom,
                                  op, bits)
                        .str();
    return init + llvm::formatv("@$3 {0}{1}.s{3} $0, [ $1 + 0 ], $2;\n\t"
                                "@$4 {0}{2}.u{3} $0, [ $1 + 0 ], $2;",
                                atom, op, other, bits)
                      .str();
  }
  case tile::AtomicRMWKind::UMax:
  case tile::AtomicRMWKind::UMin:
    return init + llvm::formatv("@$3 {0}{1}.u{2} $0, [ $1 + 0 ], $2;", atom,
                                *kind == tile::AtomicRMWKind::UMax ? "max" : "min",
                                bits)
                      .str();
  case tile::AtomicRMWKind::And:
  case tile::AtomicRMWKind::Or:
  case tile::AtomicRMWKind::Xor:
  case tile::AtomicRMWKind::Xchg: {
    StringRef op = *kind == tile::AtomicRMWKind::And  ? "and"
                   : *kind == tile::AtomicRMWKind::Or ? "or"
                   : *kind == tile::AtomicRMWKind::Xor ? "xor"
                                                        : "exch";
    return init + llvm::formatv("@$3 {0}{1}.b{2} $0, [ $1 + 0 ], $2;", atom, op,
                                bits)
                      .str();
  }
  case tile::AtomicRMWKind::Add:
    break;
  }
  llvm_unreachable("adds have their own PTX");
}

Value bitcastTo(OpBuilder &b, Location loc, Value v, Type type) {
  return v.getType() == type ? v : LLVM::BitcastOp::create(b, loc, type, v);
}

/// tile.atomic_rmw and tile.atomic_cas: one predicated `atom` per group of
/// elements (per element but for vector adds), by the elements' owners.
template <typename AtomicOp>
struct AtomicToLLVM : OpConversionPattern<AtomicOp> {
  using OpAdaptor = typename OpConversionPattern<AtomicOp>::OneToNOpAdaptor;

  AtomicToLLVM(const TypeConverter &converter, MLIRContext *context,
               const VectorWidths &widths, const AtomicFenceMap &fences)
      : OpConversionPattern<AtomicOp>(converter, context), widths(widths),
        fences(fences) {}

  LogicalResult
  matchAndRewrite(AtomicOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type element = this->getTypeConverter()->convertType(
        getElementTypeOrSelf(op.getType()));
    unsigned bits = element.getIntOrFloatBitWidth();
    Type word = rewriter.getIntegerType(bits);
    ValueRange ptrs = adaptor.getPtr();
    unsigned n = ptrs.size();
    std::optional<tile::AtomicRMWKind> kind;
    SmallVector<ValueRange> values; // per operand, per element
    ValueRange masks;
    if constexpr (std::is_same_v<AtomicOp, tile::AtomicRMWOp>) {
      kind = op.getKind();
      values.push_back(adaptor.getVal());
      if (op.getMask())
        masks = adaptor.getMask();
    } else {
      values.push_back(adaptor.getCmp());
      values.push_back(adaptor.getVal());
    }

    // Which elements this thread owns; empty when it owns all it holds.
    // Ownership is the same across a group: copies differ in thread bits,
    // and groups never mix real elements with padding.
    auto tensorType = dyn_cast<RankedTensorType>(op.getType());
    std::optional<ThreadLayout> layout;
    SmallVector<Value> owned;
    if (tensorType) {
      layout = getThreadLayout(tensorType);
      owned = emitOwnership(rewriter, loc, *layout);
    } else {
      owned.push_back(emitIsFirstThread(rewriter, loc));
    }

    unsigned computeCapability = getComputeCapability(op);
    unsigned width = 1;
    if (kind == tile::AtomicRMWKind::Add) {
      auto it = widths.find(op);
      width = std::min<unsigned>(
          it == widths.end() ? 1 : it->second.vector,
          getMaxAtomicAddBytes(element, computeCapability) / (bits / 8));
      width = clampGroupWidth(op.getPtr(), width, n);
    }
    bool signPredicates = (kind == tile::AtomicRMWKind::Max ||
                           kind == tile::AtomicRMWKind::Min) &&
                          isa<FloatType>(element);

    // The order's fences around relaxed atoms (the file's comment says why).
    tile::MemSemantic sem = op.getSem();
    AtomicFences needed = fences.lookup(op);
    bool release = needed.release && (sem == tile::MemSemantic::Release ||
                                      sem == tile::MemSemantic::AcqRel);
    bool acquire = needed.acquire && (sem == tile::MemSemantic::Acquire ||
                                      sem == tile::MemSemantic::AcqRel);
    StringRef scope = syncScope(op.getScope());
    auto fence = [&] {
      LLVM::FenceOp::create(rewriter, loc, LLVM::AtomicOrdering::acq_rel,
                            scope);
    };
    std::string order = (".relaxed" + scopeSuffix(op.getScope())).str();
    // An add whose old values nobody reads is a `red` (split-K's epilogue),
    // but for sm_80's bf16 compare-and-swap loop.
    bool nativeBF16 = computeCapability >= 90;
    bool returnsOld = kind != tile::AtomicRMWKind::Add ||
                      !op.getResult().use_empty() ||
                      (element.isBF16() && !nativeBF16);
    std::string asmText =
        kind == tile::AtomicRMWKind::Add
            ? atomicAddPTX(element, width, order, nativeBF16, returnsOld)
            : atomicPTX(kind, element, order);
    std::string reg = regClass(bits).str(), constraints;
    for (unsigned i = 0; returnsOld && i < width; ++i)
      constraints += "=" + reg + ",";
    constraints += "l";
    for (unsigned i = 0; i < width * values.size(); ++i)
      constraints += "," + reg;
    constraints += signPredicates ? ",b,b" : ",b";
    if (release)
      fence();
    SmallVector<Value> olds;
    for (unsigned g = 0; g < n; g += width) {
      Value pred = masks.empty() ? Value() : masks[g];
      if (!owned.empty())
        pred = pred ? LLVM::AndOp::create(rewriter, loc, pred, owned[g])
                    : owned[g];
      if (!pred)
        pred = LLVM::ConstantOp::create(rewriter, loc, rewriter.getI1Type(),
                                        rewriter.getBoolAttr(true));
      SmallVector<Value> operands = {ptrs[g]};
      for (ValueRange operand : values)
        for (unsigned i = 0; i < width; ++i)
          operands.push_back(bitcastTo(rewriter, loc, operand[g + i], word));
      if (signPredicates) {
        // The value's sign bit decides which of the two atoms runs.
        Value negative = LLVM::ICmpOp::create(
            rewriter, loc, LLVM::ICmpPredicate::slt, operands.back(),
            LLVM::ConstantOp::create(rewriter, loc, word,
                                     rewriter.getIntegerAttr(word, 0)));
        Value one = LLVM::ConstantOp::create(rewriter, loc, rewriter.getI1Type(),
                                             rewriter.getBoolAttr(true));
        operands.push_back(LLVM::AndOp::create(
            rewriter, loc, pred, LLVM::XOrOp::create(rewriter, loc, negative, one)));
        operands.push_back(LLVM::AndOp::create(rewriter, loc, pred, negative));
      } else {
        operands.push_back(pred);
      }
      SmallVector<Type> wordTypes(returnsOld ? width : 0, word);
      for (Value old : emitPTX(rewriter, loc, asmText, constraints, operands,
                               wordTypes, /*hasSideEffects=*/true))
        olds.push_back(bitcastTo(rewriter, loc, old, element));
    }
    if (!returnsOld)
      olds.assign(n, LLVM::PoisonOp::create(rewriter, loc, element));
    if (acquire)
      fence();

    if (!owned.empty() && !op.getResult().use_empty())
      olds = shareFromOwners(rewriter, op, olds, owned, layout);
    rewriter.replaceOpWithMultiple(op, {olds});
    return success();
  }

  /// The owners' values of every element, for every thread holding it:
  /// each owner writes its elements to shared memory at their row-major
  /// index, and every thread reads back the elements it holds.
  SmallVector<Value> shareFromOwners(ConversionPatternRewriter &rewriter,
                                     Operation *op, ArrayRef<Value> olds,
                                     ArrayRef<Value> owned,
                                     const std::optional<ThreadLayout> &layout) const {
    Location loc = op->getLoc();
    Type element = olds.front().getType();
    unsigned bits = element.getIntOrFloatBitWidth();
    Type word = rewriter.getIntegerType(bits);
    SmallVector<int64_t> shape;
    if (layout)
      shape = layout->getPaddedTensorShape();
    Value base = getSharedMemoryBase(
        rewriter, loc, op, ShapedType::getNumElements(shape) * (bits / 8));

    SmallVector<SmallVector<Value>> indices;
    if (layout)
      indices = emitElementIndices(rewriter, loc, *layout);
    else
      indices.push_back({});
    auto slotAddress = [&](ArrayRef<Value> index) -> Value {
      if (index.empty())
        return base;
      Value linear = linearizeRowMajor(rewriter, loc, index, shape);
      return LLVM::GEPOp::create(rewriter, loc, base.getType(), element, base,
                                 ValueRange{linear});
    };

    // Only owners write (a copy holds 0, not the old value).
    emitBarrier(rewriter, loc);
    for (auto [e, index] : llvm::enumerate(indices))
      emitPredicatedSharedStore(rewriter, loc, slotAddress(index),
                                bitcastTo(rewriter, loc, olds[e], word),
                                owned[e]);
    emitBarrier(rewriter, loc);
    SmallVector<Value> shared;
    for (ArrayRef<Value> index : indices)
      shared.push_back(
          LLVM::LoadOp::create(rewriter, loc, element, slotAddress(index)));
    return shared;
  }

  const VectorWidths &widths;
  const AtomicFenceMap &fences;
};

} // namespace

AtomicFenceMap mlir::tilegpu::computeAtomicFences(ModuleOp module) {
  AtomicFenceMap fences;
  module.walk([&](Operation *op) {
    if (!isa<tile::AtomicRMWOp, tile::AtomicCASOp>(op))
      return;
    // In a loop or a branch the atomic may precede or follow itself, or
    // accesses the walk below does not see in program order: fence both
    // sides.
    if (!isa<FunctionOpInterface>(op->getParentOp()))
      return;
    Block *body = op->getBlock();
    // A fence at any scope orders the generic proxy's accesses, not the
    // copy engine's.
    fences[op] = {mayAccessGlobalMemory(body->begin(), op->getIterator(),
                                        GlobalProxy::Generic),
                  mayAccessGlobalMemory(std::next(op->getIterator()),
                                        body->end(), GlobalProxy::Generic)};
  });
  return fences;
}

void mlir::tilegpu::populateAtomicToLLVMPatterns(
    const TileGPUTypeConverter &converter, const VectorWidths &widths,
    const AtomicFenceMap &fences, RewritePatternSet &patterns) {
  patterns.add<AtomicToLLVM<tile::AtomicRMWOp>, AtomicToLLVM<tile::AtomicCASOp>>(
      converter, patterns.getContext(), widths, fences);
}
