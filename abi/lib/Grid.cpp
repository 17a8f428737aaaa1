//===- Grid.cpp - Launch grids and their limits ---------------------------===//

#include "tile/Grid.h"

using namespace tile;

std::string tile::validateGrid(const std::string &kernel, Grid grid,
                               Grid limit) {
  std::string text = "kernel " + kernel + ": grid (" + std::to_string(grid.x) +
                     ", " + std::to_string(grid.y) + ", " +
                     std::to_string(grid.z) + ")";
  if (grid.x == 0 || grid.y == 0 || grid.z == 0)
    return text + " has a zero dimension";
  const unsigned extents[] = {grid.x, grid.y, grid.z};
  const unsigned limits[] = {limit.x, limit.y, limit.z};
  for (int d = 0; d < 3; ++d)
    if (extents[d] > limits[d])
      return text + " has " + std::to_string(extents[d]) +
             " programs along " + "xyz"[d] + ", more than the limit of " +
             std::to_string(limits[d]);
  return {};
}
