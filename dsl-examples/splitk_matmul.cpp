//===- splitk_matmul.cpp - JIT-compiles splitk_matmul.tl and checks it ----===//
//
// Both split-K kernels on fp16 inputs with an fp32 result: 256 x 256 x 65536
// on the GPU (a random sample of 2000 entries checked), 32 x 48 x 1000 on
// the interpreter (every entry), each against a CPU product in double. Each
// kernel runs several times on the same inputs, and the program reports how
// far the runs drift apart: the order in which the programs' atomic adds
// land decides how the fp32 partial sums are rounded.
//
//===----------------------------------------------------------------------===//

#include "Half.h"

#include "tile/Backend.h"
#include "tile/DeviceBuffer.h"
#include "tile/Driver.h"
#include "tile/Error.h"
#include "tile/JIT.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace {

struct Shape {
  int m, n, k;
  int blockM, blockN, blockK;
  int splitK;
  size_t samples; // entries checked; 0: all
};

/// fp16 bits of uniform numbers in [-1, 1); `values` gets what they hold.
std::vector<uint16_t> randomHalves(size_t size, std::mt19937 &rng,
                                   std::vector<float> &values) {
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<uint16_t> bits(size);
  values.resize(size);
  for (size_t i = 0; i < size; ++i) {
    bits[i] = examples::toF16(dist(rng));
    values[i] = examples::fromF16(bits[i]);
  }
  return bits;
}

bool runKernel(const std::string &path, const char *kernelName, bool slabs,
               bool deterministic, tile::Backend backend, const Shape &s,
               int runs) {
  std::mt19937 rng(5);
  std::vector<float> a, b;
  auto da = tile::DeviceBuffer::fromHost(
      randomHalves(size_t(s.m) * s.k, rng, a), backend);
  auto db = tile::DeviceBuffer::fromHost(
      randomHalves(size_t(s.k) * s.n, rng, b), backend);
  da.setDType(tile::DType::FP16);
  db.setDType(tile::DType::FP16);
  tile::DeviceBuffer dc(size_t(s.m) * s.n * sizeof(float), backend);
  dc.setDType(tile::DType::FP32);

  auto kernel = tile::JITFunction::fromFile(path, kernelName);
  tile::JITOptions options;
  options.backend = backend;
  options.deterministic = deterministic;
  tile::Constexprs constexprs = {
      {"BLOCK_M", s.blockM}, {"BLOCK_N", s.blockN}, {"BLOCK_K", s.blockK}};
  unsigned splits = unsigned(tile::cdiv(s.k, s.blockK));
  if (!slabs) {
    constexprs.push_back({"SPLIT_K", s.splitK});
    splits = unsigned(s.splitK);
  }
  std::vector<std::vector<float>> results;
  for (int run = 0; run < runs; ++run) {
    dc.fill(0); // the programs add into C
    kernel.launch(
        {tile::cdiv(s.m, s.blockM), tile::cdiv(s.n, s.blockN), splits},
        {da, db, dc, s.m, s.n, s.k, s.k, 1, s.n, 1, s.n, 1}, constexprs,
        options);
    results.push_back(dc.toHost<float>());
  }

  // Against the double product: K roundings of fp32 sums at most, each
  // within 2^-24 of the sum of |products| so far.
  double allowed = s.k * 0x1p-24;
  std::vector<size_t> entries;
  size_t size = size_t(s.m) * s.n;
  if (s.samples == 0) {
    for (size_t i = 0; i < size; ++i)
      entries.push_back(i);
  } else {
    std::uniform_int_distribution<size_t> pick(0, size - 1);
    for (size_t i = 0; i < s.samples; ++i)
      entries.push_back(pick(rng));
  }
  const std::vector<float> &c = results.front();
  size_t wrong = 0;
  double worst = 0;
  for (size_t e : entries) {
    size_t i = e / s.n, j = e % s.n;
    double sum = 0, magnitude = 0;
    for (int k = 0; k < s.k; ++k) {
      double x = double(a[i * s.k + k]) * b[size_t(k) * s.n + j];
      sum += x;
      magnitude += std::fabs(x);
    }
    double error = std::fabs(double(c[e]) - sum) / (magnitude + 1e-30);
    worst = std::max(worst, error);
    wrong += !(error <= allowed); // a NaN is wrong too
  }
  double drift = 0;
  size_t differing = 0; // runs not bit for bit the first
  for (const std::vector<float> &r : results) {
    for (size_t i = 0; i < size; ++i)
      drift = std::max(drift, std::fabs(double(r[i]) - c[i]));
    differing += std::memcmp(r.data(), c.data(), size * sizeof(float)) != 0;
  }

  std::printf("%s%s (%s): (%d x %d) @ (%d x %d) fp16 -> fp32, %d x %d x %d "
              "blocks, %u programs along K (%s): %zu of %zu %sentries match "
              "the double CPU product (worst |error| / sum |a_ik b_kj| = "
              "%.2g, allowed K * 2^-24 = %.2g)%s\n",
              kernelName, deterministic ? " deterministic" : "",
              tile::backendName(backend), s.m, s.k, s.k, s.n,
              s.blockM, s.blockN, s.blockK, splits,
              slabs ? "one dot each" : "a loop of dots each",
              entries.size() - wrong, entries.size(),
              s.samples ? "sampled " : "", worst, allowed,
              wrong ? "  MISMATCH" : "");
  // The interpreter's order is fixed, and so is a deterministic kernel's:
  // any drift there would be a bug.
  bool fixedOrder = deterministic || backend == tile::Backend::Interpreter;
  bool steady = !fixedOrder || differing == 0;
  std::printf("%s%s (%s): %d runs on the same inputs, %zu not bit-identical "
              "to the first, max |run_i - run_0| = %.3g%s\n",
              kernelName, deterministic ? " deterministic" : "",
              tile::backendName(backend), runs, differing, drift,
              steady ? "" : "  EXPECTED 0");
  return wrong == 0 && steady;
}

} // namespace

