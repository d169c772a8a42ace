// MatMul and BatchMatMulV2 give the same numbers under the eigen and the
// openblas backend: every transpose combination, odd and degenerate shapes,
// float and double, products small enough to stay on one thread and large
// enough to be split across the pool by rows or by columns.
//
// Skips the OpenBLAS side (and says why) where the library is not installed.
#include <cstdio>
#include <cstdlib>
#include <random>
#include <tuple>
#include <vector>

#include "gtest/gtest.h"
#include "kernels/math/math_test_util.h"
#include "kernels/math/matmul_backend.h"

namespace tributary {
namespace {

absl::StatusOr<Tensor> MatMul(const Tensor& a, const Tensor& b, bool ta,
                              bool tb) {
  return test::RunOne(test::NodeDefBuilder("m", "MatMul")
                          .Inputs(2)
                          .Attr("T", a.dtype())
                          .Attr("transpose_a", ta)
                          .Attr("transpose_b", tb)
                          .Build(),
                      {a, b});
}

absl::StatusOr<Tensor> BatchMatMul(const Tensor& x, const Tensor& y,
                                   bool adj_x, bool adj_y) {
  return test::RunOne(test::NodeDefBuilder("m", "BatchMatMulV2")
                          .Inputs(2)
                          .Attr("T", x.dtype())
                          .Attr("adj_x", adj_x)
                          .Attr("adj_y", adj_y)
                          .Build(),
                      {x, y});
}

template <typename T>
Tensor Random(TensorShape shape, std::mt19937* gen) {
  Tensor t(DataTypeToEnum<T>::v(), shape);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  auto f = t.flat<T>();
  for (int64_t i = 0; i < f.size(); ++i) f(i) = static_cast<T>(dist(*gen));
  return t;
}

// Two summation orders of k products of values in [-1, 1] differ by a few
// ulps of k: generous for a correct kernel, far below any indexing error.
template <typename T>
double Tolerance(int64_t k) {
  return (sizeof(T) == 4 ? 2e-6 : 1e-14) * static_cast<double>(k + 1);
}

class MatMulBackendTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::Status status =
        SetMatMulBackendForTesting(MatMulBackendRequest::kOpenBlas);
    if (!status.ok()) GTEST_SKIP() << "no OpenBLAS here: " << status;
  }
  void TearDown() override {
    ASSERT_TRUE(SetMatMulBackendForTesting(MatMulBackendRequest::kAuto).ok());
  }

  // Runs `f` under the eigen and then the openblas backend.
  template <typename F>
  std::pair<absl::StatusOr<Tensor>, absl::StatusOr<Tensor>> Both(F f) {
    EXPECT_TRUE(SetMatMulBackendForTesting(MatMulBackendRequest::kEigen).ok());
    absl::StatusOr<Tensor> eigen = f();
    EXPECT_TRUE(
        SetMatMulBackendForTesting(MatMulBackendRequest::kOpenBlas).ok());
    EXPECT_NE(ActiveMatMulBackend().openblas, nullptr);
    absl::StatusOr<Tensor> openblas = f();
    return {std::move(eigen), std::move(openblas)};
  }

  template <typename T>
  void CheckMatMul(int64_t m, int64_t k, int64_t n) {
    std::mt19937 gen(static_cast<unsigned>(m * 7919 + k * 31 + n));
    for (bool ta : {false, true}) {
      for (bool tb : {false, true}) {
        SCOPED_TRACE(testing::Message() << "m=" << m << " k=" << k << " n="
                                        << n << " ta=" << ta << " tb=" << tb);
        Tensor a = Random<T>(ta ? TensorShape({k, m}) : TensorShape({m, k}),
                             &gen);
        Tensor b = Random<T>(tb ? TensorShape({n, k}) : TensorShape({k, n}),
                             &gen);
        auto [eigen, openblas] = Both([&] { return MatMul(a, b, ta, tb); });
        ASSERT_TRUE(eigen.ok()) << eigen.status();
        ASSERT_TRUE(openblas.ok()) << openblas.status();
        ASSERT_EQ(openblas->shape(), TensorShape({m, n}));
        test::ExpectTensorNear<T>(*openblas, *eigen, Tolerance<T>(k));
      }
    }
  }
};

// (m, k, n): the first ones stay on one thread (under ~4 MFLOP per block),
// the last ones are split over the test device's 4 threads, by rows when
// m >= n, else by columns, with a ragged last block.
const std::vector<std::tuple<int64_t, int64_t, int64_t>>& Shapes() {
  static const auto* shapes =
      new std::vector<std::tuple<int64_t, int64_t, int64_t>>{
          {1, 1, 1},     {1, 64, 300},  {300, 64, 1},   {37, 53, 29},
          {2, 3, 5},     {129, 257, 65}, {300, 190, 257}, {97, 300, 515},
          {1, 1000, 5000}, {5000, 1000, 1}};
  return *shapes;
}

