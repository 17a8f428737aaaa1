//===- Compiler.cpp - .tl source to PTX, in one call ----------------------===//
//
// Drives the whole pipeline for tilec and the JIT: parse, MLIRGen, the tile
// and layout passes, the lowering to the LLVM dialect, LLVM IR, PTX and
// optionally a cubin. Every error is rendered as `file:line:col: error:`
// with the source line and a caret; IR never reaches the user.
//
//===----------------------------------------------------------------------===//

#include "tilec/Compiler.h"

#include "tile/Error.h"
#include "tile/GPUArch.h"
#include "tile/Grid.h"
#include "tilec/Dialect/Tile/Analysis/AccessBounds.h"
#include "tilec/Dialect/Tile/IR/DTypes.h"
#include "tilec/Dialect/Tile/IR/Tile.h"
#include "tilec/Dialect/TileGPU/IR/Target.h"
#include "tilec/Dialect/TileGPU/IR/TensorMapRecipe.h"
#include "tilec/Dialect/TileGPU/IR/ThreadLayout.h"
#include "tilec/Dialect/TileGPU/IR/TileGPU.h"
#include "tilec/Frontend/ASTDump.h"
#include "tilec/Frontend/MLIRGen.h"
#include "tilec/Frontend/ModuleLoader.h"
#include "tilec/Frontend/Parser.h"
#include "tilec/Interpreter/Interpreter.h"
#include "tilec/Pipeline/Pipeline.h"
#include "tilec/Pipeline/Registration.h"
#include "tilec/Target/PTX/PTXEmitter.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "mlir/Pass/PassManager.h"

#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <nlohmann/json.hpp>

#include <chrono>

using namespace mlir;

namespace {

using Clock = std::chrono::steady_clock;

double millisecondsSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start)
      .count();
}

/// Wall time of each stage, and of each pass under the pass stages.
struct TimingRecord {
  unsigned depth;
  std::string name;
  double ms;
};

/// Records the failing pass and, when timing, every pass's wall time.
class PassObserver : public PassInstrumentation {
public:
  PassObserver(std::vector<TimingRecord> *records) : records(records) {}

  void runBeforePass(Pass *pass, Operation *) override {
    starts.push_back(Clock::now());
  }
  void runAfterPass(Pass *pass, Operation *) override { finish(pass); }
  void runAfterPassFailed(Pass *pass, Operation *) override {
    if (failedPass.empty())
      failedPass = passName(pass);
    finish(pass);
  }

  std::string failedPass;

private:
  static std::string passName(Pass *pass) {
    llvm::StringRef argument = pass->getArgument();
    return (argument.empty() ? pass->getName() : argument).str();
  }
  void finish(Pass *pass) {
    double ms = millisecondsSince(starts.back());
    starts.pop_back();
    // Pass adaptors (nested pipelines) have no argument; their passes are
    // listed on their own.
    if (records && !pass->getArgument().empty())
      records->push_back({2 + unsigned(starts.size()), passName(pass), ms});
  }

  std::vector<TimingRecord> *records;
  std::vector<Clock::time_point> starts;
};

/// One compilation: the diagnostics stream, the source manager the MLIR
/// diagnostics are rendered against, and the stage timer.
/// A run on the interpreter instead of code generation.
struct InterpreterLaunch {
  unsigned grid[3];
  const std::vector<tilec::InterpreterArg> &args;
  const std::function<std::string(const ::tile::KernelMetadata &)> &validate;
};

class Compilation {
public:
  Compilation(const std::string &source, const std::string &filename,
              const tilec::CompileOptions &options,
              tilec::CompileResult &result,
              const InterpreterLaunch *launch = nullptr)
      : source(source), filename(filename), options(options), result(result),
        launch(launch), diagnostics(result.diagnostics) {
    sourceMgr.AddNewSourceBuffer(
        llvm::MemoryBuffer::getMemBufferCopy(source, filename), llvm::SMLoc());
  }

