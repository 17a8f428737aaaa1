//===- vector_add.cpp - JIT-compiles vector_add.tl and checks it ----------===//

#include "tile/Backend.h"
#include "tile/DeviceBuffer.h"
#include "tile/Driver.h"
#include "tile/Error.h"
#include "tile/JIT.h"

#include <cstdio>
#include <random>

static bool check(tile::JITFunction &add, tile::Backend backend, int n) {
  std::mt19937 rng(n);
  std::uniform_real_distribution<float> dist(-1, 1);
  std::vector<float> x(n), y(n);
  for (int i = 0; i < n; ++i)
    x[i] = dist(rng), y[i] = dist(rng);
  auto dx = tile::DeviceBuffer::fromHost(x, backend);
  auto dy = tile::DeviceBuffer::fromHost(y, backend);
  auto dout = tile::DeviceBuffer::fromHost(std::vector<float>(n, -7.0f), backend);
  const int block = 1024;
  tile::JITOptions options;
  options.backend = backend;
  add.launch({tile::cdiv(n, block)}, {dx, dy, dout, n}, {{"BLOCK_SIZE", block}},
             options);
  std::vector<float> out = dout.toHost<float>();
  int wrong = 0;
  for (int i = 0; i < n; ++i)
    wrong += out[i] != x[i] + y[i];
  std::printf("vector_add (%s): n = %d, BLOCK_SIZE = %d: %d of %d elements "
              "match the CPU sum%s\n",
              tile::backendName(backend), n, block, n - wrong, n,
              wrong ? "  MISMATCH" : "");
  return wrong == 0;
}

int main(int argc, char **argv) {
  // On a machine without a GPU, the CPU interpreter runs the same kernel.
  tile::Backend backend = tile::defaultBackend();
  std::string dir = argc > 1 ? argv[1] : TILEC_EXAMPLES_DIR;
  try {
    auto add = tile::JITFunction::fromFile(dir + "/vector_add.tl");
    bool ok = true;
    for (int n : {1000003, 98432, 1 << 20, 1})
      ok &= check(add, backend, n);
    if (backend == tile::Backend::CUDA)
      std::printf("vector_add: %u specializations compiled on %s\n",
                  add.compileCount(), tile::deviceName().c_str());
    return ok ? 0 : 1;
  } catch (const tile::Error &e) {
    std::fprintf(stderr, "vector_add: %s\n", e.what());
    return 1;
  }
}
