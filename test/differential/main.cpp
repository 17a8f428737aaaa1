//===- main.cpp - tile-difftest: random kernels, GPU against interpreter --===//
//
// Kernel i of a run is generated from seed S + i alone, so
// `tile-difftest --seed X --count 1` replays any failure. On the GPU each
// kernel runs on tilec's interpreter and through the JIT on the device;
// the two must agree, the interpreter must agree with the generator's C++
// reference, and no guard byte or input may change. With
// --interpreter-only (no GPU: CI), each kernel is compiled for the GPU
// instead (PTX, or a cubin with --ptxas) and run on the interpreter alone.
//
//===----------------------------------------------------------------------===//

#include "Compare.h"
#include "Dump.h"
#include "Generator.h"
#include "Runner.h"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

using namespace difftest;

namespace {

struct Options {
  uint64_t seed = 1;
  uint64_t count = 100;
  bool interpreterOnly = false;
  bool print = false;
  bool verbose = false;
  bool ptxas = false;
  unsigned jobs = 1;
  std::string family;
  std::string dump;
};

const char *kUsage =
    "usage: tile-difftest [--seed S] [--count N] [--interpreter-only] "
    "[--ptxas]\n"
    "                     [--jobs J] [--family F] [--print] [--verbose]\n"
    "                     [--dump DIR]\n"
    "\n"
    "Generates N random Triton kernels from seeds S, S+1, ... and runs each\n"
    "on the GPU and on tilec's interpreter, comparing every output, the\n"
    "guards after every buffer and the inputs. Without a GPU it stops with\n"
    "an error unless --interpreter-only is given.\n"
    "\n"
    "  --seed S            first seed (default 1)\n"
    "  --count N           kernels to run (default 100)\n"
    "  --interpreter-only  no GPU: compile each kernel for it and run it on\n"
    "                      the interpreter, checked against the generator's\n"
    "                      C++ reference\n"
    "  --ptxas             with --interpreter-only, assemble the PTX with\n"
    "                      ptxas too\n"
    "  --jobs J            kernels run on J threads at once (default 1)\n"
    "  --family F          only the seeds whose kernel is of family F\n"
    "                      (elementwise, reduce, softmax, dot, atomic)\n"
    "  --print             print each seed's kernel and launch, run nothing\n"
    "  --dump DIR          write each kernel, its buffers (.npy), the\n"
    "                      reference's outputs and a tile-run command line\n"
    "                      to DIR/seed-S/\n"
    "  --verbose           one line per kernel\n";

bool parseNumber(const char *text, uint64_t &value) {
  char *end;
  value = std::strtoull(text, &end, 10);
  return *text && !*end;
}

bool parse(int argc, char **argv, Options &o) {
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&](uint64_t &value) {
      return i + 1 < argc && parseNumber(argv[++i], value);
    };
    uint64_t v;
    if (a == "--seed" && next(v))
      o.seed = v;
    else if (a == "--count" && next(v))
      o.count = v;
    else if (a == "--jobs" && next(v) && v > 0)
      o.jobs = unsigned(v);
    else if (a == "--family" && i + 1 < argc)
      o.family = argv[++i];
    else if (a == "--dump" && i + 1 < argc)
      o.dump = argv[++i];
    else if (a == "--interpreter-only")
      o.interpreterOnly = true;
    else if (a == "--ptxas")
      o.ptxas = true;
    else if (a == "--print")
      o.print = true;
    else if (a == "--verbose")
      o.verbose = true;
    else
      return false;
  }
  return true;
}

enum class Verdict { Passed, Failed, Skipped };

struct Result {
  bool ran = false;
  Verdict verdict = Verdict::Skipped;
  bool fatal = false;
  std::string text; ///< printed as the kernel finishes
};

