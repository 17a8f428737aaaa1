//===- tensor_parallel.cpp - A two-layer MLP across the GPUs of a host ----===//
//
// Y = relu(X W1) W2, tensor-parallel as Megatron-LM splits it: rank r of P
// holds the columns r/P of W1 (column-parallel: its slice of the hidden
// layer, relu(X W1_r), needs nothing from the others) and the same rows of
// W2 (row-parallel: relu(X W1_r) W2_r is its part of Y), and NCCL's
// all-reduce sums the parts on each rank's stream. The matmuls and ReLU are
// tilec kernels (mlp.tl) through the JIT, one process per GPU, every rank
// sharing one disk cache (TILEC_CACHE_DIR), as under a distributed launcher.
//
// The program forks its ranks itself (the NCCL id made before, inherited),
// runs the same MLP on one GPU, and checks that the P ranks' Y matches it
// (and that the one GPU's matches a CPU reference on sampled entries); it
// prints the time of a step for each.
//
//   tensor_parallel [--ranks P] [--m M] [--k K] [--hidden H] [--n N]
//                   [--steps S]
//
// Exit status: 0 when the results agree; 1 when they do not or a rank
// failed; 77 (skipped) with fewer GPUs than ranks. NCCL's environment
// applies (on shared GPU hosts, NCCL_NVLS_ENABLE=0).
//
//===----------------------------------------------------------------------===//

#include "tile/DeviceBuffer.h"
#include "tile/Driver.h"
#include "tile/Error.h"
#include "tile/JIT.h"

#include <nccl.h>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <vector>

