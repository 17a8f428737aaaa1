//===- tile-run.cpp - Runs a kernel on .npy files -------------------------===//
//
// Runs one kernel of a .tl file for a grid, on tilec's CPU interpreter or on
// the GPU, with NumPy .npy files for its buffers and numbers for its
// scalars, and writes every buffer back as .npy: the same command line on
// both backends, so their outputs compare directly.
//
//===----------------------------------------------------------------------===//

#include "Npy.h"

#include "ToolSupport.h"
#include "tilec/Compiler.h"
#include "tilec/Interpreter/InterpreterArg.h"

#include "tile/DeviceBuffer.h"
#include "tile/Driver.h"
#include "tile/Error.h"
#include "tile/Grid.h"
#include "tile/JIT.h"
#include "tile/Kernel.h"
#include "tile/Module.h"
#include "tile/Specialization.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <CLI/CLI.hpp>

#include <cerrno>
#include <charconv>
#include <iomanip>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace {

constexpr int kExitError = 1;
constexpr int kExitUsageError = 2;

const char *kDescription =
    "tile-run runs one kernel of a .tl file for a grid of programs, on "
    "tilec's\n"
    "CPU interpreter (the default) or on the GPU, and writes every buffer it\n"
    "was given back as .npy. The ARGs are the kernel's runtime "
    "(non-constexpr)\n"
    "parameters in order: a .npy file for a pointer (its dtype gives the\n"
    "element type unless an annotation or --signature says otherwise), a\n"
    "number for a scalar (an integer is i32, or i64 when it needs it; a real\n"
    "number is fp32), or table:a.npy,b.npy,... for a table of the addresses of\n"
    "those buffers (an int64 pointer parameter, as Triton's grouped GEMM\n"
    "takes). The interpreter stops at the first out-of-bounds access\n"
    "and names the source line, the program and the element.\n";

const char *kFooter = R"(Buffers:
  dtype float32 -> *fp32, float16 -> *fp16, float64 -> *fp64, int32 -> *i32,
  int64 -> *i64, int16 -> *i16, int8 -> *i8, uint8/16/32/64 -> *u8/16/32/64,
  bool -> *i1; an integer array also holds the other signedness of its
  width, a 2-byte one fp16 or bf16 bits and a 1-byte one fp8 bits: say so
  with an annotation or --signature ("*bf16", "*fp8e4nv"). Input files are read into memory and
  never modified; after the run each buffer is written to DIR/<name>.npy,
  named after its parameter, and the buffers of a table to
  DIR/<name>.0.npy, DIR/<name>.1.npy, ...

Grids:
  --grid takes extents as numbers or as Python over the scalar ARGs and the
  constexprs, named by their parameters: "cdiv(n, BLOCK), 4" (cdiv and
  triton.cdiv, meta["BLOCK"] as in Triton's grid lambdas), for block sizes
  that --config, --autotune or @triton.heuristics choose. On the GPU, a
  dot kernel launched with no more programs than an sm_90 GPU has SMs runs
  each program as a cluster of 2 to 4 CTAs that split its K loop, the
  most whose clusters all run at once; where none fits, and where the
  grid's last wave would leave at least as many SMs idle as it fills, the
  kernel's stream-K form cuts its last programs' K loops into parts that
  the idle CTAs run (--cluster-split-k 0, the default, as the JIT decides;
  --stream-k always); 1 never.

Autotuning:
  --config N runs the kernel's Nth @triton.autotune config; --autotune
  times every config on these ARGs first (on the GPU with events, on the
  interpreter by wall time), prints each one's time and runs the fastest.
  @triton.heuristics compute the constexprs -D does not give.

Examples:
  tile-run add.tl --grid 977 -D BLOCK_SIZE=1024 x.npy y.npy out.npy 1000003
  tile-run transpose.tl --grid 4,8 -D BLOCK_M=32 -D BLOCK_N=32 -o out \
      in.npy out.npy 100 250 250 100
  tile-run add.tl --grid 977 --backend cuda -o gpu x.npy y.npy out.npy 1000003
  tile-run k.tl --grid 1 --signature "*bf16, *bf16, 128" x.npy y.npy
  tile-run grouped.tl --grid 4 table:a0.npy,a1.npy table:b0.npy,b1.npy \
      table:c0.npy,c1.npy sizes.npy 2
  tile-run matmul.tl --backend cuda --autotune \
      --grid "cdiv(M, BLOCK_M) * cdiv(N, BLOCK_N), 1" \
      a.npy b.npy c.npy 512 512 512 512 1 512 1 512 1

Exit status: 0 on success, 1 on a compile or run error (diagnostics on
stderr), 2 on a usage error (bad arguments or files).)";

int fail(const std::string &message, int code) {
  std::cerr << "tile-run: error: " << message << "\n";
  return code;
}

