//===- GPUArch.cpp - The GPU architectures tilec compiles for -------------===//

#include "tilec/Target/GPUArch.h"

#include "llvm/ADT/STLExtras.h"

using namespace tilec;

namespace {
constexpr GPUArch kArchs[] = {
    {"sm_80", 80, false},
    {"sm_90", 90, false},
    {"sm_90a", 90, true},
};
} // namespace

llvm::ArrayRef<GPUArch> tilec::gpuArchs() { return kArchs; }

std::optional<GPUArch> tilec::lookupGPUArch(llvm::StringRef name) {
  for (const GPUArch &arch : kArchs)
    if (arch.name == name)
      return arch;
  return std::nullopt;
}

std::optional<GPUArch> tilec::gpuArchForDevice(unsigned capability) {
  std::optional<GPUArch> best;
  for (const GPUArch &arch : kArchs) {
    bool runs = arch.archSpecific ? arch.computeCapability == capability
                                  : arch.computeCapability <= capability;
    // Newer first; of one capability, the architecture-specific target.
    if (runs && (!best || arch.computeCapability > best->computeCapability ||
                 (arch.computeCapability == best->computeCapability &&
                  arch.archSpecific)))
      best = arch;
  }
  return best;
}

std::string tilec::supportedGPUArchs() {
  std::string names;
  for (auto [i, arch] : llvm::enumerate(kArchs))
    names += (i == 0 ? "" : i + 1 == std::size(kArchs) ? " or " : ", ") +
             arch.name.str();
  return names;
}
