// Qr: Q orthonormal, R upper triangular, Q R = A, for tall, wide, square and
// batched inputs, thin and full; bad rank is INVALID_ARGUMENT.
#include <cmath>
#include <vector>

#include "gtest/gtest.h"
#include "kernels/math/math_test_util.h"

namespace tributary {
namespace {

using test::AsTensor;

absl::StatusOr<std::vector<Tensor>> RunQr(const Tensor& a, bool full) {
  return test::RunKernel(test::NodeDefBuilder("qr", "Qr")
                             .Input("input")
                             .Attr("T", a.dtype())
                             .Attr("full_matrices", full)
                             .Build(),
                         {a});
}

// Checks one [m, n] matrix of a batch: shapes, Q^T Q = I, R upper, QR = A.
template <typename T>
void CheckFactors(const T* a, const T* q, const T* r, int m, int n, int p,
                  double tol) {
  for (int i = 0; i < p; ++i) {
    for (int j = 0; j < p; ++j) {
      double dot = 0;
      for (int k = 0; k < m; ++k) dot += double(q[k * p + i]) * q[k * p + j];
      EXPECT_NEAR(dot, i == j ? 1.0 : 0.0, tol) << "Q^T Q at " << i << "," << j;
    }
    for (int j = 0; j < std::min(i, n); ++j) EXPECT_EQ(r[i * n + j], T(0));
  }
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) {
      double sum = 0;
      for (int k = 0; k < p; ++k) sum += double(q[i * p + k]) * r[k * n + j];
      EXPECT_NEAR(sum, a[i * n + j], tol) << "QR at " << i << "," << j;
    }
  }
}

template <typename T>
class QrTest : public ::testing::Test {};
using FloatTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(QrTest, FloatTypes);

TYPED_TEST(QrTest, ThinAndFullOfTallWideAndBatched) {
  using T = TypeParam;
  for (const auto& dims :
       std::vector<std::vector<int64_t>>{{4, 3}, {3, 5}, {3, 3}, {2, 4, 2}}) {
    int64_t size = 1;
    for (int64_t d : dims) size *= d;
    std::vector<T> values(size);
    for (int64_t i = 0; i < size; ++i) values[i] = T(std::sin(1.7 * i + 0.3));
    Tensor a = AsTensor<T>(values, TensorShape(dims));
    const int m = dims[dims.size() - 2], n = dims.back();
    const int batch = size / (m * n);
    for (bool full : {false, true}) {
      auto out = RunQr(a, full);
      ASSERT_TRUE(out.ok()) << out.status();
      const int p = full ? m : std::min(m, n);
      const Tensor& q = (*out)[0];
      const Tensor& r = (*out)[1];
      EXPECT_EQ(q.dim_size(q.dims() - 2), m);
      EXPECT_EQ(q.dim_size(q.dims() - 1), p);
      EXPECT_EQ(r.dim_size(r.dims() - 2), p);
      EXPECT_EQ(r.dim_size(r.dims() - 1), n);
      for (int b = 0; b < batch; ++b) {
        CheckFactors<T>(a.flat<T>().data() + b * m * n,
                        q.flat<T>().data() + b * m * p,
                        r.flat<T>().data() + b * p * n, m, n, p, 1e-5);
      }
    }
  }
}

TEST(QrTest, RankBelowTwoIsInvalidArgument) {
  auto out = RunQr(AsTensor<float>({1, 2, 3}), false);
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(QrTest, EmptyMatrix) {
  auto out = RunQr(Tensor(DT_FLOAT, TensorShape({3, 0})), true);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape(), TensorShape({3, 3}));
  EXPECT_EQ((*out)[0].flat<float>()(0), 1.0f);
  EXPECT_EQ((*out)[1].shape(), TensorShape({3, 0}));
}

}  // namespace
}  // namespace tributary