/// One ARG of the command line.
struct Arg {
  std::string text;
  bool isBuffer = false;
  // Buffer:
  tilec::npy::Array array;
  // A table (table:a.npy,b.npy): `array` holds the addresses of these, once
  // they are wherever the kernel runs.
  std::vector<tilec::npy::Array> entries;
  std::vector<std::string> entryFiles;
  // Scalar:
  enum class Kind { Int, Real, Bool } kind = Kind::Int;
  /// An Int's value; above INT64_MAX (only a u64 takes it), its bits, with
  /// `aboveInt64` set.
  int64_t intValue = 0;
  bool aboveInt64 = false;
  double realValue = 0;
  /// The type the ARG suggests: "*fp32:16", "i32", "fp32".
  std::string type;
};

/// A dtype's signature spelling: "i32".
std::string sig(tile::DType dtype) { return std::string(tile::name(dtype)); }

bool parseInteger(const std::string &text, int64_t &value, bool &overflow) {
  const char *begin = text.data(), *end = text.data() + text.size();
  if (begin != end && *begin == '+')
    ++begin;
  int base = 10;
  bool negative = begin != end && *begin == '-';
  if (end - begin > 2 + negative && begin[negative] == '0' &&
      (begin[negative + 1] == 'x' || begin[negative + 1] == 'X')) {
    base = 16;
    if (negative)
      return false; // keep it simple: hex literals are non-negative
    begin += 2;
  }
  auto [ptr, ec] = std::from_chars(begin, end, value, base);
  overflow = ec == std::errc::result_out_of_range;
  return ptr == end && (ec == std::errc() || overflow) && begin != end;
}

/// A non-negative integer of up to 64 bits (a u64 above INT64_MAX), in
/// decimal or 0x hex.
bool parseUnsigned(const std::string &text, uint64_t &value) {
  const char *begin = text.data(), *end = text.data() + text.size();
  if (begin != end && *begin == '+')
    ++begin;
  int base = 10;
  if (end - begin > 2 && begin[0] == '0' && (begin[1] == 'x' || begin[1] == 'X')) {
    base = 16;
    begin += 2;
  }
  auto [ptr, ec] = std::from_chars(begin, end, value, base);
  return begin != end && ptr == end && ec == std::errc();
}

bool parseReal(const std::string &text, double &value) {
  if (text.empty())
    return false;
  char *end = nullptr;
  errno = 0;
  value = std::strtod(text.c_str(), &end);
  return end == text.c_str() + text.size();
}

/// The dtype an array's NumPy dtype stands for.
tile::DType defaultDType(const tilec::npy::Array &a) {
  unsigned bits = unsigned(8 * a.itemSize);
  switch (a.kind) {
  case 'f':
    return a.itemSize == 2 ? tile::DType::FP16
           : a.itemSize == 4 ? tile::DType::FP32
                             : tile::DType::FP64;
  case 'b':
    return tile::DType::I1;
  default:
    return tile::integerDType(bits, a.kind == 'u').value_or(tile::DType::I8);
  }
}

/// A pointer's signature type, "*fp32", from its text "*fp32:16".
tile::DType pointeeOf(const std::string &signature) {
  return tile::parseSignatureType(signature)->type.dtype;
}

/// The kernel argument of a number for a scalar parameter of `type`,
/// which checkArgs found it fits.
tile::KernelArg scalarArg(tile::DType type, const Arg &arg) {
  if (tile::isFloat(type))
    return tile::KernelArg::scalarOf(
        type, tile::encodeFloat(type, arg.kind == Arg::Kind::Real
                                          ? arg.realValue
                                          : arg.aboveInt64
                                                ? double(uint64_t(arg.intValue))
                                                : double(arg.intValue)));
  return tile::KernelArg::scalarOf(type, uint64_t(arg.intValue));
}

/// "(x_ptr, y_ptr, n)".
std::string paramList(const tile::KernelMetadata &md) {
  std::string list = "(";
  for (size_t i = 0; i < md.params.size(); ++i)
    list += (i ? ", " : "") + md.params[i].name;
  return list + ")";
}

bool parseGrid(const std::string &text, unsigned grid[3], std::string &error) {
  std::vector<std::string> parts;
  std::stringstream ss(text);
  std::string part;
  while (std::getline(ss, part, ','))
    parts.push_back(part);
  if (parts.empty() || parts.size() > 3 || text.back() == ',') {
    error = "--grid expects X[,Y[,Z]], not '" + text + "'";
    return false;
  }
  for (size_t i = 0; i < 3; ++i) {
    grid[i] = 1;
    if (i >= parts.size())
      continue;
    int64_t value;
    bool overflow;
    if (!parseInteger(parts[i], value, overflow) || overflow || value < 0 ||
        value > 0x7fffffff) {
      error =
          "--grid expects X[,Y[,Z]] of integers from 0, not '" + text + "'";
      return false;
    }
    grid[i] = unsigned(value);
  }
  return true;
}

