// SparseApply* through KernelRunner on ref inputs, without TensorFlow: with
// distinct indices every op must leave each indexed row exactly as the dense
// Apply* op leaves that row alone (and the other rows untouched); a repeated
// index applies twice in order; and TensorFlow's checks and messages. The
// resource forms share the kernel class; tests/interop/
// sparse_optimizer_session_test compares both forms with TensorFlow.

#include <deque>
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

absl::Status RunOp(const std::string& op, std::vector<RefVar*> vars,
                   const std::vector<Tensor>& inputs, bool sparse,
                   DataType index_type,
                   const std::vector<std::pair<std::string, bool>>& attrs) {
  NodeDefBuilder b("opt", op);
  b.Inputs(static_cast<int>(vars.size() + inputs.size()));
  b.Attr("T", DT_DOUBLE);
  if (sparse) b.Attr("Tindices", index_type);
  for (const auto& [name, value] : attrs) b.Attr(name, value);
  KernelRunner runner;
  absl::Status s = runner.Init(b.Build());
  if (!s.ok()) return s;
  for (RefVar* v : vars) runner.AddRefInput(&v->tensor, &v->mu);
  for (const Tensor& t : inputs) runner.AddInput(t);
  return runner.RunWithCurrentInputs();
}

Tensor D(double x) { return test::AsScalar<double>(x); }
Tensor M(std::vector<double> x, int64_t rows) {
  return test::AsTensor<double>(x,
                                {rows, static_cast<int64_t>(x.size()) / rows});
}

// One optimizer: its slot count and the scalars before grad and after
// indices (the dense op has the same inputs without indices).
struct Case {
  std::string name;
  int num_vars;
  std::vector<Tensor> before_grad, after_indices;
  std::vector<std::pair<std::string, bool>> attrs;
};

std::vector<Case> Cases() {
  const Tensor gs = test::AsScalar<int64_t>(3);
  return {
      {"Adagrad", 2, {D(0.1)}, {}, {}},
      {"AdagradV2", 2, {D(0.1), D(0.01)}, {}, {{"update_slots", true}}},
      {"ProximalAdagrad", 2, {D(0.1), D(0.01), D(0.02)}, {}, {}},
      {"AdagradDA", 3, {}, {D(0.1), D(0.01), D(0.02), gs}, {}},
      {"ProximalGradientDescent", 1, {D(0.1), D(0.01), D(0.02)}, {}, {}},
      {"Adadelta", 3, {D(1.0), D(0.95), D(1e-6)}, {}, {}},
      {"Ftrl", 3, {}, {D(0.2), D(0.01), D(0.02), D(-0.5)}, {}},
      {"FtrlV2", 3, {}, {D(0.2), D(0.01), D(0.02), D(0.05), D(-0.3)}, {}},
      {"Momentum", 2, {D(0.05)}, {D(0.9)}, {{"use_nesterov", true}}},
      {"RMSProp", 3, {D(0.01), D(0.9), D(0.5), D(1e-7)}, {}, {}},
      {"CenteredRMSProp", 4, {D(0.01), D(0.9), D(0.5), D(1e-7)}, {}, {}},
  };
}

// Variable v (0 = var) as a 3x2 matrix. Slots are positive and grow with v,
// so CenteredRMSProp's ms (v = 2) exceeds mg^2 (mg is v = 1).
std::vector<double> Init(int v) {
  std::vector<double> x = {0.5, -1.0, 1.5, 0.25, -0.75, 2.0};
  if (v > 0) {
    for (double& e : x) e = 0.1 * (e < 0 ? -e : e) + v * v;
  }
  return x;
}

TEST(SparseApplyTest, RowsMatchTheDenseRule) {
  const std::vector<double> grad = {0.3, -0.7, 1.1, 0.4};  // rows for 2, 0
  for (const Case& c : Cases()) {
    for (DataType index_type : {DT_INT32, DT_INT64}) {
      SCOPED_TRACE(c.name);
      std::deque<RefVar> sparse_vars;
      for (int v = 0; v < c.num_vars; ++v)
        sparse_vars.emplace_back(M(Init(v), 3));
      std::vector<RefVar*> ptrs;
      for (RefVar& r : sparse_vars) ptrs.push_back(&r);
      std::vector<Tensor> inputs = c.before_grad;
      inputs.push_back(M(grad, 2));
      inputs.push_back(index_type == DT_INT32
                           ? test::AsTensor<int32_t>({2, 0})
                           : test::AsTensor<int64_t>({2, 0}));
      inputs.insert(inputs.end(), c.after_indices.begin(),
                    c.after_indices.end());
      ASSERT_TRUE(
          RunOp("SparseApply" + c.name, ptrs, inputs, true, index_type, c.attrs)
              .ok());

      // Dense op on rows 2 and 0 alone.
      const int rows[2] = {2, 0};
      for (int k = 0; k < 2; ++k) {
        std::deque<RefVar> dense;
        for (int v = 0; v < c.num_vars; ++v) {
          const std::vector<double> all = Init(v);
          dense.emplace_back(M({all[2 * rows[k]], all[2 * rows[k] + 1]}, 1));
        }
        std::vector<RefVar*> dptrs;
        for (RefVar& r : dense) dptrs.push_back(&r);
        std::vector<Tensor> dinputs = c.before_grad;
        dinputs.push_back(M({grad[2 * k], grad[2 * k + 1]}, 1));
        dinputs.insert(dinputs.end(), c.after_indices.begin(),
                       c.after_indices.end());
        ASSERT_TRUE(
            RunOp("Apply" + c.name, dptrs, dinputs, false, DT_INT32, c.attrs)
                .ok());
        for (int v = 0; v < c.num_vars; ++v) {
          auto got = sparse_vars[v].tensor.matrix<double>();
          auto want = dense[v].tensor.matrix<double>();
          EXPECT_DOUBLE_EQ(got(rows[k], 0), want(0, 0)) << "var " << v;
          EXPECT_DOUBLE_EQ(got(rows[k], 1), want(0, 1)) << "var " << v;
        }
      }
      // Row 1 untouched.
      for (int v = 0; v < c.num_vars; ++v) {
        auto got = sparse_vars[v].tensor.matrix<double>();
        EXPECT_EQ(got(1, 0), Init(v)[2]);
        EXPECT_EQ(got(1, 1), Init(v)[3]);
      }
    }
  }
}

