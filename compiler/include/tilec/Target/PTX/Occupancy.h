//===- Occupancy.h - How many blocks of a kernel an SM holds ----*- C++ -*-===//
//
// CUDA's occupancy calculator for the SMs tilec compiles for: how many
// blocks of a kernel run on one SM at once, and which resource stops the
// next one. The register budget (RegisterBudget.h) keeps a kernel's
// occupancy; the kernel report (KernelReport.h) states it.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_TARGET_PTX_OCCUPANCY_H
#define TILEC_TARGET_PTX_OCCUPANCY_H

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

namespace tilec {

/// What one streaming multiprocessor holds, as far as it limits how many
/// blocks of a kernel run on it at once.
struct SMLimits {
  unsigned registers = 65536;
  unsigned threads = 2048;
  unsigned blocks = 32;
  unsigned sharedBytes = 0;       ///< shared memory an SM gives to blocks
  unsigned sharedPerBlock = 1024; ///< what the system keeps per block
};

/// The limits of an "sm_80" (the A100's) or "sm_90" SM.
SMLimits smLimits(llvm::StringRef arch);

/// The resource that keeps one more block off an SM.
enum class OccupancyLimit { Blocks, Threads, Registers, SharedMemory };

/// "registers", "shared memory", ...
llvm::StringRef describe(OccupancyLimit limit);

struct Occupancy {
  /// Blocks on one SM at once; 0 when one block does not fit.
  unsigned blocks = 0;
  /// Their warps.
  unsigned warps = 0;
  /// Each limit that `blocks` meets (that a single block exceeds, where
  /// none fits), in OccupancyLimit's order.
  llvm::SmallVector<OccupancyLimit, 2> limits;
};

/// Blocks of `threads` threads using `registersPerThread` registers and
/// `sharedBytes` of shared memory each (static and dynamic) on one SM, as
/// CUDA's occupancy calculator counts them: registers given to a warp in
/// units of 256, each block's shared memory with what the system keeps.
Occupancy occupancy(const SMLimits &sm, unsigned threads,
                    unsigned registersPerThread, unsigned sharedBytes);

/// occupancy(...).blocks.
unsigned blocksPerSM(const SMLimits &sm, unsigned threads,
                     unsigned registersPerThread, unsigned sharedBytes);

} // namespace tilec

#endif // TILEC_TARGET_PTX_OCCUPANCY_H
