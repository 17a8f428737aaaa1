//===- deterministic_splitk.cpp - What deterministic split-K costs --------===//
//
// dsl-examples/splitk_matmul.tl's splitk_kernel, 256 x 256 x 65536 fp16 ->
// fp32, with its atomic adds as they come and with JITOptions::deterministic
// (the splits take turns), in the same run, for the split-K configurations
// bench/README.md measures against Triton: each form's time (Triton's
// do_bench: median, L2 flushed; C zeroed inside the timed region, as the
// program needs), the ratio, and whether 100 deterministic runs gave the
// same bits. Needs a GPU.
//
//===----------------------------------------------------------------------===//

#include "tile/DeviceBuffer.h"
#include "tile/Error.h"
#include "tile/JIT.h"
#include "tile/Timing.h"

#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace {

struct Config {
  int blockM, blockN, blockK, warps, stages, splitK;
};

constexpr int M = 256, N = 256, K = 65536;

/// fp16 bits of uniform numbers in [-1, 1), by rounding down to 10
/// mantissa bits (exact for the purpose: any values will do).
std::vector<uint16_t> randomHalves(size_t size, std::mt19937 &rng) {
  std::uniform_int_distribution<int> mantissa(0, 1023), exponent(10, 14),
      sign(0, 1);
  std::vector<uint16_t> bits(size);
  for (uint16_t &h : bits)
    h = uint16_t(sign(rng) << 15 | exponent(rng) << 10 | mantissa(rng));
  return bits;
}

} // namespace

int main(int argc, char **argv) {
  std::string dir = argc > 1 ? argv[1] : TILEC_EXAMPLES_DIR;
  try {
    if (tile::defaultBackend() != tile::Backend::CUDA) {
      std::printf("deterministic_splitk: no GPU, nothing measured\n");
      return 1;
    }
    std::mt19937 rng(7);
    auto a = tile::DeviceBuffer::fromHost(randomHalves(size_t(M) * K, rng));
    auto b = tile::DeviceBuffer::fromHost(randomHalves(size_t(K) * N, rng));
    a.setDType(tile::DType::FP16);
    b.setDType(tile::DType::FP16);
    tile::DeviceBuffer c(size_t(M) * N * sizeof(float));
    c.setDType(tile::DType::FP32);
    auto kernel =
        tile::JITFunction::fromFile(dir + "/splitk_matmul.tl", "splitk_kernel");
    const Config configs[] = {{64, 64, 128, 4, 6, 8},  {64, 64, 64, 4, 6, 16},
                              {128, 64, 128, 8, 4, 16}, {64, 128, 128, 4, 4, 16},
                              {64, 64, 64, 4, 12, 8},   {64, 64, 256, 4, 3, 32}};
    std::printf("| [BM, BN, BK, warps, stages, SPLIT_K] | atomic, us | "
                "deterministic, us | ratio | 100 runs bit-identical |\n"
                "| --- | --- | --- | --- | --- |\n");
    bool allSteady = true;
    for (const Config &cfg : configs) {
      tile::Constexprs constexprs = {{"BLOCK_M", cfg.blockM},
                                     {"BLOCK_N", cfg.blockN},
                                     {"BLOCK_K", cfg.blockK},
                                     {"SPLIT_K", cfg.splitK}};
      tile::Grid grid{tile::cdiv(M, cfg.blockM), tile::cdiv(N, cfg.blockN),
                      unsigned(cfg.splitK)};
      float ms[2];
      std::vector<float> first;
      size_t differing = 0;
      for (bool deterministic : {false, true}) {
        tile::JITOptions options;
        options.numWarps = unsigned(cfg.warps);
        options.numStages = unsigned(cfg.stages);
        options.deterministic = deterministic;
        auto run = [&] {
          c.fill(0);
          kernel.launch(grid, {a, b, c, M, N, K, K, 1, N, 1, N, 1},
                        constexprs, options);
        };
        ms[deterministic] = tile::benchmarkMs(run, nullptr);
        if (!deterministic)
          continue;
        for (int i = 0; i < 100; ++i) {
          run();
          std::vector<float> result = c.toHost<float>();
          if (first.empty())
            first = result;
          else
            differing += std::memcmp(result.data(), first.data(),
                                     first.size() * sizeof(float)) != 0;
        }
      }
      allSteady &= differing == 0;
      std::printf("| [%d, %d, %d, %d, %d, %d] | %.1f | %.1f | %.2fx | %s |\n",
                  cfg.blockM, cfg.blockN, cfg.blockK, cfg.warps, cfg.stages,
                  cfg.splitK, 1000 * ms[0], 1000 * ms[1], ms[1] / ms[0],
                  differing ? (std::to_string(differing) + " differ").c_str()
                            : "yes");
    }
    return allSteady ? 0 : 1;
  } catch (const tile::Error &e) {
    std::fprintf(stderr, "deterministic_splitk: %s\n", e.what());
    return 1;
  }
}
