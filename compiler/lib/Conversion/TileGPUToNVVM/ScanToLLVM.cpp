//===- ScanToLLVM.cpp - tile.scan across a CTA ----------------------------===//
//
// A scan in any layout, one bit of the position along the axis at a time,
// lowest first. Before the step for bit j, every element knows the
// combination of its aligned block of 2^j positions up to itself (its
// prefix) and of the whole block (the block's total). The step pairs each
// block with the one that differs in bit j: the second of the two (in scan
// order) puts the first's total before its prefixes, and both totals
// become first's total then second's. After the last bit, the prefixes are
// the scan.
//
// The partner block is in the same thread (a register bit: no data moves),
// in another lane (a shuffle) or another warp (through shared memory), as
// the layout places bit j. A reverse scan is the scan of the reversed
// sequence: the block at the higher positions comes first. Padding along
// the axis enters as empty groups; in a forward scan it lies after every
// real element, but a reverse scan starts at it.
//
//===----------------------------------------------------------------------===//

#include "Combine.h"
#include "Utility.h"

#include "tilec/Conversion/TileGPUToNVVM/TileGPUToNVVM.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

using namespace mlir;
using namespace mlir::tilegpu;

namespace {

/// A bit of (register, lane, warp) that moves along the scanned axis.
struct AxisBit {
  enum Kind { Register, Lane, Warp } kind;
  unsigned bit;
  int64_t move;
};

/// Whether two groups are the same values (one group, computed once).
bool isSameGroup(const Partial &a, const Partial &b) {
  return a.values == b.values && a.valid == b.valid;
}

struct ScanToLLVM : OpConversionPattern<tile::ScanOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(tile::ScanOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    ThreadLayout layout = getThreadLayout(op.getSrcs().front().getType());
    unsigned axis = getRootDim(layout, op.getAxis());
    bool reverse = op.getReverse();
    CombineFn combineFn = [&](ValueRange x, ValueRange y) {
      return emitCombineRegion(rewriter, op.getCombine(), x, y);
    };
    auto combine = [&](const Partial &x, const Partial &y) {
      return combinePartials(rewriter, loc, combineFn, x, y);
    };

    unsigned numElems = layout.getNumElems();
    SmallVector<Partial> prefix =
        getSourcePartials(rewriter, loc, layout, axis, adaptor.getSrcs());
    SmallVector<Partial> total(prefix);

    SmallVector<AxisBit> bits;
    auto collect = [&](AxisBit::Kind kind, ArrayRef<LayoutBasis> bases) {
      for (auto [i, basis] : llvm::enumerate(bases))
        if (basis.dim == int(axis))
          bits.push_back({kind, unsigned(i), basis.offset});
    };
    collect(AxisBit::Register, layout.getRegBases());
    collect(AxisBit::Lane, layout.getLaneBases());
    collect(AxisBit::Warp, layout.getWarpBases());
    llvm::sort(bits, [](const AxisBit &a, const AxisBit &b) {
      return a.move < b.move;
    });

    Value tid = NVVM::ThreadIdXOp::create(rewriter, loc, rewriter.getI32Type());
    Value base;
    for (const AxisBit &bit : bits) {
      if (bit.kind == AxisBit::Register) {
        // Pairs of totals already combined at this bit: once a lower bit
        // made two registers' totals one group, their next pairs repeat.
        SmallVector<std::tuple<Partial, Partial, Partial>> done;
        for (unsigned e = 0; e < numElems; ++e) {
          if (e & (1u << bit.bit))
            continue;
          unsigned low = e, high = e | (1u << bit.bit);
          unsigned first = reverse ? high : low, second = reverse ? low : high;
          prefix[second] = combine(total[first], prefix[second]);
          auto it = llvm::find_if(done, [&](const auto &entry) {
            return isSameGroup(std::get<0>(entry), total[first]) &&
                   isSameGroup(std::get<1>(entry), total[second]);
          });
          Partial both = it != done.end()
                             ? std::get<2>(*it)
                             : combine(total[first], total[second]);
          if (it == done.end())
            done.push_back({total[first], total[second], both});
          total[low] = total[high] = both;
        }
        continue;
      }
      // Registers whose totals are one group (all of them, once the
      // register bits are done) share one exchange.
      SmallVector<unsigned> groupOf(numElems), groups;
      for (unsigned e = 0; e < numElems; ++e) {
        auto same = [&](unsigned g) { return isSameGroup(total[g], total[e]); };
        auto it = llvm::find_if(groups, same);
        groupOf[e] = it != groups.end() ? *it : e;
        if (it == groups.end())
          groups.push_back(e);
      }
      // The partner's totals, and whether this thread's block is second.
      llvm::DenseMap<unsigned, Partial> partner;
      unsigned tidBit = bit.kind == AxisBit::Lane ? bit.bit : bit.bit + 5;
      if (bit.kind == AxisBit::Lane) {
        for (unsigned g : groups)
          partner[g] = shufflePartial(rewriter, loc, total[g], 1u << bit.bit);
      } else {
        // Slot [thread][group]; everyone writes, then reads its partner's.
        int64_t slots = int64_t(getNumWarps(op)) * 32 * numElems;
        if (!base)
          base = getSharedMemoryBase(rewriter, loc, op,
                                     getPartialArrayBytes(total.front(), slots));
        auto slot = [&](Value thread, unsigned g) -> Value {
          return LLVM::AddOp::create(
              rewriter, loc,
              LLVM::MulOp::create(rewriter, loc, thread,
                                  i32Constant(rewriter, loc, numElems)),
              i32Constant(rewriter, loc, g));
        };
        Value other = LLVM::XOrOp::create(rewriter, loc, tid,
                                          i32Constant(rewriter, loc, 1 << tidBit));
        emitBarrier(rewriter, loc);
        for (unsigned g : groups)
          storePartial(rewriter, loc, base, slots, slot(tid, g), total[g]);
        emitBarrier(rewriter, loc);
        for (unsigned g : groups)
          partner[g] =
              loadPartial(rewriter, loc, base, slots, slot(other, g), total[g]);
      }
      // Second in scan order: at the higher positions, or the lower ones
      // in a reverse scan.
      Value isSecond = LLVM::ICmpOp::create(
          rewriter, loc,
          reverse ? LLVM::ICmpPredicate::eq : LLVM::ICmpPredicate::ne,
          LLVM::AndOp::create(rewriter, loc, tid,
                              i32Constant(rewriter, loc, 1 << tidBit)),
          i32Constant(rewriter, loc, 0));
      for (unsigned e = 0; e < numElems; ++e)
        prefix[e] = selectPartial(rewriter, loc, isSecond,
                                  combine(partner[groupOf[e]], prefix[e]),
                                  prefix[e]);
      llvm::DenseMap<unsigned, Partial> combined;
      for (unsigned g : groups) {
        Partial left = selectPartial(rewriter, loc, isSecond, partner[g], total[g]);
        Partial right = selectPartial(rewriter, loc, isSecond, total[g], partner[g]);
        combined[g] = combine(left, right);
      }
      for (unsigned e = 0; e < numElems; ++e)
        total[e] = combined[groupOf[e]];
    }

    rewriter.replaceOpWithMultiple(op,
                                   getResultValues(prefix, op.getNumResults()));
    return success();
  }
};

} // namespace

void mlir::tilegpu::populateScanToLLVMPatterns(
    const TileGPUTypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<ScanToLLVM>(converter, patterns.getContext());
}
