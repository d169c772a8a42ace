#include "kernels/testing/kernel_runner.h"

#include "absl/synchronization/mutex.h"
#include "common/framework/tensor_testutil.h"
#include "common/kernel/kernel_registry.h"
#include "common/op/op_registry.h"
#include "gtest/gtest.h"
#include "kernels/testing/graph_case_evaluator.h"

namespace tributary {
namespace {

// ---- Test ops (prefixed Krt) -------------------------------------------------

REGISTER_OP("KrtAddOne").Input("x: float").Output("y: float");
REGISTER_OP("KrtAsyncDouble").Input("x: float").Output("y: float");
REGISTER_OP("KrtFail").Input("x: float").Output("y: float");
REGISTER_OP("KrtVar").Output("ref: Ref(float)").SetIsStateful();
REGISTER_OP("KrtAssign")
    .Input("ref: Ref(float)")
    .Input("value: float")
    .Output("out: Ref(float)");

class AddOneOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    Tensor* y = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &y));
    y->flat<float>().device(ctx->eigen_device<Eigen::ThreadPoolDevice>()) =
        x.flat<float>() + 1.0f;
  }
};
REGISTER_KERNEL_BUILDER(Name("KrtAddOne").Device(DEVICE_CPU), AddOneOp);

class AsyncDoubleOp : public AsyncOpKernel {
 public:
  using AsyncOpKernel::AsyncOpKernel;
  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    (*ctx->runner())([ctx, done] {
      const Tensor& x = ctx->input(0);
      Tensor* y = nullptr;
      OP_REQUIRES_OK_ASYNC(ctx, ctx->allocate_output(0, x.shape(), &y), done);
      y->flat<float>() = x.flat<float>() * 2.0f;
      done();
    });
  }
};
REGISTER_KERNEL_BUILDER(Name("KrtAsyncDouble").Device(DEVICE_CPU),
                        AsyncDoubleOp);

class FailOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    ctx->SetStatus(errors::InvalidArgument("always fails"));
  }
};
REGISTER_KERNEL_BUILDER(Name("KrtFail").Device(DEVICE_CPU), FailOp);

class VarOp : public OpKernel {
 public:
  explicit VarOp(OpKernelConstruction* ctx)
      : OpKernel(ctx), value_(DT_FLOAT, TensorShape({2})) {
    value_.flat<float>().setZero();
  }
  void Compute(OpKernelContext* ctx) override {
    ctx->set_output_ref(0, &mu_, &value_);
  }

 private:
  absl::Mutex mu_;
  Tensor value_;
};
REGISTER_KERNEL_BUILDER(Name("KrtVar").Device(DEVICE_CPU), VarOp);

class TestAssignOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    {
      absl::MutexLock lock(ctx->input_ref_mutex(0));
      Tensor ref = ctx->mutable_input(0, /*lock_held=*/true);
      ref.flat<float>() = ctx->input(1).flat<float>();
    }
    // Return the variable itself, as TF's Assign does.
    ctx->forward_ref_input_to_ref_output(0, 0);
  }
};
REGISTER_KERNEL_BUILDER(Name("KrtAssign").Device(DEVICE_CPU), TestAssignOp);

using test::KernelRunner;
using test::NodeDefBuilder;

TEST(KernelRunnerTest, RunsSyncKernelOnEigenDevice) {
  KernelRunner runner;
  ASSERT_TRUE(runner.Init(NodeDefBuilder("a", "KrtAddOne").Input("x").Build())
                  .ok());
  auto out = runner.Run({test::AsTensor<float>({1, 2, 3})});
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), 1u);
  test::ExpectTensorEqual<float>((*out)[0], test::AsTensor<float>({2, 3, 4}));
}

TEST(KernelRunnerTest, RunsAsyncKernel) {
  auto out = test::RunKernel(
      NodeDefBuilder("d", "KrtAsyncDouble").Input("x").Build(),
      {test::AsTensor<float>({1, 2})});
  ASSERT_TRUE(out.ok()) << out.status();
  test::ExpectTensorEqual<float>((*out)[0], test::AsTensor<float>({2, 4}));
}

TEST(KernelRunnerTest, ReturnsKernelError) {
  auto out = test::RunKernel(NodeDefBuilder("f", "KrtFail").Input("x").Build(),
                             {test::AsTensor<float>({1})});
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(out.status().message(), "always fails");
}

