//===- RegisterBudgetTest.cpp - Occupancy, budgets, register estimates ----===//

#include "tilec/Target/PTX/RegisterBudget.h"

#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/SourceMgr.h"

#include <gtest/gtest.h>

namespace {

using tilec::blocksPerSM;
using tilec::registerBudget;
using tilec::smLimits;

TEST(RegisterBudgetTest, BlocksPerSMCountsRegistersThreadsAndSharedMemory) {
  tilec::SMLimits hopper = smLimits("sm_90"), ampere = smLimits("sm_80");
  // Registers: a warp's registers come in units of 256.
  EXPECT_EQ(blocksPerSM(hopper, 256, 128, 32), 2u);
  EXPECT_EQ(blocksPerSM(hopper, 256, 110, 32), 2u);
  EXPECT_EQ(blocksPerSM(hopper, 256, 129, 32), 1u);
  EXPECT_EQ(blocksPerSM(hopper, 512, 64, 64), 2u);
  EXPECT_EQ(blocksPerSM(hopper, 512, 80, 64), 1u);
  // Threads: 2048 an SM.
  EXPECT_EQ(blocksPerSM(hopper, 128, 16, 0), 16u);
  // Blocks: 32 an SM.
  EXPECT_EQ(blocksPerSM(hopper, 32, 16, 0), 32u);
  // Shared memory, with the 1 KB each block costs beside its own.
  EXPECT_EQ(blocksPerSM(hopper, 128, 32, 100 * 1024), 2u);
  EXPECT_EQ(blocksPerSM(ampere, 128, 32, 100 * 1024), 1u);
  EXPECT_EQ(blocksPerSM(hopper, 128, 32, 300 * 1024), 0u);
}

TEST(RegisterBudgetTest, BudgetKeepsTheEstimatesOccupancy) {
  tilec::SMLimits sm = smLimits("sm_90");
  // Layer norm, 16384 fp16 a row: 8 warps, two blocks.
  EXPECT_EQ(registerBudget(sm, 256, 32, 120), 128u);
  // 4 warps, four blocks.
  EXPECT_EQ(registerBudget(sm, 128, 16, 120), 128u);
  // 16 warps, two blocks; an estimate 5% over the step is that step.
  EXPECT_EQ(registerBudget(sm, 512, 64, 64), 64u);
  EXPECT_EQ(registerBudget(sm, 512, 64, 67), 64u);
  EXPECT_EQ(registerBudget(sm, 512, 64, 70), 128u);
  // Shared memory allowing fewer blocks than registers leaves more room.
  EXPECT_EQ(registerBudget(sm, 128, 0, 70), 72u);
  EXPECT_EQ(registerBudget(sm, 128, 50 * 1024, 70), 128u);
}

TEST(RegisterBudgetTest, NoBudgetWhereItWouldNotBindOrCouldMislead) {
  tilec::SMLimits sm = smLimits("sm_90");
  EXPECT_EQ(registerBudget(sm, 256, 0, 150), 0u); // one block: 255
  EXPECT_EQ(registerBudget(sm, 128, 0, 200), 0u); // two blocks: 255
  EXPECT_EQ(registerBudget(sm, 128, 0, 40), 0u);  // under 64
  EXPECT_EQ(registerBudget(sm, 128, 300 * 1024, 100), 0u); // does not fit
}

/// The estimate for kernel `name` of the LLVM IR `ir`; 0 after reporting
/// a failure when it does not parse.
unsigned estimate(const char *ir, const char *name) {
  llvm::LLVMContext context;
  llvm::SMDiagnostic error;
  std::unique_ptr<llvm::Module> module =
      llvm::parseAssemblyString(ir, error, context);
  if (!module || !module->getFunction(name)) {
    ADD_FAILURE() << "no kernel " << name << ": " << error.getMessage().str();
    return 0;
  }
  return tilec::estimateRegisters(*module->getFunction(name));
}

// A loop summing a 16-byte load a trip into four accumulators: the
// accumulators, the loaded vector and the induction variable are live at
// once; the address (placed at its load), the parameters (constant bank)
// and the increment (one value and a constant) take nothing.
constexpr const char *kSumLoop = R"(
target datalayout = "e-p:64:64:64-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @sum(ptr addrspace(1) %p, i32 %n) "nvvm.reqntid"="128,1,1" {
entry:
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %next, %loop ]
  %a0 = phi float [ 0.0, %entry ], [ %s0, %loop ]
  %a1 = phi float [ 0.0, %entry ], [ %s1, %loop ]
  %a2 = phi float [ 0.0, %entry ], [ %s2, %loop ]
  %a3 = phi float [ 0.0, %entry ], [ %s3, %loop ]
  %at = getelementptr float, ptr addrspace(1) %p, i32 %i
  %v = load <4 x float>, ptr addrspace(1) %at, align 16
  %e0 = extractelement <4 x float> %v, i32 0
  %e1 = extractelement <4 x float> %v, i32 1
  %e2 = extractelement <4 x float> %v, i32 2
  %e3 = extractelement <4 x float> %v, i32 3
  %s0 = fadd float %a0, %e0
  %s1 = fadd float %a1, %e1
  %s2 = fadd float %a2, %e2
  %s3 = fadd float %a3, %e3
  %next = add i32 %i, 4
  %more = icmp slt i32 %next, %n
  br i1 %more, label %loop, label %exit
exit:
  %t0 = fadd float %s0, %s1
  %t1 = fadd float %s2, %s3
  %t = fadd float %t0, %t1
  store float %t, ptr addrspace(1) %p, align 4
  ret void
}
)";

TEST(RegisterBudgetTest, EstimateCountsWhatIsLiveAtOnce) {
  // 4 accumulators + 4 loaded + the induction variable.
  EXPECT_EQ(estimate(kSumLoop, "sum"), 9u);
}

// Eight products computed first and summed last: in the IR's order all
// eight are live at once, but each multiply can wait for its add.
constexpr const char *kLateUse = R"(
target datalayout = "e-p:64:64:64-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @late(ptr addrspace(1) %p, float %x) "nvvm.reqntid"="128,1,1" {
  %m0 = fmul float %x, 1.0
  %m1 = fmul float %x, 2.0
  %m2 = fmul float %x, 3.0
  %m3 = fmul float %x, 4.0
  %m4 = fmul float %x, 5.0
  %m5 = fmul float %x, 6.0
  %m6 = fmul float %x, 7.0
  %m7 = fmul float %x, 8.0
  %s1 = fadd float %m0, %m1
  %s2 = fadd float %s1, %m2
  %s3 = fadd float %s2, %m3
  %s4 = fadd float %s3, %m4
  %s5 = fadd float %s4, %m5
  %s6 = fadd float %s5, %m6
  %s7 = fadd float %s6, %m7
  store float %s7, ptr addrspace(1) %p, align 4
  ret void
}
)";

TEST(RegisterBudgetTest, EstimatePlacesPureInstructionsAtTheirUsers) {
  // A running sum and a product at a time, not eight products.
  EXPECT_LE(estimate(kLateUse, "late"), 2u);
}

} // namespace
