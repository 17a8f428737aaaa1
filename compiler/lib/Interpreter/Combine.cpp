//===- Combine.cpp - tile.reduce_with and tile.scan on the interpreter ----===//
//
// The combine region runs on one pair of element groups at a time, in order
// along the axis: a reduction folds elements 0, 1, ... into the first, a
// scan keeps every intermediate (a reverse scan folds from the last element
// down, the running value on the left, as Triton's scan of the reversed
// sequence does).
//
//===----------------------------------------------------------------------===//

#include "Executor.h"

#include "tilec/Dialect/Tile/IR/Tile.h"

using namespace mlir;
using namespace tilec::interp;

LogicalResult Executor::executeCombine(Operation *op) {
  auto reduce = dyn_cast<tile::ReduceWithOp>(op);
  auto scan = dyn_cast<tile::ScanOp>(op);
  OperandRange srcValues = reduce ? reduce.getSrcs() : scan.getSrcs();
  int64_t axis = reduce ? reduce.getAxis() : scan.getAxis();
  bool reverse = scan && scan.getReverse();
  Block &body = op->getRegion(0).front();
  size_t n = srcValues.size();

  // Every result's slot first: block arguments and region values have
  // their own.
  SmallVector<TValue *> results;
  for (Value result : op->getResults())
    results.push_back(&define(result));
  SmallVector<const TValue *> srcs;
  for (Value src : srcValues)
    srcs.push_back(&get(src));

  ArrayRef<int64_t> shape = srcs.front()->shape;
  int64_t outer = 1, inner = 1, length = shape[size_t(axis)];
  for (size_t d = 0; d < shape.size(); ++d)
    if (int64_t(d) != axis)
      (int64_t(d) < axis ? outer : inner) *= shape[d];

  // results[at] = combine(results[left], srcs[right]).
  auto combine = [&](size_t at, size_t left, size_t right) -> LogicalResult {
    for (size_t k = 0; k < n; ++k) {
      define(body.getArgument(unsigned(k))).copyElement(0, *results[k], left);
      define(body.getArgument(unsigned(n + k)))
          .copyElement(0, *srcs[k], right);
    }
    Operation *yield = runBlock(body);
    if (!yield)
      return failure();
    for (size_t k = 0; k < n; ++k)
      results[k]->copyElement(at, get(yield->getOperand(unsigned(k))), 0);
    return success();
  };

  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      auto at = [&](int64_t along) {
        return size_t((o * length + along) * inner + i);
      };
      if (reduce) {
        size_t out = size_t(o * inner + i);
        for (size_t k = 0; k < n; ++k)
          results[k]->copyElement(out, *srcs[k], at(0));
        for (int64_t along = 1; along < length; ++along)
          if (failed(combine(out, out, at(along))))
            return failure();
        continue;
      }
      int64_t first = reverse ? length - 1 : 0, step = reverse ? -1 : 1;
      for (size_t k = 0; k < n; ++k)
        results[k]->copyElement(at(first), *srcs[k], at(first));
      for (int64_t along = first + step; along >= 0 && along < length;
           along += step)
        if (failed(combine(at(along), at(along - step), at(along))))
          return failure();
    }
  return success();
}
