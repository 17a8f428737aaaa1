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

/// The largest cluster the cost model splits a program's K loop over: few
/// specializations per kernel. Clusters of 5 to 7 CTAs were up to 11%
/// faster than the best of 2 to 4 on 4 of 20 skinny configurations and
/// slower on the others, clusters of 8 slower everywhere (H200).
constexpr unsigned kMaxModelClusterSplit = 4;

/// How many clusters of S CTAs of one kernel a GPU runs at once, index S
/// from 1 to kMaxModelClusterSplit (cuOccupancyMaxActiveClusters for the
/// kernel's block and shared memory; Kernel reads it at load); 0: unknown.
/// On an H200 a CTA that leaves room for one more on its SM gets
/// {264, 132, 79, 62} for 1 to 4, one alone {132, 66, 39, 30}: clusters
/// stay within a GPC, whose SMs do not divide by 3 or 4.
using ClusterCapacity = std::array<uint64_t, kMaxModelClusterSplit + 1>;

/// Whether a launch of `programs` programs on a GPU of `multiprocessors`
/// SMs and compute capability `computeCapability` could run as clusters:
/// sm_90+ (thread-block clusters) and no more programs than SMs. Past that
/// the CTAs of 2 would not all run at once even two to an SM, and waves of
/// them lose to one CTA a program (512 x 4096 x 4096, 256 programs: 0.62x
/// at 2 CTAs a program, H100).
bool mayClusterSplitK(uint64_t programs, unsigned multiprocessors,
                      unsigned computeCapability);

/// The CTAs per program a dot kernel splits its K loop over when
/// KernelOptions::clusterSplitK is 0 ("as the launch decides"): 1 where
/// mayClusterSplitK says no, else the largest S from kMaxModelClusterSplit
/// down to 2 whose clusters all run at once, `programs` <= capacity[S], so
/// no program waits for a second wave (where the capacity is unknown:
/// programs * S <= multiprocessors, one CTA an SM), else 1. Against the
/// best of 1 to 8 CTAs on 20 tile configurations of four skinny shapes
/// (bf16, H200, 2026-11-27) it picked the fastest in 13 and one within 11%
/// in the others; the rule before it, programs * S <= multiprocessors,
/// lost up to 0.72x where 32 clusters of 4 did not all fit at once. A
/// kernel that leaves room for a second CTA on its SM splits in 2 up to
/// 132 programs (128 of 128 x 128: 1.13x). The JIT and tile-run call it
/// with the kernel's capacity.
unsigned chooseClusterSplitK(uint64_t programs, unsigned multiprocessors,
                             unsigned computeCapability,
                             const ClusterCapacity &capacity = {});

/// The most CTAs the cost model lets share one program's K loop: each
/// adds a partial that the program's first CTA reads back in turn.
constexpr unsigned kMaxStreamKSharers = 4;

struct StreamKLaunch {
  uint64_t ctas = 0;
  uint64_t splitPrograms = 0;
  uint64_t sharers(uint64_t programs) const {
    return ctas - (programs - splitPrograms);
  }
};

/// The stream-K launch of `programs` programs on a GPU that runs
/// `residentCtas` CTAs of the kernel at once (SMs times the kernel's CTAs
/// an SM; 0: unknown), or splitPrograms 0 (a CTA a program) where it does
/// not pay. It pays where the grid's waves of residentCtas leave a tenth of
/// the slots or more idle: the R programs of the last, partial wave are
/// each shared by the same number of CTAs, w = min(kMaxStreamKSharers,
/// residentCtas / R), at least 2, so that the CTAs of a program start at
/// the same fractions of its K loop and programs that share an operand's
/// panel read it at the same time, as whole programs do (with w * R CTAs
/// sharing R programs unevenly, their runs start at scattered iterations,
/// the panel is read again for each, and 96 programs of 128 x 256 over
/// 132 CTAs ran at 0.74x of one CTA a program at 512 x 6144 x 4096, H200).
/// The w * R CTAs all run at once once the whole programs' CTAs are done,
/// so that no sharer waits for one that cannot start. 70B qkv at M = 512
/// (160 programs of 128 x 256, 28 split 4 ways): 1.34x.
StreamKLaunch chooseStreamK(uint64_t programs, uint64_t residentCtas);

} // namespace tile

#endif // TILE_GRID_H