TEST(SparseApplyTest, RepeatedIndexAppliesInOrder) {
  // Momentum: accum = accum * m + g; var -= lr * accum, twice on row 0.
  RefVar w(M({1, 2}, 2)), accum(M({0, 0}, 2));
  ASSERT_TRUE(
      RunOp("SparseApplyMomentum", {&w, &accum},
            {D(0.5), M({1, 3}, 2), test::AsTensor<int32_t>({0, 0}), D(0.9)},
            true, DT_INT32, {})
          .ok());
  const double a1 = 1, a2 = a1 * 0.9 + 3;
  test::ExpectTensorNear<double>(accum.tensor, M({a2, 0}, 2), 1e-15);
  test::ExpectTensorNear<double>(w.tensor, M({1 - 0.5 * a1 - 0.5 * a2, 2}, 2),
                                 1e-15);
}

TEST(SparseApplyTest, ErrorsAreTensorFlows) {
  RefVar w(M({1, 2, 3, 4}, 2)), accum(M({1, 1, 1, 1}, 2));
  absl::Status s =
      RunOp("SparseApplyAdagrad", {&w, &accum},
            {D(0.1), M({1, 1, 1, 1}, 2), test::AsTensor<int64_t>({1, 2})}, true,
            DT_INT64, {});
  EXPECT_TRUE(absl::IsInvalidArgument(s));
  EXPECT_NE(s.message().find("Index 2 at offset 1 in indices is out of range"),
            std::string::npos)
      << s;
  // Nothing was written, not even row 1.
  test::ExpectTensorNear<double>(w.tensor, M({1, 2, 3, 4}, 2), 0);

  s = RunOp("SparseApplyAdagrad", {&w, &accum},
            {D(0.1), M({1, 1}, 1), test::AsTensor<int32_t>({0}, {1, 1})}, true,
            DT_INT32, {});
  EXPECT_NE(s.message().find("indices must be one-dimensional"),
            std::string::npos)
      << s;
  s = RunOp("SparseApplyAdagrad", {&w, &accum},
            {D(0.1), M({1, 1, 1, 1}, 2), test::AsTensor<int32_t>({0})}, true,
            DT_INT32, {});
  EXPECT_NE(s.message().find("grad must be the same size as indices in the "
                             "first dimension."),
            std::string::npos)
      << s;
  s = RunOp("SparseApplyAdagrad", {&w, &accum},
            {D(0.1), M({1, 1, 1}, 1), test::AsTensor<int32_t>({0})}, true,
            DT_INT32, {});
  EXPECT_NE(s.message().find("var and grad must match in dimension 1"),
            std::string::npos)
      << s;
  s = RunOp("SparseApplyAdagrad", {&w, &accum},
            {M({0.1}, 1), M({1, 1}, 1), test::AsTensor<int32_t>({0})}, true,
            DT_INT32, {});
  EXPECT_NE(s.message().find("lr is not a scalar: [1,1]"), std::string::npos)
      << s;

  RefVar scalar_var(D(1)), scalar_accum(D(1));
  s = RunOp("SparseApplyAdagrad", {&scalar_var, &scalar_accum},
            {D(0.1), D(1), test::AsTensor<int32_t>({0})}, true, DT_INT32, {});
  EXPECT_NE(s.message().find("var must be at least 1 dimensional"),
            std::string::npos)
      << s;

  RefVar f(M({1, 2}, 1)), fa(M({1, 1}, 1)), fl(M({0, 0}, 1));
  s = RunOp("SparseApplyFtrl", {&f, &fa, &fl},
            {M({1, 1}, 1), test::AsTensor<int32_t>({0}), D(0.1), D(-1), D(0),
             D(-0.5)},
            true, DT_INT32, {});
  EXPECT_NE(s.message().find(
                "l1 regularization strength is not a non-negative scalar: []"),
            std::string::npos)
      << s;
}

}  // namespace
}  // namespace tributary