namespace {

struct Shape {
  int m = 512, k = 1024, hidden = 4096, n = 1024;
  int steps = 20;
};

constexpr int kSkipped = 77;

/// The example's inputs, the same in every process: X (M, K), W1 (K, H),
/// W2 (H, N), row-major.
struct Weights {
  std::vector<float> x, w1, w2;
  explicit Weights(const Shape &s) {
    std::mt19937 rng(41);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    auto fill = [&](std::vector<float> &v, size_t n, float scale) {
      v.resize(n);
      for (float &value : v)
        value = dist(rng) * scale;
    };
    fill(x, size_t(s.m) * s.k, 1.0f);
    fill(w1, size_t(s.k) * s.hidden, 1.0f / std::sqrt(float(s.k)));
    fill(w2, size_t(s.hidden) * s.n, 1.0f / std::sqrt(float(s.hidden)));
  }
};

void checkNccl(ncclResult_t r, const char *call) {
  if (r != ncclSuccess)
    throw tile::Error(std::string(call) + " failed: " + ncclGetErrorString(r));
}

/// Rank `rank` of `ranks`: its slices, a warm-up step and `steps` timed
/// ones; rank 0 writes Y to `output` and the time of a step after it. Rank
/// 0 makes NCCL's id and hands it to the others through `pipe`.
void runRank(int rank, int ranks, const int pipe[2], const Shape &s,
             const std::string &kernels, const std::string &output) {
  tile::setDevice(rank);
  ncclUniqueId id;
  if (rank == 0) {
    checkNccl(ncclGetUniqueId(&id), "ncclGetUniqueId");
    for (int other = 1; other < ranks; ++other)
      if (write(pipe[1], &id, sizeof id) != ssize_t(sizeof id))
        throw tile::Error("cannot hand NCCL's id to the ranks");
  } else if (read(pipe[0], &id, sizeof id) != ssize_t(sizeof id)) {
    throw tile::Error("rank " + std::to_string(rank) + " got no NCCL id");
  }
  tile::Stream stream;
  ncclComm_t comm;
  checkNccl(ncclCommInitRank(&comm, ranks, id, rank), "ncclCommInitRank");

  // Column-parallel W1 and row-parallel W2: this rank's hidden units.
  Weights all(s);
  int slice = s.hidden / ranks, first = rank * slice;
  std::vector<float> w1(size_t(s.k) * slice),
      w2(all.w2.begin() + size_t(first) * s.n,
         all.w2.begin() + size_t(first + slice) * s.n);
  for (int row = 0; row < s.k; ++row)
    std::copy_n(all.w1.begin() + size_t(row) * s.hidden + first, slice,
                w1.begin() + size_t(row) * slice);
  auto x = tile::DeviceBuffer::fromHost(all.x);
  auto w1Buffer = tile::DeviceBuffer::fromHost(w1);
  auto w2Buffer = tile::DeviceBuffer::fromHost(w2);
  auto hidden =
      tile::DeviceBuffer::fromHost(std::vector<float>(size_t(s.m) * slice));
  auto y = tile::DeviceBuffer::fromHost(std::vector<float>(size_t(s.m) * s.n));

  auto matmul = tile::JITFunction::fromFile(kernels, "matmul");
  auto relu = tile::JITFunction::fromFile(kernels, "relu");
  tile::JITOptions options;
  options.stream = stream.handle();
  options.numWarps = 4;
  const int block = 64;
  tile::Constexprs blocks = {
      {"BLOCK_M", block}, {"BLOCK_N", block}, {"BLOCK_K", 32}};
  auto step = [&] {
    // hidden = relu(X W1_r); Y = hidden W2_r, summed over the ranks.
    matmul.launch(
        {tile::cdiv(s.m, block), tile::cdiv(slice, block)},
        {x, w1Buffer, hidden, s.m, slice, s.k, s.k, 1, slice, 1, slice, 1},
        blocks, options);
    int count = s.m * slice;
    relu.launch({tile::cdiv(count, 1024)}, {hidden, count}, {{"BLOCK", 1024}},
                options);
    matmul.launch(
        {tile::cdiv(s.m, block), tile::cdiv(s.n, block)},
        {hidden, w2Buffer, y, s.m, s.n, slice, slice, 1, s.n, 1, s.n, 1},
        blocks, options);
    checkNccl(ncclAllReduce(reinterpret_cast<void *>(y.address()),
                            reinterpret_cast<void *>(y.address()),
                            size_t(s.m) * s.n, ncclFloat, ncclSum, comm,
                            static_cast<cudaStream_t>(stream.handle())),
              "ncclAllReduce");
  };
  step();
  stream.synchronize();
  auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < s.steps; ++i)
    step();
  stream.synchronize();
  double ms = std::chrono::duration<double, std::milli>(
                  std::chrono::steady_clock::now() - start)
                  .count() /
              s.steps;
  // The result of the untimed step is the timed ones' too: each step
  // recomputes Y from the same inputs.
  if (rank == 0) {
    std::vector<float> result = y.toHost<float>();
    std::ofstream out(output, std::ios::binary);
    out.write(reinterpret_cast<const char *>(result.data()),
              std::streamsize(result.size() * sizeof(float)));
    out.write(reinterpret_cast<const char *>(&ms), sizeof ms);
  }
  ncclCommDestroy(comm);
}

/// The GPUs there are, asked in a child: the parent stays without a CUDA
/// context, which its forked ranks could not use.
int countGPUs() {
  pid_t pid = fork();
  if (pid == 0)
    _exit(std::min(tile::deviceCount(), 100));
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 0;
}

/// Runs `ranks` processes, one per GPU; nonzero when one failed. Rank 0's
/// Y and milliseconds a step come back through `output`.
int runRanks(int ranks, const Shape &s, const std::string &kernels,
             const std::string &output, std::vector<float> &y, double &ms) {
  int pipe[2];
  if (::pipe(pipe) != 0) {
    std::perror("tensor_parallel: pipe");
    return 1;
  }
  std::vector<pid_t> children;
  for (int rank = 0; rank < ranks; ++rank) {
    pid_t pid = fork();
    if (pid == 0) {
      int status = 0;
      try {
        runRank(rank, ranks, pipe, s, kernels, output);
      } catch (const std::exception &e) {
        std::fprintf(stderr, "tensor_parallel: rank %d of %d: %s\n", rank,
                     ranks, e.what());
        status = 1;
      }
      std::fflush(nullptr);
      _exit(status);
    }
    children.push_back(pid);
  }
  close(pipe[0]);
  close(pipe[1]);
  int failed = 0;
  for (pid_t pid : children) {
    int status = 0;
    waitpid(pid, &status, 0);
    failed |= !WIFEXITED(status) || WEXITSTATUS(status) != 0;
  }
  if (failed)
    return 1;
  std::ifstream in(output, std::ios::binary);
  y.assign(size_t(s.m) * s.n, 0.0f);
  in.read(reinterpret_cast<char *>(y.data()),
          std::streamsize(y.size() * sizeof(float)));
  in.read(reinterpret_cast<char *>(&ms), sizeof ms);
  return in ? 0 : 1;
}

} // namespace