int main(int argc, char **argv) {
  // On a machine without a GPU, the CPU interpreter runs the same kernels.
  tile::Backend backend = tile::defaultBackend();
  // The interpreter, and compute-sanitizer runs (TILEC_EXAMPLES_SMALL set),
  // take the small sizes.
  bool gpu = backend == tile::Backend::CUDA && !std::getenv("TILEC_EXAMPLES_SMALL");
  std::string dir = argc > 1 ? argv[1] : TILEC_EXAMPLES_DIR;
  std::string path = dir + "/splitk_matmul.tl";
  try {
    Shape shape = gpu ? Shape{256, 256, 65536, 64, 64, 64, 64, 2000}
                      : Shape{32, 48, 1000, 16, 16, 32, 4, 0};
    int runs = gpu ? 5 : 3;
    bool ok = runKernel(path, "splitk_slab_kernel", true, false, backend,
                        shape, runs);
    ok &= runKernel(path, "splitk_kernel", false, false, backend, shape, runs);
    // JITOptions::deterministic: the splits add in order, the same bits
    // every run (100 at the full size).
    ok &= runKernel(path, "splitk_kernel", false, true, backend, shape,
                    gpu ? 100 : 3);
    std::printf(
        "split-K: fp32 addition is not associative, so the sum depends on the "
        "order in which the programs' atomic adds reach memory. %s With "
        "JITOptions::deterministic, the splits take turns, in order.\n",
        backend == tile::Backend::CUDA ? "On the GPU that order changes from run to run, and so may the "
              "last bits of the result."
            : "The interpreter runs the programs one after another in a fixed "
              "order, so its runs agree exactly (a difference of 0).");
    return ok ? 0 : 1;
  } catch (const tile::Error &e) {
    std::fprintf(stderr, "splitk_matmul: %s\n", e.what());
    return 1;
  }
}
