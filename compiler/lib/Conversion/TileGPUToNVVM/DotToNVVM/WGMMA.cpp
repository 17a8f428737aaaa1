//===- WGMMA.cpp - tl.dot on Hopper's wgmma --------------------------------===//
//
// The accumulator (mma encoding version 3) sits in the registers wgmma
// reads and writes: each warpgroup issues one m64nNk16 per K step for each
// 64-row and N-column repetition of its share of the tile. An A computed
// in registers (attention's probabilities) is read from them, four
// registers of mma.sync's A fragment per instruction. B, and A where it was
// loaded, are in shared memory, where tilegpu-pipeline staged them in the
// panelled swizzled layout (SharedLayout.h) that wgmma's descriptors
// describe (the facts, checked on the GPU by bench/wgmma_probe.py, are in
// docs/hopper-facts.md):
//
//   - a K-major operand (A stored M x K, B stored N x K) has rows of one
//     panel's swizzle width S, eight rows SBO = 8 S apart; a K step (16
//     halves, or 8 floats read as tf32) is 32 bytes into the row, then the
//     next panel;
//   - an M- or N-major operand (A stored K x M, B stored K x N) takes the
//     transpose flag (f16 and bf16 only: tilegpu-pipeline stores tf32
//     operands K-major); its panels are LBO = K S apart, and a K step is
//     16 rows.
//
// A swapped layout (tf32) computes C^T = B^T A^T: the instruction's A is
// the dot's B and its B the dot's A, each buffer seen transposed, and the
// accumulator's registers are the instruction's (the layouts say which
// element each holds). B^T stored N-major is read from its buffer into
// registers, the fragments of mma.sync's A, whatever its order: tf32's
// register A has no K-major rule.
//
// The operands are complete and visible to the async proxy when the dot
// starts: tilegpu-pipeline put a barrier (and a proxy fence where they
// were stored from registers) before it. After the last wgmma the
// warpgroup commits them as one group and waits for it, the accumulator threaded through the wait so
// that nothing reads it earlier; unless a tilegpu.warpgroup_dot_wait takes
// the result, which lets the group run on while the next iteration's
// copies go out (tilegpu-pipeline keeps a K loop's dot one group deep).
//
//===----------------------------------------------------------------------===//

#include "SharedMemory.h"

#include "tilec/Conversion/TileGPUToNVVM/TileGPUToNVVM.h"
#include "tilec/Dialect/TileGPU/IR/Target.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::tilegpu;

namespace {

/// What a wgmma descriptor says about one operand's buffer, and where each
/// of its instruction tiles starts.
struct OperandDescriptor {
  SharedTile tile;
  bool kMajor = true;      ///< K is the buffer's contiguous dimension
  int64_t swizzleBytes = 0;
  int64_t panelStride = 0; ///< bytes from one panel to the next
  uint64_t constant = 0;   ///< LBO, SBO and the swizzle mode

  /// Describes `tile`, operand `opIdx` (0: A, M x K; 1: B, K x N); none
  /// when its layout is not one wgmma reads.
  static std::optional<OperandDescriptor> get(const SharedTile &tile,
                                              unsigned opIdx) {
    OperandDescriptor d;
    d.tile = tile;
    SharedEncodingAttr encoding = tile.encoding;
    unsigned fast = encoding.getOrder().front();
    d.kMajor = fast == (opIdx == 0 ? 1u : 0u);
    SharedPanels panels = getSharedPanels(encoding, tile.shape);
    unsigned elementBytes = getMemoryBits(tile.slotType) / 8;
    d.swizzleBytes = panels.width * elementBytes;
    // The swizzles wgmma knows: 16-byte chunks xor-ed over 8 rows of 128,
    // 64 or 32 bytes.
    unsigned mode = d.swizzleBytes == 128 ? 1 : d.swizzleBytes == 64 ? 2
                    : d.swizzleBytes == 32 ? 3 : 0;
    if (mode == 0 || encoding.getVec() * elementBytes != 16 ||
        encoding.getMaxPhase() != d.swizzleBytes / 16 ||
        encoding.getPerPhase() != 128 / d.swizzleBytes)
      return std::nullopt;
    d.panelStride = panels.rows * d.swizzleBytes;
    int64_t lbo = d.kMajor ? 16 : d.panelStride;
    int64_t sbo = 8 * d.swizzleBytes;
    d.constant = uint64_t((lbo >> 4) & 0x3FFF) << 16 |
                 uint64_t((sbo >> 4) & 0x3FFF) << 32 | uint64_t(mode) << 62;
    return d;
  }