Result runOne(uint64_t seed, const Options &o) {
  Result r;
  KernelCase c;
  try {
    c = generate(seed);
  } catch (const std::exception &e) {
    r.verdict = Verdict::Failed;
    r.text = "FAIL seed " + std::to_string(seed) +
             ": the generator failed: " + e.what() + "\n";
    return r;
  }
  if (!o.family.empty() && c.family != o.family)
    return r;
  if (!o.dump.empty()) {
    std::string why = dumpCase(c, o.dump + "/seed-" + std::to_string(seed));
    if (!why.empty())
      r.text = "tile-difftest: " + why + "\n";
  }
  if (o.print) {
    r.verdict = Verdict::Passed;
    r.text += describe(c) + "\n";
    return r;
  }

  auto start = std::chrono::steady_clock::now();
  std::vector<std::string> problems;
  if (o.interpreterOnly) {
    std::string diagnostics = compileForGPU(c, o.ptxas);
    if (!diagnostics.empty())
      problems.push_back("tilec rejects the kernel for the GPU (" + c.arch +
                         "):\n" + diagnostics);
  }
  RunOutcome interp = runInterpreter(c);
  if (!interp.ok) {
    problems.push_back("the interpreter failed:\n" + interp.error);
  } else {
    checkImages(c, interp.images, "interpreter", problems);
    if (c.reference)
      compareOutputs(c, interp.images, "interpreter", expectedOf(c),
                     "reference", problems);
  }
  if (!o.interpreterOnly) {
    RunOutcome gpu = runGPU(c);
    r.fatal = gpu.fatal;
    if (!gpu.ok) {
      problems.push_back("the GPU run failed:\n" + gpu.error);
    } else {
      checkImages(c, gpu.images, "GPU", problems);
      if (interp.ok)
        compareOutputs(c, gpu.images, "GPU", outputsOf(c, interp.images),
                       "interpreter", problems);
      else if (c.reference)
        compareOutputs(c, gpu.images, "GPU", expectedOf(c), "reference",
                       problems);
    }
  }
  double ms = std::chrono::duration<double, std::milli>(
                  std::chrono::steady_clock::now() - start)
                  .count();

  r.verdict = problems.empty() ? Verdict::Passed : Verdict::Failed;
  char line[64];
  std::snprintf(line, sizeof line, " (%.0f ms)", ms);
  if (r.verdict == Verdict::Failed) {
    r.text = "FAIL seed " + std::to_string(seed) + " (" + c.family +
             "): " + c.summary + "\n";
    for (const std::string &p : problems)
      r.text += "  " + p + "\n";
    r.text += "  replay: tile-difftest --seed " + std::to_string(seed) +
              " --count 1" + (o.interpreterOnly ? " --interpreter-only" : "") +
              "\n" + describe(c) + "\n";
  } else if (o.verbose) {
    r.text = "ok seed " + std::to_string(seed) + " (" + c.family +
             "): " + c.summary + line + "\n";
  }
  return r;
}

} // namespace

int main(int argc, char **argv) {
  Options o;
  if (!parse(argc, argv, o)) {
    std::fputs(kUsage, stderr);
    return 2;
  }
  if (!o.interpreterOnly && !o.print) {
    std::string why;
    if (!gpuAvailable(&why)) {
      std::fprintf(stderr,
                   "tile-difftest: no GPU to compare with the interpreter "
                   "(%s); run with --interpreter-only to check the compiler "
                   "and the interpreter alone\n",
                   why.c_str());
      return 2;
    }
  }

  std::vector<Result> results(o.count);
  std::atomic<uint64_t> next{0};
  std::atomic<bool> stop{false};
  std::mutex printing;
  auto worker = [&] {
    for (;;) {
      uint64_t i = next++;
      if (i >= o.count || stop)
        return;
      results[i] = runOne(o.seed + i, o);
      results[i].ran = true;
      if (results[i].fatal)
        stop = true;
      if (!results[i].text.empty()) {
        std::lock_guard<std::mutex> lock(printing);
        std::fputs(results[i].text.c_str(), stdout);
        std::fflush(stdout);
      }
    }
  };
  std::vector<std::thread> threads;
  for (unsigned j = 1; j < o.jobs; ++j)
    threads.emplace_back(worker);
  worker();
  for (std::thread &t : threads)
    t.join();

  if (o.print)
    return 0;
  uint64_t kernels = 0, passed = 0, failed = 0, notRun = 0;
  for (const Result &r : results) {
    notRun += !r.ran;
    if (r.verdict == Verdict::Skipped)
      continue;
    ++kernels;
    (r.verdict == Verdict::Passed ? passed : failed)++;
  }
  std::printf("%llu kernels, %llu passed, %llu failed\n",
              (unsigned long long)kernels, (unsigned long long)passed,
              (unsigned long long)failed);
  if (stop)
    std::printf("stopped early: a CUDA error left the GPU unusable (the "
                "failure above); %llu seeds not run\n",
                (unsigned long long)notRun);
  return failed || stop ? 1 : 0;
}
