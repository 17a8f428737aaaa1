//===- Grid.h - Launch grids and their limits -------------------*- C++ -*-===//
//
// The grid of programs a kernel is launched on, and CUDA's limits on it,
// which the compiler's interpreter, the runtime and the tools all check;
// and the cost model that picks how many CTAs each program runs as.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_GRID_H
#define TILE_GRID_H

#include <array>
#include <cstdint>
#include <string>

namespace tile {

/// The launch grid, in programs (CUDA blocks, or clusters of them).
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
/// programs along y, more than the limit of 65535". Where each program
/// runs as a cluster of `clusterDims` CTAs (KernelMetadata::clusterDims),
/// the limits hold for the CTAs, the grid's extents times the cluster's:
/// "kernel k: grid (300000000, 1, 1) in clusters of (8, 1, 1) CTAs starts
/// 2400000000 CTAs along x, more than the limit of 2147483647".
std::string validateGrid(const std::string &kernel, Grid grid,
                         Grid limit = kMaxGrid,
                         std::array<unsigned, 3> clusterDims = {1, 1, 1});

/// The CTAs per program a dot kernel splits its K loop over when
/// KernelOptions::clusterSplitK is 0 ("as the launch decides"), for a
/// launch of `programs` programs on a GPU of `multiprocessors` SMs and
/// compute capability `computeCapability` (90 for sm_90a). 1 where the GPU
/// has no thread-block clusters (below 90), where the grid is empty or
/// already fills more than half the SMs (programs * 2 > multiprocessors):
/// more CTAs would queue behind each other, and the split's reduction only
/// costs. Else the largest of 4 and 2 whose programs * S CTAs still fit the
/// SMs one each (2 always does), so a small grid (a skinny GEMM's few
/// output tiles) runs on several times the SMs. The JIT and tile-run call
/// it with the launch's grid and the device's SMs; it needs no GPU.
unsigned chooseClusterSplitK(uint64_t programs, unsigned multiprocessors,
                             unsigned computeCapability);

} // namespace tile

#endif // TILE_GRID_H