  bool run();
  void writeTimingReport(double totalMs);

private:
  bool runFrontend(OwningOpRef<ModuleOp> &module);
  bool parseMLIR(OwningOpRef<ModuleOp> &module);
  bool runPasses(ModuleOp module, llvm::StringRef stageName,
                 llvm::function_ref<void(OpPassManager &)> build);
  func::FuncOp findKernel(ModuleOp module);
  bool recordSignature(func::FuncOp kernel);
  bool recordTensorMaps(ModuleOp module);
  bool emitMachineCode(ModuleOp module);
  bool runInterpreter(ModuleOp module, func::FuncOp kernel);

  /// An error with no source location: `file: error: message`.
  void error(const llvm::Twine &message) {
    llvm::SMDiagnostic(filename, llvm::SourceMgr::DK_Error, message.str())
        .print(nullptr, diagnostics, /*ShowColors=*/false);
  }
  /// A compiler bug, reported before the diagnostics emitted since
  /// `diagnosticsBefore`.
  void internalError(const llvm::Twine &message, size_t diagnosticsBefore);
  void printSourceError(const tilec::SourceError &sourceError);
  void printModule(ModuleOp module) {
    llvm::raw_string_ostream os(result.text);
    module.print(os);
    os << "\n";
  }

  template <typename Fn> auto timed(llvm::StringRef stage, Fn &&fn) {
    Clock::time_point start = Clock::now();
    auto value = fn();
    if (options.timing)
      timings.push_back({1, stage.str(), millisecondsSince(start)});
    return value;
  }

  const std::string &source;
  const std::string &filename;
  const tilec::CompileOptions &options;
  tilec::CompileResult &result;
  const InterpreterLaunch *launch;
  llvm::raw_string_ostream diagnostics;
  llvm::SourceMgr sourceMgr;
  std::vector<TimingRecord> timings;
  MLIRContext *context = nullptr;
  /// Whether the kernel has a tl.dot (KernelFacts::budgetRegisters).
  bool hasDot = false;
  /// What --arch names (checked first thing in run()).
  ::tile::GPUArch arch = *::tile::lookupGPUArch("sm_90");
};

const DialectRegistry &getRegistry() {
  static const DialectRegistry registry = [] {
    DialectRegistry r;
    tilec::registerTileDialects(r);
    return r;
  }();
  return registry;
}

void Compilation::printSourceError(const tilec::SourceError &sourceError) {
  diagnostics << tilec::renderSourceError(source, sourceError);
}

bool Compilation::runFrontend(OwningOpRef<ModuleOp> &module) {
  tilec::SourceError parseError;
  tilec::ModuleLoader loader(source, filename, options.importPath);
  if (!timed("parse", [&] { return loader.parseMain(parseError); })) {
    printSourceError(parseError);
    return false;
  }
  if (options.stopAfter == tilec::Stage::AST) {
    llvm::raw_string_ostream os(result.text);
    tilec::dumpAST(*loader.main().ast, os);
    return true;
  }

  tilec::Specialization spec;
  spec.kernel = options.kernel;
  spec.signature = options.signature;
  spec.constexprs = options.constexprs;
  spec.argTypes = options.argTypes;
  spec.numStages = options.numStages;
  spec.numWarps = options.numWarps;
  spec.debug = options.debug;
  spec.computeCapability = arch.computeCapability;
  size_t diagnosticsBefore = result.diagnostics.size();
  module = timed("mlirgen",
                 [&] { return tilec::mlirGen(*context, loader, spec); });
  result.filesRead = loader.filesRead();
  if (!module) {
    if (result.diagnostics.size() == diagnosticsBefore)
      error("internal error: MLIR generation failed without a diagnostic");
    return false;
  }
  if (failed(verify(*module))) {
    internalError("the frontend produced invalid tile IR", diagnosticsBefore);
    return false;
  }
  return true;
}

