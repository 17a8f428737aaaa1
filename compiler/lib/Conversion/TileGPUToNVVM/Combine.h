//===- Combine.h - Groups combined by reductions and scans ---*- C++ -*-===//
//
// tile.reduce, tile.reduce_with and tile.scan combine groups of values (one
// per source) across registers, lanes and warps. A group may carry a flag
// saying whether it holds anything: padding along the combined axis has no
// identity to stand in for it when the combination is a user's region, so
// it enters as an empty group that every combination passes over.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_CONVERSION_TILEGPUTONVVM_COMBINE_H
#define TILEC_LIB_CONVERSION_TILEGPUTONVVM_COMBINE_H

#include "tilec/Dialect/TileGPU/IR/ThreadLayout.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Region.h"
#include "mlir/Transforms/DialectConversion.h"

#include <functional>

namespace mlir::tilegpu {

/// One value per source, and an i1 that says whether they hold anything
/// (null: always).
struct Partial {
  SmallVector<Value> values;
  Value valid;
};

/// The groups of a combining op's sources, one per element of `layout`
/// (`srcs` are the sources' converted values), flagged where the combined
/// root dimension `axis` is padded.
SmallVector<Partial> getSourcePartials(OpBuilder &b, Location loc,
                                       const ThreadLayout &layout,
                                       unsigned axis, ArrayRef<ValueRange> srcs);

/// Per source, its value in each of `groups`: an op's replacement values.
SmallVector<SmallVector<Value>> getResultValues(ArrayRef<Partial> groups,
                                                unsigned numResults);

/// The root dimension of `layout` that is tensor dimension `tensorDim`.
unsigned getRootDim(const ThreadLayout &layout, unsigned tensorDim);

/// The combination of two groups, left before right.
using CombineFn =
    std::function<SmallVector<Value>(ValueRange left, ValueRange right)>;

/// A combine region (tile.reduce_with's, tile.scan's) emitted at the
/// rewriter's insertion point on `left` and `right`; its ops are cloned, so
/// that the region can be emitted as often as the lowering combines.
SmallVector<Value> emitCombineRegion(ConversionPatternRewriter &rewriter,
                                     Region &region, ValueRange left,
                                     ValueRange right);

/// `left` combined with `right`, passing over an empty one.
Partial combinePartials(OpBuilder &b, Location loc, const CombineFn &combine,
                        const Partial &left, const Partial &right);

/// `whenTrue` where `condition` holds, else `whenFalse`.
Partial selectPartial(OpBuilder &b, Location loc, Value condition,
                      const Partial &whenTrue, const Partial &whenFalse);

/// `p` from the lane whose id differs from ours by xor `laneMask`.
Partial shufflePartial(OpBuilder &b, Location loc, const Partial &p,
                       unsigned laneMask);

/// `v` from the lane whose id differs from ours by xor `laneMask`; values
/// of other widths than 32 bits travel as one or two i32.
Value shuffleXor(OpBuilder &b, Location loc, Value v, unsigned laneMask);

/// Bytes of shared memory that arrays of `count` slots of groups like `p`
/// take (see storePartial).
int64_t getPartialArrayBytes(const Partial &p, int64_t count);

/// Stores `p` into slot `index` of arrays of `count` slots that start at
/// `base`, one array per value and one for the flag; loadPartial reads
/// it back in the form of `like`.
void storePartial(OpBuilder &b, Location loc, Value base, int64_t count,
                  Value index, const Partial &p);
Partial loadPartial(OpBuilder &b, Location loc, Value base, int64_t count,
                    Value index, const Partial &like);

} // namespace mlir::tilegpu

#endif // TILEC_LIB_CONVERSION_TILEGPUTONVVM_COMBINE_H
