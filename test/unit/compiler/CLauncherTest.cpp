//===- CLauncherTest.cpp - The C launcher of hand-made metadata -----------===//
//
// Specializations the compiler does not make on every machine (programs
// that run as thread-block clusters), as --emit=c would write them; where
// a C compiler and CUDA's headers are there (lit's `cuda-headers`), the
// source compiles as C99 and as C++ without a warning.
//
//===----------------------------------------------------------------------===//

#include "tilec/Target/C/CLauncher.h"

#include "tile/Grid.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <unistd.h>

using namespace tilec;

namespace {

/// A split-K kernel's specialization: `cluster` CTAs per program.
CSpecialization splitK(std::array<unsigned, 3> cluster,
                       unsigned divisibility = 16) {
  CSpecialization spec;
  tile::KernelMetadata &md = spec.metadata;
  md.kernel = "splitk";
  md.arch = "sm_90a";
  md.numWarps = 4;
  md.threadsPerBlock = 128;
  md.sharedBytes = 65536;
  md.ptxVersion = 84;
  md.clusterDims = cluster;
  md.params = {{"a_ptr", tile::ParamType::pointer(tile::DType::FP16), 16},
               {"c_ptr", tile::ParamType::pointer(tile::DType::FP32), 16},
               {"K", tile::ParamType::scalar(tile::DType::I32), divisibility}};
  md.constexprs = {{"BLOCK_K", "64"}};
  spec.ptx = ".version 8.4\n.target sm_90a\n";
  return spec;
}

bool contains(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

/// Where lit finds cuda.h (CUDA_HOME, else /usr/local/cuda); "" without.
std::string cudaInclude() {
  const char *home = std::getenv("CUDA_HOME");
  std::string include =
      std::string(home ? home : "/usr/local/cuda") + "/include";
  return std::ifstream(include + "/cuda.h").good() ? include : "";
}

/// Where the test writes the C, one directory per process.
std::string scratchDirectory() {
  return ::testing::TempDir() + "tilec-clauncher-" + std::to_string(getpid());
}

/// Compiles `launcher` with cc and `flags`: the command's status.
int compileC(const CLauncher &launcher, const std::string &name,
             const std::string &flags) {
  std::string dir = scratchDirectory();
  std::string mkdir = "mkdir -p '" + dir + "'";
  if (std::system(mkdir.c_str()) != 0)
    return -1;
  std::ofstream(dir + "/" + name + ".h") << launcher.header;
  std::ofstream(dir + "/" + name + ".c") << launcher.source;
  std::string command = "cc " + flags + " -Wall -Wextra -Werror -I'" +
                        cudaInclude() + "' -c '" + dir + "/" + name +
                        ".c' -o '" + dir + "/" + name + ".o'";
  return std::system(command.c_str());
}

// Each program a cluster: the launch goes through cuLaunchKernelEx with
// the grid's CTAs, the programs' times the cluster's, and the cluster as
// its attribute, once the CTAs are found within CUDA's limits.
TEST(CLauncher, ClusterLaunch) {
  CLauncher launcher =
      emitCLauncher({splitK({4, 1, 1})}, "splitk.h", "splitk.tl");
  const std::string &c = launcher.source;
  EXPECT_TRUE(
      contains(launcher.header, "each program a cluster of (4, 1, 1) CTAs"))
      << launcher.header;
  EXPECT_TRUE(contains(launcher.header, "through cuLaunchKernelEx"));
  EXPECT_TRUE(contains(c, "#include <string.h>"));
  EXPECT_TRUE(contains(c, "CUresult (*launchEx)(const CUlaunchConfig *, "
                          "CUfunction, void **, void **);"));
  EXPECT_TRUE(contains(
      c, "TILEC_SYM(lib, splitk_driver.launchEx, \"cuLaunchKernelEx\");"))
      << c;
  EXPECT_TRUE(contains(c, "  if ((uint64_t)grid_x * 4 > 2147483647u)\n"
                          "    return splitk_fail(CUDA_ERROR_INVALID_VALUE, "
                          "\"kernel %s: grid (%u, %u, %u) in clusters of (4, "
                          "1, 1) CTAs starts %llu CTAs along x, more than the "
                          "limit of 2147483647\",\n"))
      << c;
  EXPECT_TRUE(
      contains(c, "tl_cluster.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;\n"
                  "  tl_cluster.value.clusterDim.x = 4;\n"
                  "  tl_cluster.value.clusterDim.y = 1;\n"
                  "  tl_cluster.value.clusterDim.z = 1;\n"
                  "  tl_config.gridDimX = grid_x * 4;\n"
                  "  tl_config.gridDimY = grid_y;\n"
                  "  tl_config.gridDimZ = grid_z;\n"
                  "  tl_config.blockDimX = 128;\n"))
      << c;
  EXPECT_TRUE(contains(c, "tl_config.sharedMemBytes = 65536;\n"
                          "  tl_config.hStream = stream;\n"
                          "  tl_config.attrs = &tl_cluster;\n"
                          "  tl_config.numAttrs = 1;\n"));
  EXPECT_TRUE(contains(c, "tl_r = (tl_call = \"cuLaunchKernelEx\", "
                          "splitk_driver.launchEx(&tl_config, tl_function, "
                          "tl_params, NULL));"));
  // The large shared memory is still opted into when the image loads.
  EXPECT_TRUE(contains(c, "CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES"));
  EXPECT_FALSE(contains(c, "splitk_driver.launch(tl_function"));
}

// Clusters along more than x check and multiply each extent they span.
TEST(CLauncher, ClusterAlongSeveralAxes) {
  std::string c =
      emitCLauncher({splitK({2, 2, 1})}, "splitk.h", "splitk.tl").source;
  EXPECT_TRUE(contains(c, "  if ((uint64_t)grid_x * 2 > 2147483647u)\n"));
  EXPECT_TRUE(contains(c, "  if ((uint64_t)grid_y * 2 > 65535u)\n")) << c;
  EXPECT_TRUE(contains(c, "  if ((uint64_t)grid_z * 1 > 65535u)\n"));
  EXPECT_TRUE(contains(c, "tl_config.gridDimY = grid_y * 2;"));
}

// Without clusters the launcher is as it was: cuLaunchKernel, and no
// cuLaunchKernelEx to resolve (an older driver still launches it).
TEST(CLauncher, NoClusterNoLaunchEx) {
  CLauncher launcher =
      emitCLauncher({splitK({1, 1, 1})}, "splitk.h", "splitk.tl");
  EXPECT_FALSE(contains(launcher.source, "cuLaunchKernelEx"));
  EXPECT_FALSE(contains(launcher.source, "string.h"));
  EXPECT_FALSE(contains(launcher.header, "cluster"));
  EXPECT_TRUE(contains(launcher.source,
                       "tl_r = (tl_call = \"cuLaunchKernel\", "
                       "splitk_driver.launch(tl_function, grid_x, "
                       "grid_y, grid_z, 128, 1, 1,\n    65536, stream, "
                       "tl_params, NULL));"));
}

// A dispatcher over a clustered and a plain specialization resolves
// cuLaunchKernelEx once, and each launcher launches its own way.
TEST(CLauncher, DispatcherMixesClusters) {
  CLauncher launcher = emitCLauncher({splitK({1, 1, 1}, 1), splitK({2, 1, 1})},
                                     "splitk.h", "splitk.tl");
  const std::string &c = launcher.source;
  EXPECT_TRUE(contains(c, "TILEC_SYM(lib, splitk_driver.launchEx"));
  size_t plain = c.find("CUresult splitk_spec0(");
  size_t clustered = c.find("CUresult splitk_spec1(");
  ASSERT_NE(plain, std::string::npos);
  ASSERT_NE(clustered, std::string::npos);
  ASSERT_LT(plain, clustered);
  std::string spec0 = c.substr(plain, clustered - plain);
  std::string spec1 = c.substr(clustered);
  EXPECT_TRUE(contains(spec0, "splitk_driver.launch(tl_function"));
  EXPECT_FALSE(contains(spec0, "tl_config"));
  EXPECT_TRUE(contains(spec1, "tl_config.gridDimX = grid_x * 2;"));
  EXPECT_TRUE(contains(spec1, "splitk_driver.launchEx(&tl_config"));
}

/// A stream-K specialization of the split-K kernel.
CSpecialization streamK() {
  CSpecialization spec = splitK({1, 1, 1});
  spec.metadata.streamKSplittable = true;
  spec.metadata.streamKPartialBytes = 65536;
  return spec;
}

// A stream-K kernel: the launcher plans the CTAs (NAME_stream_k, from the
// CTAs the device holds at once, read when the image loads), allocates
// and zeroes the workspace's flags in stream order, passes the grid asked
// for, the programs split, the cut and the workspace after the arguments, and
// launches the plan's CTAs along x.
TEST(CLauncher, StreamKLaunch) {
  CLauncher launcher = emitCLauncher({streamK()}, "splitk.h", "splitk.tl");
  const std::string &c = launcher.source;
  EXPECT_TRUE(contains(launcher.header, "stream-K")) << launcher.header;
  EXPECT_TRUE(contains(c, "TILEC_SYM(lib, splitk_driver.occupancy, "
                          "\"cuOccupancyMaxActiveBlocksPerMultiprocessor\");"))
      << c;
  EXPECT_TRUE(contains(c, "static void splitk_stream_k(uint64_t programs"));
  EXPECT_TRUE(contains(c, "splitk_stream_k(tl_grid_programs, tl_resident, "
                          "&tl_ctas, &tl_split,\n"
                          "      &tl_parts, &tl_head);\n"
                          "  if (tl_ctas > 2147483647u)\n"
                          "    return splitk_fail(CUDA_ERROR_INVALID_VALUE, "));
  EXPECT_TRUE(contains(c, "uint64_t tl_pieces = tl_split * (tl_parts - "
                          "tl_head);"));
  EXPECT_TRUE(contains(c, "(4 * tl_pieces + 127) / 128 * 128 + tl_pieces * "
                          "65536u, stream));"));
  EXPECT_TRUE(contains(c, "splitk_driver.memset(tl_workspace, 0, 4 * "
                          "tl_pieces, stream));"));
  EXPECT_TRUE(contains(c, "  tl_params[3] = &tl_stream_k[0];\n"
                          "  tl_params[4] = &tl_stream_k[1];\n"
                          "  tl_params[5] = &tl_stream_k[2];\n"
                          "  tl_params[6] = &tl_stream_k[3];\n"
                          "  tl_params[7] = &tl_stream_k[4];\n"
                          "  tl_params[8] = &tl_stream_k[5];\n"
                          "  tl_params[9] = &tl_workspace;\n"));
  EXPECT_TRUE(contains(c, "splitk_driver.launch(tl_function, "
                          "(unsigned)tl_ctas, 1, 1, 128, 1, 1,"));
  EXPECT_TRUE(contains(c, "splitk_driver.free(tl_workspace, stream);"));
}

/// A persistent specialization of the split-K kernel.
CSpecialization persistent() {
  CSpecialization spec = splitK({1, 1, 1});
  spec.metadata.persistent = true;
  return spec;
}

// A persistent kernel: the launcher reads the CTAs the device holds when
// the image loads, refuses grids past 2^30 programs, launches
// min(programs, resident) CTAs along x (every program where the driver
// cannot say), and passes the grid asked for after the arguments.
TEST(CLauncher, PersistentLaunch) {
  CLauncher launcher = emitCLauncher({persistent()}, "splitk.h", "splitk.tl");
  const std::string &c = launcher.source;
  EXPECT_TRUE(contains(launcher.header, "persistent")) << launcher.header;
  EXPECT_TRUE(contains(c, "TILEC_SYM(lib, splitk_driver.occupancy, "
                          "\"cuOccupancyMaxActiveBlocksPerMultiprocessor\");"))
      << c;
  EXPECT_TRUE(contains(c, "  if (tl_grid_programs > 1073741824u)\n"
                          "    return splitk_fail(CUDA_ERROR_INVALID_VALUE, "))
      << c;
  EXPECT_TRUE(contains(c, "  tl_params[3] = &tl_grid_xyz[0];\n"
                          "  tl_params[4] = &tl_grid_xyz[1];\n"
                          "  tl_params[5] = &tl_grid_xyz[2];\n"
                          "  tl_r = (tl_call = \"cuLaunchKernel\", "
                          "splitk_driver.launch(tl_function, "
                          "(unsigned)tl_ctas, 1, 1, 128, 1, 1,"));
  EXPECT_FALSE(contains(c, "splitk_stream_k"));
}

// The launcher's plan is tile::chooseStreamK's: the C, compiled and run
// over grids around the waves of a few capacities, prints the same CTAs,
// split programs and cut.
TEST(CLauncher, StreamKPlanMatchesTheRuntime) {
  if (cudaInclude().empty() || std::system("cc --version >/dev/null 2>&1"))
    GTEST_SKIP() << "no C compiler or no cuda.h";
  std::string source =
      emitCLauncher({streamK()}, "splitk.h", "splitk.tl").source;
  size_t begin = source.find("static void splitk_stream_k");
  size_t end = source.find("\n}\n", begin);
  ASSERT_NE(begin, std::string::npos);
  std::string dir = scratchDirectory();
  ASSERT_EQ(std::system(("mkdir -p '" + dir + "'").c_str()), 0);
  std::ofstream(dir + "/plan.c")
      << "#include <stdint.h>\n#include <stdio.h>\n"
      << source.substr(begin, end + 3 - begin)
      << "int main(void) {\n"
         "  const uint64_t resident[] = {0, 1, 8, 132, 264, 528};\n"
         "  for (int r = 0; r < 6; ++r)\n"
         "    for (uint64_t p = 0; p < 1200; p += 1) {\n"
         "      uint64_t ctas, split;\n"
         "      unsigned parts, head;\n"
         "      splitk_stream_k(p, resident[r], &ctas, &split, &parts, &head);\n"
         "      printf(\"%llu %llu %u %u\\n\", (unsigned long long)ctas,\n"
         "             (unsigned long long)split, parts, head);\n"
         "    }\n"
         "  return 0;\n}\n";
  std::string build = "cc -std=c99 -Wall -Werror -o '" + dir + "/plan' '" +
                      dir + "/plan.c' && '" + dir + "/plan' > '" + dir +
                      "/plan.txt'";
  ASSERT_EQ(std::system(build.c_str()), 0);
  std::ifstream plans(dir + "/plan.txt");
  for (uint64_t resident : {0u, 1u, 8u, 132u, 264u, 528u})
    for (uint64_t programs = 0; programs < 1200; ++programs) {
      unsigned long long ctas = 0, split = 0;
      unsigned parts = 0, head = 0;
      ASSERT_TRUE(plans >> ctas >> split >> parts >> head);
      tile::StreamKLaunch expected = tile::chooseStreamK(programs, resident);
      ASSERT_EQ(ctas, expected.ctas) << programs << " on " << resident;
      ASSERT_EQ(split, expected.splitPrograms) << programs << " on " << resident;
      ASSERT_EQ(parts, expected.parts) << programs << " on " << resident;
      ASSERT_EQ(head, expected.headParts) << programs << " on " << resident;
    }
  EXPECT_EQ(std::system(("rm -rf '" + dir + "'").c_str()), 0);
}

// The C compiles, as C99 and as C++, warnings as errors.
TEST(CLauncher, ClusterLauncherCompiles) {
  if (cudaInclude().empty() || std::system("cc --version >/dev/null 2>&1"))
    GTEST_SKIP() << "no C compiler or no cuda.h";
  CLauncher launcher = emitCLauncher({splitK({1, 1, 1}, 1), splitK({2, 2, 1})},
                                     "splitk.h", "splitk.tl");
  EXPECT_EQ(compileC(launcher, "splitk", "-std=c99"), 0) << launcher.source;
  EXPECT_EQ(compileC(launcher, "splitk", "-x c++"), 0);
  CLauncher sharing =
      emitCLauncher({splitK({1, 1, 1}, 1), streamK()}, "splitk.h", "splitk.tl");
  EXPECT_EQ(compileC(sharing, "splitk", "-std=c99"), 0) << sharing.source;
  EXPECT_EQ(compileC(sharing, "splitk", "-x c++"), 0);
  CLauncher persisting = emitCLauncher({splitK({1, 1, 1}, 1), persistent()},
                                       "splitk.h", "splitk.tl");
  EXPECT_EQ(compileC(persisting, "splitk", "-std=c99"), 0) << persisting.source;
  EXPECT_EQ(compileC(persisting, "splitk", "-x c++"), 0);
  std::string cleanup = "rm -rf '" + scratchDirectory() + "'";
  EXPECT_EQ(std::system(cleanup.c_str()), 0);
}

/// Runs `command`, returning what it printed.
std::string run(const std::string &command) {
  std::string output;
  if (FILE *pipe = popen(command.c_str(), "r")) {
    char buffer[512];
    while (fgets(buffer, sizeof buffer, pipe))
      output += buffer;
    pclose(pipe);
  }
  return output;
}

// More shared memory than the device gives a block: the launcher says so
// when it loads the kernel, as the JIT does, rather than the driver's
// bare CUDA_ERROR_INVALID_VALUE. C99 and C++; needs a GPU.
TEST(CLauncher, RefusesMoreSharedMemoryThanTheDevice) {
  if (cudaInclude().empty() || std::system("cc --version >/dev/null 2>&1"))
    GTEST_SKIP() << "no C compiler or no cuda.h";
  CSpecialization spec;
  tile::KernelMetadata &md = spec.metadata;
  md.kernel = "big";
  md.arch = "sm_80";
  md.threadsPerBlock = 128;
  md.sharedBytes = 1 << 20;
  md.ptxVersion = 80;
  md.params = {{"x", tile::ParamType::pointer(tile::DType::FP32), 1}};
  spec.ptx = ".version 8.0\n.target sm_80\n.address_size 64\n"
             ".visible .entry big(.param .u64 big_param_0) { ret; }\n";
  CLauncher launcher = emitCLauncher({spec}, "big.h", "big.tl");
  std::string dir = scratchDirectory();
  ASSERT_EQ(compileC(launcher, "big", "-std=c99"), 0) << launcher.source;
  std::ofstream(dir + "/main.c")
      << "#include \"big.h\"\n#include <stdio.h>\n"
         "int main(void) {\n"
         "  CUresult r = big(NULL, 1, 1, 1, 0);\n"
         "  printf(\"%d %s\\n\", (int)r, big_last_error());\n"
         "  return 0;\n}\n";
  for (const char *language : {"-std=c99", "-x c++"}) {
    std::string program = dir + "/big-" + (language[1] == 's' ? "c" : "cxx");
    std::string build = std::string("cc ") + language +
                        " -Wall -Wextra -Werror -I'" + dir + "' -I'" +
                        cudaInclude() + "' '" + dir + "/main.c' '" + dir +
                        "/big.c' -o '" + program + "' -ldl -lpthread";
    ASSERT_EQ(std::system(build.c_str()), 0) << build;
    std::string output = run("'" + program + "'");
    if (contains(output, "no CUDA driver") ||
        contains(output, "CUDA_ERROR_NO_DEVICE"))
      GTEST_SKIP() << "no GPU: " << output;
    EXPECT_TRUE(contains(output,
                         "1 kernel big: 1048576 bytes of shared memory per "
                         "block, more than the device's limit of "))
        << output;
    EXPECT_TRUE(contains(output, "compile it with smaller blocks or fewer "
                                 "stages"))
        << output;
  }
  EXPECT_EQ(std::system(("rm -rf '" + dir + "'").c_str()), 0);
}

} // namespace
