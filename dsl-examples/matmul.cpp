//===- matmul.cpp - JIT-compiles matmul.tl and checks it ------------------===//
//
// The blocked matmul on three problems, each against a CPU reference in
// double:
//  - the spec's shape, a batch of 4 products of 32 x 32 fp32 matrices, in
//    tf32 and in ieee precision (the PRECISION constexpr), every entry;
//  - fp16 and bf16 inputs, 4096^3 on the GPU (a random sample of 2000
//    entries), or (72 x 80) @ (80 x 40) on the interpreter (every entry;
//    no extent is a multiple of the 32 x 32 x 32 blocks).
// The output is poisoned with NaNs before each run and the inputs are fresh
// random numbers, so neither a missing store nor a zero input can pass.
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
#include <random>
#include <string>
#include <vector>

namespace {

std::mt19937 rng(11);

/// One matmul problem: a batch of row-major (M, K) x (K, N) products.
struct Problem {
  int batch, m, n, k;
  int blockM, blockN, blockK;
  std::string dtype;     // "fp32", "fp16" or "bf16": inputs and output
  std::string precision; // "tf32" or "ieee"
  size_t samples;        // entries checked; 0: all
};

std::vector<float> randomMatrix(size_t size) {
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(size);
  for (float &x : v)
    x = dist(rng);
  return v;
}

/// A buffer of `values` in `dtype`; `values` become what the dtype holds.
tile::DeviceBuffer upload(std::vector<float> &values, const std::string &dtype,
                          tile::Backend backend) {
  if (dtype == "fp32")
    return tile::DeviceBuffer::fromHost(values, backend);
  bool f16 = dtype == "fp16";
  std::vector<uint16_t> bits(values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    bits[i] = f16 ? examples::toF16(values[i]) : examples::toBF16(values[i]);
    values[i] = f16 ? examples::fromF16(bits[i]) : examples::fromBF16(bits[i]);
  }
  auto buffer = tile::DeviceBuffer::fromHost(bits, backend);
  buffer.setDType(tile::parseDType(dtype));
  return buffer;
}

std::vector<float> download(const tile::DeviceBuffer &buffer,
                            const std::string &dtype) {
  if (dtype == "fp32")
    return buffer.toHost<float>();
  std::vector<uint16_t> bits = buffer.toHost<uint16_t>();
  std::vector<float> values(bits.size());
  for (size_t i = 0; i < bits.size(); ++i)
    values[i] = dtype == "fp16" ? examples::fromF16(bits[i])
                                : examples::fromBF16(bits[i]);
  return values;
}

/// Runs one problem on `a` and `b` (made representable in its dtype) and
/// checks every entry, or a sample; the output goes to `c`.
bool run(tile::JITFunction &matmul, tile::Backend backend, const Problem &p,
         std::vector<float> &a, std::vector<float> &b, std::vector<float> &c) {
  size_t cSize = size_t(p.batch) * p.m * p.n;
  auto da = upload(a, p.dtype, backend), db = upload(b, p.dtype, backend);
  tile::DeviceBuffer dc(cSize * (p.dtype == "fp32" ? 4 : 2), backend);
  dc.setDType(tile::parseDType(p.dtype));
  dc.fill(0xff); // NaN in every float format

  tile::JITOptions options;
  options.backend = backend;
  int strideAZ = p.m * p.k, strideBZ = p.k * p.n, strideCZ = p.m * p.n;
  matmul.launch(
      {tile::cdiv(p.m, p.blockM), tile::cdiv(p.n, p.blockN), unsigned(p.batch)},
      {da, db, dc, p.m, p.n, p.k, strideAZ, p.k, 1, strideBZ, p.n, 1, strideCZ,
       p.n, 1},
      {{"BLOCK_M", p.blockM},
       {"BLOCK_N", p.blockN},
       {"BLOCK_K", p.blockK},
       {"PRECISION", p.precision}},
      options);
  c = download(dc, p.dtype);

  std::vector<size_t> entries;
  if (p.samples == 0) {
    for (size_t i = 0; i < cSize; ++i)
      entries.push_back(i);
  } else {
    std::uniform_int_distribution<size_t> pick(0, cSize - 1);
    for (size_t i = 0; i < p.samples; ++i)
      entries.push_back(pick(rng));
  }
  // The error allowed: rounding the inputs to tf32 (2^-11 each, 2^-10 per
  // product) for tf32, K roundings of the fp32 sum (relative to the sum of
  // |products|), and rounding the result to the output's type.
  double inputRounding =
      p.dtype == "fp32" && p.precision == "tf32" ? 0x1p-10 : 0;
  double outputRounding = p.dtype == "fp16"   ? 0x1p-11
                          : p.dtype == "bf16" ? 0x1p-8
                                              : 0x1p-24;
  size_t wrong = 0;
  double worst = 0;
  for (size_t e : entries) {
    size_t z = e / (size_t(p.m) * p.n), i = e / p.n % p.m, j = e % p.n;
    double sum = 0, magnitude = 0;
    for (int k = 0; k < p.k; ++k) {
      double x =
          double(a[(z * p.m + i) * p.k + k]) * b[(z * p.k + k) * p.n + j];
      sum += x;
      magnitude += std::fabs(x);
    }
    double tolerance = (inputRounding + p.k * 0x1p-24) * magnitude +
                       outputRounding * std::fabs(sum) * 1.01 +
                       0x1p-25; // fp16's subnormal spacing
    double error = std::fabs(double(c[e]) - sum);
    worst = std::max(worst, error / tolerance);
    wrong += !(error <= tolerance); // a NaN (never stored) is wrong too
  }
  std::string what = p.dtype + (p.dtype == "fp32" ? " " + p.precision : "");
  std::printf("matmul (%s): %d x (%d x %d) @ (%d x %d) %s, %d x %d x %d "
              "blocks: %zu of %zu %sentries within tolerance of the double "
              "CPU product (worst error: %.2f of its tolerance)%s\n",
              tile::backendName(backend), p.batch, p.m, p.k, p.k, p.n,
              what.c_str(), p.blockM, p.blockN, p.blockK,
              entries.size() - wrong, entries.size(),
              p.samples ? "sampled " : "", worst, wrong ? "  MISMATCH" : "");
  return wrong == 0;
}

} // namespace

