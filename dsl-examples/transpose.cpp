//===- transpose.cpp - JIT-compiles transpose.tl and checks it ------------===//

#include "tile/Backend.h"
#include "tile/DeviceBuffer.h"
#include "tile/Driver.h"
#include "tile/Error.h"
#include "tile/JIT.h"

#include <cstdio>

static bool check(tile::JITFunction &transpose, tile::Backend backend, int M,
                  int N) {
  std::vector<float> in(size_t(M) * N);
  for (size_t i = 0; i < in.size(); ++i)
    in[i] = float(i % 100003) * 0.5f;
  auto din = tile::DeviceBuffer::fromHost(in, backend);
  auto dout =
      tile::DeviceBuffer::fromHost(std::vector<float>(in.size(), -1.0f), backend);
  const int bm = 64, bn = 64;
  tile::JITOptions options;
  options.backend = backend;
  transpose.launch({tile::cdiv(M, bm), tile::cdiv(N, bn)},
                   {din, dout, M, N, N, M},
                   {{"BLOCK_M", bm}, {"BLOCK_N", bn}}, options);
  std::vector<float> out = dout.toHost<float>();
  size_t wrong = 0;
  for (int r = 0; r < M; ++r)
    for (int c = 0; c < N; ++c)
      wrong += out[size_t(c) * M + r] != in[size_t(r) * N + c];
  std::printf("transpose (%s): %d x %d, %d x %d tiles: %zu of %zu elements "
              "match the CPU transpose%s\n",
              tile::backendName(backend), M, N, bm, bn, in.size() - wrong,
              in.size(),
              wrong ? "  MISMATCH" : "");
  return wrong == 0;
}

int main(int argc, char **argv) {
  // On a machine without a GPU, the CPU interpreter runs the same kernel.
  tile::Backend backend = tile::defaultBackend();
  std::string dir = argc > 1 ? argv[1] : TILEC_EXAMPLES_DIR;
  try {
    auto transpose = tile::JITFunction::fromFile(dir + "/transpose.tl");
    bool ok = check(transpose, backend, 1000, 777) &
              check(transpose, backend, 2048, 1024) &
              check(transpose, backend, 1, 5);
    return ok ? 0 : 1;
  } catch (const tile::Error &e) {
    std::fprintf(stderr, "transpose: %s\n", e.what());
    return 1;
  }
}