/// What host code sees of each ARG: a number's value, a buffer's dtype.
std::vector<tilec::HostScalar> scalarsOf(const std::vector<Arg> &args) {
  std::vector<tilec::HostScalar> scalars;
  for (const Arg &arg : args)
    scalars.push_back(arg.isBuffer ? tilec::HostScalar::pointer(std::string(
                                         tile::name(pointeeOf(arg.type))))
                      : arg.kind == Arg::Kind::Real
                          ? tilec::HostScalar::ofFloat(arg.realValue)
                      : arg.kind == Arg::Kind::Bool
                          ? tilec::HostScalar::ofBool(arg.intValue)
                      // Host code's ints are 64-bit: it cannot read this one.
                      : arg.aboveInt64 ? tilec::HostScalar::unknown()
                                       : tilec::HostScalar::ofInt(arg.intValue));
  return scalars;
}

/// The grid: numbers, or Python over the named ARGs and the constexprs.
bool evaluateGrid(const std::string &text,
                  const std::vector<std::string> &params,
                  const std::vector<tilec::HostScalar> &scalars,
                  const std::vector<tilec::NamedScalar> &constexprs,
                  unsigned grid[3], std::string &error) {
  if (text.find_first_not_of("0123456789, ") == std::string::npos)
    return parseGrid(text, grid, error);
  std::vector<tilec::NamedScalar> names = constexprs;
  for (size_t i = 0; i < params.size() && i < scalars.size(); ++i)
    names.emplace_back(params[i], scalars[i]);
  std::vector<int64_t> extents;
  if (!tilec::evaluateGrid(text, names, extents, error))
    return false;
  for (size_t i = 0; i < 3; ++i) {
    int64_t extent = i < extents.size() ? extents[i] : 1;
    if (extent < 0 || extent > 0x7fffffff) {
      error = "--grid '" + text + "' gives the extent " +
              std::to_string(extent) + ": each must be 0 to 2^31-1";
      return false;
    }
    grid[i] = unsigned(extent);
  }
  return true;
}

/// --autotune: times the kernel's @triton.autotune configs on the ARGs
/// through the JIT (which zeroes and restores the buffers autotune names),
/// prints each one's time, and sets `config` to the fastest's index.
int autotuneConfig(const std::string &source, const std::string &filename,
                   const tilec::CompileOptions &options, bool archGiven,
                   tile::Backend backend, const std::string &gridText,
                   const std::vector<Arg> &args, int &config) {
  std::string diagnostics;
  auto tuning = tilec::KernelTuning::read(source, filename, options.kernel,
                                          tilec::archCapability(options.arch),
                                          diagnostics);
  if (!tuning) {
    std::cerr << diagnostics;
    return kExitError;
  }
  if (tuning->configs().empty())
    return fail("--autotune: the kernel has no @triton.autotune configs",
                kExitUsageError);
  std::vector<std::string> params;
  for (const tilec::KernelTuning::Param &param : tuning->params())
    if (!param.isConstexpr)
      params.push_back(param.name);
  if (params.size() != args.size())
    return fail("the kernel takes " + std::to_string(params.size()) +
                    " arguments, " + std::to_string(args.size()) + " given",
                kExitUsageError);
  std::vector<tilec::HostScalar> scalars = scalarsOf(args);
  try {
    std::vector<tile::DeviceBuffer> buffers;
    buffers.reserve(args.size());
    std::vector<tile::KernelArg> kernelArgs;
    for (const Arg &arg : args) {
      if (!arg.entries.empty() || arg.kind == Arg::Kind::Bool)
        return fail("--autotune takes buffers and numbers, not '" + arg.text +
                        "': time with --config N instead",
                    kExitUsageError);
      if (arg.isBuffer) {
        buffers.emplace_back(arg.array.data.size(), backend);
        buffers.back().copyFromHost(arg.array.data.data(),
                                    arg.array.data.size());
        buffers.back().setDType(pointeeOf(arg.type));
        kernelArgs.emplace_back(buffers.back());
      } else if (arg.kind == Arg::Kind::Real) {
        kernelArgs.emplace_back(float(arg.realValue));
      } else if (arg.type == sig(tile::DType::I32)) {
        kernelArgs.emplace_back(int32_t(arg.intValue));
      } else if (arg.aboveInt64) {
        kernelArgs.emplace_back(uint64_t(arg.intValue));
      } else {
        kernelArgs.emplace_back(int64_t(arg.intValue));
      }
    }
    tile::Constexprs constexprs;
    for (const auto &[name, value] : options.constexprs)
      constexprs.emplace_back(name, tile::Constexpr::fromHost(value, name));
    tile::JITFunction jit(source, filename, options.kernel);
    jit.setCacheDirectory(""); // asked to time: time, do not remember
    tile::JITOptions jitOptions;
    jitOptions.backend = backend;
    jitOptions.debug = options.debug;
    jitOptions.lineInfo = options.lineInfo;
    // 0: each config's grid decides, as for the run that follows.
    jitOptions.clusterSplitK = options.clusterSplitK;
    jitOptions.streamK = options.streamK;
    if (archGiven)
      jitOptions.arch = options.arch;
    auto grid = [&](const tile::Meta &meta) {
      std::vector<tilec::NamedScalar> names;
      for (const auto &[name, value] : meta.all())
        names.emplace_back(name, tilec::HostScalar::parse(value.text()));
      unsigned extents[3];
      std::string error;
      if (!evaluateGrid(gridText, params, scalars, names, extents, error))
        throw tile::Error(error);
      return tile::Grid{extents[0], extents[1], extents[2]};
    };
    jit.tunedConfig(grid, kernelArgs, constexprs, jitOptions);
    const tile::TuningReport report = jit.tuningReports().back();
    std::cerr << "tile-run: autotune"
              << (report.key.empty() ? "" : " for " + report.key) << " on the "
              << tile::backendName(backend) << ":\n";
    for (size_t k = 0; k < report.configs.size(); ++k) {
      std::ostringstream time;
      time.precision(4);
      time << std::fixed << report.ms[k] << " ms";
      std::cerr << (k == report.best ? "  * " : "    ") << k << ": "
                << tuning->configs()[k].describe() << ": "
                << (std::isinf(report.ms[k]) ? std::string("not run")
                                             : time.str())
                << "\n";
    }
    if (!report.failures.empty())
      std::cerr << "  failed:" << report.failures << "\n";
    std::cerr << "tile-run: best: --config " << report.best << " ("
              << tuning->configs()[report.best].flags() << ")\n";
    config = int(report.best);
  } catch (const std::exception &e) {
    return fail(e.what(), kExitError);
  }
  return 0;
}

