//===- dot_product.cpp - JIT-compiles dot_product.tl and checks it --------===//
//
// The puzzle's configuration (8 elements, one program, a = b = 0..7) and a
// large one, each checked against a double-precision sum on the CPU.
//
//===----------------------------------------------------------------------===//

#include "tile/Backend.h"
#include "tile/DeviceBuffer.h"
#include "tile/Driver.h"
#include "tile/Error.h"
#include "tile/JIT.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>

static bool check(tile::JITFunction &dot, tile::Backend backend,
                  const std::vector<float> &a, const std::vector<float> &b,
                  int block, unsigned programs) {
  int n = int(a.size());
  auto da = tile::DeviceBuffer::fromHost(a, backend);
  auto db = tile::DeviceBuffer::fromHost(b, backend);
  auto dout = tile::DeviceBuffer::fromHost(std::vector<float>{0.0f}, backend);
  tile::JITOptions options;
  options.backend = backend;
  dot.launch({programs}, {da, db, dout, n}, {{"BLOCK", block}}, options);
  float result = dout.toHost<float>()[0];

  double expected = 0, magnitude = 0;
  for (int i = 0; i < n; ++i) {
    expected += double(a[i]) * double(b[i]);
    magnitude += std::fabs(double(a[i]) * double(b[i]));
  }
  // fp32 sums in another order: allow a few ulps of the sum of magnitudes.
  double tolerance = 1e-6 * magnitude + 1e-6;
  bool ok = std::fabs(result - expected) <= tolerance;
  std::printf("dot_product (%s): n = %d, %u programs of %d: out = %.6f, "
              "CPU (double) = %.6f, |diff| = %.2g <= %.2g%s\n",
              tile::backendName(backend), n, programs, block, result, expected,
              std::fabs(result - expected), tolerance, ok ? "" : "  MISMATCH");
  return ok;
}

int main(int argc, char **argv) {
  // On a machine without a GPU, the CPU interpreter runs the same kernel.
  tile::Backend backend = tile::defaultBackend();
  std::string dir = argc > 1 ? argv[1] : TILEC_EXAMPLES_DIR;
  try {
    auto dot = tile::JITFunction::fromFile(dir + "/dot_product.tl");
    // The puzzle: SIZE = 8, one program, a = b = 0..7 -> 140.
    std::vector<float> a(8), b(8);
    for (int i = 0; i < 8; ++i)
      a[i] = b[i] = float(i);
    bool ok = check(dot, backend, a, b, 8, 1);

    // Large: 2^26 elements on the GPU (2^20 on the interpreter).
    int n = backend == tile::Backend::CUDA ? 1 << 26 : 1 << 20;
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> dist(-1, 1);
    a.resize(n);
    b.resize(n);
    for (int i = 0; i < n; ++i)
      a[i] = dist(rng), b[i] = dist(rng);
    unsigned programs = backend == tile::Backend::CUDA ? 1056 : 64;
    ok &= check(dot, backend, a, b, 2048, programs);
    // A length that is not a multiple of the block.
    a.resize(1000003);
    b.resize(1000003);
    ok &= check(dot, backend, a, b, 2048, 64);
    return ok ? 0 : 1;
  } catch (const tile::Error &e) {
    std::fprintf(stderr, "dot_product: %s\n", e.what());
    return 1;
  }
}
