#include "kernels/math/matmul_blas.h"

#include <algorithm>
#include <limits>

namespace tributary {
namespace functor {
namespace {

// Below this many flops per block a product is not split further: a block
// of ~4 MFLOP takes some 20-40 us on one core, well above the cost of waking
// a pool thread (a few us), so splitting smaller products would not pay.
constexpr double kMinFlopsPerBlock = 4.0 * (1 << 20);

// Block boundaries fall on multiples of this many rows/columns, a multiple
// of OpenBLAS's register-block sizes (16 or 32 for float on AVX-512, 8 or 16
// for double), so no block but the last runs OpenBLAS's slower edge kernels.
constexpr int64_t kAlign = 32;

void Gemm(const blas::OpenBlas& blas, int ta, int tb, int m, int n, int k,
          const float* a, int lda, const float* b, int ldb, float* c,
          int ldc) {
  blas.sgemm(blas::kCblasRowMajor, ta, tb, m, n, k, 1.0f, a, lda, b, ldb,
             0.0f, c, ldc);
}

void Gemm(const blas::OpenBlas& blas, int ta, int tb, int m, int n, int k,
          const double* a, int lda, const double* b, int ldb, double* c,
          int ldc) {
  blas.dgemm(blas::kCblasRowMajor, ta, tb, m, n, k, 1.0, a, lda, b, ldb, 0.0,
             c, ldc);
}

}  // namespace

template <typename T>
bool BlasMatMul(const blas::OpenBlas& blas,
                const Eigen::ThreadPoolDevice* device, T* out, const T* a,
                const T* b, int64_t m, int64_t n, int64_t k, bool transpose_a,
                bool transpose_b) {
  constexpr int64_t kIntMax = std::numeric_limits<int>::max();
  if (m > kIntMax || n > kIntMax || k > kIntMax) return false;
  // Leading dimensions of the row-major storage: a is [m,k] or [k,m].
  const int64_t lda = transpose_a ? m : k;
  const int64_t ldb = transpose_b ? k : n;
  const int64_t ldc = n;
  const int ta = transpose_a ? blas::kCblasTrans : blas::kCblasNoTrans;
  const int tb = transpose_b ? blas::kCblasTrans : blas::kCblasNoTrans;

  // Split the longer side of the output: rows of op(a) or columns of op(b).
  const bool split_rows = m >= n;
  const int64_t extent = split_rows ? m : n;
  const double flops = 2.0 * m * n * k;
  int64_t blocks = 1;
  if (device != nullptr && device->numThreads() > 1) {
    blocks = std::min<int64_t>(
        device->numThreads(),
        std::max<int64_t>(1, static_cast<int64_t>(flops / kMinFlopsPerBlock)));
  }
  int64_t chunk = (extent + blocks - 1) / blocks;
  if (blocks > 1) chunk = (chunk + kAlign - 1) / kAlign * kAlign;
  blocks = (extent + chunk - 1) / chunk;

  auto run = [&](int64_t block) {
    const int64_t begin = block * chunk;
    const int64_t size = std::min(chunk, extent - begin);
    if (split_rows) {
      // Rows [begin, begin+size) of op(a): rows of a, or columns of a^T.
      const T* a_block = transpose_a ? a + begin : a + begin * lda;
      Gemm(blas, ta, tb, size, n, k, a_block, lda, b, ldb, out + begin * ldc,
           ldc);
    } else {
      // Columns [begin, begin+size) of op(b): columns of b, or rows of b^T.
      const T* b_block = transpose_b ? b + begin * ldb : b + begin;
      Gemm(blas, ta, tb, m, size, k, a, lda, b_block, ldb, out + begin, ldc);
    }
  };
  if (blocks == 1) {
    run(0);
    return true;
  }
  Eigen::Barrier done(static_cast<unsigned>(blocks - 1));
  for (int64_t block = 1; block < blocks; ++block) {
    device->enqueueNoNotification([&run, &done, block] {
      run(block);
      done.Notify();
    });
  }
  run(0);
  done.Wait();
  return true;
}

template bool BlasMatMul<float>(const blas::OpenBlas&,
                                const Eigen::ThreadPoolDevice*, float*,
                                const float*, const float*, int64_t, int64_t,
                                int64_t, bool, bool);
template bool BlasMatMul<double>(const blas::OpenBlas&,
                                 const Eigen::ThreadPoolDevice*, double*,
                                 const double*, const double*, int64_t,
                                 int64_t, int64_t, bool, bool);

}  // namespace functor
}  // namespace tributary
