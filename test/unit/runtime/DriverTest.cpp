//===- DriverTest.cpp - Behaviour without a GPU ---------------------------===//
//
// CI has no GPU: the runtime must load, say why CUDA is unavailable, and turn
// every device operation into a tile::Error instead of crashing.
//
//===----------------------------------------------------------------------===//

#include "tile/DeviceBuffer.h"
#include "tile/Driver.h"
#include "tile/Error.h"
#include "tile/Kernel.h"

#include <gtest/gtest.h>

using namespace tile;

namespace {

TEST(NoGPU, ReportsWhyCudaIsUnavailable) {
  std::string why;
  if (cudaAvailable(&why))
    GTEST_SKIP() << "a CUDA device is present";
  EXPECT_FALSE(why.empty());
  EXPECT_TRUE(why.find("libcuda") != std::string::npos ||
              why.find("device") != std::string::npos)
      << why;
  EXPECT_FALSE(cudaAvailable()); // Stable, and the reason is optional.
}

TEST(NoGPU, DeviceOperationsThrow) {
  if (cudaAvailable())
    GTEST_SKIP() << "a CUDA device is present";
  try {
    DeviceBuffer buffer(16);
    FAIL() << "DeviceBuffer(16) should throw without CUDA";
  } catch (const Error &e) {
    std::string message = e.what();
    EXPECT_TRUE(message.find("libcuda") != std::string::npos ||
                message.find("device") != std::string::npos)
        << message;
  }
  EXPECT_THROW(synchronize(), Error);
  EXPECT_THROW(deviceName(), Error);
  EXPECT_THROW(computeCapability(), Error);
  EXPECT_THROW(multiprocessorCount(), Error);
  EXPECT_THROW(Kernel::load("/nonexistent/k.ptx"), Error);
}

TEST(CheckCuda, MessageNamesCallAndKernel) {
  EXPECT_NO_THROW(checkCuda(0, "cuLaunchKernel"));
  try {
    checkCuda(1, "cuLaunchKernel", "add_kernel");
    FAIL() << "expected an error";
  } catch (const Error &e) {
    std::string message = e.what();
    EXPECT_EQ(message.rfind("cuLaunchKernel failed: ", 0), 0u) << message;
    EXPECT_NE(message.find("[kernel add_kernel]"), std::string::npos)
        << message;
    if (cudaAvailable()) {
      EXPECT_NE(message.find("CUDA_ERROR_INVALID_VALUE (invalid argument)"),
                std::string::npos)
          << message;
    }
  }
}

TEST(KernelLoad, RejectsUnknownExtension) {
  try {
    Kernel::load("kernel.txt");
    FAIL() << "expected an error";
  } catch (const Error &e) {
    EXPECT_STREQ(e.what(),
                 "cannot load kernel.txt: expected a .ptx or .cubin file");
  }
}

} // namespace
