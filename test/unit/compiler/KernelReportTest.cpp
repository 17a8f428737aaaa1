//===- KernelReportTest.cpp - ptxas -v, SASS listings, occupancy limits ---===//

#include "tilec/Target/PTX/KernelReport.h"

#include <gtest/gtest.h>

namespace {

using tilec::KernelReport;
using tilec::OccupancyLimit;

// ptxas 13.0's -v for two kernels of one module (spills and shared memory
// made up for the second, in the format ptxas prints them).
constexpr const char *kPtxasLog = R"(ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function 'attention_fwd' for 'sm_90a'
ptxas info    : Function properties for attention_fwd
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 168 registers, used 4 barriers
ptxas info    : Compile time = 288.244 ms
ptxas info    : Compiling entry function 'spilling' for 'sm_90a'
ptxas info    : Function properties for spilling
    48 bytes stack frame, 40 bytes spill stores, 36 bytes spill loads
ptxas info    : Used 255 registers, used 1 barriers, 4096 bytes smem, 400 bytes cmem[0]
)";

TEST(KernelReportTest, ReadsEachKernelsLinesOfPtxas) {
  KernelReport first, second, missing;
  ASSERT_TRUE(tilec::readPtxasInfo(kPtxasLog, "attention_fwd", first));
  EXPECT_EQ(first.registers, 168u);
  EXPECT_EQ(first.barriers, 4u);
  EXPECT_EQ(first.localBytes, 0u);
  EXPECT_EQ(first.staticSharedBytes, 0u);
  ASSERT_TRUE(tilec::readPtxasInfo(kPtxasLog, "spilling", second));
  EXPECT_EQ(second.registers, 255u);
  EXPECT_EQ(second.localBytes, 48u);
  EXPECT_EQ(second.spillStoreBytes, 40u);
  EXPECT_EQ(second.spillLoadBytes, 36u);
  EXPECT_EQ(second.staticSharedBytes, 4096u);
  EXPECT_FALSE(tilec::readPtxasInfo(kPtxasLog, "other", missing));
  // A name another kernel's starts with is not that kernel.
  EXPECT_FALSE(tilec::readPtxasInfo(kPtxasLog, "attention", missing));
}

TEST(KernelReportTest, CountsOpcodesOfASassListing) {
  // nvdisasm -c's lines; a predicate or none before the opcode, whose
  // modifiers after '.' do not count.
  constexpr const char *sass = R"(
        .text.k:
        /*0000*/                   LDC R1, c[0x0][0x28] ;
        /*0010*/                   S2R R0, SR_CTAID.X ;
        /*0020*/              @!P0 LDG.E.128 R4, desc[UR4][R2.64] ;
        /*0030*/               @P1 LDG.E.128 R8, desc[UR4][R2.64+0x800] ;
        /*0040*/                   HGMMA.64x128x16.F32 R24, gdesc[UR4], R24 ;
        /*0050*/                   BAR.SYNC.DEFER_BLOCKING 0x0 ;
        /*0060*/             @UP0 UTMALDG.2D [UR8], [UR10] ;
        /*0070*/                   EXIT ;
)";
  KernelReport report;
  tilec::countInstructions(sass, report);
  EXPECT_TRUE(report.hasInstructionMix);
  EXPECT_EQ(report.instructions, 8u);
  EXPECT_EQ(report.opcodes["LDG"], 2u);
  EXPECT_EQ(report.opcodes["HGMMA"], 1u);
  EXPECT_EQ(report.opcodes["BAR"], 1u);
  EXPECT_EQ(report.opcodes["UTMALDG"], 1u);
  EXPECT_EQ(report.opcodes["EXIT"], 1u);
}

TEST(KernelReportTest, OccupancyNamesEveryLimitThatBinds) {
  tilec::SMLimits hopper = tilec::smLimits("sm_90");
  // 384 threads at 168 registers: 12 warps of 5376 registers fill 64K;
  // 193 KB of shared memory fits once in 228 KB.
  tilec::Occupancy both = tilec::occupancy(hopper, 384, 168, 197632);
  EXPECT_EQ(both.blocks, 1u);
  EXPECT_EQ(both.warps, 12u);
  ASSERT_EQ(both.limits.size(), 2u);
  EXPECT_EQ(both.limits[0], OccupancyLimit::Registers);
  EXPECT_EQ(both.limits[1], OccupancyLimit::SharedMemory);
  // Small blocks: 32 a SM, whatever else they would allow.
  tilec::Occupancy small = tilec::occupancy(hopper, 32, 16, 0);
  EXPECT_EQ(small.blocks, 32u);
  EXPECT_EQ(small.limits.front(), OccupancyLimit::Blocks);
  // Too much shared memory: none fits, and shared memory says why.
  tilec::Occupancy none = tilec::occupancy(hopper, 128, 32, 300 * 1024);
  EXPECT_EQ(none.blocks, 0u);
  ASSERT_EQ(none.limits.size(), 1u);
  EXPECT_EQ(none.limits[0], OccupancyLimit::SharedMemory);
}

TEST(KernelReportTest, TextAndJSONSayTheSame) {
  KernelReport report;
  report.kernel = "k";
  report.arch = "sm_90a";
  report.threadsPerBlock = 384;
  report.registers = 168;
  report.dynamicSharedBytes = 197632;
  report.occupancy =
      tilec::occupancy(tilec::smLimits("sm_90a"), 384, 168, 197632);
  report.maxWarpsPerSM = 64;
  report.disassembler = "nvdisasm not found";
  std::string text = tilec::formatReport(report);
  EXPECT_NE(text.find("1 block, 12 of 64 warps an SM; limited by registers "
                      "and shared memory"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("no listing: nvdisasm not found"), std::string::npos);
  std::string json = tilec::reportJSON(report);
  EXPECT_NE(json.find("\"limited_by\":[\"registers\",\"shared memory\"]"),
            std::string::npos)
      << json;
  EXPECT_NE(json.find("\"instructions\":null"), std::string::npos);
  EXPECT_EQ(text.find("programs"), std::string::npos) << text;
  EXPECT_NE(json.find("\"cluster_dims\":[1,1,1],\"stream_k\":false"),
            std::string::npos)
      << json;

  // A program that runs as a cluster splitting K, or stream-K.
  report.clusterDims = {4, 1, 1};
  EXPECT_NE(tilec::formatReport(report).find(
                "  programs       clusters of (4, 1, 1) CTAs that split the "
                "K loop\n"),
            std::string::npos);
  EXPECT_NE(tilec::reportJSON(report).find("\"cluster_dims\":[4,1,1]"),
            std::string::npos);
  report.clusterDims = {1, 1, 1};
  report.streamK = true;
  EXPECT_NE(tilec::formatReport(report).find("programs       stream-K"),
            std::string::npos);
  EXPECT_NE(tilec::reportJSON(report).find("\"stream_k\":true"),
            std::string::npos);
  report.streamK = false;
  report.clusterPrograms = 2;
  report.persistent = true;
  text = tilec::formatReport(report);
  EXPECT_NE(text.find("  programs       up to 2 along x run as a cluster "
                      "sharing their bulk copies\n  programs       "
                      "persistent: each CTA runs programs in turn\n"),
            std::string::npos)
      << text;
  EXPECT_NE(tilec::reportJSON(report).find(
                "\"cluster_programs\":2,\"persistent\":true"),
            std::string::npos);
}

} // namespace