TEST_F(MatMulBackendTest, FloatAllTransposesAndShapes) {
  for (const auto& [m, k, n] : Shapes()) CheckMatMul<float>(m, k, n);
}

TEST_F(MatMulBackendTest, DoubleAllTransposesAndShapes) {
  for (const auto& [m, k, n] : Shapes()) CheckMatMul<double>(m, k, n);
}

TEST_F(MatMulBackendTest, EmptyShapes) {
  // No rows, no columns, or an empty inner dimension (zeros).
  CheckMatMul<float>(0, 5, 3);
  CheckMatMul<float>(3, 5, 0);
  CheckMatMul<float>(3, 0, 4);
  CheckMatMul<double>(3, 0, 4);
  auto out = MatMul(Tensor(DT_FLOAT, TensorShape({2, 0})),
                    Tensor(DT_FLOAT, TensorShape({0, 3})), false, false);
  ASSERT_TRUE(out.ok());
  test::ExpectTensorEqual<float>(
      *out, test::AsTensor<float>({0, 0, 0, 0, 0, 0}, {2, 3}));
}

TEST_F(MatMulBackendTest, IntegersStayOnEigen) {
  // No integer GEMM in BLAS: int32 under the openblas backend is Eigen's.
  Tensor a = test::AsTensor<int32_t>({1, 2, 3, 4, 5, 6}, {2, 3});
  Tensor b = test::AsTensor<int32_t>({1, 0, 0, 1, 1, 1}, {3, 2});
  auto out = MatMul(a, b, false, false);
  ASSERT_TRUE(out.ok()) << out.status();
  test::ExpectTensorEqual<int32_t>(*out,
                                   test::AsTensor<int32_t>({4, 5, 10, 11}, {2, 2}));
}

TEST_F(MatMulBackendTest, BatchMatMulBothPaths) {
  std::mt19937 gen(12);
  // Many small products (one per pool thread, each single-threaded BLAS
  // calls running concurrently) and few large ones (each split over the
  // pool), with broadcasting and adjoints.
  struct Case {
    TensorShape x, y;
  };
  const std::vector<Case> cases = {
      {TensorShape({6, 40, 30}), TensorShape({6, 30, 50})},
      {TensorShape({64, 7, 9}), TensorShape({9, 5})},
      {TensorShape({2, 200, 300}), TensorShape({2, 300, 100})},
  };
  for (const Case& c : cases) {
    for (bool adj_x : {false, true}) {
      for (bool adj_y : {false, true}) {
        TensorShape xs = c.x, ys = c.y;
        auto swap_last = [](TensorShape* s) {
          const int r = s->dims();
          const int64_t rows = s->dim_size(r - 2), cols = s->dim_size(r - 1);
          s->set_dim(r - 2, cols);
          s->set_dim(r - 1, rows);
        };
        if (adj_x) swap_last(&xs);
        if (adj_y) swap_last(&ys);
        SCOPED_TRACE(testing::Message() << xs.DebugString() << " x "
                                        << ys.DebugString() << " adj "
                                        << adj_x << adj_y);
        Tensor x = Random<float>(xs, &gen);
        Tensor y = Random<float>(ys, &gen);
        auto [eigen, openblas] =
            Both([&] { return BatchMatMul(x, y, adj_x, adj_y); });
        ASSERT_TRUE(eigen.ok()) << eigen.status();
        ASSERT_TRUE(openblas.ok()) << openblas.status();
        const int64_t k = adj_x ? xs.dim_size(xs.dims() - 2)
                                : xs.dim_size(xs.dims() - 1);
        test::ExpectTensorNear<float>(*openblas, *eigen, Tolerance<float>(k));
      }
    }
  }
}

TEST(MatMulBackendDefaultTest, SaysWhatItChose) {
  // The environment's choice on this machine, for the test log.
  const MatMulBackendChoice& choice = ActiveMatMulBackend();
  std::printf("MatMul backend: %s\n", choice.description.c_str());
  EXPECT_TRUE(choice.status.ok()) << choice.status;
  // The loader set OPENBLAS_CORETYPE only while loading the library.
  if (choice.openblas != nullptr && choice.openblas->user_core.empty()) {
    EXPECT_EQ(std::getenv("OPENBLAS_CORETYPE"), nullptr);
    EXPECT_EQ(choice.openblas->core, choice.openblas->requested_core);
  }
}

}  // namespace
}  // namespace tributary
