//===- Grid.h - Launch grids and their limits -------------------*- C++ -*-===//
//
// The grid of programs a kernel is launched on, and CUDA's limits on it,
// which the compiler's interpreter, the runtime and the tools all check.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_GRID_H
#define TILE_GRID_H

#include <string>

namespace tile {

/// The launch grid, in programs (CUDA blocks).
struct Grid {
  unsigned x = 1, y = 1, z = 1;
};

/// The most programs a grid may have along x, y and z: CUDA's limits on
/// every device of compute capability 3.0 and later, which the interpreter
/// keeps too so that its runs behave as the GPU's. A Kernel checks its
/// device's own (CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X/Y/Z).
constexpr Grid kMaxGrid{2147483647u, 65535u, 65535u};

/// Checks a launch's grid: "" when every extent is 1 to `limit`'s, else
/// the error, e.g. "kernel add_kernel: grid (1, 70000, 1) has 70000
/// programs along y, more than the limit of 65535".
std::string validateGrid(const std::string &kernel, Grid grid,
                         Grid limit = kMaxGrid);

} // namespace tile

#endif // TILE_GRID_H
