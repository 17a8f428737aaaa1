//===- BankConflicts.h - A model of shared-memory bank conflicts -*- C++ -*-===//
//
// Shared memory has 32 banks of 4-byte words. A warp's access of `bytes`
// per lane is served in phases of 128 bytes' worth of lanes (all 32 lanes
// for 4 bytes or less, 16 for 8, 8 for 16); within a phase, lanes that
// touch distinct words of one bank are served one after the other, lanes
// that touch the same word at once. Used at compile time to choose how
// layout conversions use their scratch rows.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_CONVERSION_TILEGPUTONVVM_BANKCONFLICTS_H
#define TILEC_CONVERSION_TILEGPUTONVVM_BANKCONFLICTS_H

#include "mlir/Support/LLVM.h"

namespace mlir::tilegpu {

/// Wavefronts (shared-memory cycles) of one warp's access: lane `l` reads
/// or writes `bytes` (1 to 16, a power of two, aligned) at byte address
/// `addresses[l]`.
int64_t countWavefronts(ArrayRef<int64_t> addresses, unsigned bytes);

} // namespace mlir::tilegpu

#endif // TILEC_CONVERSION_TILEGPUTONVVM_BANKCONFLICTS_H
