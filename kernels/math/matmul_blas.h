#ifndef TRIBUTARY_KERNELS_MATH_MATMUL_BLAS_H_
#define TRIBUTARY_KERNELS_MATH_MATMUL_BLAS_H_

// out[m,n] = op(a) * op(b) with OpenBLAS's sgemm/dgemm, for row-major
// matrices (a is [m,k], or [k,m] when transpose_a; b is [k,n], or [n,k]).
//
// OpenBLAS runs single-threaded; we split the output into blocks of rows
// (or of columns, when it is wider than tall) and run one block per thread
// of the device's Eigen pool, the calling thread taking one. So MatMul uses
// exactly intra_op_parallelism_threads cores, and no OpenBLAS thread is left
// busy-waiting after the call (which its own threading does).

#include <cstdint>

#include "kernels/math/blas_loader.h"
#include "unsupported/Eigen/CXX11/Tensor"

namespace tributary {
namespace functor {

// `device` == nullptr: on the calling thread only. Returns false (computing
// nothing) when a dimension does not fit BLAS's 32-bit int; the caller then
// uses Eigen. m, n, k > 0.
template <typename T>
bool BlasMatMul(const blas::OpenBlas& blas,
                const Eigen::ThreadPoolDevice* device, T* out, const T* a,
                const T* b, int64_t m, int64_t n, int64_t k, bool transpose_a,
                bool transpose_b);

}  // namespace functor
}  // namespace tributary

#endif  // TRIBUTARY_KERNELS_MATH_MATMUL_BLAS_H_
