// Optimizer kernels through KernelRunner: ref inputs (Apply*) and resource
// handles (ResourceApply*), numerics against a scalar re-derivation of the
// update rules, and the error paths.

#include <cmath>
#include <string>
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "common/framework/tensor.h"
#include "common/framework/tensor_testutil.h"
#include "common/resource/resource_handle.h"
#include "common/resource/resource_mgr.h"
#include "common/resource/var.h"
#include "gtest/gtest.h"
#include "kernels/testing/kernel_runner.h"

namespace tributary {
namespace {

using test::KernelRunner;
using test::NodeDefBuilder;

constexpr char kDevice[] = "/job:localhost/replica:0/task:0/device:CPU:0";

// A TF1 variable as the executor would pass it: a tensor and its mutex.
struct RefVar {
  explicit RefVar(const Tensor& value) : tensor(value) {}
  RefVar(DataType dtype, const TensorShape& shape)
      : tensor(dtype, shape, /*buffer=*/nullptr) {}  // Uninitialised.
  Tensor tensor;
  absl::Mutex mu;
};

tensorflow::NodeDef GradientDescentNode(const std::string& op, DataType dtype,
                                        bool use_locking = false) {
  return NodeDefBuilder("gd", op)
      .Input("w")
      .Input("alpha")
      .Input("delta")
      .Attr("T", dtype)
      .Attr("use_locking", use_locking)
      .Build();
}

tensorflow::NodeDef MomentumNode(const std::string& op, DataType dtype,
                                 bool use_nesterov, bool use_locking = false) {
  return NodeDefBuilder("momentum", op)
      .Input("w")
      .Input("w_accum")
      .Input("lr")
      .Input("grad")
      .Input("momentum")
      .Attr("T", dtype)
      .Attr("use_locking", use_locking)
      .Attr("use_nesterov", use_nesterov)
      .Build();
}

tensorflow::NodeDef AdamNode(const std::string& op, DataType dtype,
                             bool use_nesterov, bool use_locking = false) {
  return NodeDefBuilder("adam", op)
      .Input("w")
      .Input("w_m")
      .Input("w_v")
      .Inputs(7)
      .Attr("T", dtype)
      .Attr("use_locking", use_locking)
      .Attr("use_nesterov", use_nesterov)
      .Build();
}

TEST(ApplyGradientDescentTest, UpdatesTheRefAndReturnsIt) {
  for (bool use_locking : {false, true}) {
    RefVar w(test::AsTensor<float>({1, 2, 3}));
    KernelRunner runner;
    ASSERT_TRUE(
        runner.Init(GradientDescentNode("ApplyGradientDescent", DT_FLOAT,
                                        use_locking))
            .ok());
    runner.AddRefInput(&w.tensor, &w.mu);
    runner.AddInput(test::AsScalar<float>(0.5f));
    runner.AddInput(test::AsTensor<float>({2, 4, -6}));
    ASSERT_TRUE(runner.RunWithCurrentInputs().ok());
    test::ExpectTensorEqual<float>(w.tensor, test::AsTensor<float>({0, 0, 6}));
    ASSERT_TRUE(runner.output_is_ref(0));
    EXPECT_EQ(runner.output_ref_tensor(0), &w.tensor);
    EXPECT_EQ(runner.output_ref_mutex(0), &w.mu);
  }
}

TEST(ApplyGradientDescentTest, Errors) {
  KernelRunner runner;
  ASSERT_TRUE(
      runner.Init(GradientDescentNode("ApplyGradientDescent", DT_DOUBLE)).ok());
  RefVar uninit(DT_DOUBLE, TensorShape({2}));
  runner.AddRefInput(&uninit.tensor, &uninit.mu);
  runner.AddInput(test::AsScalar<double>(0.1));
  runner.AddInput(test::AsTensor<double>({1, 1}));
  absl::Status s = runner.RunWithCurrentInputs();
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(s.message(), "Attempting to use uninitialized variables: w");

  RefVar w(test::AsTensor<double>({1, 2}));
  runner.ClearInputs();
  runner.AddRefInput(&w.tensor, &w.mu);
  runner.AddInput(test::AsTensor<double>({0.1}));
  runner.AddInput(test::AsTensor<double>({1, 1}));
  s = runner.RunWithCurrentInputs();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "alpha is not a scalar: [1]");

  runner.ClearInputs();
  runner.AddRefInput(&w.tensor, &w.mu);
  runner.AddInput(test::AsScalar<double>(0.1));
  runner.AddInput(test::AsTensor<double>({1, 1, 1}));
  s = runner.RunWithCurrentInputs();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "var and delta do not have the same shape[2] [3]");
  test::ExpectTensorEqual<double>(w.tensor, test::AsTensor<double>({1, 2}));
}

