#include "common/kernel/op_kernel.h"

#include <memory>
#include <thread>
#include <vector>

#include "unsupported/Eigen/CXX11/Tensor"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "common/kernel/device_base.h"
#include "common/framework/tensor.h"
#include "common/kernel/kernel_registry.h"
#include "common/op/node_def_util.h"
#include "common/op/op_registry.h"
#include "gtest/gtest.h"

namespace tributary {
namespace {

// ---- Test ops and kernels (prefixed Okt) ------------------------------------

REGISTER_OP("OktAddDelta")
    .Input("x: T")
    .Output("y: T")
    .Attr("T: {float, int32}")
    .Attr("delta: int = 1");

REGISTER_OP("OktFill").Output("y: float").Attr("rows: int");

REGISTER_OP("OktWrongType").Output("y: float");

REGISTER_OP("OktNeedsMatrix").Input("x: float");

REGISTER_OP("OktAsyncScale").Input("x: float").Output("y: float");

REGISTER_OP("OktWaitForCancel").Output("y: float");

REGISTER_OP("OktEigenDouble").Input("x: float").Output("y: float");

// y = x + delta, reusing x's buffer when nobody else holds it.
class AddDeltaOp : public OpKernel {
 public:
  explicit AddDeltaOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->MatchSignature({DT_FLOAT}, {DT_FLOAT}));
    // Attr omitted in the NodeDef: the OpDef default (1) must be visible.
    OP_REQUIRES_OK(ctx, ctx->GetAttr("delta", &delta_));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor* x = nullptr;
    OP_REQUIRES_OK(ctx, ctx->input("x", &x));
    Tensor* y = nullptr;
    int forwarded = -2;
    OP_REQUIRES_OK(ctx, ctx->forward_input_or_allocate_output(
                            {0}, 0, x->shape(), &y, &forwarded));
    auto in = x->flat<float>();
    auto out = y->flat<float>();
    for (int64_t i = 0; i < out.size(); ++i) out(i) = in(i) + delta_;
    last_forwarded_ = forwarded;
  }
  int last_forwarded() const { return last_forwarded_; }

 private:
  int64_t delta_ = 0;
  int last_forwarded_ = -2;  // Test-only peek; tests run one step at a time.
};
REGISTER_KERNEL_BUILDER(
    Name("OktAddDelta").Device(DEVICE_CPU).TypeConstraint<float>("T"),
    AddDeltaOp);

// y = [rows, 2] of 7.
class TestFillOp : public OpKernel {
 public:
  explicit TestFillOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("rows", &rows_));
    OP_REQUIRES(ctx, rows_ >= 0,
                errors::InvalidArgument("rows must be >= 0, got ", rows_));
  }
  void Compute(OpKernelContext* ctx) override {
    Tensor* y = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({rows_, 2}), &y));
    auto out = y->flat<float>();
    for (int64_t i = 0; i < out.size(); ++i) out(i) = 7.0f;
  }

 private:
  int64_t rows_ = 0;
};
REGISTER_KERNEL_BUILDER(Name("OktFill").Device(DEVICE_CPU), TestFillOp);

// Buggy on purpose: emits int32 where the signature says float.
class WrongTypeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    ctx->set_output(0, Tensor(int32_t{3}));
  }
};
REGISTER_KERNEL_BUILDER(Name("OktWrongType").Device(DEVICE_CPU), WrongTypeOp);

class NeedsMatrixOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    OP_REQUIRES(ctx, x.dims() == 2,
                errors::InvalidArgument("x must be a matrix, got shape ",
                                        x.shape().DebugString()));
    reached_end = true;
  }
  bool reached_end = false;
};
REGISTER_KERNEL_BUILDER(Name("OktNeedsMatrix").Device(DEVICE_CPU),
                        NeedsMatrixOp);

