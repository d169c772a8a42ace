// ResourceGather (batch_dims 0, 1, 2) and ResourceGatherNd through
// KernelRunner on a resource variable: values, every dtype class the
// array gathers move (float, int64, string), and the errors, which must be
// InvalidArgument (never a crash) for every bad shape or index.
// tests/interop/resource_gather_session_test checks the same ops against
// TensorFlow.

#include <string>
#include <vector>

#include "common/framework/tensor.h"
#include "common/framework/tensor_testutil.h"
#include "common/resource/resource_mgr.h"
#include "gtest/gtest.h"
#include "kernels/testing/kernel_runner.h"

namespace tributary {
namespace {

using test::KernelRunner;
using test::NodeDefBuilder;

class ResourceGatherTest : public ::testing::Test {
 protected:
  // A resource variable named `name` holding `value`; returns its handle.
  Tensor Variable(const std::string& name, const Tensor& value) {
    std::vector<Tensor> h = Run(NodeDefBuilder("h", "VarHandleOp")
                                    .Attr("dtype", value.dtype())
                                    .Attr("shape", value.shape())
                                    .Attr("shared_name", name)
                                    .Build(),
                                {})
                                .value();
    EXPECT_TRUE(Run(NodeDefBuilder("a", "AssignVariableOp")
                        .Input("h")
                        .Input("v")
                        .Attr("dtype", value.dtype())
                        .Build(),
                    {h[0], value})
                    .ok());
    return h[0];
  }

  absl::StatusOr<std::vector<Tensor>> Run(const tensorflow::NodeDef& def,
                                          const std::vector<Tensor>& inputs) {
    KernelRunner runner;
    runner.set_resource_manager(&rm_);
    absl::Status s = runner.Init(def);
    if (!s.ok()) return s;
    return runner.Run(inputs);
  }

  absl::StatusOr<Tensor> Gather(const Tensor& handle, const Tensor& indices,
                                DataType dtype, int batch_dims = 0) {
    absl::StatusOr<std::vector<Tensor>> out =
        Run(NodeDefBuilder("g", "ResourceGather")
                .Inputs(2)
                .Attr("dtype", dtype)
                .Attr("Tindices", indices.dtype())
                .Attr("batch_dims", batch_dims)
                .Build(),
            {handle, indices});
    if (!out.ok()) return out.status();
    return (*out)[0];
  }

  absl::StatusOr<Tensor> GatherNd(const Tensor& handle, const Tensor& indices,
                                  DataType dtype) {
    absl::StatusOr<std::vector<Tensor>> out =
        Run(NodeDefBuilder("g", "ResourceGatherNd")
                .Inputs(2)
                .Attr("dtype", dtype)
                .Attr("Tindices", indices.dtype())
                .Build(),
            {handle, indices});
    if (!out.ok()) return out.status();
    return (*out)[0];
  }

  // [2,3,4] holding 0..23.
  Tensor Iota234() {
    std::vector<float> v(24);
    for (int i = 0; i < 24; ++i) v[i] = static_cast<float>(i);
    return test::AsTensor<float>(v, {2, 3, 4});
  }

