//===- Runner.h - Runs a generated kernel on each side ----------*- C++ -*-===//
//
// Every buffer lives in a memory image: a leading guard (256 bytes, then
// the buffer's misalignment), the data, and a trailing guard of 4 KiB, the
// guards filled with a known byte pattern. Both sides get the same images,
// the kernel sees only the data (the interpreter is told the data's size,
// so it reports any access outside it), and the images come back whole for
// the checks (Compare.h).
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_DIFFERENTIAL_RUNNER_H
#define TILEC_DIFFERENTIAL_RUNNER_H

#include "KernelCase.h"

#include <cstdint>
#include <string>
#include <vector>

namespace difftest {

using Image = std::vector<uint8_t>;

/// Where a buffer's data sits in its image.
struct ImageLayout {
  size_t lead = 0, data = 0, trail = 0;
  size_t total() const { return lead + data + trail; }
};
ImageLayout layoutOf(const Buffer &b);
/// The guard byte at `position` of the image (the same pattern before and
/// after the data).
uint8_t guardByte(size_t position);
/// The image before the run: guards and the encoded initial elements.
Image makeImage(const Buffer &b);

struct RunOutcome {
  bool ok = false;
  /// What failed: the compiler's diagnostics, the interpreter's error, the
  /// CUDA error.
  std::string error;
  /// A CUDA error that leaves the context unusable: later kernels cannot
  /// run on this GPU.
  bool fatal = false;
  std::vector<Image> images;
};

/// Runs the kernel on tilec's CPU interpreter (tilec::interpret), with
/// the argument types the JIT's interpreter backend would pass.
RunOutcome runInterpreter(const KernelCase &c);

/// Compiles the kernel as the JIT would for the GPU (integers equal to 1
/// specialized, the case's arch), to PTX, or to a cubin through ptxas;
/// returns the diagnostics, "" on success.
std::string compileForGPU(const KernelCase &c, bool cubin);

/// The parameter types the JIT specializes the case's kernel to ("*fp32:16",
/// "i32", "i32:1" with `ones`, as on the GPU).
std::vector<std::string> argTypes(const KernelCase &c, bool ones);

/// Whether this machine has a usable GPU (and why not).
bool gpuAvailable(std::string *whyNot);

/// Runs the kernel on the GPU through tile::JITFunction (no disk cache).
RunOutcome runGPU(const KernelCase &c);

} // namespace difftest

#endif // TILEC_DIFFERENTIAL_RUNNER_H