/// An ARG of a table of buffers' addresses: "table:a.npy,b.npy". (Not
/// "[a.npy,b.npy]", which CLI11 takes apart as a list.)
constexpr llvm::StringLiteral kTablePrefix = "table:";

/// An int64 array of `n` addresses, filled in where the kernel runs.
tilec::npy::Array addressTable(size_t n) {
  tilec::npy::Array table;
  table.descr = "<i8";
  table.kind = 'i';
  table.itemSize = 8;
  table.shape = {int64_t(n)};
  table.data = tilec::npy::AlignedBuffer(n * 8);
  return table;
}

/// Writes `addresses` into a table's array.
void fillTable(Arg &arg, const std::vector<uint64_t> &addresses) {
  std::memcpy(arg.array.data.data(), addresses.data(), addresses.size() * 8);
}

/// Reads the ARGs: numbers are scalars, table:a.npy,... a table of
/// buffers' addresses, anything else a .npy file.
bool readArgs(const std::vector<std::string> &texts, std::vector<Arg> &args,
              std::string &error) {
  for (const std::string &text : texts) {
    Arg arg;
    arg.text = text;
    int64_t integer;
    bool overflow = false;
    double real;
    if (text == "True" || text == "False" || text == "true" ||
        text == "false") {
      arg.kind = Arg::Kind::Bool;
      arg.intValue = text[0] == 'T' || text[0] == 't';
      arg.type = sig(tile::DType::I1);
    } else if (parseInteger(text, integer, overflow)) {
      uint64_t above;
      if (overflow && !parseUnsigned(text, above)) {
        error = "the integer " + text + " does not fit in 64 bits";
        return false;
      }
      arg.aboveInt64 = overflow;
      arg.intValue = overflow ? int64_t(above) : integer;
      arg.type = sig(overflow ? tile::DType::U64
                     : integer >= INT32_MIN && integer <= INT32_MAX
                         ? tile::DType::I32
                         : tile::DType::I64);
    } else if (text.find_first_not_of("+-0123456789.eE") == std::string::npos
                   ? parseReal(text, real)
                   : (text == "inf" || text == "-inf" || text == "nan") &&
                         parseReal(text, real)) {
      arg.kind = Arg::Kind::Real;
      arg.realValue = real;
      arg.type = sig(tile::DType::FP32);
    } else if (llvm::StringRef(text).starts_with(kTablePrefix)) {
      arg.isBuffer = true;
      llvm::SmallVector<llvm::StringRef> files;
      llvm::StringRef(text).drop_front(kTablePrefix.size()).split(files, ',');
      for (llvm::StringRef file : files) {
        std::string why;
        arg.entryFiles.push_back(file.trim().str());
        if (!tilec::npy::read(arg.entryFiles.back(), arg.entries.emplace_back(),
                              why)) {
          error = "cannot read '" + file.trim().str() + "' of the table " +
                  text + ": " + why;
          return false;
        }
      }
      arg.array = addressTable(arg.entries.size());
      arg.type = "*" + sig(tile::DType::I64) + ":16";
    } else {
      arg.isBuffer = true;
      std::string why;
      if (!tilec::npy::read(text, arg.array, why)) {
        error = "cannot read '" + text + "': " + why;
        return false;
      }
      // Our buffers are 64-byte aligned: the kernel may assume 16.
      arg.type = "*" + sig(defaultDType(arg.array)) + ":16";
    }
    args.push_back(std::move(arg));
  }
  return true;
}

