//===- PTXEmitter.cpp - LLVM IR to PTX, PTX to cubin ----------------------===//

#include "tilec/Target/PTX/PTXEmitter.h"
#include "tile/GPUArch.h"
#include "tilec/Target/PTX/RegisterBudget.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Target/LLVMIR/Export.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/Linker/Linker.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Triple.h"

#include <cstdlib>
#include <mutex>

// The NVPTX backend's entry points, in libLLVM.so. Declared here rather than
// through TargetSelect.h, which names every target LLVM was built with.
extern "C" {
void LLVMInitializeNVPTXTargetInfo();
void LLVMInitializeNVPTXTarget();
void LLVMInitializeNVPTXTargetMC();
void LLVMInitializeNVPTXAsmPrinter();
}

using namespace llvm;

namespace {

void initializeNVPTXTarget() {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
  });
}

/// PTX ISA 8.1 (CUDA 12.1) by default: the oldest with every sm_90 feature
/// tilec emits (wgmma, TMA, and vector atomics such as `atom.add.v4.f32`,
/// new in 8.1), accepted by any CUDA 12.1+ or 13 ptxas and driver. A
/// kernel with fp8 mma.sync needs 8.4 (CUDA 12.4).
Expected<std::unique_ptr<TargetMachine>>
createTargetMachine(StringRef arch, unsigned ptxVersion = 81) {
  initializeNVPTXTarget();
  Triple triple(tilec::kNVPTXTriple);
  std::string error;
  const Target *target = TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return createStringError("NVPTX target unavailable: " + error);
  if (!::tile::lookupGPUArch(arch))
    return createStringError("unsupported GPU architecture '" + arch +
                             "' (expected " + ::tile::supportedGPUArchs() +
                             ")");
  // No fast-math, but a * b + c may fuse into one fma, as Triton (its
  // default enable_fp_fusion) and nvcc (--fmad=true) allow; LLVM's default
  // would pin mul.rn and add.rn apart.
  TargetOptions options;
  options.AllowFPOpFusion = FPOpFusion::Fast;
  std::unique_ptr<TargetMachine> machine(target->createTargetMachine(
      triple, arch, "+ptx" + std::to_string(std::max(ptxVersion, 81u)), options,
      Reloc::PIC_, std::nullopt,
      // ptxas optimizes the PTX again; LLVM's O3 and aggressive codegen
      // made the same cubin for the matmul kernels in 10% more time.
      CodeGenOptLevel::Default));
  if (!machine)
    return createStringError("cannot create the NVPTX target machine for " +
                             arch);
  return machine;
}

} // namespace

std::unique_ptr<Module>
tilec::translateToLLVMIR(mlir::ModuleOp module, LLVMContext &llvmContext) {
  std::unique_ptr<Module> llvmModule =
      mlir::translateModuleToLLVMIR(module, llvmContext, "tilec");
  if (!llvmModule)
    return nullptr;
  // The data layout of nvptx64 does not depend on the chip.
  Expected<std::unique_ptr<TargetMachine>> machine =
      createTargetMachine("sm_90");
  if (!machine) {
    mlir::emitError(module.getLoc()) << toString(machine.takeError());
    return nullptr;
  }
  llvmModule->setTargetTriple(Triple(kNVPTXTriple));
  llvmModule->setDataLayout((*machine)->createDataLayout());
  return llvmModule;
}

std::optional<std::string> tilec::findLibdevice() {
  if (const char *env = std::getenv("TILEC_LIBDEVICE"); env && *env) {
    if (sys::fs::exists(env))
      return std::string(env);
    return std::nullopt;
  }
  SmallVector<std::string, 2> roots;
  if (const char *cuda = std::getenv("CUDA_HOME"); cuda && *cuda)
    roots.push_back(cuda);
  roots.push_back("/usr/local/cuda");
  for (const std::string &root : roots) {
    std::string path = root + "/nvvm/libdevice/libdevice.10.bc";
    if (sys::fs::exists(path))
      return path;
  }
  return std::nullopt;
}