bool Compilation::parseMLIR(OwningOpRef<ModuleOp> &module) {
  if (options.stopAfter == tilec::Stage::AST) {
    error("--emit=ast needs a .tl source, not MLIR");
    return false;
  }
  ParserConfig config(context);
  module = timed("parse", [&] {
    return parseSourceFile<ModuleOp>(sourceMgr, config);
  });
  if (!module)
    return false;
  // Tile IR from a file keeps the num_stages it says; otherwise it takes
  // the option's, as the frontend's does.
  if (!(*module)->hasAttr(mlir::tile::TileDialect::getNumStagesAttrName()))
    (*module)->setAttr(mlir::tile::TileDialect::getNumStagesAttrName(),
                       IntegerAttr::get(IntegerType::get(context, 32),
                                        int64_t(options.numStages)));
  return true;
}

bool Compilation::runPasses(ModuleOp module, llvm::StringRef stageName,
                            llvm::function_ref<void(OpPassManager &)> build) {
  PassManager pm = PassManager::on<ModuleOp>(context);
  build(pm);
  auto observer = std::make_unique<PassObserver>(
      options.timing ? &timings : nullptr);
  PassObserver *observerPtr = observer.get();
  pm.addInstrumentation(std::move(observer));

  // Diagnostics of a failing pass follow the internal error that explains
  // them, so remember where they start.
  size_t diagnosticsBefore = result.diagnostics.size();
  size_t timingIndex = timings.size();
  Clock::time_point start = Clock::now();
  LogicalResult status = pm.run(module);
  if (options.timing)
    timings.insert(timings.begin() + timingIndex,
                   {1, stageName.str(), millisecondsSince(start)});
  if (succeeded(status))
    return true;

  std::string pass =
      observerPtr->failedPass.empty() ? stageName.str() : observerPtr->failedPass;
  internalError("pass '" + pass + "' failed", diagnosticsBefore);
  return false;
}

void Compilation::internalError(const llvm::Twine &message,
                                size_t diagnosticsBefore) {
  // The diagnostics emitted since `diagnosticsBefore` explain the failure:
  // they follow the line that says it is tilec's fault.
  std::string details = result.diagnostics.substr(diagnosticsBefore);
  result.diagnostics.resize(diagnosticsBefore);
  error("internal error: " + message +
        " (a tilec bug; please report it with this kernel)");
  result.diagnostics += details;
}

func::FuncOp Compilation::findKernel(ModuleOp module) {
  llvm::SmallVector<func::FuncOp> candidates;
  for (auto func : module.getOps<func::FuncOp>()) {
    if (func.isExternal())
      continue;
    if (!options.kernel.empty() && func.getSymName() == options.kernel)
      return func;
    if (func.isPublic())
      candidates.push_back(func);
  }
  if (!options.kernel.empty()) {
    error("no kernel named '" + options.kernel + "'");
    return nullptr;
  }
  if (candidates.size() == 1)
    return candidates.front();
  if (candidates.empty())
    error("no kernel function to compile");
  else
    error("several kernels; choose one with --kernel");
  return nullptr;
}

/// A constexpr's attribute as JSON text (the metadata's "constexprs"):
/// ints as ints, floats with a decimal point, bools as true/false, strings
/// quoted, None (a unit attribute) as null. JSON has no infinities or NaNs:
/// such floats are null too.
std::string constexprJSON(Attribute value) {
  nlohmann::json json;
  if (auto string = dyn_cast<StringAttr>(value))
    json = string.getValue().str();
  else if (auto boolAttr = dyn_cast<BoolAttr>(value))
    json = boolAttr.getValue();
  else if (auto intAttr = dyn_cast<IntegerAttr>(value))
    json = intAttr.getType().isInteger(1) ? nlohmann::json(!intAttr.getValue().isZero())
                                         : nlohmann::json(intAttr.getInt());
  else if (auto floatAttr = dyn_cast<FloatAttr>(value))
    json = floatAttr.getValueAsDouble();
  return json.dump();
}

bool isPTXIdentifier(llvm::StringRef name) {
  if (name.empty() || !(llvm::isAlpha(name[0]) || name[0] == '_'))
    return false;
  return llvm::all_of(name, [](char c) {
    return llvm::isAlnum(c) || c == '_' || c == '$';
  });
}