// y = 2 * x, computed on the context's runner; x must be a scalar.
class AsyncScaleOp : public AsyncOpKernel {
 public:
  using AsyncOpKernel::AsyncOpKernel;
  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    const Tensor& x = ctx->input(0);
    OP_REQUIRES_ASYNC(ctx, x.dims() == 0,
                      errors::InvalidArgument("x must be a scalar"), done);
    (*ctx->runner())([ctx, done] {
      Tensor* y = nullptr;
      OP_REQUIRES_OK_ASYNC(
          ctx, ctx->allocate_output(0, TensorShape({}), &y), done);
      y->scalar<float>()() = 2 * ctx->input(0).scalar<float>()();
      done();
    });
  }
};
REGISTER_KERNEL_BUILDER(Name("OktAsyncScale").Device(DEVICE_CPU),
                        AsyncScaleOp);

// Blocks until the step is cancelled, the way _Recv waits for a tensor.
class WaitForCancelOp : public AsyncOpKernel {
 public:
  using AsyncOpKernel::AsyncOpKernel;
  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    CancellationManager* cm = ctx->cancellation_manager();
    const CancellationToken token = cm->get_cancellation_token();
    const bool registered = cm->RegisterCallback(token, [ctx, done] {
      ctx->SetStatus(errors::Cancelled("step cancelled"));
      done();
    });
    if (!registered) {
      // Already cancelled: the callback will never run, finish here.
      ctx->SetStatus(errors::Cancelled("step cancelled"));
      done();
    }
  }
};
REGISTER_KERNEL_BUILDER(Name("OktWaitForCancel").Device(DEVICE_CPU),
                        WaitForCancelOp);

// y = 2 * x evaluated on the device's Eigen thread pool.
class EigenDoubleOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    Tensor* y = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &y));
    y->flat<float>().device(ctx->eigen_device<Eigen::ThreadPoolDevice>()) =
        x.flat<float>() * 2.0f;
  }
};
REGISTER_KERNEL_BUILDER(Name("OktEigenDouble").Device(DEVICE_CPU),
                        EigenDoubleOp);

// ---- Harness -------------------------------------------------------------------

tensorflow::NodeDef Node(const std::string& name, const std::string& op,
                         int num_inputs = 0) {
  tensorflow::NodeDef n;
  n.set_name(name);
  n.set_op(op);
  for (int i = 0; i < num_inputs; ++i) n.add_input("in" + std::to_string(i));
  return n;
}

std::unique_ptr<OpKernel> MakeKernel(DeviceBase* device,
                                     const tensorflow::NodeDef& n) {
  absl::StatusOr<std::unique_ptr<OpKernel>> k =
      CreateOpKernel(DeviceType(DEVICE_CPU), device, nullptr, n, 1);
  EXPECT_TRUE(k.ok()) << k.status();
  return k.ok() ? std::move(*k) : nullptr;
}

Tensor FloatTensor(std::initializer_list<float> values) {
  Tensor t(DT_FLOAT, TensorShape({static_cast<int64_t>(values.size())}));
  int i = 0;
  for (float v : values) t.flat<float>()(i++) = v;
  return t;
}

// Runs threads handed to Params::runner and joins them at the end.
class ThreadRunner {
 public:
  ~ThreadRunner() {
    for (auto& t : threads_) t.join();
  }
  OpKernelContext::Runner* runner() { return &runner_; }

 private:
  std::vector<std::thread> threads_;
  OpKernelContext::Runner runner_ = [this](std::function<void()> fn) {
    threads_.emplace_back(std::move(fn));
  };
};

// ---- Tests -------------------------------------------------------------------

TEST(OpKernelTest, AllocateOutput) {
  DeviceBase device;
  tensorflow::NodeDef n = Node("fill", "OktFill");
  AddNodeAttr("rows", int64_t{3}, &n);
  std::unique_ptr<OpKernel> kernel = MakeKernel(&device, n);
  ASSERT_NE(kernel, nullptr);

  OpKernelContext::Params params;
  params.op_kernel = kernel.get();
  params.device = &device;
  OpKernelContext ctx(&params);
  kernel->Compute(&ctx);
  ASSERT_TRUE(ctx.status().ok()) << ctx.status();
  ASSERT_TRUE(ctx.has_output(0));
  Tensor* y = ctx.mutable_output(0);
  EXPECT_EQ(y->dtype(), DT_FLOAT);
  EXPECT_EQ(y->shape(), TensorShape({3, 2}));
  EXPECT_EQ(y->flat<float>()(5), 7.0f);

  // The executor takes the output over.
  TensorValue released = ctx.release_output(0);
  std::unique_ptr<Tensor> owned(released.tensor);
  EXPECT_FALSE(released.is_ref());
  EXPECT_EQ(owned->NumElements(), 6);
  EXPECT_FALSE(ctx.has_output(0));
}

