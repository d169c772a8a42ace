// Scatter* through KernelRunner on a ref variable, without TensorFlow:
// each combining rule, repeated indices, scalar updates, multi-dimensional
// indices, and TensorFlow's messages. The resource forms share the kernel
// class; tests/interop/sparse_optimizer_session_test runs them (and
// ResourceGather) against TensorFlow.

#include <string>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "common/framework/tensor.h"
#include "common/framework/tensor_testutil.h"
#include "gtest/gtest.h"
#include "kernels/testing/kernel_runner.h"

namespace tributary {
namespace {

using test::KernelRunner;
using test::NodeDefBuilder;

template <typename T>
absl::Status Scatter(const std::string& op, Tensor* var, const Tensor& indices,
                     const Tensor& updates) {
  absl::Mutex mu;
  NodeDefBuilder b("scatter", op);
  b.Inputs(3);
  b.Attr("T", DataTypeToEnum<T>::v());
  b.Attr("Tindices", indices.dtype());
  KernelRunner runner;
  absl::Status s = runner.Init(b.Build());
  if (!s.ok()) return s;
  runner.AddRefInput(var, &mu);
  runner.AddInput(indices);
  runner.AddInput(updates);
  return runner.RunWithCurrentInputs();
}

Tensor F(std::vector<float> x, int64_t rows) {
  return test::AsTensor<float>(x,
                               {rows, static_cast<int64_t>(x.size()) / rows});
}

TEST(ScatterOpsTest, EachRuleWithARepeatedIndex) {
  const Tensor indices = test::AsTensor<int32_t>({2, 0, 2});
  const Tensor updates = F({1, 2, 3, 4, 5, 6}, 3);
  struct Want {
    const char* op;
    std::vector<float> rows;
  };
  // var = [[2, 4], [7, 7], [10, 20]]
  for (const Want& w : std::vector<Want>{
           {"ScatterUpdate", {3, 4, 7, 7, 5, 6}},
           {"ScatterAdd", {5, 8, 7, 7, 16, 28}},
           {"ScatterSub", {-1, 0, 7, 7, 4, 12}},
           {"ScatterMul", {6, 16, 7, 7, 50, 240}},
           {"ScatterDiv", {2.f / 3, 1, 7, 7, 2, 20.f / 12}},
           {"ScatterMin", {2, 4, 7, 7, 1, 2}},
           {"ScatterMax", {3, 4, 7, 7, 10, 20}},
       }) {
    SCOPED_TRACE(w.op);
    Tensor var = F({2, 4, 7, 7, 10, 20}, 3);
    ASSERT_TRUE(Scatter<float>(w.op, &var, indices, updates).ok());
    test::ExpectTensorNear<float>(var, F(w.rows, 3), 1e-6);
  }
}

TEST(ScatterOpsTest, ScalarUpdatesAndInt64IndicesOfRankTwo) {
  Tensor var = test::AsTensor<int64_t>({1, 2, 3, 4});
  ASSERT_TRUE(Scatter<int64_t>("ScatterAdd", &var,
                               test::AsTensor<int64_t>({3, 0, 3, 3}, {2, 2}),
                               test::AsScalar<int64_t>(10))
                  .ok());
  test::ExpectTensorEqual<int64_t>(var,
                                   test::AsTensor<int64_t>({11, 2, 3, 34}));
}

TEST(ScatterOpsTest, ErrorsAreTensorFlows) {
  Tensor var = F({1, 2, 3, 4}, 2);
  absl::Status s = Scatter<float>("ScatterAdd", &var,
                                  test::AsTensor<int32_t>({0, 1, 1, 2}, {2, 2}),
                                  test::AsScalar<float>(1));
  EXPECT_TRUE(absl::IsInvalidArgument(s));
  EXPECT_NE(s.message().find("indices[1,1] = 2 is not in [0, 2)"),
            std::string::npos)
      << s;
  // Checked before anything is written.
  test::ExpectTensorNear<float>(var, F({1, 2, 3, 4}, 2), 0);

  s = Scatter<float>("ScatterUpdate", &var, test::AsTensor<int32_t>({0}),
                     F({1, 2, 3}, 1));
  EXPECT_NE(s.message().find("Must have updates.shape = indices.shape + "
                             "params.shape[1:] or updates.shape = [], got "
                             "updates.shape [1,3], indices.shape [1], "
                             "params.shape [2,2]"),
            std::string::npos)
      << s;

  Tensor scalar = test::AsScalar<float>(1);
  s = Scatter<float>("ScatterAdd", &scalar, test::AsTensor<int32_t>({0}),
                     test::AsScalar<float>(1));
  EXPECT_NE(s.message().find("params must be at least 1-D, got shape []"),
            std::string::npos)
      << s;

  Tensor ints = test::AsTensor<int32_t>({4, 8});
  s = Scatter<int32_t>("ScatterDiv", &ints, test::AsTensor<int32_t>({1}),
                       test::AsTensor<int32_t>({0}));
  EXPECT_TRUE(absl::IsInvalidArgument(s)) << s;
  test::ExpectTensorEqual<int32_t>(ints, test::AsTensor<int32_t>({4, 8}));
}

}  // namespace
}  // namespace tributary