  /// The byte offset of the instruction tile starting at row or column
  /// `mn` of M (A) or N (B) and at element `k` of K.
  int64_t offset(int64_t mn, int64_t k) const {
    unsigned elementBytes = getMemoryBits(tile.slotType) / 8;
    int64_t kBytes = k * elementBytes, mnBytes = mn * elementBytes;
    if (kMajor)
      return kBytes / swizzleBytes * panelStride + kBytes % swizzleBytes +
             mn * swizzleBytes;
    return mnBytes / swizzleBytes * panelStride + mnBytes % swizzleBytes +
           k * swizzleBytes;
  }

  /// Sets `start`, the descriptor of the tile's first byte: computed once,
  /// so that each instruction's is one add.
  void emitStart(OpBuilder &b, Location loc) {
    Type i32 = b.getI32Type(), i64 = b.getI64Type();
    Value address = LLVM::PtrToIntOp::create(b, loc, i32, tile.base);
    Value field = LLVM::AndOp::create(
        b, loc, LLVM::LShrOp::create(b, loc, address, i32Constant(b, loc, 4)),
        i32Constant(b, loc, 0x3FFF));
    start = LLVM::OrOp::create(
        b, loc, LLVM::ZExtOp::create(b, loc, i64, field),
        LLVM::ConstantOp::create(b, loc, i64,
                                 b.getI64IntegerAttr(int64_t(constant))));
  }

  /// The 64-bit descriptor of the instruction tile at (`mn`, `k`): the
  /// start's plus the offset in 16-byte units, which cannot carry out of
  /// the 14-bit address field (shared memory ends below 256 KB).
  Value emit(OpBuilder &b, Location loc, int64_t mn, int64_t k) const {
    assert(start && "emitStart first");
    int64_t units = offset(mn, k) >> 4;
    if (units == 0)
      return start;
    return LLVM::AddOp::create(
        b, loc, start,
        LLVM::ConstantOp::create(b, loc, b.getI64Type(), b.getI64IntegerAttr(units)));
  }

  Value start; ///< emitStart's
};

/// A (M x K) in registers, in the dot_op layout of a version-3 parent:
/// mma.sync's A fragments, each warp 16 of a 64-row instruction's rows.
struct RegisterOperand {
  ThreadLayout layout;
  SmallVector<Value> values;
  unsigned kWidth;

  RegisterOperand(Type type, ValueRange values)
      : layout(getThreadLayout(cast<RankedTensorType>(type))),
        values(values.begin(), values.end()),
        kWidth(cast<DotOperandEncodingAttr>(layout.getRootEncoding())
                   .getKWidth()) {}

