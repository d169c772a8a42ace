#include "common/checkpoint/tensor_slice.h"

#include <string>
#include <vector>

#include "common/framework/tensor_testutil.h"
#include "gtest/gtest.h"

namespace tributary {
namespace {

using test::AsScalar;
using test::AsTensor;
using test::ExpectTensorEqual;

TEST(TensorSliceTest, ParseAndPrint) {
  absl::StatusOr<TensorSlice> s = TensorSlice::Parse("0,5:-:3,2");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->dims(), 3);
  EXPECT_EQ(s->start(0), 0);
  EXPECT_EQ(s->length(0), 5);
  EXPECT_TRUE(s->IsFullAt(1));
  EXPECT_EQ(s->DebugString(), "0,5:-:3,2");
  EXPECT_FALSE(TensorSlice::Parse("0,0").ok());
  EXPECT_FALSE(TensorSlice::Parse("-1,2").ok());
  EXPECT_FALSE(TensorSlice::Parse("1;2").ok());
  EXPECT_EQ(TensorSlice::Parse("x").status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(TensorSliceTest, ProtoKeepsFullExtentsEmpty) {
  TensorSlice s = *TensorSlice::Parse("2,3:-");
  tensorflow::TensorSliceProto proto;
  s.AsProto(&proto);
  ASSERT_EQ(proto.extent_size(), 2);
  EXPECT_EQ(proto.extent(0).start(), 2);
  EXPECT_EQ(proto.extent(0).length(), 3);
  EXPECT_EQ(proto.extent(1).has_length_case(),
            tensorflow::TensorSliceProto::Extent::HAS_LENGTH_NOT_SET);
  EXPECT_EQ(*TensorSlice::FromProto(proto), s);
}

TEST(TensorSliceTest, ShapeAndSlice) {
  absl::StatusOr<ShapeAndSlice> p = ParseShapeAndSlice("10 4 2,3:-");
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->full_shape, TensorShape({10, 4}));
  EXPECT_EQ(p->slice_shape, TensorShape({3, 4}));
  EXPECT_EQ(ParseShapeAndSlice("10 4 8,3:-").status().code(),
            absl::StatusCode::kInvalidArgument);  // past the end
  EXPECT_EQ(ParseShapeAndSlice("10 0,3:-").status().code(),
            absl::StatusCode::kInvalidArgument);  // rank mismatch
  EXPECT_EQ(ParseShapeAndSlice("a 0,3").status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ParseShapeAndSlice("").status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(TensorSliceTest, KeyEncodingRoundTrips) {
  TensorSlice s = *TensorSlice::Parse("0,5:-");
  const std::string key = EncodeTensorNameSlice("layer/kernel", s);
  // 0, "layer/kernel" 00 01, rank 2, start 0 (0x80), length 5 (0x85),
  // full: start 0, length -1 (0x7f).
  EXPECT_EQ(key, std::string("\x00layer/kernel\x00\x01\x01\x02\x80\x85\x80\x7f",
                             21));
  std::string name;
  TensorSlice back;
  ASSERT_TRUE(DecodeTensorNameSlice(key, &name, &back).ok());
  EXPECT_EQ(name, "layer/kernel");
  EXPECT_EQ(back, s);
  EXPECT_FALSE(DecodeTensorNameSlice("plain", &name, &back).ok());
}

TEST(TensorSliceTest, CopySliceToSliceMovesTheIntersection) {
  // Full tensor 4x3 with values 0..11; src holds rows [1,3), dst wants
  // rows [2,4) columns [1,3).
  const TensorShape full({4, 3});
  Tensor src = AsTensor<float>({3, 4, 5, 6, 7, 8}, TensorShape({2, 3}));
  Tensor dst = AsTensor<float>({-1, -1, -1, -1}, TensorShape({2, 2}));
  ASSERT_TRUE(CopySliceToSlice(full, *TensorSlice::Parse("1,2:-"), src,
                               *TensorSlice::Parse("2,2:1,2"), &dst)
                  .ok());
  ExpectTensorEqual<float>(dst,
                           AsTensor<float>({7, 8, -1, -1}, TensorShape({2, 2})));
  Tensor strings = AsTensor<std::string>({"a", "b", "c"}, TensorShape({3}));
  Tensor out = AsTensor<std::string>({"", ""}, TensorShape({2}));
  ASSERT_TRUE(CopySliceToSlice(TensorShape({5}), *TensorSlice::Parse("2,3"),
                               strings, *TensorSlice::Parse("3,2"), &out)
                  .ok());
  ExpectTensorEqual<std::string>(out, AsTensor<std::string>({"b", "c"}));
}

}  // namespace
}  // namespace tributary
