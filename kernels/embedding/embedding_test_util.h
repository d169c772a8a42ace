// Test helpers for the embedding kernels: run a node, expect an error.
#ifndef TRIBUTARY_KERNELS_EMBEDDING_EMBEDDING_TEST_UTIL_H_
#define TRIBUTARY_KERNELS_EMBEDDING_EMBEDDING_TEST_UTIL_H_

#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "common/framework/tensor.h"
#include "common/framework/tensor_testutil.h"
#include "gtest/gtest.h"
#include "kernels/testing/kernel_runner.h"

namespace tributary {
namespace embedding_test {

// All outputs, expecting success.
inline std::vector<Tensor> RunNode(const tensorflow::NodeDef& node,
                                   const std::vector<Tensor>& inputs) {
  absl::StatusOr<std::vector<Tensor>> out = test::RunKernel(node, inputs);
  EXPECT_TRUE(out.ok()) << out.status();
  return out.ok() ? *out : std::vector<Tensor>();
}

// The kernel's error, expecting InvalidArgument containing `substring`.
inline void ExpectInvalid(const tensorflow::NodeDef& node,
                          const std::vector<Tensor>& inputs,
                          const std::string& substring) {
  absl::StatusOr<std::vector<Tensor>> out = test::RunKernel(node, inputs);
  ASSERT_FALSE(out.ok()) << "expected an error containing " << substring;
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument)
      << out.status();
  EXPECT_TRUE(absl::StrContains(out.status().message(), substring))
      << out.status().message() << "\nexpected: " << substring;
}

}  // namespace embedding_test
}  // namespace tributary

#endif  // TRIBUTARY_KERNELS_EMBEDDING_EMBEDDING_TEST_UTIL_H_