  /// The four 32-bit registers of M repetition `rep` and K step `kStep`.
  SmallVector<Value> fragment(OpBuilder &b, Location loc, int64_t rep,
                              int64_t kStep) const {
    return packMmaFragment(b, loc, layout, values, 0, kWidth, 0, rep, kStep);
  }
};

/// `values` (f32 in float registers, 32-bit integers in others) through
/// one inline-asm statement `text`, each tied to its own output: `text` may
/// use them as $0 ... and take `extra` operands after them.
SmallVector<Value> emitTied(OpBuilder &b, Location loc, StringRef text,
                            ArrayRef<Value> values, ArrayRef<Value> extra,
                            StringRef extraConstraints) {
  SmallVector<std::string> parts;
  for (Value value : values)
    parts.push_back(value.getType().isF32() ? "=f" : "=r");
  if (!extraConstraints.empty())
    parts.push_back(extraConstraints.str());
  for (size_t i = 0; i < values.size(); ++i)
    parts.push_back(std::to_string(i));
  std::string constraints = llvm::join(parts, ",");
  SmallVector<Value> operands(extra);
  llvm::append_range(operands, values);
  return emitPTX(b, loc, text, constraints, operands,
                 llvm::to_vector(ValueRange(values).getTypes()),
                 /*hasSideEffects=*/true);
}

/// wgmma.wait_group `pending`, with `accumulator` threaded through it so
/// that nothing reads the registers before the wait.
SmallVector<Value> emitWait(OpBuilder &b, Location loc,
                            ArrayRef<Value> accumulator, int64_t pending) {
  return emitTied(b, loc,
                  "wgmma.wait_group.sync.aligned " + std::to_string(pending) +
                      ";",
                  accumulator, {}, "");
}

struct WgmmaDotToLLVM : OpConversionPattern<tile::DotOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(tile::DotOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto mma = dyn_cast<MmaEncodingAttr>(op.getType().getEncoding());
    if (!mma || mma.getVersion() != 3)
      return rewriter.notifyMatchFailure(op, "not a wgmma dot");
    Location loc = op.getLoc();
    MLIRContext *context = op.getContext();
    // The instruction's operands and accumulator: those of the dot, or of
    // C^T = B^T A^T where the layout is swapped, each shared tile then seen
    // transposed and the accumulator's registers the instruction's own.
    bool swapped = mma.getSwapped();
    MmaEncodingAttr instruction = mma.getInstructionLayout();
    Value aValue = swapped ? op.getB() : op.getA();
    Value bValue = swapped ? op.getA() : op.getB();
    ValueRange aAdapted = swapped ? adaptor.getB() : adaptor.getA();
    ValueRange bAdapted = swapped ? adaptor.getA() : adaptor.getB();
    auto aType = dyn_cast<MemDescType>(aValue.getType());
    auto bType = dyn_cast<MemDescType>(bValue.getType());
    if (!bType || bAdapted.size() != 1 || (aType && aAdapted.size() != 1))
      return op.emitError("internal: wgmma reads B from shared memory, which "
                          "tilegpu-pipeline did not stage");
    auto view = [&](Value base, MemDescType type) {
      SharedTile tile = SharedTile::get(base, type);
      return swapped ? tile.transposed() : tile;
    };
    auto instructionShape = [&](ArrayRef<int64_t> shape) {
      SmallVector<int64_t> result(shape);
      if (swapped)
        std::swap(result[0], result[1]);
      return result;
    };
    Type input = op.getA().getType().getElementType();
    bool kMajorOnly = isWgmmaKMajorOnly(input);
    unsigned kWidth = 32 / input.getIntOrFloatBitWidth();
    // A in registers: its dot_op layout as the instruction's A.
    auto aRegisterType = RankedTensorType::get(
        instructionShape(cast<ShapedType>(aValue.getType()).getShape()), input,
        DotOperandEncodingAttr::get(context, 0, instruction, kWidth));
    std::optional<OperandDescriptor> a;
    std::optional<RegisterOperand> aRegisters;
    std::optional<SharedTile> aShared; // read into registers before the dot
    if (aType) {
      SharedTile tile = view(aAdapted.front(), aType);
      a = OperandDescriptor::get(tile, 0);
      // A swapped B not stored K-major (a row-major B) is read into
      // registers, which take it in any order.
      if (swapped && (!a || (kMajorOnly && !a->kMajor))) {
        a.reset();
        aShared = tile;
      }
    } else {
      aRegisters.emplace(aRegisterType, aAdapted);
    }
    std::optional<OperandDescriptor> b =
        OperandDescriptor::get(view(bAdapted.front(), bType), 1);
    if ((aType && !a && !aShared) || !b)
      return op.emitError("internal: a wgmma operand's shared layout is not "
                          "a 32, 64 or 128-byte swizzle");

    SmallVector<int64_t> shape = instructionShape(op.getType().getShape());
    ThreadLayout acc = getThreadLayout(
        RankedTensorType::get(shape, op.getType().getElementType(), instruction));
    ArrayRef<unsigned> warps = mma.getWarpsPerCTA();
    int64_t instrN = mma.getInstrShape()[1];
    unsigned groupsM = warps[0] / 4, groupsN = warps[1];
    int64_t m = shape[0], n = shape[1];
    int64_t k = op.getA().getType().getShape()[1];
    int64_t mReps = m / (64 * groupsM), nReps = n / (instrN * groupsN);
    int64_t regs = instrN / 2;

    // This thread's warpgroup: the group's rows, then M, then N. Lane 0's
    // number, shuffled to the warp, is one ptxas knows to be the same for
    // all its threads: the descriptors are then computed once per warp in
    // uniform registers, which wgmma reads them from.
    Value tid = NVVM::ThreadIdXOp::create(rewriter, loc, rewriter.getI32Type());
    Value group = NVVM::ShflOp::create(
        rewriter, loc, rewriter.getI32Type(), i32Constant(rewriter, loc, -1),
        LLVM::UDivOp::create(rewriter, loc, tid, i32Constant(rewriter, loc, 128)),
        i32Constant(rewriter, loc, 0), i32Constant(rewriter, loc, 0x1f),
        NVVM::ShflKind::idx, UnitAttr());
    Value groupM = LLVM::URemOp::create(rewriter, loc, group,
                                        i32Constant(rewriter, loc, groupsM));
    Value groupN = LLVM::UDivOp::create(rewriter, loc, group,
                                        i32Constant(rewriter, loc, groupsM));
    // Descriptors are constants but for the group's offset, which the
    // buffer's base absorbs: a group's 64 rows (or instrN columns) start
    // that many rows (columns) further.
    auto offsetBase = [&](OperandDescriptor d, Value index, int64_t extent) {
      int64_t step = d.offset(extent, 0) - d.offset(0, 0);
      Value bytes = LLVM::MulOp::create(rewriter, loc, index,
                                        i32Constant(rewriter, loc, step));
      d.tile.base = LLVM::GEPOp::create(
          rewriter, loc, d.tile.base.getType(), rewriter.getI8Type(),
          d.tile.base, ValueRange{bytes});
      d.emitStart(rewriter, loc);
      return d;
    };
    std::optional<OperandDescriptor> aGroup;
    if (a)
      aGroup = offsetBase(*a, groupM, 64);
    OperandDescriptor bGroup = offsetBase(*b, groupN, instrN);

    // A K step is 32 bytes of each row: 16 halves, 8 floats read as tf32
    // (the low mantissa bits ignored) or 32 fp8; but for halves, K-major
    // only.
    auto ptxType = [](Type t) -> std::string {
      if (t.isBF16())
        return "bf16";
      if (t.isF32())
        return "tf32";
      if (isa<Float8E4M3FNType>(t))
        return "e4m3";
      if (isa<Float8E5M2Type>(t))
        return "e5m2";
      return "f16";
    };
    std::string types = ptxType(input) + "." + ptxType(bType.getElementType());
    int64_t kInstr = 256 / input.getIntOrFloatBitWidth();
    if (kMajorOnly && !((!a || a->kMajor) && b->kMajor))
      return op.emitError("internal: a tf32 or fp8 wgmma operand is not "
                          "K-major");
    // Operands after the accumulator's registers: A (a descriptor, or four
    // registers of its fragment), B's descriptor, then the scale-d flag.
    unsigned aCount = a ? 1 : 4;
    std::string aOperand = getPTXOperandList(regs, aCount);
    std::string transpose;
    if (!kMajorOnly) {
      if (a)
        transpose += std::string(", ") + (a->kMajor ? "0" : "1");
      transpose += std::string(", ") + (b->kMajor ? "0" : "1");
    }
    std::string text = "{\n.reg .pred p;\nsetp.ne.b32 p, $" +
                       std::to_string(regs + aCount + 1) + ", 0;\n" +
                       "wgmma.mma_async.sync.aligned.m64n" +
                       std::to_string(instrN) + "k" + std::to_string(kInstr) +
                       ".f32." + types + " " +
                       getPTXOperandList(0, regs) + ", " + aOperand + ", $" +
                       std::to_string(regs + aCount) + ", p, 1, 1" +
                       transpose + ";\n}";
    std::string extraConstraints = a ? "l,l,r" : "r,r,r,r,l,r";

    // The accumulator's registers of instruction (mi, ni), in its order.
    auto instrElems = [&](int64_t mi, int64_t ni) {
      SmallVector<unsigned> elems;
      unsigned nBits = llvm::Log2_64(instrN / 8) + 1;
      for (int64_t i = 0; i < regs; ++i) {
        int64_t localM = ((i >> 1) & 1) | mi << 1;
        int64_t localN = (i & 1) | (i >> 2) << 1 | ni << nBits;
        elems.push_back(acc.linearize({localM, localN}));
      }
      return elems;
    };

    // A read from shared memory into registers: all of it before the
    // fence, so that nothing writes the instructions' registers while they
    // run. A group still in flight (the previous iteration's, kept so by
    // tilegpu-pipeline) reads registers that ptxas may hand these loads, as
    // it does not track wgmma's register operands past the fence: it must
    // finish first.
    SmallVector<Value> sums(adaptor.getAcc().begin(), adaptor.getAcc().end());
    SmallVector<Value> aFragments; // (kStep, mi) in order, 4 registers each
    if (aShared) {
      sums = emitWait(rewriter, loc, sums, 0);
      ThreadLayout aLayout = getThreadLayout(aRegisterType);
      MmaFragmentLoader loader(rewriter, loc, *aShared, aLayout, input);
      for (int64_t kStep = 0; kStep < k / kInstr; ++kStep)
        for (int64_t mi = 0; mi < mReps; ++mi)
          llvm::append_range(aFragments, loader.load(rewriter, loc, 0, mi, kStep));
    } else if (aRegisters) {
      for (int64_t kStep = 0; kStep < k / kInstr; ++kStep)
        for (int64_t mi = 0; mi < mReps; ++mi)
          llvm::append_range(aFragments, aRegisters->fragment(rewriter, loc, mi, kStep));
    }

    // A's registers are all computed before the fence and pass through it,
    // so that nothing can move their computation between the instructions:
    // registers written after one wgmma that the next reads make ptxas
    // fence again (an injected warpgroup.arrive) before the next.
    aFragments = emitTied(rewriter, loc, "wgmma.fence.sync.aligned;",
                          aFragments, {}, "");
    Value one = i32Constant(rewriter, loc, 1);
    for (int64_t kStep = 0; kStep < k / kInstr; ++kStep)
      for (int64_t mi = 0; mi < mReps; ++mi)
        for (int64_t ni = 0; ni < nReps; ++ni) {
          SmallVector<unsigned> elems = instrElems(mi, ni);
          SmallVector<Value> d;
          for (unsigned e : elems)
            d.push_back(sums[e]);
          SmallVector<Value> extra;
          if (aGroup)
            extra.push_back(
                aGroup->emit(rewriter, loc, 64 * groupsM * mi, kInstr * kStep));
          else
            extra = llvm::to_vector(
                ArrayRef(aFragments).slice((kStep * mReps + mi) * 4, 4));
          extra.push_back(
              bGroup.emit(rewriter, loc, instrN * groupsN * ni, kInstr * kStep));
          extra.push_back(one);
          d = emitTied(rewriter, loc, text, d, extra, extraConstraints);
          for (auto [e, v] : llvm::zip(elems, d))
            sums[e] = v;
        }
    emitPTX(rewriter, loc, "wgmma.commit_group.sync.aligned;", "", {}, {},
            /*hasSideEffects=*/true);
    // Left in flight when an explicit wait takes the result.
    bool waited = op->hasOneUse() && isa<WarpgroupDotWaitOp>(*op->user_begin());
    if (!waited)
      sums = emitWait(rewriter, loc, sums, 0);
    rewriter.replaceOpWithMultiple(op, {sums});
    return success();
  }
};

struct WarpgroupDotWaitToLLVM : OpConversionPattern<WarpgroupDotWaitOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(WarpgroupDotWaitOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    SmallVector<Value> values(adaptor.getInput().begin(),
                              adaptor.getInput().end());
    rewriter.replaceOpWithMultiple(
        op, {emitWait(rewriter, op.getLoc(), values, op.getPending())});
    return success();
  }
};

} // namespace

void mlir::tilegpu::populateWgmmaDotToLLVMPatterns(
    const TileGPUTypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<WgmmaDotToLLVM, WarpgroupDotWaitToLLVM>(converter,
                                                      patterns.getContext());
}
