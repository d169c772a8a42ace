// The optimizer kernels added after GradientDescent/Momentum/Adam, through
// KernelRunner on ref inputs, without TensorFlow: one step of each family
// against a scalar re-derivation of its rule, and TensorFlow's messages for
// the checks that differ between families. The oracle tests
// (adaptive_oracle_test, extra_oracle_test) cover both forms and all dtypes
// against TensorFlow itself.

#include <cmath>
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

struct RefVar {
  explicit RefVar(const Tensor& value) : tensor(value) {}
  Tensor tensor;
  absl::Mutex mu;
};

// Runs `op` on ref variables `vars` then the non-variable `inputs`.
absl::Status RunOnRefs(
    const std::string& op, std::vector<RefVar*> vars,
    std::vector<Tensor> inputs,
    const std::vector<std::pair<std::string, bool>>& attrs = {}) {
  NodeDefBuilder b("opt", op);
  b.Inputs(static_cast<int>(vars.size() + inputs.size()));
  b.Attr("T", DT_DOUBLE);
  for (const auto& [name, value] : attrs) b.Attr(name, value);
  KernelRunner runner;
  absl::Status s = runner.Init(b.Build());
  if (!s.ok()) return s;
  for (RefVar* v : vars) runner.AddRefInput(&v->tensor, &v->mu);
  for (const Tensor& t : inputs) runner.AddInput(t);
  return runner.RunWithCurrentInputs();
}

Tensor D(double x) { return test::AsScalar<double>(x); }
Tensor V(std::vector<double> x) { return test::AsTensor<double>(x); }

TEST(ApplyAdagradTest, UpdateSlotsAndV2Epsilon) {
  RefVar w(V({1, 2})), accum(V({1, 3}));
  ASSERT_TRUE(
      RunOnRefs("ApplyAdagrad", {&w, &accum}, {D(0.5), V({1, 1})}).ok());
  test::ExpectTensorNear<double>(accum.tensor, V({2, 4}), 1e-15);
  test::ExpectTensorNear<double>(
      w.tensor, V({1 - 0.5 / std::sqrt(2.0), 2 - 0.5 / 2}), 1e-15);

  // V2 without update_slots: accum is read, not written.
  RefVar w2(V({1})), accum2(V({4}));
  ASSERT_TRUE(RunOnRefs("ApplyAdagradV2", {&w2, &accum2},
                        {D(0.5), D(1), V({2})}, {{"update_slots", false}})
                  .ok());
  test::ExpectTensorNear<double>(accum2.tensor, V({4}), 0);
  test::ExpectTensorNear<double>(w2.tensor, V({1 - 0.5 * 2 / (2 + 1)}), 1e-15);
}

TEST(ApplyRMSPropTest, PlainAndCentered) {
  RefVar w(V({1})), ms(V({1})), mom(V({0}));
  // lr, rho, momentum, epsilon, grad.
  ASSERT_TRUE(RunOnRefs("ApplyRMSProp", {&w, &ms, &mom},
                        {D(0.1), D(0.5), D(0.9), D(0), V({2})})
                  .ok());
  const double ms1 = 1 + (4 - 1) * 0.5;
  test::ExpectTensorNear<double>(ms.tensor, V({ms1}), 1e-15);
  test::ExpectTensorNear<double>(w.tensor, V({1 - 0.2 / std::sqrt(ms1)}),
                                 1e-15);

  RefVar cw(V({1})), mg(V({0})), cms(V({1})), cmom(V({0}));
  ASSERT_TRUE(RunOnRefs("ApplyCenteredRMSProp", {&cw, &mg, &cms, &cmom},
                        {D(0.1), D(0.5), D(0.9), D(0), V({2})})
                  .ok());
  test::ExpectTensorNear<double>(mg.tensor, V({1}), 1e-15);
  test::ExpectTensorNear<double>(cw.tensor, V({1 - 0.2 / std::sqrt(ms1 - 1)}),
                                 1e-15);
}

TEST(ApplyRMSPropTest, CenteredSlotShapeMessage) {
  RefVar w(V({1, 2})), mg(V({1, 2, 3})), ms(V({1, 2})), mom(V({1, 2}));
  absl::Status s = RunOnRefs("ApplyCenteredRMSProp", {&w, &mg, &ms, &mom},
                             {D(0.1), D(0.5), D(0.9), D(0), V({1, 1})});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "var and mg do not have the same shape[2] [3]");
}

