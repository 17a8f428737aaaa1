//===- LoadStoreToLLVM.cpp - Predicated, vectorized global accesses -------===//
//
// A thread's elements are accessed in groups of `width` consecutive ones,
// which the layout keeps adjacent and the axis analysis proved contiguous,
// aligned and equally masked. Each group is one PTX `ld.global` or
// `st.global` of up to 16 bytes (v4.b32), guarded by its mask predicate, as
// Triton does: LLVM cannot express a predicated vector access itself.
// Padding (see ThreadLayout) is never accessed: its predicate is false, and
// groups are narrow enough that none straddles the end of a tile.
//
//===----------------------------------------------------------------------===//

#include "Utility.h"

#include "tilec/Conversion/TileGPUToNVVM/TileGPUToNVVM.h"
#include "tilec/Dialect/Tile/Analysis/AxisInfo.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::tilegpu;

namespace {

/// How a group of `width` elements of `bits` each travels: as `words`
/// registers of `wordBits`.
struct Packing {
  unsigned width, elemBits, wordBits, words;
  Packing(unsigned width, unsigned elemBits)
      : width(width), elemBits(elemBits) {
    unsigned total = width * elemBits;
    // Narrow elements pack into 32-bit words; 64-bit ones travel whole.
    wordBits = std::max(std::min(total, 32u), elemBits);
    words = total / wordBits;
  }
  /// Suffix of the PTX access: ".v4.b32", ".b16", ...
  std::string suffix() const {
    std::string s = words > 1 ? ".v" + std::to_string(words) : "";
    return s + ".b" + std::to_string(wordBits);
  }
  /// Inline-asm register class of a word.
  StringRef regClass() const {
    return wordBits == 64 ? "l" : wordBits == 32 ? "r" : wordBits == 16 ? "h" : "c";
  }
  /// The words' inline-asm operands from `first`.
  std::string operandList(unsigned first) const {
    return getPTXOperandList(first, words);
  }
};

/// Packs `elems` (memory form) into words of the packing.
SmallVector<Value> packWords(OpBuilder &b, Location loc, ArrayRef<Value> elems,
                             const Packing &p) {
  Type wordType = b.getIntegerType(p.wordBits);
  unsigned perWord = p.wordBits / p.elemBits;
  SmallVector<Value> words;
  for (unsigned w = 0; w < p.words; ++w) {
    Value word = packVector(b, loc, elems.slice(w * perWord, perWord));
    words.push_back(word.getType() == wordType
                        ? word
                        : LLVM::BitcastOp::create(b, loc, wordType, word));
  }
  return words;
}

/// Unpacks words into `p.width` elements of `elemType` (memory form).
SmallVector<Value> unpackWords(OpBuilder &b, Location loc, ArrayRef<Value> words,
                               Type elemType, const Packing &p) {
  unsigned perWord = p.wordBits / p.elemBits;
  SmallVector<Value> elems;
  Type vecType = perWord == 1 ? elemType : VectorType::get({perWord}, elemType);
  for (Value word : words) {
    Value vec = word.getType() == vecType
                    ? word
                    : LLVM::BitcastOp::create(b, loc, vecType, word);
    llvm::append_range(elems, unpackVector(b, loc, vec, perWord));
  }
  return elems;
}

/// Per group starting at element `g`, the predicate of its access: its
/// mask, and that it is no padding; for a store, that this thread owns the
/// group. A layout that replicates a tile (smaller than the CTA) gives
/// several threads a copy of each element: as in Triton, only the owner
/// stores it, so that a copy computed late, from a load that saw an
/// earlier store of the same program (an in-place update, Liger's cross
/// entropy gradient with 32 warps over 8 columns), never lands.
struct GroupPredicate {
  ValueRange mask;
  SmallVector<Value> valid;

  GroupPredicate(OpBuilder &b, Location loc, Value ptr, ValueRange mask,
                 bool ownersOnly = false)
      : mask(mask) {
    auto type = dyn_cast<RankedTensorType>(ptr.getType());
    if (!type)
      return;
    ThreadLayout layout = getThreadLayout(type);
    // Owners hold no padding: ownership implies validity.
    if (ownersOnly)
      valid = emitOwnership(b, loc, layout);
    if (valid.empty())
      valid = emitValidity(b, loc, layout);
  }

  Value operator()(OpBuilder &b, Location loc, unsigned g) const {
    Value pred = mask.empty() ? Value() : mask[g];
    if (!valid.empty())
      pred = pred ? LLVM::AndOp::create(b, loc, pred, valid[g]) : valid[g];
    if (!pred)
      pred = LLVM::ConstantOp::create(b, loc, b.getI1Type(), b.getBoolAttr(true));
    return pred;
  }
};

/// Width of the groups for `op`: the axis analysis's, clamped to the layout.
unsigned groupWidth(Operation *op, Value ptr, const VectorWidths &widths,
                    unsigned numElems) {
  auto it = widths.find(op);
  return clampGroupWidth(ptr, it == widths.end() ? 1 : it->second.vector,
                         numElems);
}

/// A global access's PTX cache operator (`.cg`...), or else its L1
/// eviction priority (`.L1::evict_last`): PTX's ld and st take one or the
/// other, and a cache operator says more.
std::string cacheModifiers(tile::CacheModifier cache,
                           tile::EvictionPolicy evict) {
  if (cache != tile::CacheModifier::None)
    return "." + tile::stringifyCacheModifier(cache).str();
  switch (evict) {
  case tile::EvictionPolicy::EvictFirst:
    return ".L1::evict_first";
  case tile::EvictionPolicy::EvictLast:
    return ".L1::evict_last";
  case tile::EvictionPolicy::Normal:
    break;
  }
  return "";
}

struct LoadToLLVM : OpConversionPattern<tile::LoadOp> {
  LoadToLLVM(const TypeConverter &converter, MLIRContext *context,
             const VectorWidths &widths)
      : OpConversionPattern(converter, context), widths(widths) {}

