//===- GridTest.cpp - Launch grids, their limits and the cluster split ----===//

#include "tile/Grid.h"

#include <gtest/gtest.h>

using namespace tile;

namespace {

// Programs that run as clusters meet the limits in CTAs: the grid's
// extents times the cluster's, counted in 64 bits.
TEST(Grid, ClusterLimitsInCTAs) {
  EXPECT_EQ(validateGrid("k", {1073741823u, 65535, 65535}, kMaxGrid, {2, 1, 1}),
            "");
  EXPECT_EQ(validateGrid("k", {1073741824u, 1, 1}, kMaxGrid, {2, 1, 1}),
            "kernel k: grid (1073741824, 1, 1) in clusters of (2, 1, 1) CTAs "
            "starts 2147483648 CTAs along x, more than the limit of "
            "2147483647");
  // Past 32 bits, not wrapped.
  EXPECT_EQ(validateGrid("k", {2147483647u, 1, 1}, kMaxGrid, {8, 1, 1}),
            "kernel k: grid (2147483647, 1, 1) in clusters of (8, 1, 1) CTAs "
            "starts 17179869176 CTAs along x, more than the limit of "
            "2147483647");
  EXPECT_EQ(validateGrid("k", {1, 40000, 1}, kMaxGrid, {1, 2, 1}),
            "kernel k: grid (1, 40000, 1) in clusters of (1, 2, 1) CTAs "
            "starts 80000 CTAs along y, more than the limit of 65535");
  // A device's own limits.
  EXPECT_EQ(validateGrid("k", {3, 1, 1}, {4, 4, 4}, {2, 1, 1}),
            "kernel k: grid (3, 1, 1) in clusters of (2, 1, 1) CTAs starts 6 "
            "CTAs along x, more than the limit of 4");
  EXPECT_EQ(validateGrid("k", {0, 1, 1}, kMaxGrid, {2, 1, 1}),
            "kernel k: grid (0, 1, 1) has a zero dimension");
  // Without clusters, the programs' message.
  EXPECT_EQ(validateGrid("k", {5, 1, 1}, {4, 4, 4}, {1, 1, 1}),
            "kernel k: grid (5, 1, 1) has 5 programs along x, more than the "
            "limit of 4");
}

// No clusters before sm_90.
TEST(Grid, ClusterSplitNeedsHopper) {
  EXPECT_EQ(chooseClusterSplitK(1, 132, 80), 1u);
  EXPECT_EQ(chooseClusterSplitK(1, 108, 86), 1u);
  EXPECT_EQ(chooseClusterSplitK(1, 132, 89), 1u);
  EXPECT_EQ(chooseClusterSplitK(1, 132, 90), 4u);
  EXPECT_EQ(chooseClusterSplitK(1, 170, 100), 4u);
}

// Without the kernel's capacity (132 SMs): the most CTAs of 4, 3 and 2
// while one CTA an SM holds them all.
TEST(Grid, ClusterSplitFillsTheGPU) {
  EXPECT_EQ(chooseClusterSplitK(1, 132, 90), 4u);
  EXPECT_EQ(chooseClusterSplitK(33, 132, 90), 4u); // 132 CTAs exactly
  EXPECT_EQ(chooseClusterSplitK(34, 132, 90), 3u);
  EXPECT_EQ(chooseClusterSplitK(44, 132, 90), 3u);
  EXPECT_EQ(chooseClusterSplitK(45, 132, 90), 2u);
  EXPECT_EQ(chooseClusterSplitK(66, 132, 90), 2u);
  EXPECT_EQ(chooseClusterSplitK(67, 132, 90), 1u);
  EXPECT_EQ(chooseClusterSplitK(1000, 132, 90), 1u);
  // An odd count of SMs.
  EXPECT_EQ(chooseClusterSplitK(1, 5, 90), 4u);
  EXPECT_EQ(chooseClusterSplitK(2, 5, 90), 2u);
  EXPECT_EQ(chooseClusterSplitK(3, 5, 90), 1u);
}

// With the capacities an H200 gives (cuOccupancyMaxActiveClusters): a
// kernel that runs alone on its SM fits 30 clusters of 4 and 39 of 3, so
// 32 programs take 3 CTAs each (4 would start a second wave: 0.72x at
// 128 x 4096 x 4096); one that leaves room for another fits 62 of 4 and
// 132 of 2, so 48 programs take 4 and 96 or 132 take 2: two to an SM.
TEST(Grid, ClusterSplitByCapacity) {
  struct Case {
    ClusterCapacity capacity;
    uint64_t programs;
    unsigned computeCapability, split;
  };
  const ClusterCapacity alone = {0, 132, 66, 39, 30};
  const ClusterCapacity paired = {0, 264, 132, 79, 62};
  // A size the driver could not answer for: one CTA an SM.
  const ClusterCapacity partly = {0, 264, 132, 0, 0};
  const Case cases[] = {
      {alone, 24, 90, 4},   {alone, 32, 90, 3},   {alone, 40, 90, 2},
      {alone, 66, 90, 2},   {alone, 80, 90, 1},   {paired, 48, 90, 4},
      {paired, 64, 90, 3},  {paired, 96, 90, 2},  {paired, 132, 90, 2},
      // Past the SMs, none; before sm_90, none.
      {paired, 133, 90, 1}, {paired, 8, 80, 1},   {partly, 33, 90, 4},
      {partly, 34, 90, 3},
  };
  for (const Case &c : cases)
    EXPECT_EQ(chooseClusterSplitK(c.programs, 132, c.computeCapability,
                                  c.capacity),
              c.split)
        << c.programs << " programs, capacity of 2: " << c.capacity[2];
}

// Nothing to split, or nowhere: no clusters; a grid past 64 bits' halves
// does not wrap.
TEST(Grid, ClusterSplitEdges) {
  EXPECT_EQ(chooseClusterSplitK(0, 132, 90), 1u);
  EXPECT_EQ(chooseClusterSplitK(1, 0, 90), 1u);
  EXPECT_EQ(chooseClusterSplitK(1, 1, 90), 1u);
  EXPECT_EQ(chooseClusterSplitK(1, 2, 90), 2u);
  EXPECT_EQ(chooseClusterSplitK(UINT64_MAX, 132, 90), 1u);
  EXPECT_EQ(chooseClusterSplitK(uint64_t(1) << 63, 4294967295u, 90), 1u);
}

// A persistent launch starts the CTAs the GPU holds at once, no more than
// the programs; where the occupancy is unknown, a CTA a program.
TEST(Grid, PersistentCtas) {
  EXPECT_EQ(persistentCtas(512, 132), 132u);
  EXPECT_EQ(persistentCtas(100, 264), 100u);
  EXPECT_EQ(persistentCtas(512, 0), 512u);
  EXPECT_EQ(persistentCtas(kMaxPersistentPrograms, 132), 132u);
}

// Stream-K splits the programs of a last wave that leaves at least as many
// slots idle, cut so that their heads and the pieces' CTAs end together:
// 192 programs on 132 SMs cut the last 60 in halves (60 pieces), 160 the
// last 28 in quarters, a head of one (84 pieces), 40 in thirds. A last
// wave fuller than half (96 programs on 132) is left alone.
TEST(Grid, StreamKFillsTheLastWave) {
  StreamKLaunch launch = chooseStreamK(192, 132);
  EXPECT_EQ(launch.splitPrograms, 60u);
  EXPECT_EQ(launch.parts, 2u);
  EXPECT_EQ(launch.headParts, 1u);
  EXPECT_EQ(launch.pieces(), 60u);
  EXPECT_EQ(launch.ctas, 192u + 60u);
  launch = chooseStreamK(160, 132);
  EXPECT_EQ(launch.splitPrograms, 28u);
  EXPECT_EQ(launch.parts, 4u);
  EXPECT_EQ(launch.headParts, 1u);
  EXPECT_EQ(launch.ctas, 160u + 84u);
  launch = chooseStreamK(40, 132);
  EXPECT_EQ(launch.splitPrograms, 40u);
  EXPECT_EQ(launch.parts, 3u);
  EXPECT_EQ(launch.headParts, 1u);
  EXPECT_EQ(launch.ctas, 40u + 80u);
  launch = chooseStreamK(10, 132);
  EXPECT_EQ(launch.splitPrograms, 10u);
  EXPECT_EQ(launch.ctas, 40u);
  for (uint64_t even : {96u, 67u, 132u, 264u, 128u, 1000u * 132u + 120u}) {
    launch = chooseStreamK(even, 132);
    EXPECT_EQ(launch.splitPrograms, 0u) << even;
    EXPECT_EQ(launch.pieces(), 0u) << even;
    EXPECT_EQ(launch.ctas, even) << even;
  }
  // 400 programs: three full waves and 4 programs cut in quarters.
  launch = chooseStreamK(400, 132);
  EXPECT_EQ(launch.splitPrograms, 4u);
  EXPECT_EQ(launch.ctas, 400u + 12u);
}

// Every launch the model picks keeps within its limits: a last wave at
// most half full, the pieces' CTAs in its idle slots, at most
// kMaxStreamKPieces pieces a program, and a head that runs part of its K
// loop.
TEST(Grid, StreamKStaysWithinTheWave) {
  for (uint64_t resident : {1u, 8u, 132u, 264u})
    for (uint64_t programs = 1; programs < 1000; ++programs) {
      StreamKLaunch launch = chooseStreamK(programs, resident);
      if (!launch.splitPrograms) {
        EXPECT_EQ(launch.ctas, programs);
        continue;
      }
      uint64_t last = programs - (programs - 1) / resident * resident;
      EXPECT_EQ(launch.splitPrograms, last) << programs;
      EXPECT_LE(2 * last, resident) << programs;
      EXPECT_LE(launch.ctas - programs, resident - last) << programs;
      EXPECT_LE(launch.ctas - programs, launch.pieces()) << programs;
      EXPECT_GE(launch.headParts, 1u);
      EXPECT_LT(launch.headParts, launch.parts);
      EXPECT_LE(launch.parts - launch.headParts, kMaxStreamKPieces);
    }
}

// Nothing to run, or no capacity known: a CTA a program.
TEST(Grid, StreamKEdges) {
  EXPECT_EQ(chooseStreamK(0, 132).ctas, 0u);
  EXPECT_EQ(chooseStreamK(7, 0).splitPrograms, 0u);
  EXPECT_EQ(chooseStreamK(7, 0).ctas, 7u);
  EXPECT_EQ(chooseStreamK(1, 1).splitPrograms, 0u);
  StreamKLaunch one = chooseStreamK(1, 8);
  EXPECT_EQ(one.splitPrograms, 1u);
  EXPECT_EQ(one.ctas, 4u);
}

} // namespace