TEST(OpKernelTest, ConstructorOpRequiresFailsCreation) {
  tensorflow::NodeDef n = Node("fill", "OktFill");
  AddNodeAttr("rows", int64_t{-1}, &n);
  absl::StatusOr<std::unique_ptr<OpKernel>> k =
      CreateOpKernel(DeviceType(DEVICE_CPU), nullptr, nullptr, n, 1);
  ASSERT_EQ(k.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(k.status().message().find("rows must be >= 0, got -1"),
            std::string::npos)
      << k.status();
}

TEST(OpKernelTest, ForwardsInputWhenRefCountIsOne) {
  DeviceBase device;
  tensorflow::NodeDef n = Node("add", "OktAddDelta", 1);
  AddNodeAttr("T", DT_FLOAT, &n);
  std::unique_ptr<OpKernel> kernel = MakeKernel(&device, n);
  ASSERT_NE(kernel, nullptr);
  auto* add = static_cast<AddDeltaOp*>(kernel.get());

  // The input slot is the only holder of the buffer, as in the executor once
  // the last consumer runs.
  Tensor input = FloatTensor({1, 2, 3});
  const void* input_data = input.data();
  std::vector<TensorValue> inputs = {TensorValue(&input)};
  OpKernelContext::Params params;
  params.op_kernel = kernel.get();
  params.device = &device;
  params.inputs = inputs;
  OpKernelContext ctx(&params);
  kernel->Compute(&ctx);
  ASSERT_TRUE(ctx.status().ok()) << ctx.status();
  EXPECT_EQ(add->last_forwarded(), 0);
  Tensor* y = ctx.mutable_output(0);
  EXPECT_TRUE(y->SharesBufferWith(input));
  EXPECT_EQ(y->data(), input_data);
  EXPECT_EQ(y->flat<float>()(0), 2.0f);
  EXPECT_EQ(y->flat<float>()(2), 4.0f);
}

TEST(OpKernelTest, DoesNotForwardSharedInput) {
  DeviceBase device;
  tensorflow::NodeDef n = Node("add", "OktAddDelta", 1);
  AddNodeAttr("T", DT_FLOAT, &n);
  AddNodeAttr("delta", int64_t{10}, &n);
  std::unique_ptr<OpKernel> kernel = MakeKernel(&device, n);
  ASSERT_NE(kernel, nullptr);
  auto* add = static_cast<AddDeltaOp*>(kernel.get());

  Tensor input = FloatTensor({1, 2, 3});
  Tensor other_holder = input;  // e.g. a second consumer or a fetch.
  std::vector<TensorValue> inputs = {TensorValue(&input)};
  OpKernelContext::Params params;
  params.op_kernel = kernel.get();
  params.device = &device;
  params.inputs = inputs;
  OpKernelContext ctx(&params);
  kernel->Compute(&ctx);
  ASSERT_TRUE(ctx.status().ok()) << ctx.status();
  EXPECT_EQ(add->last_forwarded(), -1);
  Tensor* y = ctx.mutable_output(0);
  EXPECT_FALSE(y->SharesBufferWith(input));
  EXPECT_EQ(y->flat<float>()(0), 11.0f);
  // The shared input is untouched.
  EXPECT_EQ(other_holder.flat<float>()(0), 1.0f);
}

TEST(OpKernelTest, ForwardInputChecksDtypeSizeAndAttrs) {
  DeviceBase device;
  tensorflow::NodeDef n = Node("add", "OktAddDelta", 1);
  AddNodeAttr("T", DT_FLOAT, &n);
  std::unique_ptr<OpKernel> kernel = MakeKernel(&device, n);
  ASSERT_NE(kernel, nullptr);

  Tensor input = FloatTensor({1, 2, 3, 4});
  std::vector<TensorValue> inputs = {TensorValue(&input)};
  OpKernelContext::Params params;
  params.op_kernel = kernel.get();
  params.inputs = inputs;
  OpKernelContext ctx(&params);
  // Wrong dtype, wrong element count, stricter output attributes: refused.
  EXPECT_EQ(ctx.forward_input(0, 0, DT_INT32, TensorShape({4}), HOST_MEMORY,
                              AllocatorAttributes()),
            nullptr);
  EXPECT_EQ(ctx.forward_input(0, 0, DT_FLOAT, TensorShape({3}), HOST_MEMORY,
                              AllocatorAttributes()),
            nullptr);
  AllocatorAttributes on_host;
  on_host.set_on_host(true);
  EXPECT_EQ(ctx.forward_input(0, 0, DT_FLOAT, TensorShape({4}), HOST_MEMORY,
                              on_host),
            nullptr);
  // Same element count with another shape is fine (a reshape in place).
  std::unique_ptr<Tensor> reshaped = ctx.forward_input(
      0, 0, DT_FLOAT, TensorShape({2, 2}), HOST_MEMORY, AllocatorAttributes());
  ASSERT_NE(reshaped, nullptr);
  EXPECT_EQ(reshaped->shape(), TensorShape({2, 2}));
  EXPECT_TRUE(reshaped->SharesBufferWith(input));
}

TEST(OpKernelTest, RefInputIsNeverForwarded) {
  DeviceBase device;
  tensorflow::NodeDef n = Node("add", "OktAddDelta", 1);
  AddNodeAttr("T", DT_FLOAT, &n);
  std::unique_ptr<OpKernel> kernel = MakeKernel(&device, n);
  ASSERT_NE(kernel, nullptr);

  Tensor variable = FloatTensor({1, 2});
  absl::Mutex mu;
  std::vector<TensorValue> inputs = {TensorValue(&mu, &variable)};
  OpKernelContext::Params params;
  params.op_kernel = kernel.get();
  params.inputs = inputs;
  OpKernelContext ctx(&params);
  EXPECT_TRUE(ctx.input_is_ref(0));
  EXPECT_EQ(ctx.input_dtype(0), DT_FLOAT_REF);
  EXPECT_EQ(ctx.input_ref_mutex(0), &mu);
  EXPECT_EQ(ctx.forward_input(0, 0, DT_FLOAT, TensorShape({2}), HOST_MEMORY,
                              AllocatorAttributes()),
            nullptr);
  Tensor snapshot = ctx.mutable_input(0, /*lock_held=*/false);
  EXPECT_TRUE(snapshot.SharesBufferWith(variable));
}

TEST(OpKernelTest, SetOutputWithWrongDtypeFailsTheKernel) {
  std::unique_ptr<OpKernel> kernel =
      MakeKernel(nullptr, Node("wrong", "OktWrongType"));
  ASSERT_NE(kernel, nullptr);
  OpKernelContext::Params params;
  params.op_kernel = kernel.get();
  OpKernelContext ctx(&params);
  kernel->Compute(&ctx);
  ASSERT_EQ(ctx.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(ctx.status().message().find("node 'wrong'"), std::string::npos)
      << ctx.status();
  EXPECT_NE(ctx.status().message().find("int32"), std::string::npos);
  EXPECT_FALSE(ctx.has_output(0));
}

TEST(OpKernelTest, SetOutputSharesTheBuffer) {
  tensorflow::NodeDef n = Node("fill", "OktFill");
  AddNodeAttr("rows", int64_t{1}, &n);
  std::unique_ptr<OpKernel> kernel = MakeKernel(nullptr, n);
  ASSERT_NE(kernel, nullptr);
  OpKernelContext::Params params;
  params.op_kernel = kernel.get();
  OpKernelContext ctx(&params);
  Tensor t = FloatTensor({5});
  ctx.set_output(0, t);
  ASSERT_TRUE(ctx.status().ok());
  EXPECT_TRUE(ctx.mutable_output(0)->SharesBufferWith(t));
  // Setting again replaces the slot (the old tensor is released).
  ctx.set_output(0, FloatTensor({6}));
  EXPECT_EQ(ctx.mutable_output(0)->flat<float>()(0), 6.0f);
}

TEST(OpKernelTest, OpRequiresInComputeSetsStatusAndReturns) {
  std::unique_ptr<OpKernel> kernel =
      MakeKernel(nullptr, Node("m", "OktNeedsMatrix", 1));
  ASSERT_NE(kernel, nullptr);
  auto* op = static_cast<NeedsMatrixOp*>(kernel.get());
  Tensor x = FloatTensor({1, 2});
  std::vector<TensorValue> inputs = {TensorValue(&x)};
  OpKernelContext::Params params;
  params.op_kernel = kernel.get();
  params.inputs = inputs;
  OpKernelContext ctx(&params);
  kernel->Compute(&ctx);
  EXPECT_EQ(ctx.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(ctx.status().message().find("x must be a matrix, got shape [2]"),
            std::string::npos)
      << ctx.status();
  EXPECT_FALSE(op->reached_end);
}

TEST(OpKernelTest, SetStatusKeepsFirstError) {
  OpKernelContext::Params params;
  OpKernelContext ctx(&params, 0);
  ctx.SetStatus(absl::OkStatus());
  EXPECT_TRUE(ctx.status().ok());
  ctx.SetStatus(errors::InvalidArgument("first"));
  ctx.SetStatus(errors::Internal("second"));
  EXPECT_EQ(ctx.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ctx.status().message(), "first");
}

TEST(OpKernelTest, AsyncKernelCallsDoneWithOutput) {
  std::unique_ptr<OpKernel> kernel =
      MakeKernel(nullptr, Node("scale", "OktAsyncScale", 1));
  ASSERT_NE(kernel, nullptr);
  AsyncOpKernel* async = kernel->AsAsync();
  ASSERT_NE(async, nullptr);

  Tensor x(3.5f);
  std::vector<TensorValue> inputs = {TensorValue(&x)};
  ThreadRunner runner;
  OpKernelContext::Params params;
  params.op_kernel = kernel.get();
  params.inputs = inputs;
  params.runner = runner.runner();
  OpKernelContext ctx(&params);
  absl::Notification done;
  int done_calls = 0;
  async->ComputeAsync(&ctx, [&] {
    ++done_calls;
    done.Notify();
  });
  done.WaitForNotification();
  ASSERT_TRUE(ctx.status().ok()) << ctx.status();
  EXPECT_EQ(done_calls, 1);
  EXPECT_EQ(ctx.mutable_output(0)->scalar<float>()(), 7.0f);
}

TEST(OpKernelTest, AsyncKernelFailureStillCallsDone) {
  std::unique_ptr<OpKernel> kernel =
      MakeKernel(nullptr, Node("scale", "OktAsyncScale", 1));
  ASSERT_NE(kernel, nullptr);
  Tensor x = FloatTensor({1, 2});  // Not a scalar.
  std::vector<TensorValue> inputs = {TensorValue(&x)};
  ThreadRunner runner;
  OpKernelContext::Params params;
  params.op_kernel = kernel.get();
  params.inputs = inputs;
  params.runner = runner.runner();
  OpKernelContext ctx(&params);
  int done_calls = 0;
  kernel->AsAsync()->ComputeAsync(&ctx, [&] { ++done_calls; });
  EXPECT_EQ(done_calls, 1);
  EXPECT_EQ(ctx.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_FALSE(ctx.has_output(0));
}

TEST(OpKernelTest, SyncComputeOfAsyncKernelWaitsForDone) {
  std::unique_ptr<OpKernel> kernel =
      MakeKernel(nullptr, Node("scale", "OktAsyncScale", 1));
  ASSERT_NE(kernel, nullptr);
  Tensor x(-1.0f);
  std::vector<TensorValue> inputs = {TensorValue(&x)};
  ThreadRunner runner;
  OpKernelContext::Params params;
  params.op_kernel = kernel.get();
  params.inputs = inputs;
  params.runner = runner.runner();
  OpKernelContext ctx(&params);
  kernel->Compute(&ctx);  // Returns only after done.
  ASSERT_TRUE(ctx.has_output(0));
  EXPECT_EQ(ctx.mutable_output(0)->scalar<float>()(), -2.0f);
}

TEST(OpKernelTest, CancellationReachesBlockedAsyncKernel) {
  std::unique_ptr<OpKernel> kernel =
      MakeKernel(nullptr, Node("wait", "OktWaitForCancel"));
  ASSERT_NE(kernel, nullptr);
  CancellationManager cm;
  OpKernelContext::Params params;
  params.op_kernel = kernel.get();
  params.cancellation_manager = &cm;
  OpKernelContext ctx(&params);
  EXPECT_EQ(ctx.cancellation_manager(), &cm);
  absl::Notification done;
  kernel->AsAsync()->ComputeAsync(&ctx, [&] { done.Notify(); });
  EXPECT_FALSE(done.HasBeenNotified());
  std::thread canceller([&cm] { cm.StartCancel(); });
  done.WaitForNotification();
  canceller.join();
  EXPECT_EQ(ctx.status().code(), absl::StatusCode::kCancelled);

  // A kernel started after cancellation finishes at once.
  OpKernelContext late(&params);
  absl::Notification late_done;
  kernel->AsAsync()->ComputeAsync(&late, [&] { late_done.Notify(); });
  EXPECT_TRUE(late_done.HasBeenNotified());
  EXPECT_EQ(late.status().code(), absl::StatusCode::kCancelled);
}

TEST(OpKernelTest, ParamsArePassedThrough) {
  std::unique_ptr<OpKernel> kernel =
      MakeKernel(nullptr, Node("wait", "OktWaitForCancel"));
  ASSERT_NE(kernel, nullptr);
  OpKernelContext::Params params;
  params.op_kernel = kernel.get();
  params.step_id = 42;
  params.frame_iter = FrameAndIter(3, 4);
  OpKernelContext ctx(&params);
  EXPECT_EQ(ctx.step_id(), 42);
  EXPECT_EQ(ctx.frame_iter(), FrameAndIter(3, 4));
  EXPECT_EQ(ctx.rendezvous(), nullptr);
  EXPECT_EQ(ctx.resource_manager(), nullptr);
  EXPECT_EQ(ctx.num_outputs(), 1);
  EXPECT_EQ(ctx.expected_output_dtype(0), DT_FLOAT);
  EXPECT_EQ(&ctx.op_kernel(), kernel.get());
}

TEST(OpKernelTest, EigenDeviceComesFromTheDevice) {
  Eigen::ThreadPool pool(2);
  Eigen::ThreadPoolDevice eigen_device(&pool, 2);
  DeviceBase device;
  device.set_eigen_cpu_device(&eigen_device);
  std::unique_ptr<OpKernel> kernel =
      MakeKernel(&device, Node("double", "OktEigenDouble", 1));
  ASSERT_NE(kernel, nullptr);
  Tensor x = FloatTensor({1, 2, 3});
  std::vector<TensorValue> inputs = {TensorValue(&x)};
  OpKernelContext::Params params;
  params.op_kernel = kernel.get();
  params.device = &device;
  params.inputs = inputs;
  OpKernelContext ctx(&params);
  EXPECT_EQ(&ctx.eigen_cpu_device(), &eigen_device);
  kernel->Compute(&ctx);
  ASSERT_TRUE(ctx.status().ok()) << ctx.status();
  EXPECT_EQ(ctx.mutable_output(0)->flat<float>()(2), 6.0f);
}

TEST(OpKernelTest, AllocateOutputByNameAndBadIndex) {
  tensorflow::NodeDef n = Node("fill", "OktFill");
  AddNodeAttr("rows", int64_t{1}, &n);
  std::unique_ptr<OpKernel> kernel = MakeKernel(nullptr, n);
  ASSERT_NE(kernel, nullptr);
  OpKernelContext::Params params;
  params.op_kernel = kernel.get();
  OpKernelContext ctx(&params);
  Tensor* y = nullptr;
  ASSERT_TRUE(ctx.allocate_output("y", TensorShape({4}), &y).ok());
  EXPECT_EQ(y->NumElements(), 4);
  EXPECT_EQ(ctx.allocate_output("nope", TensorShape({4}), &y).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ctx.allocate_output(3, TensorShape({4}), &y).code(),
            absl::StatusCode::kInternal);
}

}  // namespace
}  // namespace tributary
