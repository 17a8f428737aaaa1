//===- launch_overhead.cpp - What enqueueing a kernel costs ---------------===//
//
// Microseconds per launch of bench/kernels/tiny.tl (one program), best of
// 5 rounds of 20000 enqueues each (the six ways take turns in each round),
// for raw cuLaunchKernel with packed
// parameters, the AOT C launcher (tilec --emit=c), tile::Kernel::launch,
// the JIT's launch of a cached specialization (of a buffer, and of a raw
// tile::Ptr) and its bound launch. With
// --cold, the first JIT and AOT launches of a new process instead (run it
// twice: the first fills the disk cache). Prints one JSON object.
//
//   launch_overhead bench/kernels/tiny.tl [--cold]
//
//===----------------------------------------------------------------------===//

#include "tiny_aot.h"

#include "tile/DeviceBuffer.h"
#include "tile/Driver.h"
#include "tile/Error.h"
#include "tile/JIT.h"
#include "tile/Module.h"

#include <chrono>
#include <cstdio>
#include <cstring>
#include <dlfcn.h>
#include <functional>
#include <string>

namespace {

using Clock = std::chrono::steady_clock;

double microseconds(Clock::duration d) {
  return std::chrono::duration<double, std::micro>(d).count();
}

/// Each launcher's best per-launch time over `rounds` rounds of `count`
/// launches. The launchers take turns within a round, so that the
/// machine's drift (clocks, other tenants) touches them alike.
std::vector<double>
perLaunch(const std::vector<std::function<void()>> &launchers,
          int count = 20000, int rounds = 5) {
  std::vector<double> best(launchers.size(), 1e30);
  for (int r = 0; r < rounds; ++r)
    for (size_t k = 0; k < launchers.size(); ++k) {
      tile::synchronize();
      Clock::time_point start = Clock::now();
      for (int i = 0; i < count; ++i)
        launchers[k]();
      Clock::duration took = Clock::now() - start;
      tile::synchronize();
      best[k] = std::min(best[k], microseconds(took) / count);
    }
  return best;
}

void check(CUresult r, const char *what) {
  if (r != CUDA_SUCCESS)
    throw tile::Error(std::string(what) + " failed: CUresult " + std::to_string(r));
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: launch_overhead <tiny.tl> [--cold]\n");
    return 2;
  }
  bool cold = argc > 2 && std::strcmp(argv[2], "--cold") == 0;
  std::string why;
  if (!tile::cudaAvailable(&why)) {
    std::printf("launch_overhead: skipped, no GPU (%s)\n", why.c_str());
    return 0;
  }
  try {
    const int n = 128;
    auto x = tile::DeviceBuffer::fromHost(std::vector<float>(n));
    auto tiny = tile::JITFunction::fromFile(argv[1]);
    tile::Constexprs block = {{"BLOCK", 128}};
    if (cold) {
      // The context exists (the buffer); what is left is ours and the
      // module's load.
      Clock::time_point start = Clock::now();
      tiny.launch({1}, {x, n}, block);
      Clock::duration jit = Clock::now() - start;
      tile::synchronize();
      start = Clock::now();
      check(tiny_aot(nullptr, 1, 1, 1, x.address(), n), "tiny_aot");
      Clock::duration aot = Clock::now() - start;
      tile::synchronize();
      std::printf("{\"cold_jit_ms\": %.3f, \"cold_aot_ms\": %.3f, "
                  "\"compiled\": %u}\n",
                  microseconds(jit) / 1000, microseconds(aot) / 1000,
                  tiny.compileCount());
      return 0;
    }

    const tile::Kernel &kernel = tiny.specialize({x, n}, block, {});
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    auto *launchKernel = reinterpret_cast<CUresult (*)(
        CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
        unsigned, CUstream, void **, void **)>(dlsym(lib, "cuLaunchKernel"));
    auto function = static_cast<CUfunction>(kernel.module()->function("tiny"));
    CUdeviceptr address = x.address();
    int32_t count = n;
    void *params[] = {&address, &count};
    unsigned threads = kernel.metadata().threadsPerBlock;
    check(tiny_aot_load(), "tiny_aot_load");
    tile::BoundLaunch bound = tiny.bind({1}, {x, n}, block);
    // A raw address: the launch asks the driver for its allocation.
    tile::Ptr<float> rawPointer(address);

    std::vector<double> times = perLaunch({
        [&] {
          check(launchKernel(function, 1, 1, 1, threads, 1, 1, 0, nullptr,
                             params, nullptr),
                "cuLaunchKernel");
        },
        [&] { check(tiny_aot(nullptr, 1, 1, 1, address, count), "tiny_aot"); },
        [&] {
          kernel.launch({1}, {x, n});
        },
        [&] {
          tiny.launch({1}, {x, n}, {{"BLOCK", 128}});
        },
        [&] { bound.launch(); },
        [&] {
          tiny.launch({1}, {rawPointer, n}, {{"BLOCK", 128}});
        },
    });
    double raw = times[0], aot = times[1], kernelLaunch = times[2],
           jit = times[3], boundLaunch = times[4], jitRaw = times[5];
    std::vector<float> y = x.toHost<float>();
    for (int i = 0; i < n; ++i)
      if (y[i] != float(i))
        throw tile::Error("tiny wrote " + std::to_string(y[i]) + " at " +
                          std::to_string(i));
    std::printf("{\"device\": \"%s\", \"raw_us\": %.3f, \"aot_us\": %.3f, "
                "\"kernel_us\": %.3f, \"jit_us\": %.3f, \"bound_us\": %.3f, "
                "\"jit_raw_us\": %.3f}\n",
                tile::deviceName().c_str(), raw, aot, kernelLaunch, jit,
                boundLaunch, jitRaw);
    return 0;
  } catch (const std::exception &e) {
    std::fprintf(stderr, "launch_overhead: %s\n", e.what());
    return 1;
  }
}
