//===- Occupancy.cpp - How many blocks of a kernel an SM holds ------------===//

#include "tilec/Target/PTX/Occupancy.h"
#include "tile/GPUArch.h"

#include <algorithm>
#include <optional>
#include <utility>

using namespace llvm;

tilec::SMLimits tilec::smLimits(StringRef arch) {
  SMLimits sm;
  // 228 KB on Hopper, 164 KB on Ampere (A100), of which each block's
  // share includes 1 KB the system keeps.
  std::optional<::tile::GPUArch> known = ::tile::lookupGPUArch(arch);
  sm.sharedBytes =
      known && known->computeCapability == 80 ? 164 * 1024 : 228 * 1024;
  return sm;
}

StringRef tilec::describe(OccupancyLimit limit) {
  switch (limit) {
  case OccupancyLimit::Blocks:
    return "blocks";
  case OccupancyLimit::Threads:
    return "threads";
  case OccupancyLimit::Registers:
    return "registers";
  case OccupancyLimit::SharedMemory:
    return "shared memory";
  }
  return "";
}

tilec::Occupancy tilec::occupancy(const SMLimits &sm, unsigned threads,
                                  unsigned registersPerThread,
                                  unsigned sharedBytes) {
  unsigned warps = std::max(1u, (threads + 31) / 32);
  // Registers are given to a warp in units of 256.
  unsigned perWarp = std::max(1u, (registersPerThread * 32 + 255) / 256 * 256);
  std::pair<unsigned, OccupancyLimit> limits[] = {
      {sm.blocks, OccupancyLimit::Blocks},
      {sm.threads / (warps * 32), OccupancyLimit::Threads},
      {sm.registers / perWarp / warps, OccupancyLimit::Registers},
      {sharedBytes ? sm.sharedBytes / (sharedBytes + sm.sharedPerBlock)
                   : sm.blocks,
       OccupancyLimit::SharedMemory}};
  Occupancy result;
  result.blocks = sm.blocks;
  for (auto [blocks, limit] : limits)
    result.blocks = std::min(result.blocks, blocks);
  for (auto [blocks, limit] : limits)
    if (blocks == result.blocks)
      result.limits.push_back(limit);
  result.warps = result.blocks * warps;
  return result;
}

unsigned tilec::blocksPerSM(const SMLimits &sm, unsigned threads,
                            unsigned registersPerThread, unsigned sharedBytes) {
  return occupancy(sm, threads, registersPerThread, sharedBytes).blocks;
}
