//===- Tuning.h - A kernel's @triton.autotune and @triton.heuristics -*- C++ -*-===//
//
// What a kernel's decorators ask of whoever launches it: the configs
// @triton.autotune times (constexpr values, warps and pipeline stages), the
// arguments whose values key its choice, the buffers it resets or restores
// between timed runs, and @triton.heuristics' constexprs computed from the
// arguments at each launch. The decorators are host Python, evaluated here
// (Frontend/HostEvaluator.h), so configs may come from comprehensions and
// helper functions as in Triton's tutorials. The JIT, tile-run --autotune
// and tilec --config use it; like Compiler.h it has no MLIR in its
// interface.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_TUNING_H
#define TILEC_TUNING_H

#include "tilec/Frontend/HostScalar.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tilec {


/// Evaluates `text`, a grid as tile-run's --grid takes it ("cdiv(n,
/// BLOCK), 4": ints, names of `names`, Python's arithmetic, cdiv and
/// triton.cdiv, meta["NAME"]) into one to three extents. False with
/// `error` when it is not one.
bool evaluateGrid(const std::string &text, const std::vector<NamedScalar> &names,
                  std::vector<int64_t> &extents, std::string &error);

/// One triton.Config.
struct TuningConfig {
  std::vector<NamedScalar> constexprs;
  unsigned numWarps = 4;
  unsigned numStages = 3;
  /// "BLOCK_M: 128, BLOCK_N: 64, num_warps: 8, num_stages: 3", as Triton
  /// prints a config.
  std::string describe() const;
  /// The same as tilec flags: "-D BLOCK_M=128 -D BLOCK_N=64 --num-warps 8
  /// --num-stages 3".
  std::string flags() const;
};

class KernelTuning {
public:
  /// A kernel parameter, in order.
  struct Param {
    std::string name;
    bool isConstexpr = false;
  };

  /// Reads the decorators of `kernel` (empty: the file's only @triton.jit
  /// function, or its only autotuned one). `computeCapability` is what host
  /// code sees as the GPU target's arch. On an error returns null and sets
  /// `diagnostics` (`file:line:col: error: ...` with the line and a caret).
  /// A kernel without the decorators gets an empty tuning.
  static std::shared_ptr<const KernelTuning>
  read(const std::string &source, const std::string &filename,
       const std::string &kernel, unsigned computeCapability,
       std::string &diagnostics);
  ~KernelTuning();

  const std::vector<Param> &params() const { return params_; }
  /// @triton.autotune's configs; empty without the decorator.
  const std::vector<TuningConfig> &configs() const { return configs_; }
  /// The parameters whose values key the tuning (autotune's `key`).
  const std::vector<std::string> &key() const { return key_; }
  /// Buffers zeroed before each timed run (`reset_to_zero`), and buffers
  /// put back after each (`restore_value`), by parameter name.
  const std::vector<std::string> &resetToZero() const { return resetToZero_; }
  const std::vector<std::string> &restoreValue() const { return restoreValue_; }
  /// Autotune's `warmup` and `rep`, in milliseconds of timed runs.
  unsigned warmupMs() const { return warmupMs_; }
  unsigned repMs() const { return repMs_; }
  /// The constexprs @triton.heuristics computes, in order.
  std::vector<std::string> heuristics() const;
  bool empty() const { return configs_.empty() && heuristics().empty(); }

  /// The configs autotune's `prune_configs_by={'early_config_prune': f}`
  /// keeps for a launch with `args` (the arguments by name): indices into
  /// configs(). All of them without a prune function. False with `error`
  /// when the function fails.
  bool prune(const std::vector<NamedScalar> &args, std::vector<size_t> &kept,
             std::string &error) const;

  /// Evaluates the heuristics in order on `values` (the arguments and the
  /// constexprs so far, by name): each result is appended to `values` and to
  /// `results`. A constexpr `values` already has is the caller's and is not
  /// computed. False with `error` (located in the .tl file) when one fails
  /// or reads a value it has not got (a pointer, an unknown name).
  bool applyHeuristics(std::vector<NamedScalar> &values,
                       std::vector<NamedScalar> &results,
                       std::string &error) const;

  /// The parsed module and the host functions kept for launches (Tuning.cpp).
  struct Impl;

private:
  KernelTuning();
  std::unique_ptr<Impl> impl;
  std::vector<Param> params_;
  std::vector<TuningConfig> configs_;
  std::vector<std::string> key_, resetToZero_, restoreValue_;
  unsigned warmupMs_ = 25, repMs_ = 100;
};

} // namespace tilec

#endif // TILEC_TUNING_H
