//===- Dump.h - A generated kernel as files tile-run takes ------*- C++ -*-===//
//
// For looking at a failure with other tools: the kernel (kernel.tl, its
// launch in comments), each buffer's initial contents as .npy (bf16 as
// uint16 bits), the reference's outputs as <name>.reference.npy, and
// run.sh, the tile-run command line that launches it on either backend
// with the GPU's specialization (buffers aligned there: the case's
// misalignments are not reproduced).
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_DIFFERENTIAL_DUMP_H
#define TILEC_DIFFERENTIAL_DUMP_H

#include "KernelCase.h"

#include <string>

namespace difftest {

/// Writes the files into `directory` (created); returns "" or why not.
std::string dumpCase(const KernelCase &c, const std::string &directory);

} // namespace difftest

#endif // TILEC_DIFFERENTIAL_DUMP_H
