//===- PTXEmitter.h - LLVM IR to PTX, PTX to cubin --------------*- C++ -*-===//
//
// The last steps of the pipeline, as plain functions: the LLVM dialect module
// is translated to LLVM IR, optimized and compiled to PTX by LLVM's NVPTX
// backend, and optionally assembled to a cubin by ptxas.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_TARGET_PTX_PTXEMITTER_H
#define TILEC_TARGET_PTX_PTXEMITTER_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace llvm {
class LLVMContext;
class Module;
} // namespace llvm

namespace mlir {
class ModuleOp;
} // namespace mlir

namespace tilec {

/// The target triple of every kernel.
inline constexpr const char *kNVPTXTriple = "nvptx64-nvidia-cuda";

/// Translates a module in the LLVM and NVVM dialects to LLVM IR in
/// `llvmContext`, with the NVPTX triple and data layout set. Returns null
/// after reporting the error to the module's MLIR context.
std::unique_ptr<llvm::Module> translateToLLVMIR(mlir::ModuleOp module,
                                                llvm::LLVMContext &llvmContext);

/// What the emitter is told about the kernels of a module beyond their IR.
struct KernelFacts {
  /// Dynamic shared memory a block uses, in bytes.
  unsigned sharedBytes = 0;
  /// Whether to give each kernel its register budget (RegisterBudget.h).
  /// The budget's estimate sees the registers of elementwise, memory and
  /// reduction code; tl.dot's operand fragments and pipelined buffers it
  /// does not, so kernels with a dot keep ptxas's own allocation.
  bool budgetRegisters = false;
};

/// Links the libdevice functions `module` calls, optimizes it at O1 for
/// `arch` ("sm_80", "sm_90") and compiles it to PTX text of ISA version
/// `ptxVersion` (times ten: 81 is 8.1) or newer. The optimized LLVM IR is
/// printed to `optimizedIR` when given.
llvm::Expected<std::string> emitPTX(llvm::Module &module, llvm::StringRef arch,
                                    unsigned ptxVersion = 81,
                                    const KernelFacts &facts = {},
                                    std::string *optimizedIR = nullptr);

/// Assembles `ptx` for `arch` with ptxas; the error carries ptxas's output.
/// With `info`, ptxas runs verbose (-v) and its report (registers, spills,
/// shared memory of each function) lands there.
llvm::Expected<std::vector<char>> assembleCubin(llvm::StringRef ptx,
                                                llvm::StringRef arch,
                                                std::string *info = nullptr);

/// The SASS of `cubin` as nvdisasm lists it (else cuobjdump -sass), the
/// program's path in `toolUsed`; the error says which tool is missing or
/// what it printed.
llvm::Expected<std::string> disassembleCubin(llvm::ArrayRef<char> cubin,
                                             std::string *toolUsed = nullptr);

/// CUDA's libdevice.10.bc: $TILEC_LIBDEVICE, else under $CUDA_HOME or
/// /usr/local/cuda (nvvm/libdevice); none when not found.
std::optional<std::string> findLibdevice();

/// The ptxas to use: $TILEC_PTXAS, else /usr/local/cuda/bin/ptxas, else the
/// first one on PATH; none when not found.
std::optional<std::string> findPtxas();

/// A CUDA toolkit program (nvdisasm, cuobjdump): beside the ptxas found,
/// else in $CUDA_HOME/bin or /usr/local/cuda/bin, else on PATH.
std::optional<std::string> findCudaTool(llvm::StringRef name);

} // namespace tilec

#endif // TILEC_TARGET_PTX_PTXEMITTER_H
