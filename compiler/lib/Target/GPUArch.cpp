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

std::string tilec::supportedGPUArchs() {
  std::string names;
  for (auto [i, arch] : llvm::enumerate(kArchs))
    names += (i == 0 ? "" : i + 1 == std::size(kArchs) ? " or " : ", ") +
             arch.name.str();
  return names;
}