/// The types the ARGs give unannotated parameters, with the hints their
/// values promise (tile/Specialization.h): "*fp16:16" for a buffer (ours
/// are 64-byte aligned), "i32:8" for a stride of 5000 beside fp16 buffers,
/// as the JIT would specialize the same launch (but for integers equal to
/// 1, which tile-run passes as arguments).
std::vector<std::string> inferredTypes(const std::vector<Arg> &args) {
  unsigned narrowest = tile::kMaxUsefulAlignment;
  for (const Arg &arg : args) {
    if (arg.isBuffer && arg.entries.empty())
      narrowest = std::min(narrowest, tile::byteSize(defaultDType(arg.array)));
    for (const tilec::npy::Array &entry : arg.entries)
      narrowest = std::min(narrowest, tile::byteSize(defaultDType(entry)));
  }
  if (narrowest == tile::kMaxUsefulAlignment) // no buffers
    narrowest = 1;
  std::vector<std::string> types;
  for (const Arg &arg : args) {
    types.push_back(arg.type);
    if (arg.isBuffer || arg.kind != Arg::Kind::Int)
      continue;
    if (unsigned hint = tile::integerHint(arg.intValue, narrowest, false))
      types.back() += ":" + std::to_string(hint);
  }
  return types;
}

/// Checks each ARG against its parameter's type (from the annotation,
/// --signature or the ARG itself).
bool checkArgs(const tile::KernelMetadata &md, const std::vector<Arg> &args,
               std::string &error) {
  if (md.params.size() != args.size()) {
    error = "kernel '" + md.kernel + "' takes " +
            std::to_string(md.params.size()) + " argument" +
            (md.params.size() == 1 ? " " : "s ") + paramList(md) + ", " +
            std::to_string(args.size()) + " given";
    return false;
  }
  for (size_t i = 0; i < args.size(); ++i) {
    const tile::ParamInfo &param = md.params[i];
    const Arg &arg = args[i];
    std::string which = "argument " + std::to_string(i + 1) + " ('" +
                        param.name + "', " + param.type.str() + ")";
    if (param.isPointer() != arg.isBuffer) {
      error = which + ": expected " +
              (param.isPointer() ? "a .npy file" : "a number") + ", not '" +
              arg.text + "'";
      return false;
    }
    tile::DType type = param.type.dtype;
    if (arg.isBuffer) {
      if (!arg.entries.empty() && type != tile::DType::I64 &&
          type != tile::DType::U64) {
        error = which + ": a table of addresses is for an int64 pointer";
        return false;
      }
      if (!tile::dtypeHolds(defaultDType(arg.array), type)) {
        error = which + ": '" + arg.text + "' holds " + arg.array.dtypeName() +
                ", which does not fit " + std::string(tile::name(type));
        return false;
      }
      continue;
    }
    if (tile::isFloat(type))
      continue; // a float parameter takes any number
    if (arg.kind == Arg::Kind::Real) {
      error = which + ": expected an integer, not '" + arg.text + "'";
      return false;
    }
    unsigned width = tile::info(type).bits;
    int64_t v = arg.intValue;
    bool isUnsigned = tile::isUnsigned(type);
    bool ok = arg.aboveInt64 ? isUnsigned && width == 64
              : width == 1    ? (v == 0 || v == 1)
              : width >= 64 ? !isUnsigned || v >= 0
              : isUnsigned  ? (v >= 0 && v < (int64_t(1) << width))
                            : (v >= -(int64_t(1) << (width - 1)) &&
                               v < (int64_t(1) << (width - 1)));
    if (!ok) {
      error = which + ": " + arg.text + " does not fit in " +
              param.type.str();
      return false;
    }
  }
  return true;
}

