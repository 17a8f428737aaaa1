//===- KernelReport.h - What ptxas and the SASS say of a kernel -*- C++ -*-===//
//
// `tilec --report` and `tile-run --report`: per kernel, what one would
// otherwise read from ptxas -v and cuobjdump by hand. Registers, spills,
// local memory and static shared memory come from ptxas's verbose report;
// dynamic shared memory and threads from the metadata; the occupancy on
// the target from both (Occupancy.h); the instruction mix from the SASS
// that nvdisasm (or cuobjdump) lists, where one of them is found.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_TARGET_PTX_KERNELREPORT_H
#define TILEC_TARGET_PTX_KERNELREPORT_H

#include "tilec/Target/PTX/Occupancy.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <array>
#include <map>
#include <string>

namespace tile {
struct KernelMetadata;
} // namespace tile

namespace tilec {

struct KernelReport {
  std::string kernel;
  std::string arch;
  unsigned threadsPerBlock = 0;
  /// How programs run (the metadata's): as a cluster of CTAs that split
  /// each one's K loop ({1, 1, 1}: one CTA a program); with a launch that
  /// cuts a last wave's K loops into stream-K parts; as clusters of
  /// programs along x that share their bulk copies (multicast; 1: none);
  /// persistent, each CTA running programs in turn.
  std::array<unsigned, 3> clusterDims = {1, 1, 1};
  bool streamK = false;
  unsigned clusterPrograms = 1;
  bool persistent = false;
  // ptxas -v's.
  unsigned registers = 0;
  unsigned spillStoreBytes = 0;
  unsigned spillLoadBytes = 0;
  /// Local memory a thread uses (ptxas's stack frame): spills and arrays.
  unsigned localBytes = 0;
  unsigned staticSharedBytes = 0;
  /// Named barriers the kernel uses.
  unsigned barriers = 0;
  /// What the launch asks for (the metadata's shared_bytes).
  unsigned dynamicSharedBytes = 0;
  /// Blocks and warps an SM of the target holds at once, and what stops
  /// the next block.
  Occupancy occupancy;
  unsigned maxWarpsPerSM = 0;
  /// Each SASS opcode (its mnemonic before the first '.': HGMMA, LDG, BAR)
  /// and how often it occurs; empty when no disassembler was found.
  std::map<std::string, unsigned> opcodes;
  unsigned instructions = 0;
  /// The program that listed the SASS, or why there is no listing.
  std::string disassembler;
  bool hasInstructionMix = false;
};

/// Assembles `ptx` (the kernel `metadata` describes) with ptxas -v,
/// disassembles the cubin where nvdisasm or cuobjdump is found, and
/// reports. The error is ptxas's (not found, or failed).
llvm::Expected<KernelReport> reportKernel(llvm::StringRef ptx,
                                          const tile::KernelMetadata &metadata);

/// Reads ptxas -v's lines about `kernel` into `report`; false when `log`
/// has none.
bool readPtxasInfo(llvm::StringRef log, llvm::StringRef kernel,
                   KernelReport &report);

/// Counts the instructions of a SASS listing (nvdisasm's or cuobjdump's)
/// into `report`.
void countInstructions(llvm::StringRef sass, KernelReport &report);

/// The report as text, a few lines per kernel.
std::string formatReport(const KernelReport &report);

/// The report as one JSON object (tilec --report=json).
std::string reportJSON(const KernelReport &report);

} // namespace tilec

#endif // TILEC_TARGET_PTX_KERNELREPORT_H