int main(int argc, char **argv) {
  Shape s;
  int ranks = 2;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string flag = argv[i];
    int value = std::atoi(argv[i + 1]);
    if (flag == "--ranks")
      ranks = value;
    else if (flag == "--m")
      s.m = value;
    else if (flag == "--k")
      s.k = value;
    else if (flag == "--hidden")
      s.hidden = value;
    else if (flag == "--n")
      s.n = value;
    else if (flag == "--steps")
      s.steps = value;
    else {
      std::fprintf(stderr, "tensor_parallel: unknown option %s\n", argv[i]);
      return 2;
    }
  }
  if (ranks < 1 || s.hidden % ranks || s.m < 1 || s.k < 1 || s.n < 1 ||
      s.steps < 1) {
    std::fprintf(stderr, "tensor_parallel: --hidden must divide among the "
                         "--ranks, and every size be positive\n");
    return 2;
  }
  // mlp.tl beside the executable where one put it there, else the source
  // tree's (TILEC_EXAMPLE_DIR).
  std::string self = argv[0], dir = self.substr(0, self.find_last_of('/') + 1);
  std::string kernels = dir + "mlp.tl";
  if (!std::ifstream(kernels))
    kernels = std::string(TILEC_EXAMPLE_DIR) + "/mlp.tl";
  char scratch[] = "/tmp/tensor_parallel.XXXXXX";
  if (!mkdtemp(scratch)) {
    std::perror("tensor_parallel: mkdtemp");
    return 1;
  }
  std::string output = std::string(scratch) + "/y.bin";

  int gpus = countGPUs();
  if (gpus < ranks) {
    std::printf("tensor_parallel: skipped: %d ranks need %d GPUs, %d found\n",
                ranks, ranks, gpus);
    rmdir(scratch);
    return kSkipped;
  }
  std::vector<float> single, parallel;
  double singleMs = 0, parallelMs = 0;
  int status = runRanks(1, s, kernels, output, single, singleMs);
  if (!status)
    status = runRanks(ranks, s, kernels, output, parallel, parallelMs);
  std::remove(output.c_str());
  rmdir(scratch);
  if (status)
    return 1;

  // One GPU against the CPU (double) on sampled entries; P against one.
  Weights w(s);
  std::mt19937 rng(7);
  double worstCpu = 0, scale = 0;
  for (int sample = 0; sample < 64; ++sample) {
    int i = int(rng() % unsigned(s.m)), j = int(rng() % unsigned(s.n));
    double sum = 0;
    for (int h = 0; h < s.hidden; ++h) {
      double a = 0;
      for (int k = 0; k < s.k; ++k)
        a += double(w.x[size_t(i) * s.k + k]) * w.w1[size_t(k) * s.hidden + h];
      sum += std::max(a, 0.0) * w.w2[size_t(h) * s.n + j];
    }
    worstCpu = std::max(worstCpu, std::abs(sum - single[size_t(i) * s.n + j]));
    scale = std::max(scale, std::abs(sum));
  }
  double worst = 0;
  for (size_t e = 0; e < single.size(); ++e) {
    worst = std::max(worst, double(std::abs(parallel[e] - single[e])));
    scale = std::max(scale, double(std::abs(single[e])));
  }
  bool ok = worst <= 1e-5 * scale && worstCpu <= 1e-4 * scale;
  std::printf("tensor-parallel MLP (%d x %d) -> %d -> %d, fp32, %d ranks: "
              "largest difference from one GPU %.3g (of values up to %.3g), "
              "one GPU from the CPU %.3g; a step %.3f ms on %d GPUs, %.3f ms "
              "on one: %s\n",
              s.m, s.k, s.hidden, s.n, ranks, worst, scale, worstCpu,
              parallelMs, ranks, singleMs, ok ? "ok" : "MISMATCH");
  return ok ? 0 : 1;
}