/// Compiles the kernel as the JIT would for this launch, runs it on the GPU
/// and writes the buffers back into `args`. With `reportFormat` (--report),
/// reports the kernel it loads, after the launch's choice of a cluster split
/// or stream-K form, before it runs.
int runOnGPU(const std::string &source, const std::string &filename,
             tilec::CompileOptions options, const unsigned grid[3],
             std::vector<Arg> &args, const std::string *reportFormat) {
  std::string whyNot;
  if (!tile::cudaAvailable(&whyNot))
    return fail("--backend cuda needs a GPU: " + whyNot +
                    " (--backend interp runs on the CPU)",
                kExitError);
  options.stopAfter = tilec::Stage::PTX;
  // --cluster-split-k 0, as the JIT decides it (JITFunction::findForGrid):
  // the kernel with one CTA a program shows whether it splits and how many
  // of its clusters run at once, or else whether its stream-K form pays; a
  // split is compiled after it.
  bool decide = options.clusterSplitK == 0 && !options.streamK;
  if (decide)
    options.clusterSplitK = 1;
  tilec::CompileResult compiled = tilec::compile(source, filename, options);
  try {
    std::shared_ptr<tile::Module> module;
    std::unique_ptr<tile::Kernel> kernel;
    auto load = [&] {
      module = tile::Module::loadPTX(compiled.text, compiled.metadata);
      kernel = std::make_unique<tile::Kernel>(module, compiled.metadata);
    };
    if (compiled.ok)
      load();
    if (compiled.ok && decide) {
      uint64_t programs = uint64_t(grid[0]) * grid[1] * grid[2];
      options.clusterSplitK = kernel->clusterSplitFor(programs);
      if (options.clusterSplitK == 1)
        options.streamK = kernel->streamKFor(programs);
      if (options.clusterSplitK > 1 || options.streamK) {
        compiled = tilec::compile(source, filename, options);
        if (compiled.ok)
          load();
      }
    }
    if (options.timing)
      std::cerr << compiled.timingReport;
    // Errors, and on success the warnings, of the compile that runs.
    std::cerr << compiled.diagnostics;
    if (!compiled.ok)
      return kExitError;
    if (reportFormat &&
        !tilec::printReport(compiled, *reportFormat, "tile-run"))
      return kExitError;
    const tile::KernelMetadata &md = compiled.metadata;
    std::vector<tile::DeviceBuffer> buffers;
    buffers.reserve(args.size());
    // A table's buffers, in order: copied in before, back after the run.
    size_t tabled = 0;
    for (const Arg &arg : args)
      tabled += arg.entries.size();
    std::vector<tile::DeviceBuffer> entries;
    entries.reserve(tabled);
    std::vector<tile::KernelArg> kernelArgs;
    for (size_t i = 0; i < args.size(); ++i) {
      const tile::ParamType &type = md.params[i].type;
      Arg &arg = args[i];
      std::vector<uint64_t> addresses;
      for (tilec::npy::Array &entry : arg.entries) {
        entries.emplace_back(entry.data.size());
        entries.back().copyFromHost(entry.data.data(), entry.data.size());
        addresses.push_back(entries.back().address());
      }
      if (!arg.entries.empty())
        fillTable(arg, addresses);
      if (arg.isBuffer) {
        buffers.emplace_back(arg.array.data.size());
        buffers.back().copyFromHost(arg.array.data.data(),
                                    arg.array.data.size());
        buffers.back().setDType(type.dtype);
        kernelArgs.emplace_back(buffers.back());
      } else {
        kernelArgs.push_back(scalarArg(type.dtype, arg));
      }
    }
    kernel->launch(tile::Grid{grid[0], grid[1], grid[2]}, kernelArgs);
    tile::synchronize();
    size_t b = 0, e = 0;
    for (Arg &arg : args) {
      if (arg.isBuffer)
        buffers[b++].copyToHost(arg.array.data.data(), arg.array.data.size());
      for (tilec::npy::Array &entry : arg.entries)
        entries[e++].copyToHost(entry.data.data(), entry.data.size());
    }
  } catch (const std::exception &e) {
    return fail(e.what(), kExitError);
  }
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  CLI::App app(kDescription, "tile-run");
  app.footer(kFooter);
  app.get_formatter()->column_width(24);

  std::string input, gridText, backend = "interp", outputDir = ".";
  std::vector<std::string> defines, argTexts;
  tilec::CompileOptions options;

  app.add_option("file", input, "The .tl source (or .mlir tile IR)")
      ->required()
      ->option_text(" ");
  app.add_option("args", argTexts,
                 "The kernel's runtime arguments: .npy files and numbers")
      ->option_text("ARG...");
  app.add_option("--grid", gridText,
                 "Programs along x, y and z (Y and Z default to 1)")
      ->required()
      ->option_text("X[,Y[,Z]]");
  tilec::addKernelFlags(
      app, options, defines,
      "The @triton.jit function to run (default: the only one)");
  app.add_option("--backend", backend,
                 "interp (the CPU interpreter, default) or cuda")
      ->check(CLI::IsMember({"interp", "cuda"}))
      ->option_text("NAME");
  app.add_flag("--time", options.timing,
               "Print the wall time of each stage (and of the run) to stderr");
  int config = -1;
  tilec::addConfigFlag(app, config);
  tilec::addDebugOnlyFlag(app);
  std::string reportFormat;
  tilec::addReportFlag(app, reportFormat);
  bool autotune = false;
  app.add_flag("--autotune", autotune,
               "Time the kernel's @triton.autotune configs on these\n"
               "ARGs and run the fastest (see Autotuning below)");
  app.add_option("-o,--output-dir", outputDir,
                 "Where to write <parameter name>.npy (default: .)")
      ->option_text("DIR");

  try {
    app.parse(argc, argv);
  } catch (const CLI::Success &e) {
    return app.exit(e); // --help
  } catch (const CLI::ParseError &e) {
    app.exit(e);
    return kExitUsageError;
  }

  unsigned grid[3];
  std::string error;
  if (autotune && config >= 0)
    return fail("--autotune chooses the config: leave out --config",
                kExitUsageError);
  if (!tilec::applyDefines(defines, options, error))
    return fail(error, kExitUsageError);
  std::string source;
  if (!tilec::readFile(input, source))
    return fail("cannot read '" + input + "': " + std::strerror(errno),
                kExitUsageError);
  std::vector<Arg> args;
  if (!readArgs(argTexts, args, error))
    return fail(error, kExitUsageError);
  options.argTypes = inferredTypes(args);
  // Without --arch, the device's own (sm_90a on Hopper), as the JIT's;
  // --arch native asks for it on either backend.
  bool archGiven = app.get_option("--arch")->count() != 0;
  if (backend == "cuda" || options.arch == "native") {
    std::string choice;
    if (!tilec::resolveArch(archGiven, /*readEnvironment=*/false, options,
                            choice, error))
      return fail(error, kExitUsageError);
  }

  // The decorators: --autotune's timing picks a config; --config's and the
  // heuristics' constexprs join -D's.
  bool isMLIR = llvm::StringRef(input).ends_with(".mlir");
  if (autotune && isMLIR)
    return fail("--autotune reads a .tl file's @triton.autotune",
                kExitUsageError);
  if (autotune) {
    std::string whyNot;
    if (backend == "cuda" && !tile::cudaAvailable(&whyNot))
      return fail("--backend cuda needs a GPU: " + whyNot, kExitError);
    if (int status = autotuneConfig(
            source, input, options, archGiven,
            backend == "cuda" ? tile::Backend::CUDA : tile::Backend::Interpreter,
            gridText, args, config))
      return status;
  }
  if (!isMLIR && !tilec::applyTuning(source, input, options, config,
                                     scalarsOf(args), error)) {
    std::cerr << error;
    return kExitError;
  }

  // The kernel's parameters, to check the ARGs against.
  auto compileToTile = [&](const std::vector<std::string> &argTypes) {
    tilec::CompileOptions probe = options;
    probe.stopAfter = tilec::Stage::Tile;
    probe.argTypes = argTypes;
    probe.timing = false;
    return tilec::compile(source, input, probe);
  };
  tilec::CompileResult signature = compileToTile(options.argTypes);
  if (!signature.ok) {
    // An unannotated parameter without an ARG: too few ARGs. Count the
    // missing ones by filling in placeholder types until every parameter
    // has one (the placeholders may not fit the kernel; that is fine here).
    const std::string noType = "has no type";
    size_t at = signature.diagnostics.find(noType);
    if (at != std::string::npos) {
      size_t nameEnd = signature.diagnostics.rfind('\'', at);
      size_t nameStart = signature.diagnostics.rfind('\'', nameEnd - 1);
      std::string first =
          signature.diagnostics.substr(nameStart, nameEnd - nameStart + 1);
      for (size_t missing = 1; missing <= 64; ++missing) {
        std::vector<std::string> padded = options.argTypes;
        padded.resize(args.size() + missing, sig(tile::DType::I32));
        tilec::CompileResult full = compileToTile(padded);
        if (full.diagnostics.find(noType) != std::string::npos)
          continue;
        if (full.ok && checkArgs(full.metadata, args, error))
          break;
        if (full.ok)
          return fail(error, kExitUsageError);
        return fail("the kernel takes " +
                        std::to_string(args.size() + missing) + " arguments, " +
                        std::to_string(args.size()) + " given (none for " +
                        first + ")",
                    kExitUsageError);
      }
    }
    std::cerr << signature.diagnostics;
    if (!options.argTypes.empty()) {
      std::string types;
      for (const std::string &type : options.argTypes)
        types += (types.empty() ? "" : ", ") + type;
      std::cerr << "tile-run: note: the types of unannotated parameters come "
                   "from the arguments: "
                << types << "\n";
    }
    return kExitError;
  }
  const tile::KernelMetadata &md = signature.metadata;
  if (!checkArgs(md, args, error))
    return fail(error, kExitUsageError);
  std::vector<std::string> params;
  for (const tile::ParamInfo &param : md.params)
    params.push_back(param.name);
  if (!evaluateGrid(gridText, params, scalarsOf(args), options.constexprs, grid,
                    error))
    return fail(error, kExitUsageError);
  // A grid with no programs launches nothing, as in Triton: the kernel
  // compiled, and the buffers are written back as they were.
  bool empty = grid[0] == 0 || grid[1] == 0 || grid[2] == 0;
  if (empty)
    std::cerr << "tile-run: note: the grid (" << grid[0] << ", " << grid[1]
              << ", " << grid[2] << ") has no programs: nothing runs\n";
  // CUDA's limits on both backends (a GPU launch checks its device's too).
  error = empty ? "" : tile::validateGrid(md.kernel, {grid[0], grid[1], grid[2]});
  if (!error.empty())
    return fail(error, kExitUsageError);
  // --cluster-split-k 0: as the JIT, the cost model decides by the grid
  // and the GPU (runOnGPU, once the kernel is compiled); the interpreter
  // runs no clusters.
  if (options.clusterSplitK == 0 && backend != "cuda")
    options.clusterSplitK = 1;

  // Outputs: never over an input file.
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(outputDir, ec);
  if (!fs::is_directory(outputDir))
    return fail("cannot create the output directory '" + outputDir + "'",
                kExitUsageError);
  std::vector<std::string> inputs;
  for (const Arg &arg : args) {
    if (arg.isBuffer && arg.entries.empty())
      inputs.push_back(arg.text);
    inputs.insert(inputs.end(), arg.entryFiles.begin(), arg.entryFiles.end());
  }
  auto overwritesAnInput = [&](const std::string &output) -> std::string {
    for (const std::string &input : inputs)
      if (fs::exists(output) && fs::equivalent(output, input, ec))
        return input;
    return "";
  };
  std::vector<std::string> outputs(args.size());
  std::vector<std::vector<std::string>> entryOutputs(args.size());
  for (size_t i = 0; i < args.size(); ++i) {
    if (!args[i].isBuffer)
      continue;
    outputs[i] = (fs::path(outputDir) / (md.params[i].name + ".npy")).string();
    for (size_t k = 0; k < args[i].entries.size(); ++k)
      entryOutputs[i].push_back((fs::path(outputDir) / (md.params[i].name + "." +
                                                        std::to_string(k) + ".npy"))
                                    .string());
    std::vector<std::string> written = entryOutputs[i];
    written.push_back(outputs[i]);
    for (const std::string &output : written)
      if (std::string input = overwritesAnInput(output); !input.empty())
        return fail("the output '" + output + "' would overwrite the input '" +
                        input + "': write elsewhere with -o DIR",
                    kExitUsageError);
  }

  // --report: the kernel the GPU runs for this launch's arguments and
  // config, before it runs. runOnGPU reports the one it loads; on the
  // interpreter, or where no program runs, the one a GPU would load with a
  // CTA a program is compiled for the report.
  bool report = app.get_option("--report")->count();
  if (report && (backend != "cuda" || empty)) {
    tilec::CompileOptions reported = options;
    if (backend != "cuda") {
      std::string choice;
      if (!tilec::resolveArch(archGiven, /*readEnvironment=*/true, reported,
                              choice, error))
        return fail(error, kExitUsageError);
    }
    reported.stopAfter = tilec::Stage::PTX;
    if (reported.clusterSplitK == 0)
      reported.clusterSplitK = 1;
    tilec::CompileResult compiled = tilec::compile(source, input, reported);
    std::cerr << compiled.diagnostics;
    if (!compiled.ok || !tilec::printReport(compiled, reportFormat, "tile-run"))
      return kExitError;
  }
  if (empty) {
    // Nothing to run.
  } else if (backend == "cuda") {
    if (int status = runOnGPU(source, input, options, grid, args,
                              report ? &reportFormat : nullptr))
      return status;
  } else {
    std::vector<tilec::InterpreterArg> interpArgs, reachable;
    for (size_t i = 0; i < args.size(); ++i) {
      Arg &arg = args[i];
      std::vector<uint64_t> addresses;
      for (tilec::npy::Array &entry : arg.entries) {
        addresses.push_back(uint64_t(uintptr_t(entry.data.data())));
        reachable.push_back(tilec::InterpreterArg::buffer(entry.data.data(),
                                                          entry.data.size()));
      }
      if (!arg.entries.empty())
        fillTable(arg, addresses);
      if (arg.isBuffer)
        interpArgs.push_back(tilec::InterpreterArg::buffer(
            arg.array.data.data(), arg.array.data.size()));
      else if (arg.kind == Arg::Kind::Real)
        interpArgs.push_back(tilec::InterpreterArg::real(arg.realValue));
      else
        interpArgs.push_back(tilec::InterpreterArg::integer(arg.intValue));
    }
    // The tables' buffers follow the arguments: the kernel reaches them
    // only through their addresses.
    interpArgs.insert(interpArgs.end(), reachable.begin(), reachable.end());
    tilec::CompileResult result = tilec::interpret(
        source, input, options, grid[0], grid[1], grid[2], interpArgs);
    if (options.timing)
      std::cerr << result.timingReport;
    std::cerr << result.diagnostics;
    if (!result.ok)
      return kExitError;
  }

  for (size_t i = 0; i < args.size(); ++i) {
    if (!args[i].isBuffer)
      continue;
    if (!tilec::npy::write(outputs[i], args[i].array, error))
      return fail("cannot write '" + outputs[i] + "': " + error, kExitError);
    for (auto [entry, path] : llvm::zip(args[i].entries, entryOutputs[i]))
      if (!tilec::npy::write(path, entry, error))
        return fail("cannot write '" + path + "': " + error, kExitError);
  }
  return 0;
}
