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

/// The most programs a launch of a persistent kernel (KernelMetadata::
/// persistent) may ask for: the kernel counts them, and its CTAs, in 32-bit
/// integers.
constexpr uint64_t kMaxPersistentPrograms = uint64_t(1) << 30;

/// The CTAs a launch of a persistent kernel starts for `programs` programs
/// on a GPU that holds `residentCtas` of its CTAs at once (SMs times CTAs
/// an SM; 0: unknown, a CTA a program): no more than either, each running
/// the programs its number apart.
uint64_t persistentCtas(uint64_t programs, uint64_t residentCtas);

/// The most parts of its K loop a split program's tail is cut into, each a
/// piece run by another CTA whose partial the program's head adds in turn.
constexpr unsigned kMaxStreamKPieces = 3;
/// The finest cut of a split program's K loop the cost model tries.
constexpr unsigned kMaxStreamKParts = 8;

/// A stream-K launch: `ctas` CTAs along x run a grid's programs. The first
/// programs - splitPrograms run a program each. The last splitPrograms are
/// split: each K loop is cut into `parts` equal parts; the program's own
/// CTA (its head) runs the first headParts of them, and the others are
/// pieces, one part each, that the ctas - programs CTAs after the grid's
/// run in turn (piece j of split program p is the (j * splitPrograms +
/// p)-th, run by the CTA of its index modulo theirs). Each piece leaves a
/// partial in a slot of its own; the head adds them in order and runs the
/// epilogue.
struct StreamKLaunch {
  uint64_t ctas = 0;
  uint64_t splitPrograms = 0;
  unsigned parts = 0;
  unsigned headParts = 0;
  /// The pieces, and so the partial slots of the workspace.
  uint64_t pieces() const { return splitPrograms * (parts - headParts); }
};

/// The stream-K launch of `programs` programs on a GPU that runs
/// `residentCtas` CTAs of the kernel at once (SMs times the kernel's CTAs
/// an SM; 0: unknown), or splitPrograms 0 (a CTA a program) where it does
/// not pay. Only the R programs of the last wave are split, and only where
/// that wave leaves at least R slots idle: in a fuller wave the programs'
/// CTAs slow down as the pieces' CTAs join them, by as much as the pieces
/// add (96 programs of 128 x 256 on 132 SMs at 512 x 6144 x 4096, H200:
/// every cut from halves to eighths ran at 1.03x to 1.8x the time of a CTA
/// a program, at the same clock, neither L2 nor DRAM near its peak). The
/// pieces' CTAs fill the wave's idle slots: over the cuts `parts` up to
/// kMaxStreamKParts and heads of `headParts`, the model takes the one
/// whose longer side ends first, the head (headParts / parts of a K loop,
/// and the partials it adds) or the busiest piece CTA (its pieces of 1 /
/// parts, each with a partial to store), every partial costing 1/32 of a
/// program's K loop. It splits where that saves a tenth of the grid's
/// time or more. Because every program is cut at the same parts and the
/// pieces of consecutive programs run side by side, the programs that
/// read one panel of an operand read each part of it at the same time, as
/// whole programs do. The pieces' CTAs come after the whole programs' and
/// all run at once with the heads, so that no head waits for a piece that
/// cannot start. 70B qkv at M = 512 (160 programs of 128 x 256: the last
/// 28 cut in quarters, a head of one): 1.34x.
StreamKLaunch chooseStreamK(uint64_t programs, uint64_t residentCtas);

} // namespace tile

#endif // TILE_GRID_H
