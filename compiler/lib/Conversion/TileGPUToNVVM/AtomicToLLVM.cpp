//===- AtomicToLLVM.cpp - Atomic read-modify-writes of global memory ------===//
//
// Each element a thread holds is one PTX `atom`, guarded by a predicate:
// the element's mask, and that this thread owns the element (no thread owns
// padding). Replicated layouts give several threads a copy of an element,
// and each copy must not add again; a scalar atomic is one per program, done
// by thread 0. Where the old values are used, the owners share them with the
// copies through shared memory (barrier, owners write, barrier, everyone
// reads), as Triton does.
//
// bf16 has `atom.add.noftz.bf16` from sm_90 only, and this pass does not
// know the target: it adds bf16 with a compare-and-swap loop, which both
// sm_80 and sm_90 run.
//
//===----------------------------------------------------------------------===//

#include "Utility.h"

#include "tilec/Conversion/TileGPUToNVVM/TileGPUToNVVM.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::tilegpu;

namespace {

StringRef semanticSuffix(tile::MemSemantic sem) {
  switch (sem) {
  case tile::MemSemantic::Relaxed:
    return ".relaxed";
  case tile::MemSemantic::Acquire:
    return ".acquire";
  case tile::MemSemantic::Release:
    return ".release";
  case tile::MemSemantic::AcqRel:
    return ".acq_rel";
  }
  llvm_unreachable("unknown memory semantic");
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

/// PTX of one predicated atomic add: $0 the old value (0 where the predicate
/// is false), $1 the address, $2 the value, $3 the predicate.
std::string atomicAddPTX(Type element, StringRef order) {
  unsigned bits = element.getIntOrFloatBitWidth();
  std::string init = llvm::formatv("mov.b{0} $0, 0;\n\t", bits);
  if (element.isBF16()) {
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
  std::string type = element.isF16()    ? ".noftz.f16"
                     : element.isF32()  ? ".f32"
                     : element.isF64()  ? ".f64"
                     : bits == 32       ? ".u32"
                                        : ".u64";
  return init + llvm::formatv("@$3 atom{0}.global.add{1} $0, [ $1 + 0 ], $2;",
                              order, type)
                    .str();
}

Value bitcastTo(OpBuilder &b, Location loc, Value v, Type type) {
  return v.getType() == type ? v : LLVM::BitcastOp::create(b, loc, type, v);
}

struct AtomicRMWToLLVM : OpConversionPattern<tile::AtomicRMWOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(tile::AtomicRMWOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type element =
        getTypeConverter()->convertType(getElementTypeOrSelf(op.getType()));
    unsigned bits = element.getIntOrFloatBitWidth();
    Type word = rewriter.getIntegerType(bits);
    ValueRange ptrs = adaptor.getPtr();
    ValueRange vals = adaptor.getVal();
    unsigned n = ptrs.size();

    // Which elements this thread owns; empty when it owns all it holds.
    auto tensorType = dyn_cast<RankedTensorType>(op.getType());
    std::optional<ThreadLayout> layout;
    SmallVector<Value> owned;
    if (tensorType) {
      layout = getThreadLayout(tensorType);
      owned = emitOwnership(rewriter, loc, *layout);
    } else {
      Value tid = NVVM::ThreadIdXOp::create(rewriter, loc, rewriter.getI32Type());
      owned.push_back(LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::eq,
                                           tid, i32Constant(rewriter, loc, 0)));
    }

    std::string order =
        (semanticSuffix(op.getSem()) + scopeSuffix(op.getScope())).str();
    std::string asmText = atomicAddPTX(element, order);
    std::string constraints =
        llvm::formatv("={0},l,{0},b", regClass(bits)).str();
    SmallVector<Value> olds;
    for (unsigned e = 0; e < n; ++e) {
      Value pred = op.getMask() ? adaptor.getMask()[e] : Value();
      if (!owned.empty())
        pred = pred ? LLVM::AndOp::create(rewriter, loc, pred, owned[e])
                    : owned[e];
      if (!pred)
        pred = LLVM::ConstantOp::create(rewriter, loc, rewriter.getI1Type(),
                                        rewriter.getBoolAttr(true));
      Value val = bitcastTo(rewriter, loc, vals[e], word);
      Value old = emitPTX(rewriter, loc, asmText, constraints,
                          {ptrs[e], val, pred}, {word},
                          /*hasSideEffects=*/true)
                      .front();
      olds.push_back(bitcastTo(rewriter, loc, old, element));
    }

    if (!owned.empty() && !op.getResult().use_empty())
      olds = shareFromOwners(rewriter, op, olds, owned, layout);
    rewriter.replaceOpWithMultiple(op, {olds});
    return success();
  }

  /// The owners' values of every element, for every thread holding it:
  /// each owner writes its elements to shared memory at their row-major
  /// index, and every thread reads back the elements it holds.
  SmallVector<Value> shareFromOwners(ConversionPatternRewriter &rewriter,
                                     tile::AtomicRMWOp op, ArrayRef<Value> olds,
                                     ArrayRef<Value> owned,
                                     const std::optional<ThreadLayout> &layout) const {
    Location loc = op.getLoc();
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
    NVVM::Barrier0Op::create(rewriter, loc);
    for (auto [e, index] : llvm::enumerate(indices))
      emitPredicatedSharedStore(rewriter, loc, slotAddress(index),
                                bitcastTo(rewriter, loc, olds[e], word),
                                owned[e]);
    NVVM::Barrier0Op::create(rewriter, loc);
    SmallVector<Value> shared;
    for (ArrayRef<Value> index : indices)
      shared.push_back(
          LLVM::LoadOp::create(rewriter, loc, element, slotAddress(index)));
    return shared;
  }
};

} // namespace

void mlir::tilegpu::populateAtomicToLLVMPatterns(
    const TileGPUTypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<AtomicRMWToLLVM>(converter, patterns.getContext());
}
