//===- tiled_matmul.cpp - JIT-compiles tiled_matmul.tl and checks it ------===//
//
// The Mojo GPU puzzle's tiled matmul as the puzzle runs it: SIZE = 9,
// TPB = 3, a 3 x 3 grid of programs, a[i] = i and b[i] = 2 i (row-major),
// printed as the puzzle prints its buffers. Every value is an integer that
// tf32 and the fp32 sums hold exactly, so out must equal expected exactly;
// the output starts as NaNs, so an entry never stored cannot pass.
//
//===----------------------------------------------------------------------===//

#include "tile/Backend.h"
#include "tile/DeviceBuffer.h"
#include "tile/Driver.h"
#include "tile/Error.h"
#include "tile/JIT.h"

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

/// `HostBuffer([3672.0, 3744.0, ...])`, as Mojo prints a host buffer.
static std::string hostBuffer(const std::vector<float> &v) {
  std::string text = "HostBuffer([";
  for (size_t i = 0; i < v.size(); ++i) {
    char number[32];
    std::snprintf(number, sizeof number,
                  v[i] == std::floor(v[i]) ? "%.1f" : "%g", double(v[i]));
    text += (i ? ", " : "") + std::string(number);
  }
  return text + "])";
}

int main(int argc, char **argv) {
  // On a machine without a GPU, the CPU interpreter runs the same kernel.
  tile::Backend backend = tile::defaultBackend();
  std::string dir = argc > 1 ? argv[1] : TILEC_EXAMPLES_DIR;
  const int size = 9, tpb = 3;
  try {
    auto matmul = tile::JITFunction::fromFile(dir + "/tiled_matmul.tl");
    std::vector<float> a(size * size), b(size * size);
    for (int i = 0; i < size * size; ++i) {
      a[i] = float(i);
      b[i] = 2.0f * float(i);
    }
    auto da = tile::DeviceBuffer::fromHost(a, backend);
    auto db = tile::DeviceBuffer::fromHost(b, backend);
    auto dout = tile::DeviceBuffer::fromHost(
        std::vector<float>(size * size, NAN), backend);
    tile::JITOptions options;
    options.backend = backend;
    unsigned tiles = tile::cdiv(size, tpb);
    matmul.launch({tiles, tiles}, {da, db, dout, size}, {{"TPB", tpb}},
                  options);
    std::vector<float> out = dout.toHost<float>();

    std::vector<float> expected(size * size, 0.0f);
    for (int i = 0; i < size; ++i)
      for (int j = 0; j < size; ++j)
        for (int k = 0; k < size; ++k)
          expected[i * size + j] += a[i * size + k] * b[k * size + j];

    std::printf("tiled_matmul (%s): SIZE = %d, TPB = %d, a %u x %u grid of "
                "programs\n",
                tile::backendName(backend), size, tpb, tiles, tiles);
    std::printf("out: %s\n", hostBuffer(out).c_str());
    std::printf("expected: %s\n", hostBuffer(expected).c_str());
    bool ok = out == expected;
    std::printf(ok ? "Success: out equals expected in every entry\n"
                   : "FAILURE: out differs from expected\n");
    return ok ? 0 : 1;
  } catch (const tile::Error &e) {
    std::fprintf(stderr, "tiled_matmul: %s\n", e.what());
    return 1;
  }
}