/// The tensor maps the launcher builds (HostTensorMaps.h), from the
/// recipes on the kernel's arguments, in the arguments' order.
bool Compilation::recordTensorMaps(ModuleOp module) {
  ::tile::KernelMetadata &md = result.metadata;
  md.tensorMaps.clear();
  bool ok = true;
  module.walk([&](func::FuncOp kernel) {
    for (unsigned i = 0, e = kernel.getNumArguments(); i < e; ++i) {
      auto recipe = kernel.getArgAttrOfType<DictionaryAttr>(
          i, mlir::tilegpu::TileGPUDialect::getHostTensorMapAttrName());
      if (!recipe)
        continue;
      std::string error;
      FailureOr<::tile::TensorMapInfo> map =
          mlir::tilegpu::readTensorMapRecipe(recipe, md.params.size(), error);
      if (failed(map)) {
        internalError("a tensor map's recipe: " + error,
                      result.diagnostics.size());
        ok = false;
        continue;
      }
      md.tensorMaps.push_back(std::move(*map));
    }
  });
  return ok;
}

bool Compilation::recordSignature(func::FuncOp kernel) {
  ::tile::KernelMetadata &md = result.metadata;
  md.kernel = kernel.getSymName().str();
  md.numWarps = options.numWarps;
  md.numStages = options.numStages;
  md.threadsPerBlock = 32 * options.numWarps;
  md.arch = options.arch;
  md.params.clear();
  md.constexprs.clear();
  for (unsigned i = 0, e = kernel.getNumArguments(); i < e; ++i) {
    BlockArgument arg = kernel.getArgument(i);
    ::tile::ParamInfo param;
    // `*u8` for the `i8` of an unsigned parameter: the marker, not the
    // signless IR, says how the kernel reads it.
    std::optional<::tile::ParamType> type = mlir::tile::getParamType(
        arg.getType(),
        bool(kernel.getArgAttr(i, mlir::tile::TileDialect::getUnsignedAttrName())));
    if (!type) {
      emitError(arg.getLoc()) << "kernel parameter of unsupported type "
                              << arg.getType();
      return false;
    }
    param.type = *type;
    if (auto name = kernel.getArgAttrOfType<StringAttr>(i, mlir::tile::TileDialect::getParamNameAttrName()))
      param.name = name.getValue().str();
    else
      param.name = "arg" + std::to_string(i);
    if (auto div = kernel.getArgAttrOfType<IntegerAttr>(i, mlir::tile::TileDialect::getDivisibilityAttrName()))
      param.divisibility = unsigned(std::max<int64_t>(1, div.getInt()));
    md.params.push_back(std::move(param));
  }
  if (auto constexprs =
          kernel->getAttrOfType<DictionaryAttr>(mlir::tile::TileDialect::getConstexprsAttrName()))
    for (NamedAttribute entry : constexprs)
      md.constexprs.emplace_back(entry.getName().str(),
                                 constexprJSON(entry.getValue()));

  // A Python name may be any Unicode identifier; a PTX entry's may not
  // (LLVM's NVPTX backend aborts on one).
  if (options.entryName.empty() && !isPTXIdentifier(md.kernel)) {
    emitError(kernel.getLoc())
        << "kernel name '" << md.kernel
        << "' is not a PTX identifier (ASCII letters, digits, '_' and '$'): "
           "rename the kernel or give --name";
    return false;
  }
  if (!options.entryName.empty()) {
    if (!isPTXIdentifier(options.entryName)) {
      error("invalid kernel entry name '" + options.entryName + "'");
      return false;
    }
    kernel.setSymName(options.entryName);
    md.kernel = options.entryName;
  }
  return true;
}

