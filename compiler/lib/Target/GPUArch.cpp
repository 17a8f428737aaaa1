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

std::optional<GPUArch> tilec::lookupGPUArch(llvm::StringRef name) {
  for (const GPUArch &arch : kArchs)
    if (arch.name == name)
      return arch;
  return std::nullopt;
}

llvm::StringRef tilec::supportedGPUArchs() { return "sm_80, sm_90 or sm_90a"; }