namespace {
/// Links the libdevice functions `module` calls (`__nv_sinf`...) into it,
/// internal so that the optimizer inlines them and drops the rest. Their
/// `__nvvm_reflect("__CUDA_FTZ")` reads 1, as in Triton's kernels: fp32
/// denormals flush to zero inside them.
Error linkLibdevice(Module &module) {
  std::string first;
  for (Function &f : module)
    if (f.isDeclaration() && f.getName().starts_with("__nv_")) {
      first = f.getName().str();
      break;
    }
  if (first.empty())
    return Error::success();
  std::optional<std::string> path = tilec::findLibdevice();
  if (!path)
    return createStringError(
        "the kernel calls " + first + " from CUDA's libdevice, and "
        "libdevice.10.bc is not found: install the CUDA toolkit "
        "(/usr/local/cuda/nvvm/libdevice), set $CUDA_HOME, or set "
        "$TILEC_LIBDEVICE to the file");
  ErrorOr<std::unique_ptr<MemoryBuffer>> buffer = MemoryBuffer::getFile(*path);
  if (!buffer)
    return createStringError("cannot read " + *path + ": " +
                             buffer.getError().message());
  // Lazily: the linker materializes only the functions the kernel needs.
  Expected<std::unique_ptr<Module>> libdevice =
      getOwningLazyBitcodeModule(std::move(*buffer), module.getContext());
  if (!libdevice)
    return createStringError("cannot parse " + *path + ": " +
                             toString(libdevice.takeError()));
  (*libdevice)->setTargetTriple(module.getTargetTriple());
  (*libdevice)->setDataLayout(module.getDataLayout());
  if (Linker::linkModules(module, std::move(*libdevice),
                          Linker::LinkOnlyNeeded))
    return createStringError("cannot link " + *path);
  for (Function &f : module)
    if (!f.isDeclaration() && f.getName().starts_with("__nv_"))
      f.setLinkage(GlobalValue::InternalLinkage);
  module.addModuleFlag(Module::Override, "nvvm-reflect-ftz", 1);
  return Error::success();
}
} // namespace

Expected<std::string> tilec::emitPTX(Module &module, StringRef arch,
                                     unsigned ptxVersion,
                                     const KernelFacts &facts,
                                     std::string *optimizedIR) {
  Expected<std::unique_ptr<TargetMachine>> machineOrErr =
      createTargetMachine(arch, ptxVersion);
  if (!machineOrErr)
    return machineOrErr.takeError();
  TargetMachine &machine = **machineOrErr;
  module.setTargetTriple(machine.getTargetTriple());
  module.setDataLayout(machine.createDataLayout());
  if (Error e = linkLibdevice(module))
    return std::move(e);

  {
    // Built with the target machine, the PassBuilder also runs NVPTX's own
    // IR passes (NVVMReflect, address space inference...).
    LoopAnalysisManager lam;
    FunctionAnalysisManager fam;
    CGSCCAnalysisManager cgam;
    ModuleAnalysisManager mam;
    // O1: ptxas optimizes the PTX again. Against O2, O1 takes a fifth less
    // time on the blocked matmul, gives ptxas the same registers (the
    // 256 x 128 tf32 kernel: no spills, where O2's GVN and DSE left 56
    // bytes) and the same PTX but for a few instructions.
    PassBuilder builder(&machine);
    builder.registerModuleAnalyses(mam);
    builder.registerCGSCCAnalyses(cgam);
    builder.registerFunctionAnalyses(fam);
    builder.registerLoopAnalyses(lam);
    builder.crossRegisterProxies(lam, fam, cgam, mam);
    ModulePassManager mpm =
        builder.buildPerModuleDefaultPipeline(OptimizationLevel::O1);
    mpm.run(module, mam);
  }
  if (facts.budgetRegisters)
    for (Function &function : module)
      if (function.getCallingConv() == CallingConv::PTX_Kernel)
        setRegisterBudget(function, arch, facts.sharedBytes);
  if (optimizedIR) {
    optimizedIR->clear();
    raw_string_ostream os(*optimizedIR);
    module.print(os, nullptr);
  }

  SmallString<0> ptx;
  {
    raw_svector_ostream os(ptx);
    legacy::PassManager codegen;
    if (machine.addPassesToEmitFile(codegen, os, nullptr,
                                    CodeGenFileType::AssemblyFile))
      return createStringError("the NVPTX backend cannot emit assembly");
    codegen.run(module);
  }
  return std::string(ptx.str());
}

std::optional<std::string> tilec::findPtxas() {
  // An explicit $TILEC_PTXAS wins, even when it names nothing: that is how a
  // user (or a test) turns the others off.
  if (const char *env = std::getenv("TILEC_PTXAS"); env && *env) {
    if (sys::fs::can_execute(env))
      return std::string(env);
    return std::nullopt;
  }
  const char *cudaPtxas = "/usr/local/cuda/bin/ptxas";
  if (sys::fs::can_execute(cudaPtxas))
    return std::string(cudaPtxas);
  if (ErrorOr<std::string> onPath = sys::findProgramByName("ptxas"))
    return *onPath;
  return std::nullopt;
}

namespace {
/// A temporary file, removed when this goes out of scope.
struct TempFile {
  SmallString<128> path;
  std::optional<FileRemover> remover;

  /// Creates the file, holding `contents`.
  Error create(StringRef suffix, StringRef contents = "") {
    if (std::error_code ec =
            sys::fs::createTemporaryFile("tilec", suffix, path))
      return createStringError("cannot create a temporary file: " +
                               ec.message());
    remover.emplace(path);
    if (contents.empty())
      return Error::success();
    std::error_code ec;
    raw_fd_ostream os(path, ec);
    if (ec)
      return createStringError("cannot write " + path + ": " + ec.message());
    os << contents;
    return Error::success();
  }