bool Compilation::emitMachineCode(ModuleOp module) {
  llvm::LLVMContext llvmContext;
  size_t diagnosticsBefore = result.diagnostics.size();
  std::unique_ptr<llvm::Module> llvmModule = timed("translate to LLVM IR", [&] {
    return tilec::translateToLLVMIR(module, llvmContext);
  });
  if (!llvmModule) {
    internalError("translation to LLVM IR failed", diagnosticsBefore);
    return false;
  }
  if (options.stopAfter == tilec::Stage::LLVM) {
    llvm::raw_string_ostream os(result.text);
    llvmModule->print(os, nullptr);
    return true;
  }

  llvm::Expected<std::string> ptx = timed("LLVM O1 + PTX codegen", [&] {
    tilec::KernelFacts facts;
    facts.sharedBytes = result.metadata.sharedBytes;
    facts.budgetRegisters = !hasDot;
    return tilec::emitPTX(*llvmModule, options.arch,
                          result.metadata.ptxVersion, facts);
  });
  if (!ptx) {
    internalError(llvm::toString(ptx.takeError()), result.diagnostics.size());
    return false;
  }
  result.text = std::move(*ptx);
  if (options.stopAfter == tilec::Stage::PTX)
    return true;

  llvm::Expected<std::vector<char>> cubin = timed("ptxas", [&] {
    return tilec::assembleCubin(result.text, options.arch);
  });
  if (!cubin) {
    error(llvm::toString(cubin.takeError()));
    return false;
  }
  result.cubin = std::move(*cubin);
  return true;
}

