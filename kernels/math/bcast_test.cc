#include "kernels/math/bcast.h"

#include "gtest/gtest.h"

namespace tributary {
namespace {

using Vec = BCast::Vec;

TEST(BCastTest, SameShapesCollapseToOneDim) {
  BCast b({2, 3, 4}, {2, 3, 4});
  ASSERT_TRUE(b.IsValid());
  EXPECT_EQ(b.output_shape(), Vec({2, 3, 4}));
  EXPECT_EQ(b.result_shape(), Vec({24}));
  EXPECT_EQ(b.x_reshape(), Vec({24}));
  EXPECT_EQ(b.y_bcast(), Vec({1}));
}

TEST(BCastTest, MergesDimsThatBroadcastAlike) {
  BCast b({2, 3, 4}, {3, 1});
  ASSERT_TRUE(b.IsValid());
  EXPECT_EQ(b.output_shape(), Vec({2, 3, 4}));
  // Dims 0 and 1 both: x full, y broadcast only along dim 0 -> different
  // patterns; [2][3][4] with y = [1][3][1].
  EXPECT_EQ(b.result_shape(), Vec({2, 3, 4}));
  EXPECT_EQ(b.x_reshape(), Vec({2, 3, 4}));
  EXPECT_EQ(b.x_bcast(), Vec({1, 1, 1}));
  EXPECT_EQ(b.y_reshape(), Vec({1, 3, 1}));
  EXPECT_EQ(b.y_bcast(), Vec({2, 1, 4}));
}

TEST(BCastTest, RowVector) {
  BCast b({6, 4}, {4});
  ASSERT_TRUE(b.IsValid());
  EXPECT_EQ(b.result_shape(), Vec({6, 4}));
  EXPECT_EQ(b.y_reshape(), Vec({1, 4}));
  EXPECT_EQ(b.y_bcast(), Vec({6, 1}));
  EXPECT_TRUE(b.IsIdentity(0));
  EXPECT_FALSE(b.IsIdentity(1));
}

TEST(BCastTest, AdjacentBroadcastDimsMerge) {
  BCast b({5, 6, 7}, {7});
  ASSERT_TRUE(b.IsValid());
  EXPECT_EQ(b.result_shape(), Vec({30, 7}));
  EXPECT_EQ(b.y_bcast(), Vec({30, 1}));
}

TEST(BCastTest, Scalars) {
  BCast b({}, {3});
  ASSERT_TRUE(b.IsValid());
  EXPECT_EQ(b.output_shape(), Vec({3}));
  BCast c({}, {});
  ASSERT_TRUE(c.IsValid());
  EXPECT_EQ(c.output_shape(), Vec({}));
  EXPECT_EQ(c.result_shape(), Vec({1}));
}

TEST(BCastTest, ZeroSizedDims) {
  BCast b({0, 3}, {3});
  ASSERT_TRUE(b.IsValid());
  EXPECT_EQ(b.output_shape(), Vec({0, 3}));
  BCast c({0}, {1});
  ASSERT_TRUE(c.IsValid());
  EXPECT_EQ(c.output_shape(), Vec({0}));
  EXPECT_FALSE(BCast({0}, {2}).IsValid());
}

TEST(BCastTest, Incompatible) {
  EXPECT_FALSE(BCast({2, 3}, {4}).IsValid());
  EXPECT_FALSE(BCast({2, 3}, {3, 3}).IsValid());
}

TEST(BCastTest, ThreeWayWithoutMerging) {
  BCastList b({{2, 1}, {3}, {}}, /*fewer_dims=*/false);
  ASSERT_TRUE(b.IsValid());
  EXPECT_EQ(b.output_shape(), Vec({2, 3}));
  EXPECT_EQ(b.result_shape(), Vec({2, 3}));
  EXPECT_EQ(b.reshape(2), Vec({1, 1}));
  EXPECT_EQ(b.bcast(2), Vec({2, 3}));
}

TEST(BCastTest, SourceIndicesFollowBroadcasting) {
  // [2,1] and [3] broadcast to [2,3]: x repeats along columns, y along rows.
  BCastList b({{2, 1}, {3}}, /*fewer_dims=*/false);
  ASSERT_TRUE(b.IsValid());
  EXPECT_EQ(b.SourceIndices(0), (std::vector<int64_t>{0, 0, 0, 1, 1, 1}));
  EXPECT_EQ(b.SourceIndices(1), (std::vector<int64_t>{0, 1, 2, 0, 1, 2}));
  // Same shapes (the flattened fast path), and a scalar beside them.
  BCastList same({{2, 2}, {2, 2}});
  EXPECT_EQ(same.SourceIndices(1), (std::vector<int64_t>{0, 1, 2, 3}));
  BCastList scalar({{2, 2}, {}});
  EXPECT_EQ(scalar.SourceIndices(1), (std::vector<int64_t>{0, 0, 0, 0}));
  // An empty output has no indices.
  BCastList empty({{0, 3}, {3}});
  EXPECT_TRUE(empty.SourceIndices(1).empty());
}

}  // namespace
}  // namespace tributary
