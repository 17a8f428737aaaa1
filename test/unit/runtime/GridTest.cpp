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

// On an H100 SXM (132 SMs): 4 while the CTAs fit the SMs, 2 up to half of
// them, none beyond.
TEST(Grid, ClusterSplitFillsTheGPU) {
  EXPECT_EQ(chooseClusterSplitK(1, 132, 90), 4u);
  EXPECT_EQ(chooseClusterSplitK(32, 132, 90), 4u);
  EXPECT_EQ(chooseClusterSplitK(33, 132, 90), 4u); // 132 CTAs exactly
  EXPECT_EQ(chooseClusterSplitK(34, 132, 90), 2u);
  EXPECT_EQ(chooseClusterSplitK(66, 132, 90), 2u); // half: 132 CTAs
  EXPECT_EQ(chooseClusterSplitK(67, 132, 90), 1u);
  EXPECT_EQ(chooseClusterSplitK(1000, 132, 90), 1u);
  // An odd count of SMs: programs * 2 > 5 from 3 on.
  EXPECT_EQ(chooseClusterSplitK(1, 5, 90), 4u);
  EXPECT_EQ(chooseClusterSplitK(2, 5, 90), 2u);
  EXPECT_EQ(chooseClusterSplitK(3, 5, 90), 1u);
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

} // namespace
