//===- TuningTest.cpp - Reading @triton.autotune and @triton.heuristics ---===//

#include "tilec/Tuning.h"

#include <gtest/gtest.h>

namespace {

using tilec::HostScalar;
using tilec::KernelTuning;
using tilec::NamedScalar;

std::shared_ptr<const KernelTuning> read(const std::string &source,
                                         std::string &diagnostics,
                                         const std::string &kernel = "") {
  return KernelTuning::read(source, "k.tl", kernel, 90, diagnostics);
}

std::shared_ptr<const KernelTuning> readOk(const std::string &source) {
  std::string diagnostics;
  auto tuning = read(source, diagnostics);
  EXPECT_TRUE(tuning) << diagnostics;
  return tuning;
}

/// The first line of the diagnostics a source's tuning gives.
std::string readError(const std::string &source) {
  std::string diagnostics;
  auto tuning = read(source, diagnostics);
  EXPECT_FALSE(tuning);
  return diagnostics.substr(0, diagnostics.find('\n'));
}

const char *kHeader = "import triton\nimport triton.language as tl\n";

TEST(TuningTest, LiteralConfigsKeyAndHeuristics) {
  auto tuning = readOk(std::string(kHeader) + R"(
@triton.autotune(
    configs=[triton.Config({"BLOCK": 64}, num_warps=2),
             triton.Config({"BLOCK": 256}, num_warps=8, num_stages=4)],
    key=["n"], reset_to_zero=["out"], restore_value=["x"], warmup=5, rep=20)
@triton.heuristics({"EVEN": lambda args: args["n"] % args["BLOCK"] == 0,
                    "P2": lambda args: triton.next_power_of_2(args["n"])})
@triton.jit
def k(x, out, n, BLOCK: tl.constexpr, EVEN: tl.constexpr, P2: tl.constexpr):
    pass
)");
  ASSERT_TRUE(tuning);
  ASSERT_EQ(tuning->configs().size(), 2u);
  EXPECT_EQ(tuning->configs()[0].describe(),
            "BLOCK: 64, num_warps: 2, num_stages: 3");
  EXPECT_EQ(tuning->configs()[1].flags(),
            "-D BLOCK=256 --num-warps 8 --num-stages 4");
  EXPECT_EQ(tuning->key(), std::vector<std::string>{"n"});
  EXPECT_EQ(tuning->resetToZero(), std::vector<std::string>{"out"});
  EXPECT_EQ(tuning->restoreValue(), std::vector<std::string>{"x"});
  EXPECT_EQ(tuning->warmupMs(), 5u);
  EXPECT_EQ(tuning->repMs(), 20u);
  ASSERT_EQ(tuning->params().size(), 6u);
  EXPECT_FALSE(tuning->params()[2].isConstexpr);
  EXPECT_TRUE(tuning->params()[3].isConstexpr);

  // Each heuristic sees the arguments, the constexprs and those before it.
  std::vector<NamedScalar> values = {{"x", HostScalar::pointer("fp32")},
                                     {"out", HostScalar::pointer("fp32")},
                                     {"n", HostScalar::ofInt(1000)},
                                     {"BLOCK", HostScalar::ofInt(64)}};
  std::vector<NamedScalar> results;
  std::string error;
  ASSERT_TRUE(tuning->applyHeuristics(values, results, error)) << error;
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].first, "EVEN");
  EXPECT_EQ(results[0].second.repr(), "False");
  EXPECT_EQ(results[1].second.repr(), "1024");
  EXPECT_EQ(values.size(), 6u);
}

// Triton's matmul tutorial builds its configs in helper functions that ask
// the driver for the target.
TEST(TuningTest, ConfigsFromHostFunctionsAndComprehensions) {
  auto tuning = readOk(std::string(kHeader) + R"(
def is_cuda():
    return triton.runtime.driver.active.get_current_target().backend == "cuda"

def get_cuda_autotune_config():
    configs = [triton.Config({'BM': bm, 'BK': 32}, num_stages=s, num_warps=w)
               for bm in [64, 128] for s, w in ((3, 4), (4, 8)) if bm * w <= 512]
    configs.append(triton.Config({'BM': 16, 'BK': 16}, num_warps=1))
    return configs

def get_hip_autotune_config():
    return [triton.Config({'BM': 32, 'BK': 32, 'waves_per_eu': 2})]

def get_autotune_config():
    if is_cuda():
        return get_cuda_autotune_config()
    else:
        return get_hip_autotune_config()

EXTRA = [triton.Config({'BM': b, 'BK': 64}) for b in range(256, 513, 256)]

@triton.autotune(configs=get_autotune_config() + EXTRA, key=['M', 'K'],
                 prune_configs_by={'early_config_prune': lambda configs, nargs, **kw:
                                   [c for c in configs if c.kwargs['BM'] <= nargs['M']]})
@triton.jit
def matmul(a, M, K, BM: tl.constexpr, BK: tl.constexpr):
    pass
)");
  ASSERT_TRUE(tuning);
  std::vector<std::string> described;
  for (const tilec::TuningConfig &config : tuning->configs())
    described.push_back(config.describe());
  EXPECT_EQ(described, (std::vector<std::string>{
                           "BM: 64, BK: 32, num_warps: 4, num_stages: 3",
                           "BM: 64, BK: 32, num_warps: 8, num_stages: 4",
                           "BM: 128, BK: 32, num_warps: 4, num_stages: 3",
                           "BM: 16, BK: 16, num_warps: 1, num_stages: 3",
                           "BM: 256, BK: 64, num_warps: 4, num_stages: 3",
                           "BM: 512, BK: 64, num_warps: 4, num_stages: 3"}));
  std::vector<size_t> kept;
  std::string error;
  ASSERT_TRUE(tuning->prune({{"a", HostScalar::pointer("fp16")},
                             {"M", HostScalar::ofInt(100)},
                             {"K", HostScalar::ofInt(64)}},
                            kept, error))
      << error;
  EXPECT_EQ(kept, (std::vector<size_t>{0, 1, 3}));
}