TEST(KernelRunnerTest, WrongInputCountIsAnError) {
  auto out = test::RunKernel(
      NodeDefBuilder("a", "KrtAddOne").Input("x").Build(), {});
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(KernelRunnerTest, UnknownOpFailsInit) {
  KernelRunner runner;
  EXPECT_FALSE(runner.Init(NodeDefBuilder("a", "KrtNoSuchOp").Build()).ok());
}

TEST(KernelRunnerTest, RefInputWritesThrough) {
  Tensor var(DT_FLOAT, TensorShape({2}));
  var.flat<float>().setZero();
  absl::Mutex mu;
  KernelRunner runner;
  ASSERT_TRUE(runner
                  .Init(NodeDefBuilder("as", "KrtAssign")
                            .Input("v")
                            .Input("x")
                            .Build())
                  .ok());
  runner.AddRefInput(&var, &mu);
  runner.AddInput(test::AsTensor<float>({5, 6}));
  ASSERT_TRUE(runner.RunWithCurrentInputs().ok());
  test::ExpectTensorEqual<float>(var, test::AsTensor<float>({5, 6}));
  EXPECT_TRUE(runner.output_is_ref(0));
  EXPECT_EQ(runner.output_ref_mutex(0), &mu);
  EXPECT_EQ(runner.output_ref_tensor(0), &var);
  test::ExpectTensorEqual<float>(runner.output(0),
                                 test::AsTensor<float>({5, 6}));
}

TEST(GraphCaseEvaluatorTest, ConstsFeedsAndChains) {
  tensorflow::GraphDef graph;
  tensorflow::NodeDef* c = graph.add_node();
  c->set_name("c");
  c->set_op("Const");
  AddNodeAttr("dtype", DT_FLOAT, c);
  test::AsTensor<float>({1, 2}).AsProtoTensorContent(
      (*c->mutable_attr())["value"].mutable_tensor());
  *graph.add_node() = NodeDefBuilder("a", "KrtAddOne").Input("c").Build();
  *graph.add_node() = NodeDefBuilder("b", "KrtAddOne").Input("a:0").Build();
  *graph.add_node() = NodeDefBuilder("p", "KrtAddOne").Input("fed").Build();

  test::TestCpuDevice device;
  test::GraphCaseEvaluator evaluator(graph, &device, {});
  evaluator.Feed("fed:0", test::AsTensor<float>({10}));
  auto out = evaluator.Run({"b", "a:0", "p:0"}, {});
  ASSERT_TRUE(out.ok()) << out.status();
  test::ExpectTensorEqual<float>((*out)[0], test::AsTensor<float>({3, 4}));
  test::ExpectTensorEqual<float>((*out)[1], test::AsTensor<float>({2, 3}));
  test::ExpectTensorEqual<float>((*out)[2], test::AsTensor<float>({11}));
}

TEST(GraphCaseEvaluatorTest, FirstErrorIsReturned) {
  tensorflow::GraphDef graph;
  *graph.add_node() = NodeDefBuilder("f", "KrtFail").Input("x").Build();
  *graph.add_node() = NodeDefBuilder("a", "KrtAddOne").Input("f").Build();
  test::TestCpuDevice device;
  test::GraphCaseEvaluator evaluator(graph, &device, {});
  evaluator.Feed("x", test::AsTensor<float>({1}));
  auto out = evaluator.Run({"a:0"}, {});
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(GraphCaseEvaluatorTest, RefOutputsFeedRefInputs) {
  tensorflow::GraphDef graph;
  *graph.add_node() = NodeDefBuilder("v", "KrtVar").Build();
  *graph.add_node() = NodeDefBuilder("x", "KrtAddOne").Input("v").Build();
  test::TestCpuDevice device;
  test::GraphCaseEvaluator evaluator(graph, &device, {});
  auto out = evaluator.Run({"x:0", "v:0"}, {});
  ASSERT_TRUE(out.ok()) << out.status();
  test::ExpectTensorEqual<float>((*out)[0], test::AsTensor<float>({1, 1}));
  test::ExpectTensorEqual<float>((*out)[1], test::AsTensor<float>({0, 0}));
}

TEST(GraphCaseEvaluatorTest, RefFlowsThroughAssign) {
  tensorflow::GraphDef graph;
  *graph.add_node() = NodeDefBuilder("v", "KrtVar").Build();
  *graph.add_node() =
      NodeDefBuilder("as", "KrtAssign").Input("v").Input("val").Build();
  *graph.add_node() = NodeDefBuilder("x", "KrtAddOne").Input("as").Build();
  test::TestCpuDevice device;
  test::GraphCaseEvaluator evaluator(graph, &device, {});
  evaluator.Feed("val", test::AsTensor<float>({7, 8}));
  auto out = evaluator.Run({"x:0", "v:0"}, {});
  ASSERT_TRUE(out.ok()) << out.status();
  test::ExpectTensorEqual<float>((*out)[0], test::AsTensor<float>({8, 9}));
  // The variable itself changed: Assign wrote through the ref.
  test::ExpectTensorEqual<float>((*out)[1], test::AsTensor<float>({7, 8}));
}

}  // namespace
}  // namespace tributary