bool Compilation::run() {
  using tilec::Stage;
  std::optional<::tile::GPUArch> known = ::tile::lookupGPUArch(options.arch);
  if (!known) {
    error("unsupported GPU architecture '" + options.arch + "' (expected " +
          ::tile::supportedGPUArchs() + ")");
    return false;
  }
  arch = *known;
  if (options.numWarps == 0 || options.numWarps > 32 ||
      (options.numWarps & (options.numWarps - 1))) {
    error("num_warps must be a power of two from 1 to 32, not " +
          llvm::Twine(options.numWarps));
    return false;
  }
  if (options.numStages == 0) {
    error("num_stages must be at least 1 (1: no pipelining)");
    return false;
  }

  // Small kernels compile faster on one thread than with a thread pool.
  MLIRContext mlirContext(getRegistry(), MLIRContext::Threading::DISABLED);
  context = &mlirContext;
  mlirContext.printOpOnDiagnostic(false);
  mlirContext.loadDialect<mlir::tile::TileDialect, arith::ArithDialect,
                          math::MathDialect, scf::SCFDialect,
                          func::FuncDialect>();
  SourceMgrDiagnosticHandler handler(sourceMgr, &mlirContext, diagnostics);

  OwningOpRef<ModuleOp> module;
  bool isMLIR = llvm::StringRef(filename).ends_with(".mlir");
  if (!(isMLIR ? parseMLIR(module) : runFrontend(module)))
    return false;
  if (options.stopAfter == Stage::AST)
    return true;

  func::FuncOp kernel = findKernel(*module);
  if (!kernel || !recordSignature(kernel))
    return false;
  // Before any transform: what the source says its accesses reach.
  result.metadata.accesses =
      mlir::tile::computeAccessBounds(kernel, result.metadata.params);
  if (launch)
    return runInterpreter(*module, kernel);
  if (options.stopAfter == Stage::Tile) {
    printModule(*module);
    return true;
  }
  hasDot = module->walk([](mlir::tile::DotOp) {
                   return WalkResult::interrupt();
                 }).wasInterrupted();

  // The layout passes and the lowering ask the target what it offers
  // (shared memory per CTA, vector atomics; see TileGPU/IR/Target.h).
  (*module)->setAttr(
      mlir::tilegpu::TileGPUDialect::getComputeCapabilityAttrName(),
      IntegerAttr::get(IntegerType::get(module->getContext(), 32),
                       arch.computeCapability));
  if (arch.archSpecific)
    (*module)->setAttr(mlir::tilegpu::TileGPUDialect::getArchSpecificAttrName(),
                       UnitAttr::get(module->getContext()));
  if (options.deterministic)
    (*module)->setAttr(
        mlir::tilegpu::TileGPUDialect::getDeterministicAttrName(),
        UnitAttr::get(module->getContext()));
  if (options.deviceTensorMaps)
    (*module)->setAttr(
        mlir::tilegpu::TileGPUDialect::getDeviceTensorMapsAttrName(),
        UnitAttr::get(module->getContext()));
  // An option the compiler may decide: the module's `name` where asked
  // for or against, absent where the cost model decides.
  auto setChoice = [&](StringRef name, ::tile::Choice choice) {
    if (choice != ::tile::Choice::Auto)
      (*module)->setAttr(name, BoolAttr::get(module->getContext(),
                                             choice == ::tile::Choice::On));
  };
  // For the loops whose tl.range does not say (askedWarpSpecialization).
  setChoice(mlir::tile::TileDialect::getWarpSpecializeAttrName(),
            options.warpSpecialize);
  // tilegpu-persistent-programs leaves it where the programs run
  // persistent.
  setChoice(mlir::tilegpu::TileGPUDialect::getPersistentAttrName(),
            options.persistent);
  // Asked for (1, and 0 which the compiler alone takes as 1: only whether
  // the kernel could split); tilegpu-cluster-split-k removes it where the
  // kernel does not qualify or runs one CTA per program.
  (*module)->setAttr(
      mlir::tilegpu::TileGPUDialect::getClusterSplitAttrName(),
      IntegerAttr::get(IntegerType::get(module->getContext(), 32),
                       std::max(1u, options.clusterSplitK)));
  // Asked for; tilegpu-stream-k removes it where the kernel does not
  // qualify.
  if (options.streamK)
    (*module)->setAttr(mlir::tilegpu::TileGPUDialect::getStreamKAttrName(),
                       UnitAttr::get(module->getContext()));
  if (!runPasses(*module, "tile-to-tilegpu", [&](OpPassManager &pm) {
        tilec::buildTileToTileGPUPipeline(pm, options.numWarps);
      }))
    return false;
  if (auto split = (*module)->getAttrOfType<IntegerAttr>(
          mlir::tilegpu::TileGPUDialect::getClusterSplitAttrName()))
    result.metadata.clusterDims = {unsigned(split.getInt()), 1, 1};
  if (auto pairs = (*module)->getAttrOfType<IntegerAttr>(
          mlir::tilegpu::TileGPUDialect::getClusterProgramsAttrName()))
    result.metadata.clusterPrograms = unsigned(pairs.getInt());
  result.metadata.rowSectorsMatter = (*module)->hasAttr(
      mlir::tilegpu::TileGPUDialect::getRowSectorsMatterAttrName());
  result.metadata.clusterSplittable = (*module)->hasAttr(
      mlir::tilegpu::TileGPUDialect::getClusterSplittableAttrName());
  result.metadata.streamKSplittable = (*module)->hasAttr(
      mlir::tilegpu::TileGPUDialect::getStreamKSplittableAttrName());
  bool streamK = (*module)->hasAttr(
      mlir::tilegpu::TileGPUDialect::getStreamKAttrName());
  result.metadata.persistent = (*module)->hasAttr(
      mlir::tilegpu::TileGPUDialect::getPersistentAttrName());
  // A warp-specialized kernel's producer warps come on top of num_warps.
  result.metadata.threadsPerBlock = mlir::tilegpu::getNumThreads(*module);
  module->walk([&](func::FuncOp kernel) {
    unsigned n = kernel.getNumArguments();
    result.metadata.turnstiles |=
        n && kernel.getArgAttr(
                 n - 1, mlir::tilegpu::TileGPUDialect::getTurnstilesAttrName());
  });
  if (options.stopAfter == Stage::TileGPU) {
    printModule(*module);
    return true;
  }

  if (!recordTensorMaps(*module))
    return false;
  if (!runPasses(*module, "tilegpu-to-llvm", [&](OpPassManager &pm) {
        tilec::buildTileGPUToLLVMPipeline(pm, options.lineInfo);
      }))
    return false;
  if (auto shared = (*module)->getAttrOfType<IntegerAttr>(
          mlir::tilegpu::TileGPUDialect::getSharedBytesAttrName()))
    result.metadata.sharedBytes = unsigned(shared.getInt());
  // A stream-K kernel's partials: as many bytes as its lowering stores.
  if (auto partial = (*module)->getAttrOfType<IntegerAttr>(
          mlir::tilegpu::TileGPUDialect::getStreamKPartialBytesAttrName());
      partial && streamK)
    result.metadata.streamKPartialBytes = unsigned(partial.getInt());
  // The PTX's `.version`: what the lowering's instructions need.
  result.metadata.ptxVersion = mlir::tilegpu::getMinPTXVersion(*module);
  // 128 bytes per tensor map (see TensorMapCreateOp), per CTA: each CTA of
  // a program's cluster builds its own.
  if (auto maps = (*module)->getAttrOfType<IntegerAttr>(
          mlir::tilegpu::TileGPUDialect::getTensorMapCountAttrName()))
    result.metadata.globalScratchBytes = unsigned(
        128 * maps.getInt() * result.metadata.ctasPerCluster());
  return emitMachineCode(*module);
}