  /// What a program wrote there ("" when unreadable).
  std::string contents() const {
    ErrorOr<std::unique_ptr<MemoryBuffer>> text = MemoryBuffer::getFile(path);
    return text ? (*text)->getBuffer().str() : "";
  }
};

/// Runs `program` with `args`, its stdout and stderr to `log`; the error
/// names it and carries what it printed.
Error runProgram(StringRef program, ArrayRef<StringRef> args,
                 const TempFile &log) {
  std::optional<StringRef> redirects[] = {std::nullopt, log.path.str(),
                                          log.path.str()};
  std::string execError;
  int rc =
      sys::ExecuteAndWait(program, args, std::nullopt, redirects,
                          /*SecondsToWait=*/0, /*MemoryLimit=*/0, &execError);
  if (rc == 0)
    return Error::success();
  std::string message = sys::path::filename(program).str() + " failed";
  if (!execError.empty())
    message += ": " + execError;
  std::string out = StringRef(log.contents()).trim().str();
  if (!out.empty())
    message += ":\n" + out;
  return createStringError(message);
}
} // namespace

Expected<std::vector<char>> tilec::assembleCubin(StringRef ptx, StringRef arch,
                                                 std::string *info) {
  std::optional<std::string> ptxas = findPtxas();
  if (!ptxas) {
    const char *env = std::getenv("TILEC_PTXAS");
    if (env && *env)
      return createStringError(Twine("ptxas not found: $TILEC_PTXAS is '") +
                               env + "', which is not an executable");
    return createStringError(
        "ptxas not found: install the CUDA toolkit (/usr/local/cuda/bin), put "
        "ptxas on PATH, or set $TILEC_PTXAS");
  }

  TempFile input, output, log;
  if (Error e = input.create("ptx", ptx))
    return std::move(e);
  if (Error e = output.create("cubin"))
    return std::move(e);
  if (Error e = log.create("log"))
    return std::move(e);

  std::string archFlag = ("-arch=" + arch).str();
  // -lineinfo: the PTX's .loc directives, where it has them, become the
  // cubin's line table (nothing without them; the code is the same).
  SmallVector<StringRef> args = {*ptxas,           archFlag,         "-O3",
                                 "-lineinfo",      input.path.str(), "-o",
                                 output.path.str()};
  if (info)
    args.push_back("-v");
  if (Error e = runProgram(*ptxas, args, log))
    return std::move(e);
  if (info)
    *info = log.contents();
  ErrorOr<std::unique_ptr<MemoryBuffer>> cubin =
      MemoryBuffer::getFile(output.path, /*IsText=*/false,
                            /*RequiresNullTerminator=*/false);
  if (!cubin)
    return createStringError("cannot read the cubin ptxas wrote: " +
                             cubin.getError().message());
  StringRef bytes = (*cubin)->getBuffer();
  return std::vector<char>(bytes.begin(), bytes.end());
}

std::optional<std::string> tilec::findCudaTool(StringRef name) {
  SmallVector<std::string, 3> dirs;
  if (std::optional<std::string> ptxas = findPtxas())
    dirs.push_back(sys::path::parent_path(*ptxas).str());
  if (const char *cuda = std::getenv("CUDA_HOME"); cuda && *cuda)
    dirs.push_back((Twine(cuda) + "/bin").str());
  dirs.push_back("/usr/local/cuda/bin");
  for (const std::string &dir : dirs) {
    SmallString<128> path(dir);
    sys::path::append(path, name);
    if (sys::fs::can_execute(path))
      return path.str().str();
  }
  if (ErrorOr<std::string> onPath = sys::findProgramByName(name))
    return *onPath;
  return std::nullopt;
}

Expected<std::string> tilec::disassembleCubin(ArrayRef<char> cubin,
                                              std::string *toolUsed) {
  // nvdisasm lists the code alone; cuobjdump, where only it is found, the
  // same instructions within the ELF's other sections.
  std::optional<std::string> tool = findCudaTool("nvdisasm");
  bool nvdisasm = tool.has_value();
  if (!tool)
    tool = findCudaTool("cuobjdump");
  if (!tool)
    return createStringError("neither nvdisasm nor cuobjdump is found (CUDA's "
                             "bin/, $CUDA_HOME/bin or PATH)");
  if (toolUsed)
    *toolUsed = *tool;
  TempFile input, output;
  if (Error e = input.create("cubin", StringRef(cubin.data(), cubin.size())))
    return std::move(e);
  if (Error e = output.create("sass"))
    return std::move(e);
  SmallVector<StringRef> args = {*tool, nvdisasm ? "-c" : "-sass",
                                 input.path.str()};
  if (Error e = runProgram(*tool, args, output))
    return std::move(e);
  return output.contents();
}
