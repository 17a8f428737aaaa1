//===- Timing.h - Timing kernels with CUDA events ---------------*- C++ -*-===//

#ifndef TILE_TIMING_H
#define TILE_TIMING_H

#include <functional>

namespace tile {

/// Runs `body` `warmup` times, then times `reps` runs with CUDA events on the
/// default stream and returns the mean milliseconds per run. `body` should
/// enqueue work (e.g. Kernel::launch) on the default stream.
float timeKernelMs(const std::function<void()> &body, int warmup = 10,
                   int reps = 100);

/// Triton's do_bench, as its autotuner uses it: runs `body` once, estimates
/// its time from five more runs, runs it for about `warmupMs`, then times
/// about `repMs` of runs one by one with events on `stream` (null: the
/// default stream), each after a 256 MB fill that leaves the L2 cache cold,
/// and returns the median milliseconds per run.
float benchmarkMs(const std::function<void()> &body, void *stream,
                  unsigned warmupMs = 25, unsigned repMs = 100);

} // namespace tile

#endif // TILE_TIMING_H