bool Compilation::runInterpreter(ModuleOp module, func::FuncOp kernel) {
  // What a GPU launch would refuse, the interpreter refuses too.
  std::string invalid = ::tile::validateGrid(
      result.metadata.kernel,
      {launch->grid[0], launch->grid[1], launch->grid[2]});
  if (invalid.empty() && launch->validate)
    invalid = launch->validate(result.metadata);
  if (!invalid.empty()) {
    error(invalid);
    return false;
  }
  if (!runPasses(module, "tile transforms", [](OpPassManager &pm) {
        tilec::buildTileTransformsPipeline(pm);
      }))
    return false;
  if (launch->args.size() < kernel.getNumArguments()) {
    error("kernel '" + kernel.getSymName() + "' takes " +
          llvm::Twine(kernel.getNumArguments()) + " runtime arguments, not " +
          llvm::Twine(launch->args.size()));
    return false;
  }
  return succeeded(timed("interpret", [&] {
    return tilec::interpret(module, kernel.getSymName(), launch->grid[0],
                            launch->grid[1], launch->grid[2], launch->args);
  }));
}

void Compilation::writeTimingReport(double totalMs) {
  llvm::raw_string_ostream os(result.timingReport);
  os << "tilec: wall time per stage, ms (" << filename << ")\n";
  for (const TimingRecord &record : timings)
    os << llvm::format("%*s%9.3f  ", int(2 * (record.depth - 1)), "",
                       record.ms)
       << record.name << "\n";
  os << llvm::format("%9.3f  ", totalMs) << "total\n";
}

} // namespace

tilec::CompileResult tilec::compile(const std::string &source,
                                    const std::string &filename,
                                    const CompileOptions &options) {
  CompileResult result;
  Clock::time_point start = Clock::now();
  Compilation compilation(source, filename, options, result);
  result.ok = compilation.run();
  if (options.timing)
    compilation.writeTimingReport(millisecondsSince(start));
  return result;
}

tilec::CompileResult tilec::interpret(
    const std::string &source, const std::string &filename,
    const CompileOptions &options, unsigned gridX, unsigned gridY,
    unsigned gridZ, const std::vector<InterpreterArg> &args,
    const std::function<std::string(const ::tile::KernelMetadata &)> &validate) {
  CompileResult result;
  Clock::time_point start = Clock::now();
  InterpreterLaunch launch{{gridX, gridY, gridZ}, args, validate};
  Compilation compilation(source, filename, options, result, &launch);
  result.ok = compilation.run();
  if (options.timing)
    compilation.writeTimingReport(millisecondsSince(start));
  return result;
}

std::string tilec::libdevicePath() {
  return findLibdevice().value_or("");
}

bool tilec::parseStage(const std::string &name, Stage &stage) {
  static const std::pair<const char *, Stage> stages[] = {
      {"ast", Stage::AST},       {"tile", Stage::Tile},
      {"ttgpu", Stage::TileGPU}, {"tilegpu", Stage::TileGPU},
      {"llvm", Stage::LLVM},     {"ptx", Stage::PTX},
      {"cubin", Stage::Cubin}};
  for (const auto &[stageName, value] : stages)
    if (name == stageName) {
      stage = value;
      return true;
    }
  return false;
}
