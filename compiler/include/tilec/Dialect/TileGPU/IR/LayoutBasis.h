//===- LayoutBasis.h - Where one bit of a thread's ids moves ----*- C++ -*-===//

#ifndef TILEC_DIALECT_TILEGPU_IR_LAYOUTBASIS_H
#define TILEC_DIALECT_TILEGPU_IR_LAYOUTBASIS_H

#include <cstdint>

namespace mlir::tilegpu {

/// One bit of a register, lane or warp id and where it moves an element:
/// `offset` (a power of two) along root dimension `dim`, or nowhere
/// (`dim` < 0) when threads differing in that bit hold the same elements.
struct LayoutBasis {
  int dim = -1;
  int64_t offset = 0;
  bool isZero() const { return dim < 0; }
  bool operator==(const LayoutBasis &other) const {
    return dim == other.dim && offset == other.offset;
  }
};

} // namespace mlir::tilegpu

#endif // TILEC_DIALECT_TILEGPU_IR_LAYOUTBASIS_H
