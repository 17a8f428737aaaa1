//===- GPUArchTest.cpp - The --arch table and a device's target -----------===//

#include "tile/GPUArch.h"

#include <gtest/gtest.h>

using namespace tile;

namespace {

std::string forDevice(unsigned capability) {
  std::optional<GPUArch> arch = gpuArchForDevice(capability);
  return arch ? std::string(arch->name) : std::string();
}

// What tilec's --arch native and the JIT (tile::deviceArch) compile for: a
// device's own architecture-specific target, else the newest it runs.
TEST(GPUArch, TargetForADevice) {
  EXPECT_EQ(forDevice(90), "sm_90a");
  EXPECT_EQ(forDevice(80), "sm_80");
  EXPECT_EQ(forDevice(86), "sm_80");
  EXPECT_EQ(forDevice(89), "sm_80");
  EXPECT_EQ(forDevice(100), "sm_90");
  EXPECT_EQ(forDevice(120), "sm_90");
  EXPECT_EQ(forDevice(75), "");
}

TEST(GPUArch, NamesAndCapabilities) {
  ASSERT_TRUE(lookupGPUArch("sm_90a"));
  EXPECT_EQ(lookupGPUArch("sm_90a")->computeCapability, 90u);
  EXPECT_TRUE(lookupGPUArch("sm_90a")->archSpecific);
  EXPECT_FALSE(lookupGPUArch("sm_90")->archSpecific);
  EXPECT_EQ(lookupGPUArch("sm_80")->computeCapability, 80u);
  EXPECT_FALSE(lookupGPUArch("sm_89"));
  EXPECT_FALSE(lookupGPUArch(""));
  EXPECT_EQ(supportedGPUArchs(), "sm_80, sm_90 or sm_90a");
  EXPECT_EQ(noGPUArchFor("Tesla T4, compute capability 7.5"),
            "tilec compiles for none older than sm_80 (Tesla T4, compute "
            "capability 7.5)");
}

} // namespace