TEST(ApplyGradientDescentTest, NoIntegerKernel) {
  KernelRunner runner;
  EXPECT_EQ(runner.Init(GradientDescentNode("ApplyGradientDescent", DT_INT32))
                .code(),
            absl::StatusCode::kNotFound);
}

// Reference implementations, one element at a time.
void MomentumReference(std::vector<double>* var, std::vector<double>* accum,
                       double lr, const std::vector<double>& grad,
                       double momentum, bool nesterov) {
  for (size_t i = 0; i < var->size(); ++i) {
    (*accum)[i] = (*accum)[i] * momentum + grad[i];
    if (nesterov) {
      (*var)[i] -= grad[i] * lr + (*accum)[i] * momentum * lr;
    } else {
      (*var)[i] -= (*accum)[i] * lr;
    }
  }
}

TEST(ApplyMomentumTest, ClassicAndNesterovOverSeveralSteps) {
  for (bool nesterov : {false, true}) {
    std::vector<double> var = {1, -2, 3, 0.5};
    std::vector<double> accum = {0, 0.1, 0, -0.3};
    RefVar w(test::AsTensor<double>(var));
    RefVar a(test::AsTensor<double>(accum));
    KernelRunner runner;
    ASSERT_TRUE(
        runner.Init(MomentumNode("ApplyMomentum", DT_DOUBLE, nesterov)).ok());
    for (int step = 0; step < 3; ++step) {
      const std::vector<double> grad = {0.5 * step, -1, 2, 0.25};
      runner.ClearInputs();
      runner.AddRefInput(&w.tensor, &w.mu);
      runner.AddRefInput(&a.tensor, &a.mu);
      runner.AddInput(test::AsScalar<double>(0.1));
      runner.AddInput(test::AsTensor<double>(grad));
      runner.AddInput(test::AsScalar<double>(0.9));
      ASSERT_TRUE(runner.RunWithCurrentInputs().ok());
      MomentumReference(&var, &accum, 0.1, grad, 0.9, nesterov);
    }
    test::ExpectTensorNear<double>(w.tensor, test::AsTensor<double>(var),
                                   1e-12);
    test::ExpectTensorNear<double>(a.tensor, test::AsTensor<double>(accum),
                                   1e-12);
  }
}

TEST(ApplyMomentumTest, ShapeAndScalarErrors) {
  RefVar w(test::AsTensor<float>({1, 2}));
  RefVar a(test::AsTensor<float>({1, 2, 3}));
  KernelRunner runner;
  ASSERT_TRUE(runner.Init(MomentumNode("ApplyMomentum", DT_FLOAT, false)).ok());
  runner.AddRefInput(&w.tensor, &w.mu);
  runner.AddRefInput(&a.tensor, &a.mu);
  runner.AddInput(test::AsScalar<float>(0.1f));
  runner.AddInput(test::AsTensor<float>({1, 1}));
  runner.AddInput(test::AsScalar<float>(0.9f));
  absl::Status s = runner.RunWithCurrentInputs();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "var and accum do not have the same shape[2] [3]");
}

TEST(ApplyMomentumTest, SameVariableAsVarAndAccumDoesNotDeadlock) {
  // Both inputs carry the same mutex; with use_locking it is taken once.
  RefVar w(test::AsTensor<float>({1, 2}));
  KernelRunner runner;
  ASSERT_TRUE(
      runner.Init(MomentumNode("ApplyMomentum", DT_FLOAT, false, true)).ok());
  runner.AddRefInput(&w.tensor, &w.mu);
  runner.AddRefInput(&w.tensor, &w.mu);
  runner.AddInput(test::AsScalar<float>(1.0f));
  runner.AddInput(test::AsTensor<float>({1, 1}));
  runner.AddInput(test::AsScalar<float>(0.0f));
  ASSERT_TRUE(runner.RunWithCurrentInputs().ok());
  // accum(=w) = w*0 + 1 = 1; w -= 1 * accum -> 0.
  test::ExpectTensorEqual<float>(w.tensor, test::AsTensor<float>({0, 0}));
}

void AdamReference(std::vector<double>* var, std::vector<double>* m,
                   std::vector<double>* v, double beta1_power,
                   double beta2_power, double lr, double beta1, double beta2,
                   double epsilon, const std::vector<double>& grad,
                   bool nesterov) {
  const double alpha =
      lr * std::sqrt(1 - beta2_power) / (1 - beta1_power);
  for (size_t i = 0; i < var->size(); ++i) {
    (*m)[i] += (grad[i] - (*m)[i]) * (1 - beta1);
    (*v)[i] += (grad[i] * grad[i] - (*v)[i]) * (1 - beta2);
    const double direction =
        nesterov ? grad[i] * (1 - beta1) + beta1 * (*m)[i] : (*m)[i];
    (*var)[i] -= direction * alpha / (std::sqrt((*v)[i]) + epsilon);
  }
}