TEST(TuningTest, KernelsWithoutDecoratorsHaveNoTuning) {
  auto tuning = readOk(std::string(kHeader) +
                       "@triton.jit\ndef k(x, B: tl.constexpr):\n    pass\n");
  ASSERT_TRUE(tuning);
  EXPECT_TRUE(tuning->empty());
}

TEST(TuningTest, ErrorsAreLocated) {
  auto withDecorator = [&](const std::string &decorator) {
    return std::string(kHeader) + decorator +
           "\n@triton.jit\ndef k(x, n, B: tl.constexpr):\n    pass\n";
  };
  EXPECT_EQ(readError(withDecorator(
                "@triton.autotune(configs=[triton.Config({'C': 1})], key=['n'])")),
            "k.tl:3:2: error: a config sets 'C', which is not a tl.constexpr "
            "parameter of 'k'");
  EXPECT_EQ(readError(withDecorator(
                "@triton.autotune(configs=[triton.Config({'B': 1})], key=['m'])")),
            "k.tl:3:2: error: autotune's key names 'm', which is not a "
            "parameter of 'k'");
  EXPECT_EQ(readError(withDecorator("@triton.autotune(configs=[triton.Config("
                                    "{'B': 1}, pre_hook=print)], key=['n'])")),
            "k.tl:3:2: error: a config's pre_hook is not supported by tilec");
  EXPECT_EQ(readError(withDecorator("@triton.autotune(configs=[triton.Config("
                                    "{'B': 1}, num_ctas=2)], key=['n'])")),
            "k.tl:3:2: error: a config asks for num_ctas=2: tilec runs one "
            "CTA per program (no thread-block clusters)");
  EXPECT_EQ(readError(withDecorator("@triton.autotune(configs=CONFIGS, key=[])")),
            "k.tl:3:26: error: name 'CONFIGS' is not defined");
  // A host function the parser does not read, and a global it cannot
  // compute, are errors where they are used.
  EXPECT_EQ(readError(std::string(kHeader) +
                      "def configs():\n"
                      "    with open('c') as f:\n"
                      "        return []\n" +
                      withDecorator("@triton.autotune(configs=configs(), "
                                    "key=['n'])")
                          .substr(std::string(kHeader).size())),
            "k.tl:6:26: error: 'configs' (line 3) is host code in Python "
            "tilec does not read (it evaluates functions of assignments, if, "
            "for, while and return)");
  EXPECT_EQ(readError(std::string(kHeader) + "import torch\n"
                      "DEVICE = torch.device('cuda')\n" +
                      withDecorator("@triton.autotune(configs=[triton.Config("
                                    "{'B': DEVICE})], key=['n'])")
                          .substr(std::string(kHeader).size())),
            "k.tl:5:47: error: the global 'DEVICE' (line 4) has no value "
            "tilec can compute: host code calls 'torch.device', which tilec "
            "does not evaluate");

  // A heuristic that reads a pointer's value fails at launch, located.
  auto tuning = readOk(
      withDecorator("@triton.heuristics({'B': lambda args: args['x'] + 1})"));
  ASSERT_TRUE(tuning);
  std::vector<NamedScalar> values = {{"x", HostScalar::pointer("fp16")},
                                     {"n", HostScalar::ofInt(3)}};
  std::vector<NamedScalar> results;
  std::string error;
  EXPECT_FALSE(tuning->applyHeuristics(values, results, error));
  EXPECT_EQ(error.substr(0, error.find('\n')),
            "k.tl:3:43: error: 'x' is a pointer to fp16, which host code "
            "cannot compute with");
}

} // namespace
