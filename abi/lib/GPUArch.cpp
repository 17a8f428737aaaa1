//===- GPUArch.cpp - The GPU architectures tilec compiles for -------------===//

#include "tile/GPUArch.h"

using namespace tile;

const std::vector<GPUArch> &tile::gpuArchs() {
  static const std::vector<GPUArch> archs = {
      {"sm_80", 80, false},
      {"sm_90", 90, false},
      {"sm_90a", 90, true},
  };
  return archs;
}

std::optional<GPUArch> tile::lookupGPUArch(std::string_view name) {
  for (const GPUArch &arch : gpuArchs())
    if (arch.name == name)
      return arch;
  return std::nullopt;
}

std::optional<GPUArch> tile::gpuArchForDevice(unsigned capability) {
  std::optional<GPUArch> best;
  for (const GPUArch &arch : gpuArchs()) {
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

std::string tile::noGPUArchFor(const std::string &device) {
  return "tilec compiles for none older than " +
         std::string(gpuArchs().front().name) + " (" + device + ")";
}

std::string tile::supportedGPUArchs() {
  const std::vector<GPUArch> &archs = gpuArchs();
  std::string names;
  for (size_t i = 0; i < archs.size(); ++i)
    names += std::string(i == 0                  ? ""
                         : i + 1 == archs.size() ? " or "
                                                 : ", ") +
             std::string(archs[i].name);
  return names;
}