TEST(ApplyAdamTest, MatchesTheUpdateRuleOnALargeTensor) {
  // Large enough for the device to split the fused loop over threads.
  constexpr int kN = 100003;
  for (bool nesterov : {false, true}) {
    std::vector<double> var(kN), m(kN), v(kN), grad(kN);
    for (int i = 0; i < kN; ++i) {
      var[i] = std::sin(i);
      m[i] = 0.01 * std::cos(i);
      v[i] = 0.001 * (i % 7);
      grad[i] = std::cos(0.5 * i);
    }
    RefVar w(test::AsTensor<double>(var));
    RefVar wm(test::AsTensor<double>(m));
    RefVar wv(test::AsTensor<double>(v));
    KernelRunner runner;
    ASSERT_TRUE(runner.Init(AdamNode("ApplyAdam", DT_DOUBLE, nesterov)).ok());
    double beta1_power = 0.9, beta2_power = 0.999;
    for (int step = 0; step < 2; ++step) {
      runner.ClearInputs();
      runner.AddRefInput(&w.tensor, &w.mu);
      runner.AddRefInput(&wm.tensor, &wm.mu);
      runner.AddRefInput(&wv.tensor, &wv.mu);
      for (double x : {beta1_power, beta2_power, 0.01, 0.9, 0.999, 1e-7}) {
        runner.AddInput(test::AsScalar<double>(x));
      }
      runner.AddInput(test::AsTensor<double>(grad));
      ASSERT_TRUE(runner.RunWithCurrentInputs().ok());
      AdamReference(&var, &m, &v, beta1_power, beta2_power, 0.01, 0.9, 0.999,
                    1e-7, grad, nesterov);
      beta1_power *= 0.9;
      beta2_power *= 0.999;
    }
    test::ExpectTensorNear<double>(w.tensor, test::AsTensor<double>(var),
                                   1e-12);
    test::ExpectTensorNear<double>(wm.tensor, test::AsTensor<double>(m),
                                   1e-12);
    test::ExpectTensorNear<double>(wv.tensor, test::AsTensor<double>(v),
                                   1e-12);
  }
}

TEST(ApplyAdamTest, NonScalarHyperparameter) {
  RefVar w(test::AsTensor<float>({1})), m(test::AsTensor<float>({0})),
      v(test::AsTensor<float>({0}));
  KernelRunner runner;
  ASSERT_TRUE(runner.Init(AdamNode("ApplyAdam", DT_FLOAT, false)).ok());
  runner.AddRefInput(&w.tensor, &w.mu);
  runner.AddRefInput(&m.tensor, &m.mu);
  runner.AddRefInput(&v.tensor, &v.mu);
  runner.AddInput(test::AsScalar<float>(0.9f));
  runner.AddInput(test::AsScalar<float>(0.99f));
  runner.AddInput(test::AsScalar<float>(0.1f));
  runner.AddInput(test::AsTensor<float>({0.9f, 0.9f}));  // beta1
  runner.AddInput(test::AsScalar<float>(0.99f));
  runner.AddInput(test::AsScalar<float>(1e-8f));
  runner.AddInput(test::AsTensor<float>({1}));
  absl::Status s = runner.RunWithCurrentInputs();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "beta1 is not a scalar: [2]");
}

// ---- Resource forms --------------------------------------------------------

class ResourceApplyTest : public ::testing::Test {
 protected:
  // Creates resource variable `name` holding `value`; returns its handle.
  Tensor MakeVar(const std::string& name, const Tensor& value) {
    Var* var = new Var(value.dtype());
    *var->tensor() = value;
    var->is_initialized = true;
    EXPECT_TRUE(rm_.Create("localhost", name, var).ok());
    return MakeResourceHandleTensor(
        MakeResourceHandle<Var>(kDevice, "localhost", name));
  }
  Tensor Value(const std::string& name) {
    RefCountPtr<Var> var;
    EXPECT_TRUE(rm_.Lookup<Var>("localhost", name, &var).ok());
    absl::ReaderMutexLock l(var->mu());
    return *var->tensor();
  }
  absl::Status Run(const tensorflow::NodeDef& def,
                   const std::vector<Tensor>& inputs) {
    KernelRunner runner;
    runner.set_resource_manager(&rm_);
    TRIB_RETURN_IF_ERROR(runner.Init(def));
    absl::StatusOr<std::vector<Tensor>> out = runner.Run(inputs);
    if (out.ok()) {
      EXPECT_TRUE(out->empty());  // No outputs.
    }
    return out.status();
  }

  ResourceMgr rm_;
};

