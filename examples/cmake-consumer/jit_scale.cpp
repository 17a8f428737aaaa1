//===- jit_scale.cpp - A consumer's JIT kernel through Tilec::jit ---------===//
//
// Compiles kernels/scale.tl at run time and checks it against the CPU, on
// the GPU or, where there is none, on tilec's interpreter.
//
//===----------------------------------------------------------------------===//

#include "tile/Backend.h"
#include "tile/DeviceBuffer.h"
#include "tile/Error.h"
#include "tile/JIT.h"

#include <cstdio>
#include <string>
#include <vector>

int main(int argc, char **argv) {
  // The kernels' directory: this project's, or the one given.
  std::string dir = argc > 1 ? argv[1] : KERNELS_DIR;
  tile::Backend backend = tile::defaultBackend();
  try {
    auto scale = tile::JITFunction::fromFile(dir + "/scale.tl");
    const int n = 10007;
    std::vector<float> x(n);
    for (int i = 0; i < n; ++i)
      x[i] = float(i % 97) - 48.0f;
    auto dx = tile::DeviceBuffer::fromHost(x, backend);
    auto dy = tile::DeviceBuffer::fromHost(std::vector<float>(n), backend);
    tile::JITOptions options;
    options.backend = backend;
    scale.launch({tile::cdiv(n, 512)}, {dx, dy, n, 0.5f, 3.0f},
                 {{"BLOCK", 512}}, options);
    std::vector<float> y = dy.toHost<float>();
    int wrong = 0;
    for (int i = 0; i < n; ++i)
      wrong += y[i] != 0.5f * x[i] + 3.0f;
    std::printf("jit_scale (%s): %d of %d elements match the CPU\n",
                tile::backendName(backend), n - wrong, n);
    return wrong ? 1 : 0;
  } catch (const tile::Error &e) {
    std::fprintf(stderr, "jit_scale: %s\n", e.what());
    return 1;
  }
}
