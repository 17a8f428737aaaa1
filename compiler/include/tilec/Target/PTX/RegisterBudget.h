//===- RegisterBudget.h - How many registers ptxas may use ------*- C++ -*-===//
//
// Told nothing, ptxas keeps a kernel's registers as few as it can, and pays
// for it in latency: in a streaming kernel it reuses the registers of one
// 16-byte load for the next, so a warp waits on its first load before the
// later ones are issued. Registers below the next occupancy step cost
// nothing, though: a layer norm row of 16384 fp16 at 8 warps takes 110
// registers untold, and any count up to 128 still fits two blocks on an SM.
// Told that budget (.maxnreg 128), ptxas issues all eight loads of a pass
// back to back, and the kernel moves 2700 GB/s instead of 2200 on an H100
// (bench/README.md). ptxas's --maxrregcount does not do this; only the
// directive in the PTX changes how ptxas schedules.
//
// The budget is the largest register count that keeps the occupancy the
// kernel would have anyway. That occupancy comes from an estimate of the
// registers a thread needs at its busiest point: a liveness sweep over the
// optimized LLVM IR, in which each side-effect-free instruction is placed
// just before its first user, as ptxas's scheduler would place it, every
// value costs its 32-bit registers (predicates none), and kernel parameters
// (read from the constant bank) and integer operations of one value with a
// constant (folded into their users) cost nothing. Against ptxas's own
// counts for the softmax and layer norm benchmark kernels and every kernel
// of the PTX tests, the estimate is within about a tenth; budgets are only
// given where that error cannot cost a block per SM or a spill (see
// registerBudget).
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_TARGET_PTX_REGISTERBUDGET_H
#define TILEC_TARGET_PTX_REGISTERBUDGET_H

#include "tilec/Target/PTX/Occupancy.h"

#include "llvm/ADT/StringRef.h"

namespace llvm {
class Function;
} // namespace llvm

namespace tilec {

/// The 32-bit registers a thread of `kernel` needs at its busiest point, as
/// estimated from its LLVM IR (see the file comment).
unsigned estimateRegisters(const llvm::Function &kernel);

/// The register budget to give ptxas for a kernel of `threads` threads and
/// `sharedBytes` of shared memory that needs about `estimate` registers:
/// the most registers that keep as many blocks on an SM as `estimate`
/// would, or as `estimate` less 5% would (ptxas then gives up a few
/// registers rather than a block). 0, and ptxas is told nothing, when the
/// budget would not bind (255 registers, all a thread can have) or the
/// estimate is under 64: there ptxas's own choice keeps the SM nearly full,
/// and a step between occupancies is narrower than the estimate's error.
unsigned registerBudget(const SMLimits &sm, unsigned threads,
                        unsigned sharedBytes, unsigned estimate);

/// Gives `kernel` (its threads from "nvvm.reqntid") its register budget as
/// "nvvm.maxnreg", unless it has one already or the budget would not bind.
void setRegisterBudget(llvm::Function &kernel, llvm::StringRef arch,
                       unsigned sharedBytes);

} // namespace tilec

#endif // TILEC_TARGET_PTX_REGISTERBUDGET_H
