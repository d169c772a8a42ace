#include "tools/cli/value_parsing.h"

#include <cmath>
#include <string>

#include "common/framework/tensor_testutil.h"
#include "gtest/gtest.h"
#include "tools/cli/tensor_json.h"

namespace tributary {
namespace {

using json = nlohmann::json;

Tensor Parse(const std::string& flag,
             std::optional<DataType> declared = std::nullopt) {
  auto feed = ParseFeedFlag(flag);
  EXPECT_TRUE(feed.ok()) << feed.status();
  auto t = JsonToTensor(feed->value, feed->dtype ? feed->dtype : declared);
  EXPECT_TRUE(t.ok()) << t.status();
  return t.ok() ? *t : Tensor();
}

absl::StatusCode ParseError(const std::string& flag,
                            std::optional<DataType> declared = std::nullopt) {
  auto feed = ParseFeedFlag(flag);
  if (!feed.ok()) return feed.status().code();
  auto t = JsonToTensor(feed->value, feed->dtype ? feed->dtype : declared);
  return t.status().code();
}

TEST(ValueParsingTest, ShapeComesFromTheNesting) {
  test::ExpectTensorEqual<float>(Parse("x=float32:[[1,2],[3,4]]"),
                                 test::AsTensor<float>({1, 2, 3, 4}, {2, 2}));
  test::ExpectTensorEqual<int32_t>(Parse("x=7"), test::AsScalar<int32_t>(7));
  test::ExpectTensorEqual<float>(Parse("x=2.5"), test::AsScalar<float>(2.5f));
  test::ExpectTensorEqual<float>(Parse("x=[1, 2.5]"),
                                 test::AsTensor<float>({1, 2.5}, {2}));
  test::ExpectTensorEqual<bool>(Parse("x=[true,false]"),
                                test::AsTensor<bool>({true, false}, {2}));
  EXPECT_EQ(Parse("x=[]").shape(), TensorShape({0}));
  EXPECT_EQ(Parse("x=[[],[]]").shape(), TensorShape({2, 0}));
  Tensor s = Parse("name=\"a:b\"");
  EXPECT_EQ(s.dtype(), tensorflow::DT_STRING);
  EXPECT_EQ(s.scalar<std::string>()(), "a:b");
}

TEST(ValueParsingTest, DtypePrefixAndDeclaredDtype) {
  test::ExpectTensorEqual<int64_t>(Parse("x=int64:[1,2]"),
                                   test::AsTensor<int64_t>({1, 2}, {2}));
  test::ExpectTensorEqual<double>(Parse("x=DT_DOUBLE:1"),
                                  test::AsScalar<double>(1));
  // No prefix: the graph's dtype for the tensor wins over inference.
  test::ExpectTensorEqual<float>(Parse("x=[1,2]", tensorflow::DT_FLOAT),
                                 test::AsTensor<float>({1, 2}, {2}));
  test::ExpectTensorEqual<uint8_t>(Parse("x=[255]", tensorflow::DT_UINT8),
                                   test::AsTensor<uint8_t>({255}, {1}));
  // A prefix wins over the declared dtype.
  EXPECT_EQ(Parse("x=int32:[1]", tensorflow::DT_FLOAT).dtype(),
            tensorflow::DT_INT32);
  // The node name may contain ':' (an output index).
  auto feed = ParseFeedFlag("out:1=float32:3");
  ASSERT_TRUE(feed.ok());
  EXPECT_EQ(feed->name, "out:1");
  Tensor special = Parse("x=[\"NaN\", \"-Infinity\"]", tensorflow::DT_FLOAT);
  EXPECT_TRUE(std::isnan(special.flat<float>()(0)));
  EXPECT_TRUE(std::isinf(special.flat<float>()(1)));
}

TEST(ValueParsingTest, BadValuesAreInvalidArgument) {
  const auto kInvalid = absl::StatusCode::kInvalidArgument;
  EXPECT_EQ(ParseError("x"), kInvalid);              // no '='
  EXPECT_EQ(ParseError("=1"), kInvalid);             // no name
  EXPECT_EQ(ParseError("x=[1,"), kInvalid);          // bad JSON
  EXPECT_EQ(ParseError("x=[[1,2],[3]]"), kInvalid);  // ragged
  EXPECT_EQ(ParseError("x=[1,[2]]"), kInvalid);      // ragged
  EXPECT_EQ(ParseError("x=int32:1.5"), kInvalid);    // not integral
  EXPECT_EQ(ParseError("x=uint8:300"), kInvalid);    // out of range
  EXPECT_EQ(ParseError("x=int32:3000000000"), kInvalid);
  EXPECT_EQ(ParseError("x=float32:\"a\""), kInvalid);
  EXPECT_EQ(ParseError("x=bool:1"), kInvalid);
  EXPECT_EQ(ParseError("x=complex:1"), kInvalid);  // unknown dtype
  EXPECT_EQ(ParseError("x={\"a\":1}"), kInvalid);  // object
}

TEST(TensorJsonTest, PrintsDtypeShapeAndShortestValues) {
  json j = TensorToJson(test::AsTensor<float>({0.1f, 2, -3.5f, 1e-8f}, {2, 2}));
  EXPECT_EQ(j.dump(),
            "{\"dtype\":\"DT_FLOAT\",\"shape\":[2,2],"
            "\"values\":[0.1,2.0,-3.5,1e-08]}");
  j = TensorToJson(test::AsScalar<int64_t>(int64_t{1} << 40));
  EXPECT_EQ(j.dump(),
            "{\"dtype\":\"DT_INT64\",\"shape\":[],\"values\":[1099511627776]}");
  j = TensorToJson(
      test::AsTensor<float>({std::nanf(""), INFINITY, -INFINITY}, {3}));
  EXPECT_EQ(j["values"].dump(), "[\"NaN\",\"Infinity\",\"-Infinity\"]");
  j = TensorToJson(test::AsTensor<bool>({true}, {1}));
  EXPECT_EQ(j["values"].dump(), "[true]");
  // Round trip through the feed syntax.
  Tensor back =
      JsonToTensor(json::parse("[\"NaN\", 0.1]"), tensorflow::DT_FLOAT).value();
  EXPECT_EQ(back.flat<float>()(1), 0.1f);
}

TEST(ValueParsingTest, AtPathNamesAFile) {
  auto feed = ParseFeedFlag("x=@dir/batch.npy");
  ASSERT_TRUE(feed.ok()) << feed.status();
  EXPECT_EQ(feed->name, "x");
  EXPECT_EQ(feed->file, "dir/batch.npy");
  EXPECT_FALSE(feed->dtype.has_value());
  feed = ParseFeedFlag("w/read=float32:@w.json");
  ASSERT_TRUE(feed.ok()) << feed.status();
  EXPECT_EQ(feed->file, "w.json");
  EXPECT_EQ(*feed->dtype, tensorflow::DT_FLOAT);
  EXPECT_EQ(ParseFeedFlag("x=@").status().code(),
            absl::StatusCode::kInvalidArgument);
  // A JSON string starting with '@' is still a string.
  feed = ParseFeedFlag("s=\"@not_a_file\"");
  ASSERT_TRUE(feed.ok());
  EXPECT_TRUE(feed->file.empty());
}

}  // namespace
}  // namespace tributary
