// Assert: true passes, false is INVALID_ARGUMENT with the summarized data;
// a non-scalar condition is INVALID_ARGUMENT.
#include "absl/strings/match.h"
#include "common/framework/tensor.h"
#include "common/framework/tensor_testutil.h"
#include "gtest/gtest.h"
#include "kernels/testing/kernel_runner.h"

namespace tributary {
namespace {

using test::AsScalar;
using test::AsTensor;
using test::NodeDefBuilder;

absl::Status RunAssert(const Tensor& condition, const Tensor& data) {
  return test::RunKernel(NodeDefBuilder("check", "Assert")
                             .Input("condition")
                             .Input("data")
                             .Attr("T", std::vector<DataType>{data.dtype()})
                             .Attr("summarize", 2)
                             .Build(),
                         {condition, data})
      .status();
}

TEST(AssertTest, TruePasses) {
  EXPECT_TRUE(RunAssert(AsScalar<bool>(true), AsTensor<int32_t>({1})).ok());
}

TEST(AssertTest, FalseFailsWithTheData) {
  absl::Status s =
      RunAssert(AsScalar<bool>(false), AsTensor<int32_t>({7, 8, 9}));
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(s.message(), "assertion failed: [7 8")) << s;
}

TEST(AssertTest, NonScalarConditionIsInvalidArgument) {
  absl::Status s =
      RunAssert(AsTensor<bool>({true, true}), AsTensor<int32_t>({1}));
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace tributary