TEST(ApplyFtrlTest, OneStepAgainstTheFormula) {
  for (bool mult : {false, true}) {
    RefVar w(V({1, 0.01})), accum(V({1, 1})), linear(V({0, 0}));
    const double lr = 0.5, l1 = 0.1, l2 = 0.2;
    const std::vector<double> grad = {3, 0.01};
    // grad, lr, l1, l2, lr_power.
    ASSERT_TRUE(RunOnRefs("ApplyFtrl", {&w, &accum, &linear},
                          {V(grad), D(lr), D(l1), D(l2), D(-0.5)},
                          {{"multiply_linear_by_lr", mult}})
                    .ok());
    std::vector<double> want_var(2), want_lin(2), want_acc(2);
    const std::vector<double> var0 = {1, 0.01};
    for (int i = 0; i < 2; ++i) {
      const double na = 1 + grad[i] * grad[i];
      const double dp = std::sqrt(na) - 1;
      const double lin =
          mult ? grad[i] * lr - dp * var0[i] : grad[i] - dp / lr * var0[i];
      const double thr = mult ? l1 * lr : l1;
      const double y =
          mult ? std::sqrt(na) + 2 * l2 * lr : std::sqrt(na) / lr + 2 * l2;
      want_lin[i] = lin;
      want_acc[i] = na;
      want_var[i] =
          std::abs(lin) > thr ? (thr * (lin > 0 ? 1 : -1) - lin) / y : 0;
    }
    EXPECT_EQ(want_var[1], 0);  // |linear| under l1: shrunk to zero.
    test::ExpectTensorNear<double>(w.tensor, V(want_var), 1e-14);
    test::ExpectTensorNear<double>(linear.tensor, V(want_lin), 1e-14);
    test::ExpectTensorNear<double>(accum.tensor, V(want_acc), 1e-14);
  }
}

TEST(ApplyFtrlTest, ScalarMessagesAreTensorFlows) {
  RefVar w(V({1, 2})), accum(V({1, 2})), linear(V({1, 2}));
  // ApplyFtrlV2: grad, lr, l1, l2, l2_shrinkage, lr_power.
  absl::Status s = RunOnRefs("ApplyFtrlV2", {&w, &accum, &linear},
                             {V({1, 1}), D(0.1), D(0), D(0), D(0), V({1, 1})});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "lr_power is not a scalar[2]");
  s = RunOnRefs("ApplyFtrlV2", {&w, &accum, &linear},
                {V({1, 1}), D(0.1), D(0), D(0), V({1, 1}), D(-0.5)});
  EXPECT_EQ(s.message(),
            "l2 shrinkage regularization strength is not a scalar: [2]");
  // Out-of-range values are not errors (TensorFlow's dense kernel).
  EXPECT_TRUE(RunOnRefs("ApplyFtrlV2", {&w, &accum, &linear},
                        {V({1, 1}), D(-1), D(-1), D(0), D(0), D(0.5)})
                  .ok());
}

TEST(SlotUpdateOpTest, ProximalGradientDescentWithL1) {
  RefVar w(V({1, 0.05}));
  // alpha, l1, l2, delta.
  ASSERT_TRUE(RunOnRefs("ApplyProximalGradientDescent", {&w},
                        {D(0.5), D(0.2), D(1), V({1, 0})})
                  .ok());
  // prox = [0.5, 0.05]; shrink by alpha * l1 = 0.1, scale by 1 / 1.5.
  test::ExpectTensorNear<double>(w.tensor, V({0.4 / 1.5, 0}), 1e-15);

  absl::Status s = RunOnRefs("ApplyProximalGradientDescent", {&w},
                             {D(0.5), V({1, 1}), D(1), V({1, 0})});
  EXPECT_EQ(s.message(), "l1 regularization strength is not a scalar: [2]");
  s = RunOnRefs("ApplyProximalGradientDescent", {&w},
                {D(0.5), D(0.2), D(1), V({1, 0, 0})});
  EXPECT_EQ(s.message(), "var and delta do not have the same shape[2] [3]");
}

TEST(SlotUpdateOpTest, AdagradDAReadsAnInt64GlobalStep) {
  RefVar w(V({0})), g(V({0})), gg(V({0}));
  // grad, lr, l1, l2, global_step (int64).
  ASSERT_TRUE(
      RunOnRefs("ApplyAdagradDA", {&w, &g, &gg},
                {V({2}), D(0.1), D(0), D(0.5), test::AsScalar<int64_t>(3)})
          .ok());
  test::ExpectTensorNear<double>(g.tensor, V({2}), 0);
  test::ExpectTensorNear<double>(gg.tensor, V({4}), 0);
  // var = -g * lr / (l2 * t * lr + sqrt(gg)).
  test::ExpectTensorNear<double>(w.tensor, V({-0.2 / (0.5 * 3 * 0.1 + 2)}),
                                 1e-15);
}

}  // namespace
}  // namespace tributary
