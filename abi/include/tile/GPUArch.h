//===- GPUArch.h - The GPU architectures tilec compiles for -----*- C++ -*-===//
//
// One table of the --arch names: what compute capability each stands for
// (the layout passes and the lowering ask for it) and whether it is an
// architecture-specific target ("sm_90a": sm_90 plus the instructions only
// Hopper has, wgmma and setmaxnreg among them, in PTX that runs on compute
// capability 9.0 alone). In the ABI because both sides choose from it: the
// compiler's --arch native and the runtime's JIT pick a device's target the
// same way.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_GPUARCH_H
#define TILE_GPUARCH_H

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tile {

struct GPUArch {
  std::string_view name;      ///< "sm_90a", as PTX's .target and ptxas say it
  unsigned computeCapability; ///< 80, 90
  bool archSpecific;          ///< the "a" targets
};

/// Every architecture tilec compiles for, oldest first.
const std::vector<GPUArch> &gpuArchs();

/// The architecture `name` stands for; none when tilec does not compile for
/// it.
std::optional<GPUArch> lookupGPUArch(std::string_view name);

/// The architecture to compile for a device of compute capability
/// `capability` (86 for 8.6): the device's own architecture-specific target
/// where tilec has one (9.0: sm_90a), else the newest target the device
/// runs (8.9: sm_80; 10.0: sm_90, whose PTX the driver compiles for it);
/// none for a device older than every target.
std::optional<GPUArch> gpuArchForDevice(unsigned capability);

/// Their names, for messages: "sm_80, sm_90 or sm_90a".
std::string supportedGPUArchs();

/// Why a device gets no target (gpuArchForDevice has none): "tilec
/// compiles for none older than sm_80 (`device`)".
std::string noGPUArchFor(const std::string &device);

} // namespace tile

#endif // TILE_GPUARCH_H