int main(int argc, char **argv) {
  // On a machine without a GPU, the CPU interpreter runs the same kernel.
  tile::Backend backend = tile::defaultBackend();
  // The interpreter, and compute-sanitizer runs (TILEC_EXAMPLES_SMALL set),
  // take the small sizes.
  bool gpu = backend == tile::Backend::CUDA && !std::getenv("TILEC_EXAMPLES_SMALL");
  std::string dir = argc > 1 ? argv[1] : TILEC_EXAMPLES_DIR;
  try {
    auto matmul = tile::JITFunction::fromFile(dir + "/matmul.tl");

    // The spec's shape in both precisions, on the same inputs: tf32 rounds
    // them, so it differs from ieee somewhere.
    Problem spec{4, 32, 32, 32, 16, 16, 16, "fp32", "tf32", 0};
    std::vector<float> a = randomMatrix(size_t(4) * 32 * 32),
                       b = randomMatrix(size_t(4) * 32 * 32), tf32, ieee;
    bool ok = run(matmul, backend, spec, a, b, tf32);
    spec.precision = "ieee";
    ok &= run(matmul, backend, spec, a, b, ieee);
    double largest = 0;
    for (size_t i = 0; i < tf32.size(); ++i)
      largest = std::max(largest, std::fabs(double(tf32[i]) - ieee[i]));
    std::printf("matmul: tf32 and ieee results differ by up to %.3g (tf32 "
                "keeps 10 of fp32's 23 mantissa bits)%s\n",
                largest, largest > 0 ? "" : "  EXPECTED A DIFFERENCE");
    ok &= largest > 0;

    // Half-precision inputs, fp32 accumulation, a half-precision result.
    for (const char *dtype : {"fp16", "bf16"}) {
      Problem p =
          gpu ? Problem{1, 4096, 4096, 4096, 128, 128, 32, dtype, "tf32", 2000}
              : Problem{1, 72, 40, 80, 32, 32, 32, dtype, "tf32", 0};
      std::vector<float> x = randomMatrix(size_t(p.m) * p.k),
                         y = randomMatrix(size_t(p.k) * p.n), c;
      ok &= run(matmul, backend, p, x, y, c);
    }
    return ok ? 0 : 1;
  } catch (const tile::Error &e) {
    std::fprintf(stderr, "matmul: %s\n", e.what());
    return 1;
  }
}