  LogicalResult
  matchAndRewrite(tile::LoadOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type element = getTypeConverter()->convertType(
        getElementTypeOrSelf(op.getType()));
    Type memType = getMemoryType(element);
    ValueRange ptrs = adaptor.getPtr();
    unsigned n = ptrs.size();
    unsigned width = groupWidth(op, op.getPtr(), widths, n);
    Packing p(width, getMemoryBits(memType));
    GroupPredicate predicate(rewriter, loc, op.getPtr(), adaptor.getMask());

    SmallVector<Value> results;
    for (unsigned g = 0; g < n; g += width) {
      Value pred = predicate(rewriter, loc, g);
      SmallVector<Value> others;
      for (unsigned i = 0; i < width; ++i)
        others.push_back(
            op.getOther()
                ? toMemoryForm(rewriter, loc, adaptor.getOther()[g + i])
                : LLVM::ZeroOp::create(rewriter, loc, memType).getResult());
      SmallVector<Value> otherWords = packWords(rewriter, loc, others, p);

      // $0..$w-1: results; $w: address; $w+1: predicate; then the others.
      std::string asmText;
      for (unsigned w = 0; w < p.words; ++w)
        asmText += llvm::formatv("mov.b{0} ${1}, ${2};\n\t",
                                 std::max(p.wordBits, 16u), w, p.words + 2 + w);
      asmText += llvm::formatv(
          "@${0} ld{1}.global{2}{3} {4}, [ ${5} + 0 ];", p.words + 1,
          op.getIsVolatile() ? ".volatile" : "",
          cacheModifiers(op.getCache(), op.getEvict()), p.suffix(),
          p.operandList(0), p.words);
      std::string constraints;
      for (unsigned w = 0; w < p.words; ++w)
        constraints += "=" + p.regClass().str() + ",";
      constraints += "l,b";
      for (unsigned w = 0; w < p.words; ++w)
        constraints += "," + p.regClass().str();

      SmallVector<Value> operands = {ptrs[g], pred};
      llvm::append_range(operands, otherWords);
      SmallVector<Type> wordTypes(p.words, rewriter.getIntegerType(p.wordBits));
      SmallVector<Value> words =
          emitPTX(rewriter, loc, asmText, constraints, operands, wordTypes,
                  /*hasSideEffects=*/true);
      for (Value v : unpackWords(rewriter, loc, words, memType, p))
        results.push_back(fromMemoryForm(rewriter, loc, v, element));
    }
    rewriter.replaceOpWithMultiple(op, {results});
    return success();
  }

  const VectorWidths &widths;
};

struct StoreToLLVM : OpConversionPattern<tile::StoreOp> {
  StoreToLLVM(const TypeConverter &converter, MLIRContext *context,
              const VectorWidths &widths)
      : OpConversionPattern(converter, context), widths(widths) {}

  LogicalResult
  matchAndRewrite(tile::StoreOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    ValueRange ptrs = adaptor.getPtr();
    ValueRange values = adaptor.getValue();
    unsigned n = ptrs.size();
    unsigned width = groupWidth(op, op.getPtr(), widths, n);
    Type memType = getMemoryType(values.front().getType());
    Packing p(width, getMemoryBits(memType));
    GroupPredicate predicate(rewriter, loc, op.getPtr(), adaptor.getMask(),
                             /*ownersOnly=*/true);

    for (unsigned g = 0; g < n; g += width) {
      Value pred = predicate(rewriter, loc, g);
      SmallVector<Value> elems;
      for (unsigned i = 0; i < width; ++i)
        elems.push_back(toMemoryForm(rewriter, loc, values[g + i]));
      SmallVector<Value> words = packWords(rewriter, loc, elems, p);
      // $0: address; $1..$w: words; $w+1: predicate.
      std::string asmText =
          llvm::formatv("@${0} st.global{1}{2} [ $0 + 0 ], {3};", p.words + 1,
                        cacheModifiers(op.getCache(), op.getEvict()),
                        p.suffix(), p.operandList(1));
      std::string constraints = "l";
      for (unsigned w = 0; w < p.words; ++w)
        constraints += "," + p.regClass().str();
      constraints += ",b";
      SmallVector<Value> operands = {ptrs[g]};
      llvm::append_range(operands, words);
      operands.push_back(pred);
      emitPTX(rewriter, loc, asmText, constraints, operands, {},
              /*hasSideEffects=*/true);
    }
    rewriter.eraseOp(op);
    return success();
  }

  const VectorWidths &widths;
};

} // namespace

void mlir::tilegpu::populateLoadStoreToLLVMPatterns(
    const TileGPUTypeConverter &converter, const VectorWidths &widths,
    RewritePatternSet &patterns) {
  patterns.add<LoadToLLVM, StoreToLLVM>(converter, patterns.getContext(),
                                        widths);
}