TEST_F(ResourceApplyTest, GradientDescentCopiesOnWrite) {
  Tensor initial = test::AsTensor<float>({1, 2});
  Tensor h = MakeVar("w", initial);
  Tensor snapshot = Value("w");  // Like a ReadVariableOp result.
  ASSERT_TRUE(Run(GradientDescentNode("ResourceApplyGradientDescent", DT_FLOAT),
                  {h, test::AsScalar<float>(1.0f),
                   test::AsTensor<float>({1, 1})})
                  .ok());
  test::ExpectTensorEqual<float>(Value("w"), test::AsTensor<float>({0, 1}));
  test::ExpectTensorEqual<float>(snapshot, test::AsTensor<float>({1, 2}));
  test::ExpectTensorEqual<float>(initial, test::AsTensor<float>({1, 2}));
}

TEST_F(ResourceApplyTest, MomentumAndAdamUpdateTheirSlots) {
  Tensor w = MakeVar("w", test::AsTensor<double>({1, 2}));
  Tensor accum = MakeVar("accum", test::AsTensor<double>({0, 0}));
  ASSERT_TRUE(Run(MomentumNode("ResourceApplyMomentum", DT_DOUBLE, true),
                  {w, accum, test::AsScalar<double>(0.1),
                   test::AsTensor<double>({1, -1}),
                   test::AsScalar<double>(0.9)})
                  .ok());
  std::vector<double> var = {1, 2}, acc = {0, 0};
  MomentumReference(&var, &acc, 0.1, {1, -1}, 0.9, true);
  test::ExpectTensorNear<double>(Value("w"), test::AsTensor<double>(var),
                                 1e-12);
  test::ExpectTensorNear<double>(Value("accum"), test::AsTensor<double>(acc),
                                 1e-12);

  Tensor m = MakeVar("m", test::AsTensor<double>({0, 0}));
  Tensor v = MakeVar("v", test::AsTensor<double>({0, 0}));
  std::vector<Tensor> inputs = {w, m, v};
  for (double x : {0.9, 0.999, 0.001, 0.9, 0.999, 1e-8}) {
    inputs.push_back(test::AsScalar<double>(x));
  }
  inputs.push_back(test::AsTensor<double>({0.5, 2}));
  ASSERT_TRUE(Run(AdamNode("ResourceApplyAdam", DT_DOUBLE, false), inputs).ok());
  std::vector<double> mm = {0, 0}, vv = {0, 0};
  AdamReference(&var, &mm, &vv, 0.9, 0.999, 0.001, 0.9, 0.999, 1e-8, {0.5, 2},
                false);
  test::ExpectTensorNear<double>(Value("w"), test::AsTensor<double>(var),
                                 1e-12);
  test::ExpectTensorNear<double>(Value("m"), test::AsTensor<double>(mm),
                                 1e-12);
  test::ExpectTensorNear<double>(Value("v"), test::AsTensor<double>(vv),
                                 1e-12);
}

TEST_F(ResourceApplyTest, MissingVariableIsInternalNamingIt) {
  Tensor h = MakeResourceHandleTensor(
      MakeResourceHandle<Var>(kDevice, "localhost", "missing"));
  absl::Status s =
      Run(GradientDescentNode("ResourceApplyGradientDescent", DT_FLOAT),
          {h, test::AsScalar<float>(1.0f), test::AsTensor<float>({1})});
  EXPECT_EQ(s.code(), absl::StatusCode::kInternal);
  EXPECT_NE(std::string(s.message()).find("Invalid variable reference."),
            std::string::npos);
  EXPECT_NE(std::string(s.message()).find("localhost/missing"),
            std::string::npos)
      << s;
}

TEST_F(ResourceApplyTest, WrongDtypeIsInvalidArgument) {
  Tensor h = MakeVar("w", test::AsTensor<double>({1}));
  absl::Status s =
      Run(GradientDescentNode("ResourceApplyGradientDescent", DT_FLOAT),
          {h, test::AsScalar<float>(1.0f), test::AsTensor<float>({1})});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
}

TEST_F(ResourceApplyTest, ConcurrentUpdatesAreSerialised) {
  Tensor h = MakeVar("w", test::AsTensor<double>(std::vector<double>(32, 0)));
  constexpr int kThreads = 8;
  constexpr int kSteps = 100;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < kSteps; ++i) {
        // w -= (-1) * 1: +1 per step. Without serialisation some would be
        // lost (read-modify-write races).
        ASSERT_TRUE(Run(GradientDescentNode("ResourceApplyGradientDescent",
                                            DT_DOUBLE),
                        {h, test::AsScalar<double>(-1.0),
                         test::AsTensor<double>(std::vector<double>(32, 1))})
                        .ok());
      }
    });
  }
  for (std::thread& t : threads) t.join();
  test::ExpectTensorEqual<double>(
      Value("w"),
      test::AsTensor<double>(std::vector<double>(32, kThreads * kSteps)));
}

}  // namespace
}  // namespace tributary
