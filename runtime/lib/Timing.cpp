//===- Timing.cpp - Timing kernels with CUDA events -----------------------===//

#include "tile/Timing.h"

#include "DriverApi.h"
#include "tile/DeviceBuffer.h"
#include "tile/Driver.h"
#include "tile/Error.h"

#include <algorithm>
#include <vector>

using namespace tile;
using namespace tile::cu;

namespace {
/// Destroys the event on every exit path, including exceptions from `body`.
struct Event {
  CUevent event = nullptr;
  Event() { checkCuda(driver().cuEventCreate(&event, 0), "cuEventCreate"); }
  ~Event() {
    if (const DriverApi *api = loadedDriver())
      api->cuEventDestroy(event);
  }
  Event(const Event &) = delete;
  Event &operator=(const Event &) = delete;
};
} // namespace

float tile::timeKernelMs(const std::function<void()> &body, int warmup,
                         int reps) {
  if (reps <= 0)
    throw Error("timeKernelMs: reps must be positive");
  const DriverApi &api = driver();
  for (int i = 0; i < warmup; ++i)
    body();
  synchronize();

  Event start, stop;
  checkCuda(api.cuEventRecord(start.event, nullptr), "cuEventRecord");
  for (int i = 0; i < reps; ++i)
    body();
  checkCuda(api.cuEventRecord(stop.event, nullptr), "cuEventRecord");
  checkCudaAfterLaunch(api.cuEventSynchronize(stop.event),
                       "cuEventSynchronize");
  float ms = 0;
  checkCuda(api.cuEventElapsedTime(&ms, start.event, stop.event),
            "cuEventElapsedTime");
  return ms / reps;
}

float tile::benchmarkMs(const std::function<void()> &body, void *stream,
                        unsigned warmupMs, unsigned repMs) {
  const DriverApi &api = driver();
  CUstream s = static_cast<CUstream>(stream);
  auto elapsed = [&](const Event &start, const Event &stop) {
    float ms = 0;
    checkCuda(api.cuEventElapsedTime(&ms, start.event, stop.event),
              "cuEventElapsedTime");
    return ms;
  };
  body();
  Event start, stop;
  checkCuda(api.cuEventRecord(start.event, s), "cuEventRecord");
  for (int i = 0; i < 5; ++i)
    body();
  checkCuda(api.cuEventRecord(stop.event, s), "cuEventRecord");
  checkCudaAfterLaunch(api.cuEventSynchronize(stop.event),
                       "cuEventSynchronize");
  float estimate = std::max(elapsed(start, stop) / 5, 1e-4f);
  // Each timed run starts with a cold L2, as Triton's do_bench has it (the
  // fill is outside the events).
  DeviceBuffer flush(size_t(256) << 20);
  int warmup = std::clamp(int(warmupMs / estimate), 1, 10000);
  int reps = std::clamp(int(repMs / estimate), 1, 1000);
  for (int i = 0; i < warmup; ++i)
    body();
  std::vector<Event> marks(2 * size_t(reps));
  for (int i = 0; i < reps; ++i) {
    fillMemory(Backend::CUDA, flush.address(), 0, flush.size(), stream);
    checkCuda(api.cuEventRecord(marks[2 * i].event, s), "cuEventRecord");
    body();
    checkCuda(api.cuEventRecord(marks[2 * i + 1].event, s), "cuEventRecord");
  }
  checkCudaAfterLaunch(api.cuEventSynchronize(marks.back().event),
                       "cuEventSynchronize");
  std::vector<float> times;
  for (int i = 0; i < reps; ++i)
    times.push_back(elapsed(marks[2 * i], marks[2 * i + 1]));
  std::nth_element(times.begin(), times.begin() + reps / 2, times.end());
  return times[reps / 2];
}
