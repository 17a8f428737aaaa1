//===- normalize.cpp - JIT-compiles normalize.tl and checks it ------------===//
//
// The puzzle's configuration (SIZE = 128, input 1..8 repeated, one
// program), printed as the puzzle prints it, and a row-wise normalization of
// a large matrix checked element by element.
//
//===----------------------------------------------------------------------===//

#include "tile/Backend.h"
#include "tile/DeviceBuffer.h"
#include "tile/Driver.h"
#include "tile/Error.h"
#include "tile/JIT.h"

#include <cmath>
#include <cstdio>
#include <random>

static void printSample(const char *label, const std::vector<float> &v) {
  std::printf("%s", label);
  for (int i = 0; i < 8; ++i)
    std::printf(" %.8g", v[i]);
  std::printf(" ...\n");
}

static bool puzzle(tile::JITFunction &normalize, tile::Backend backend) {
  const int size = 128;
  std::vector<float> x(size);
  for (int i = 0; i < size; ++i)
    x[i] = float(i % 8 + 1);
  auto dx = tile::DeviceBuffer::fromHost(x, backend);
  auto dout = tile::DeviceBuffer::fromHost(std::vector<float>(size), backend);
  tile::JITOptions options;
  options.backend = backend;
  normalize.launch({1}, {dx, dout, size, size}, {{"BLOCK", size}}, options);
  std::vector<float> out = dout.toHost<float>();

  double sum = 0;
  for (float v : x)
    sum += v;
  double outSum = 0;
  for (float v : out)
    outSum += v;
  std::printf("normalize (%s): SIZE = %d, one program\n",
              tile::backendName(backend), size);
  printSample("Input sample:", x);
  std::printf("Sum value: %.1f\nMean value: %.1f\n", sum, sum / size);
  printSample("Normalized sample:", out);
  std::printf("Output sum: %.1f\nOutput mean: %.1f\n", outSum, outSum / size);
  bool ok = true;
  for (int i = 0; i < size; ++i)
    ok &= std::fabs(out[i] - float(x[i] / (sum / size))) <= 1e-6f;
  ok &= std::fabs(outSum - size) < 1e-3;
  std::printf(ok ? "Success: every element is x / mean(x)\n"
                 : "FAILURE: the output differs from x / mean(x)\n");
  return ok;
}

static bool rows(tile::JITFunction &normalize, tile::Backend backend, int m,
                 int n) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> dist(0.5f, 2.0f);
  std::vector<float> x(size_t(m) * n);
  for (float &v : x)
    v = dist(rng);
  auto dx = tile::DeviceBuffer::fromHost(x, backend);
  auto dout = tile::DeviceBuffer::fromHost(std::vector<float>(x.size()), backend);
  tile::JITOptions options;
  options.backend = backend;
  options.numWarps = 8;
  normalize.launch({unsigned(m)}, {dx, dout, n, n}, {{"BLOCK", n}}, options);
  std::vector<float> out = dout.toHost<float>();
  size_t wrong = 0;
  double worst = 0;
  for (int r = 0; r < m; ++r) {
    double sum = 0;
    for (int c = 0; c < n; ++c)
      sum += x[size_t(r) * n + c];
    double mean = sum / n;
    for (int c = 0; c < n; ++c) {
      double expected = x[size_t(r) * n + c] / mean;
      double error = std::fabs(out[size_t(r) * n + c] - expected) / expected;
      worst = std::max(worst, error);
      wrong += error > 1e-5;
    }
  }
  std::printf("normalize (%s): %d x %d rows: %zu of %zu elements within 1e-5 "
              "of x / mean(x) in double (worst relative error %.2g)%s\n",
              tile::backendName(backend), m, n, x.size() - wrong, x.size(),
              worst, wrong ? "  MISMATCH" : "");
  return wrong == 0;
}

int main(int argc, char **argv) {
  // On a machine without a GPU, the CPU interpreter runs the same kernel.
  tile::Backend backend = tile::defaultBackend();
  std::string dir = argc > 1 ? argv[1] : TILEC_EXAMPLES_DIR;
  try {
    auto normalize = tile::JITFunction::fromFile(dir + "/normalize.tl");
    bool ok = puzzle(normalize, backend);
    // 16384 x 4096 on the GPU; fewer rows on the interpreter.
    ok &= rows(normalize, backend,
               backend == tile::Backend::CUDA ? 16384 : 64, 4096);
    return ok ? 0 : 1;
  } catch (const tile::Error &e) {
    std::fprintf(stderr, "normalize: %s\n", e.what());
    return 1;
  }
}