  ResourceMgr rm_;
};

TEST_F(ResourceGatherTest, BatchDimsZeroOneTwo) {
  const Tensor h = Variable("v", Iota234());
  // batch_dims 0: rows 1 and 0.
  absl::StatusOr<Tensor> r0 =
      Gather(h, test::AsTensor<int32_t>({1, 0}), DT_FLOAT);
  ASSERT_TRUE(r0.ok()) << r0.status();
  EXPECT_EQ(r0->shape(), TensorShape({2, 3, 4}));
  EXPECT_EQ(r0->flat<float>()(0), 12.f);
  // batch_dims 1: out[b, i, :] = v[b, idx[b, i], :].
  absl::StatusOr<Tensor> r1 = Gather(
      h, test::AsTensor<int64_t>({0, 2, 1, 1}, {2, 2}), DT_FLOAT, 1);
  ASSERT_TRUE(r1.ok()) << r1.status();
  test::ExpectTensorEqual<float>(
      *r1, test::AsTensor<float>({0, 1, 2, 3, 8, 9, 10, 11, 16, 17, 18, 19,
                                  16, 17, 18, 19},
                                 {2, 2, 4}));
  // batch_dims 1 with vector indices: one row per batch.
  absl::StatusOr<Tensor> rv =
      Gather(h, test::AsTensor<int32_t>({0, 1}), DT_FLOAT, 1);
  ASSERT_TRUE(rv.ok()) << rv.status();
  test::ExpectTensorEqual<float>(
      *rv, test::AsTensor<float>({0, 1, 2, 3, 16, 17, 18, 19}, {2, 4}));
  // batch_dims 2: out[b0, b1, k] = v[b0, b1, idx[b0, b1, k]].
  absl::StatusOr<Tensor> r2 = Gather(
      h, test::AsTensor<int32_t>({0, 2, 1, 1, 1, 0}, {2, 3, 1}), DT_FLOAT, 2);
  ASSERT_TRUE(r2.ok()) << r2.status();
  test::ExpectTensorEqual<float>(
      *r2, test::AsTensor<float>({0, 6, 9, 13, 17, 20}, {2, 3, 1}));
}

TEST_F(ResourceGatherTest, Int64AndStringVariables) {
  const Tensor hi = Variable("i", test::AsTensor<int64_t>({5, 6, 7, 8}, {2, 2}));
  absl::StatusOr<Tensor> r =
      Gather(hi, test::AsTensor<int32_t>({1, 0}, {2, 1}), DT_INT64, 1);
  ASSERT_TRUE(r.ok()) << r.status();
  test::ExpectTensorEqual<int64_t>(*r,
                                   test::AsTensor<int64_t>({6, 7}, {2, 1}));
  const Tensor hs = Variable(
      "s", test::AsTensor<std::string>({"a", "b", "c", "d"}, {2, 2}));
  absl::StatusOr<Tensor> rs =
      GatherNd(hs, test::AsTensor<int32_t>({1, 0, 0, 1}, {2, 2}), DT_STRING);
  ASSERT_TRUE(rs.ok()) << rs.status();
  test::ExpectTensorEqual<std::string>(*rs, test::AsTensor<std::string>({"c", "b"}));
}

TEST_F(ResourceGatherTest, GatherNdSlicesAndEmpty) {
  const Tensor h = Variable("v", Iota234());
  absl::StatusOr<Tensor> r =
      GatherNd(h, test::AsTensor<int32_t>({0, 1, 1, 2}, {2, 2}), DT_FLOAT);
  ASSERT_TRUE(r.ok()) << r.status();
  test::ExpectTensorEqual<float>(
      *r, test::AsTensor<float>({4, 5, 6, 7, 20, 21, 22, 23}, {2, 4}));
  absl::StatusOr<Tensor> full =
      GatherNd(h, test::AsTensor<int64_t>({1, 2, 3}, {1, 3}), DT_FLOAT);
  ASSERT_TRUE(full.ok()) << full.status();
  test::ExpectTensorEqual<float>(*full, test::AsTensor<float>({23}, {1}));
  absl::StatusOr<Tensor> empty =
      GatherNd(h, Tensor(DT_INT64, TensorShape({0, 2})), DT_FLOAT);
  ASSERT_TRUE(empty.ok()) << empty.status();
  EXPECT_EQ(empty->shape(), TensorShape({0, 4}));
}

void ExpectInvalid(const absl::StatusOr<Tensor>& r, const std::string& msg) {
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument)
      << r.status();
  EXPECT_NE(std::string(r.status().message()).find(msg), std::string::npos)
      << r.status();
}

TEST_F(ResourceGatherTest, ErrorsNeverCrash) {
  const Tensor h = Variable("v", Iota234());
  const Tensor idx22 = test::AsTensor<int32_t>({0, 2, 1, 1}, {2, 2});
  ExpectInvalid(Gather(h, test::AsTensor<int32_t>({5}), DT_FLOAT),
                "indices[0] = 5 is not in [0, 2)");
  // TensorFlow reads past the batch here; we refuse.
  ExpectInvalid(Gather(h, test::AsTensor<int32_t>({0, 3, 1, 1}, {2, 2}),
                       DT_FLOAT, 1),
                "indices[0,1] = 3 is not in [0, 3)");
  ExpectInvalid(Gather(h, idx22, DT_FLOAT, -1), "batch_dims is negative (-1)");
  // TensorFlow aborts the process on these two.
  ExpectInvalid(Gather(h, idx22, DT_FLOAT, 3),
                "Expected batch_dims in the range [-2, 2], but got 3");
  ExpectInvalid(Gather(h, test::AsTensor<int32_t>({0, 0, 0}, {3, 1}),
                       DT_FLOAT, 1),
                "params.shape[0]: 2 should be equal to indices.shape[0]: 3");
  ExpectInvalid(Gather(h, idx22, DT_INT32), "wrong dtype");
  ExpectInvalid(
      GatherNd(h, test::AsTensor<int32_t>({0, 1, 1, 3}, {2, 2}), DT_FLOAT),
      "indices[1] = [1, 3] does not index into param shape [2,3,4]");
  ExpectInvalid(
      GatherNd(h, test::AsTensor<int32_t>({0, 1, 2, 3}, {1, 4}), DT_FLOAT),
      "index innermost dimension length must be <= params rank; saw: 4 vs. 3");
  ExpectInvalid(GatherNd(h, test::AsScalar<int32_t>(7), DT_FLOAT),
                "indices must be at least a vector");
  const Tensor hs = Variable("scalar", test::AsScalar<float>(3));
  ExpectInvalid(GatherNd(hs, Tensor(DT_INT32, TensorShape({1, 0})), DT_FLOAT),
                "params must be at least a vector");
  ExpectInvalid(Gather(hs, test::AsTensor<int32_t>({0}), DT_FLOAT),
                "params must be at least 1 dimensional");
}

}  // namespace
}  // namespace tributary
