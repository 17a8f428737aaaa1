//===- SharedLayoutTest.cpp - Swizzled rows and 128-byte panels -----------===//

#include "tilec/Dialect/TileGPU/IR/SharedLayout.h"
#include "tilec/Dialect/TileGPU/IR/TileGPU.h"

#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

#include <set>

using namespace mlir;
using namespace mlir::tilegpu;

namespace {

class SharedLayoutTest : public ::testing::Test {
protected:
  SharedLayoutTest() { context.loadDialect<TileGPUDialect>(); }
  MLIRContext context;
};

/// Every index of `shape` (row-major) lands on its own offset below the
/// tile's size.
void expectBijective(SharedEncodingAttr encoding, ArrayRef<int64_t> shape) {
  std::set<int64_t> seen;
  int64_t size = ShapedType::getNumElements(shape);
  SmallVector<int64_t> index(shape.size(), 0);
  for (int64_t i = 0; i < size; ++i) {
    int64_t rest = i;
    for (int d = int(shape.size()) - 1; d >= 0; --d) {
      index[d] = rest % shape[d];
      rest /= shape[d];
    }
    int64_t offset = getSharedOffset(encoding, shape, index);
    EXPECT_GE(offset, 0);
    EXPECT_LT(offset, size);
    seen.insert(offset);
  }
  EXPECT_EQ(int64_t(seen.size()), size);
}

TEST_F(SharedLayoutTest, RowsOf128BytesAreOnePanel) {
  // 64 f16 a row: 128-byte swizzle, as wgmma's 128B mode and ldmatrix want.
  auto enc = chooseSharedEncoding(&context, {32, 64}, {1, 0}, 16);
  EXPECT_EQ(enc.getVec(), 8u);
  EXPECT_EQ(enc.getPerPhase(), 1u);
  EXPECT_EQ(enc.getMaxPhase(), 8u);
  // Row 3, chunk 2 (columns 16..23) lies in chunk 2 ^ 3 = 1.
  EXPECT_EQ(getSharedOffset(enc, {32, 64}, {3, 17}), 3 * 64 + 1 * 8 + 1);
  expectBijective(enc, {32, 64});
}

TEST_F(SharedLayoutTest, LongerRowsAreSplitInto128BytePanels) {
  // 128 f16 a row: two panels of 64 columns, each 16 rows of 128 bytes.
  auto enc = chooseSharedEncoding(&context, {16, 128}, {1, 0}, 16);
  SharedPanels panels = getSharedPanels(enc, {16, 128});
  EXPECT_EQ(panels.width, 64);
  EXPECT_EQ(panels.rows, 16);
  EXPECT_EQ(getSharedOffset(enc, {16, 128}, {0, 0}), 0);
  EXPECT_EQ(getSharedOffset(enc, {16, 128}, {1, 0}), 64 + 8);
  // Column 64 starts the second panel, after all 16 rows of the first.
  EXPECT_EQ(getSharedOffset(enc, {16, 128}, {0, 64}), 16 * 64);
  EXPECT_EQ(getSharedOffset(enc, {16, 128}, {5, 64 + 9}),
            16 * 64 + 5 * 64 + (1 ^ 5) * 8 + 1);
  expectBijective(enc, {16, 128});
}

TEST_F(SharedLayoutTest, MatricesOfARingStayWhole) {
  // A ring of 3 buffers of 32 x 256 fp32 (1 KB rows, 8 panels): buffer b
  // is the b-th 32 x 256 block, whatever its panels.
  auto enc = chooseSharedEncoding(&context, {3, 32, 256}, {2, 1, 0}, 32);
  EXPECT_EQ(getSharedPanels(enc, {3, 32, 256}).width, 32);
  EXPECT_EQ(getSharedOffset(enc, {3, 32, 256}, {2, 0, 0}), 2 * 32 * 256);
  EXPECT_EQ(getSharedOffset(enc, {3, 32, 256}, {1, 0, 255}),
            32 * 256 + 7 * 32 * 32 + 7 * 4 + 3);
  expectBijective(enc, {3, 32, 256});
}

TEST_F(SharedLayoutTest, ColumnMajorTilesPanelTheirColumns) {
  // order [0, 1]: dimension 0 contiguous, 128 i8 = one 128-byte panel,
  // 256 of them two panels.
  auto enc = chooseSharedEncoding(&context, {256, 32}, {0, 1}, 8);
  EXPECT_EQ(getSharedPanels(enc, {256, 32}).width, 128);
  EXPECT_EQ(getSharedPanels(enc, {256, 32}).rows, 32);
  EXPECT_EQ(getSharedOffset(enc, {256, 32}, {128, 0}), 32 * 128);
  expectBijective(enc, {256, 32});
}

} // namespace
