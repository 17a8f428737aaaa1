//===- aot_scale.cpp - A consumer's ahead-of-time kernel ------------------===//
//
// scale_f32 is kernels/scale.tl compiled at build time (tilec_add_kernel)
// into a C launcher that dispatches over two specializations. On the GPU its result must equal the JIT's of the
// same kernel, bit for bit; without a GPU the launcher returns the
// driver's error, and the program says so and skips.
//
//===----------------------------------------------------------------------===//

#include "matmul_f16_sm90a.h"
#include "scale_f32.h"

#include "tile/DeviceBuffer.h"
#include "tile/Driver.h"
#include "tile/Error.h"
#include "tile/JIT.h"

#include <cstdio>
#include <string>
#include <cstdint>
#include <cstring>
#include <vector>

int main(int argc, char **argv) {
  // The kernels' directory (for the JIT's side): this project's, or the
  // one given.
  std::string dir = argc > 1 ? argv[1] : KERNELS_DIR;
  std::string why;
  if (!tile::cudaAvailable(&why)) {
    CUresult r = scale_f32(nullptr, 1, 1, 1, 0, 0, 0, 1.0f, 0.0f);
    std::printf("aot_scale: skipped, no GPU (%s); the launcher returned "
                "CUresult %d\n", why.c_str(), int(r));
    return r == CUDA_SUCCESS ? 1 : 0;
  }
  try {
    const int n = 100003;
    std::vector<float> x(n);
    for (int i = 0; i < n; ++i)
      x[i] = float(i % 1013) * 0.37f - 91.0f;
    auto dx = tile::DeviceBuffer::fromHost(x);
    auto aot = tile::DeviceBuffer::fromHost(std::vector<float>(n));
    auto jit = tile::DeviceBuffer::fromHost(std::vector<float>(n));
    // scale_f32 dispatches between a specialization for 16-byte aligned
    // pointers and one for any: the second run starts one float in.
    tile::Stream stream;
    auto scale = tile::JITFunction::fromFile(dir + "/scale.tl");
    int differ = 0;
    CUresult r = CUDA_SUCCESS;
    for (int offset : {0, 1}) {
      CUdeviceptr from = dx.address() + 4 * offset;
      CUdeviceptr to = aot.address() + 4 * offset;
      int count = n - offset;
      r = scale_f32(static_cast<CUstream>(stream.handle()),
                    tile::cdiv(count, 512), 1, 1, from, to, count, 0.75f, -2.5f);
      if (r != CUDA_SUCCESS) {
        std::fprintf(stderr, "aot_scale: scale_f32 failed: CUresult %d\n", int(r));
        return 1;
      }
      stream.synchronize();
      scale.launch({tile::cdiv(count, 512)},
                   {tile::Ptr<float>(from),
                    tile::Ptr<float>(jit.address() + 4 * offset), count, 0.75f,
                    -2.5f},
                   {{"BLOCK", 512}});
      std::vector<float> ya = aot.toHost<float>(), yj = jit.toHost<float>();
      for (int i = offset; i < n; ++i)
        differ += std::memcmp(&ya[i], &yj[i], sizeof(float)) != 0;
    }
    std::printf("aot_scale (%s): %d of %d elements equal the JIT's bit for "
                "bit (aligned and unaligned)\n",
                tile::deviceName().c_str(), 2 * n - 1 - differ, 2 * n - 1);
    if (differ)
      return 1;
    if (tile::deviceArch() != "sm_90a")
      return 0;

    // The Hopper matmul: ragged M (its map clips the last rows).
    const int M = 1000, N = 384, K = 512;
    std::vector<uint16_t> ha(size_t(M) * K), hb(size_t(K) * N);
    for (size_t i = 0; i < ha.size(); ++i)
      ha[i] = uint16_t(0x3c00 | (i * 2654435761u >> 22 & 0x1ff)); // 1 to 2
    for (size_t i = 0; i < hb.size(); ++i)
      hb[i] = uint16_t(0xb800 | (i * 40503u >> 7 & 0x1ff)); // -0.5 to -1
    auto fp16 = [](const std::vector<uint16_t> &bits) {
      auto buffer = tile::DeviceBuffer::fromHost(bits);
      buffer.setDType(tile::DType::FP16);
      return buffer;
    };
    auto a = fp16(ha), b = fp16(hb);
    auto caot = fp16(std::vector<uint16_t>(size_t(M) * N));
    auto cjit = fp16(std::vector<uint16_t>(size_t(M) * N));
    r = matmul_f16_sm90a(nullptr, tile::cdiv(M, 128), tile::cdiv(N, 128), 1,
                         a.address(), b.address(), caot.address(), M, N, K);
    if (r != CUDA_SUCCESS) {
      std::fprintf(stderr, "aot_scale: matmul_f16_sm90a failed: CUresult %d\n", int(r));
      return 1;
    }
    auto matmul = tile::JITFunction::fromFile(dir + "/matmul.tl");
    tile::JITOptions options;
    options.numWarps = 4;
    // One CTA per program, as the launcher was compiled: on a grid this
    // small the JIT would split K across a cluster's CTAs, which sum in
    // another order.
    options.clusterSplitK = 1;
    matmul.launch({tile::cdiv(M, 128), tile::cdiv(N, 128)},
                  {a, b, cjit, M, N, K},
                  {{"BLOCK_M", 128}, {"BLOCK_N", 128}, {"BLOCK_K", 64}}, options);
    std::vector<uint16_t> ca = caot.toHost<uint16_t>(), cj = cjit.toHost<uint16_t>();
    differ = 0;
    for (size_t i = 0; i < ca.size(); ++i)
      differ += ca[i] != cj[i];
    std::printf("aot_scale: matmul_f16_sm90a %dx%dx%d: %zu of %zu elements equal "
                "the JIT's bit for bit\n", M, N, K, ca.size() - differ, ca.size());
    return differ ? 1 : 0;
  } catch (const tile::Error &e) {
    std::fprintf(stderr, "aot_scale: %s\n", e.what());
    return 1;
  }
}
