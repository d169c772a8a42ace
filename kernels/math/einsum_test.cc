// Einsum: the plan (labels, shapes, errors) and the kernel's values against
// loops written out by hand.
#include <vector>

#include "gtest/gtest.h"
#include "kernels/math/einsum_spec.h"
#include "kernels/math/math_test_util.h"

namespace tributary {
namespace {

absl::StatusOr<Tensor> Einsum(const std::string& eq,
                              const std::vector<Tensor>& inputs) {
  return test::RunOne(test::NodeDefBuilder("e", "Einsum")
                          .Inputs(static_cast<int>(inputs.size()))
                          .Attr("N", static_cast<int>(inputs.size()))
                          .Attr("T", inputs[0].dtype())
                          .Attr("equation", eq)
                          .Build(),
                      inputs);
}

Tensor Iota(const TensorShape& shape, float start = 1.0f) {
  Tensor t(DT_FLOAT, shape);
  auto f = t.flat<float>();
  for (int64_t i = 0; i < f.size(); ++i) f(i) = start + 0.5f * i;
  return t;
}

TEST(EinsumSpecTest, ClassifiesLabels) {
  auto plan =
      PlanEinsum("abc,cd->abd", {TensorShape({2, 3, 4}), TensorShape({4, 5})});
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->output_shape, TensorShape({2, 3, 5}));
  EXPECT_EQ(plan->batch.size(), 0u);
  EXPECT_EQ(plan->free0.size(), 2u);
  EXPECT_EQ(plan->free1.size(), 1u);
  EXPECT_EQ(plan->contracted.size(), 1u);
}

TEST(EinsumSpecTest, Errors) {
  EXPECT_EQ(PlanEinsum("ij,j", {TensorShape({2, 3}), TensorShape({3})})
                .status()
                .code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(PlanEinsum("ij,j->i", {TensorShape({2, 3}), TensorShape({4})})
                .status()
                .code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(PlanEinsum("ij->k", {TensorShape({2, 3})}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(PlanEinsum("ij->i", {TensorShape({2, 3, 4})}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(PlanEinsum("i1->i", {TensorShape({2, 3})}).status().code(),
            absl::StatusCode::kInvalidArgument);
  // Broadcast dimensions must reach the output.
  EXPECT_EQ(PlanEinsum("...j->j", {TensorShape({2, 3})}).status().code(),
            absl::StatusCode::kInvalidArgument);
  // A repeated label's axes must have one size.
  EXPECT_EQ(PlanEinsum("ii->i", {TensorShape({3, 4})}).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(EinsumSpecTest, RepeatedLabelsKeepOneAxisEach) {
  auto plan = PlanEinsum("iij,jk->ik", {TensorShape({3, 3, 2}),
                                        TensorShape({2, 4})});
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->raw_input_labels[0].size(), 3u);
  EXPECT_EQ(plan->input_labels[0].size(), 2u);
  EXPECT_EQ(plan->output_shape, TensorShape({3, 4}));
}

TEST(EinsumOpTest, DiagonalTraceAndDiagonalContraction) {
  const Tensor m = Iota(TensorShape({3, 3}));  // m[i][j] = 1 + 0.5 (3i + j)
  auto diag = Einsum("ii->i", {m});
  ASSERT_TRUE(diag.ok()) << diag.status();
  ASSERT_EQ(diag->shape(), TensorShape({3}));
  for (int i = 0; i < 3; ++i)
    EXPECT_FLOAT_EQ(diag->flat<float>()(i), 1 + 0.5f * (4 * i));
  auto trace = Einsum("ii->", {m});
  ASSERT_TRUE(trace.ok()) << trace.status();
  EXPECT_FLOAT_EQ(trace->scalar<float>()(), 3 + 0.5f * (0 + 4 + 8));
  // t[i][i][j] summed over i, and the diagonal taken on both operands.
  const Tensor t = Iota(TensorShape({2, 2, 3}));
  auto t3 = t.tensor<float, 3>();
  auto iij = Einsum("iij->j", {t});
  ASSERT_TRUE(iij.ok()) << iij.status();
  for (int j = 0; j < 3; ++j)
    EXPECT_FLOAT_EQ(iij->flat<float>()(j), t3(0, 0, j) + t3(1, 1, j));
  auto both = Einsum("iij,kk->jk", {t, Iota(TensorShape({2, 2}))});
  ASSERT_TRUE(both.ok()) << both.status();
  ASSERT_EQ(both->shape(), TensorShape({3, 2}));
  const float d[2] = {1.0f, 1 + 0.5f * 3};  // diagonal of the 2x2 Iota
  for (int j = 0; j < 3; ++j)
    for (int k = 0; k < 2; ++k)
      EXPECT_FLOAT_EQ(both->matrix<float>()(j, k),
                      (t3(0, 0, j) + t3(1, 1, j)) * d[k]);
  // Repeated labels on a batch dimension of a product: bii,bij->bj.
  auto batch = Einsum("bii,bij->bj", {Iota(TensorShape({2, 2, 2})),
                                     Iota(TensorShape({2, 2, 3}))});
  ASSERT_TRUE(batch.ok()) << batch.status();
  ASSERT_EQ(batch->shape(), TensorShape({2, 3}));
  auto empty = Einsum("ii->i", {Tensor(DT_FLOAT, TensorShape({0, 0}))});
  ASSERT_TRUE(empty.ok()) << empty.status();
  EXPECT_EQ(empty->shape(), TensorShape({0}));
}

TEST(EinsumOpTest, MatMulAndTranspose) {
  Tensor a = Iota(TensorShape({2, 3}));
  Tensor b = Iota(TensorShape({3, 4}), -2.0f);
  auto out = Einsum("ij,jk->ki", {a, b});
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->shape(), TensorShape({4, 2}));
  auto am = a.matrix<float>(), bm = b.matrix<float>();
  for (int k = 0; k < 4; ++k) {
    for (int i = 0; i < 2; ++i) {
      float want = 0;
      for (int j = 0; j < 3; ++j) want += am(i, j) * bm(j, k);
      EXPECT_FLOAT_EQ(out->matrix<float>()(k, i), want);
    }
  }
}

// Keras MultiHeadAttention's score equation: batch b, heads n.
TEST(EinsumOpTest, AttentionScores) {
  Tensor key = Iota(TensorShape({2, 3, 2, 4}));        // b s n h
  Tensor query = Iota(TensorShape({2, 5, 2, 4}), -3);  // b t n h
  auto out = Einsum("aecd,abcd->acbe", {key, query});
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->shape(), TensorShape({2, 2, 5, 3}));
  auto k = key.tensor<float, 4>();
  auto q = query.tensor<float, 4>();
  auto o = out->tensor<float, 4>();
  for (int a = 0; a < 2; ++a)
    for (int c = 0; c < 2; ++c)
      for (int b = 0; b < 5; ++b)
        for (int e = 0; e < 3; ++e) {
          float want = 0;
          for (int d = 0; d < 4; ++d) want += k(a, e, c, d) * q(a, b, c, d);
          EXPECT_FLOAT_EQ(o(a, c, b, e), want);
        }
}

TEST(EinsumOpTest, SumsPrivateLabelsAndBroadcasts) {
  Tensor x = Iota(TensorShape({2, 1, 3}));  // ... = [2, 1]
  Tensor y = Iota(TensorShape({4, 3, 5}));  // ... = [4], k summed away
  auto out = Einsum("...j,...jk->...", {x, y});
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->shape(), TensorShape({2, 4}));
  auto xt = x.tensor<float, 3>();
  auto yt = y.tensor<float, 3>();
  for (int p = 0; p < 2; ++p)
    for (int q = 0; q < 4; ++q) {
      float want = 0;
      for (int j = 0; j < 3; ++j)
        for (int k = 0; k < 5; ++k) want += xt(p, 0, j) * yt(q, j, k);
      EXPECT_FLOAT_EQ(out->matrix<float>()(p, q), want);
    }
  // One input: a sum and a transpose.
  auto one = Einsum("abc->ca", {y});
  ASSERT_TRUE(one.ok()) << one.status();
  ASSERT_EQ(one->shape(), TensorShape({5, 4}));
  float want = 0;
  for (int b = 0; b < 3; ++b) want += yt(1, b, 2);
  EXPECT_FLOAT_EQ(one->matrix<float>()(2, 1), want);
}

TEST(EinsumOpTest, IntegerAndErrors) {
  Tensor a(DT_INT32, TensorShape({2, 2}));
  a.flat<int32_t>().setValues({1, 2, 3, 4});
  auto out = Einsum("ij,jk->ik", {a, a});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(out->flat<int32_t>()(0), 7);
  EXPECT_EQ(out->flat<int32_t>()(3), 22);
  Tensor c(DT_INT32, TensorShape({3, 2}));
  c.flat<int32_t>().setZero();
  auto bad = Einsum("ij,jk->ik", {a, c});
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace tributary
