//===- Timing.cpp - Timing kernels with CUDA events -----------------------===//

#include "tile/Timing.h"

#include "DriverApi.h"
#include "tile/Driver.h"
#include "tile/Error.h"

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
