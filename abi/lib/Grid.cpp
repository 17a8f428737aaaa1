//===- Grid.cpp - Launch grids and their limits ---------------------------===//

#include "tile/Grid.h"

#include <algorithm>

using namespace tile;

std::string tile::validateGrid(const std::string &kernel, Grid grid, Grid limit,
                               std::array<unsigned, 3> clusterDims) {
  std::string text = "kernel " + kernel + ": grid (" + std::to_string(grid.x) +
                     ", " + std::to_string(grid.y) + ", " +
                     std::to_string(grid.z) + ")";
  if (grid.x == 0 || grid.y == 0 || grid.z == 0)
    return text + " has a zero dimension";
  const unsigned extents[] = {grid.x, grid.y, grid.z};
  const unsigned limits[] = {limit.x, limit.y, limit.z};
  bool clustered = clusterDims != std::array<unsigned, 3>{1, 1, 1};
  for (int d = 0; d < 3; ++d) {
    // In 64 bits: 2^31 - 1 programs of 8 CTAs pass 32.
    uint64_t ctas = uint64_t(extents[d]) * clusterDims[d];
    if (ctas <= limits[d])
      continue;
    if (!clustered)
      return text + " has " + std::to_string(extents[d]) + " programs along " +
             "xyz"[d] + ", more than the limit of " + std::to_string(limits[d]);
    return text + " in clusters of (" + std::to_string(clusterDims[0]) + ", " +
           std::to_string(clusterDims[1]) + ", " +
           std::to_string(clusterDims[2]) + ") CTAs starts " +
           std::to_string(ctas) + " CTAs along " + "xyz"[d] +
           ", more than the limit of " + std::to_string(limits[d]);
  }
  return {};
}

bool tile::mayClusterSplitK(uint64_t programs, unsigned multiprocessors,
                            unsigned computeCapability) {
  return computeCapability >= 90 && programs != 0 &&
         programs <= multiprocessors;
}

unsigned tile::chooseClusterSplitK(uint64_t programs, unsigned multiprocessors,
                                   unsigned computeCapability,
                                   const ClusterCapacity &capacity) {
  if (!mayClusterSplitK(programs, multiprocessors, computeCapability))
    return 1;
  for (unsigned ctas = kMaxModelClusterSplit; ctas >= 2; --ctas) {
    bool atOnce = capacity[ctas]
                      ? programs <= capacity[ctas]
                      : programs <= uint64_t(multiprocessors) / ctas;
    if (atOnce)
      return ctas;
  }
  return 1;
}

uint64_t tile::persistentCtas(uint64_t programs, uint64_t residentCtas) {
  return residentCtas ? std::min(programs, residentCtas) : programs;
}

StreamKLaunch tile::chooseStreamK(uint64_t programs, uint64_t residentCtas) {
  StreamKLaunch none{programs, 0, 0, 0};
  if (!programs || !residentCtas)
    return none;
  uint64_t waves = (programs + residentCtas - 1) / residentCtas;
  uint64_t split = programs - (waves - 1) * residentCtas;
  uint64_t idle = residentCtas - split;
  // A last wave that fills more SMs than it leaves idle: measured, its
  // CTAs slow down by as much as the pieces' CTAs add (Grid.h).
  if (split > idle)
    return none;
  // The last wave's time as a fraction time / scale of a program's: 1
  // unsplit. A cut into `parts` has scale 32 * parts, so that a partial's
  // 1/32 of a K loop is `parts`.
  uint64_t bestTime = 1, bestScale = 1;
  StreamKLaunch best = none;
  for (unsigned parts = 2; parts <= kMaxStreamKParts; ++parts) {
    unsigned fewest = parts > kMaxStreamKPieces ? parts - kMaxStreamKPieces : 1;
    for (unsigned head = fewest; head < parts; ++head) {
      uint64_t pieces = split * (parts - head);
      uint64_t ctas = std::min(idle, pieces);
      if (!ctas)
        continue;
      uint64_t busiest = (pieces + ctas - 1) / ctas;
      uint64_t scale = 32 * uint64_t(parts);
      uint64_t time = std::max(32 * uint64_t(head) + (parts - head) * parts,
                               busiest * (32 + parts));
      if (time * bestScale < bestTime * scale) {
        bestTime = time;
        bestScale = scale;
        best = {programs + ctas, split, parts, head};
      }
    }
  }
  // Worth it where it saves a tenth of the waves' time.
  if (10 * (bestScale - bestTime) < waves * bestScale)
    return none;
  return best;
}
