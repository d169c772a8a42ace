#ifndef TRIBUTARY_KERNELS_MATH_MATMUL_FUNCTOR_H_
#define TRIBUTARY_KERNELS_MATH_MATMUL_FUNCTOR_H_

// out = op(a) * op(b) for row-major matrices, op = transpose or identity.
// float and double go to the process's MatMul backend (matmul_backend.h:
// OpenBLAS's gemm when available, see matmul_blas.h); everything else, and
// float/double under the eigen backend, is one Eigen tensor contraction.
// half and bfloat16 are widened to float and go the float way. Defined (and
// explicitly instantiated for float, double, int32, int64, half, bfloat16,
// complex64, complex128) in matmul_functor.cc, so MatMul and BatchMatMulV2
// share a single copy of Eigen's contraction code: the biggest template in
// the math kernels. Transposes here never conjugate; BatchMatMulV2's adjoints
// of complex matrices conjugate a copy first.

#include <cstdint>
#include <type_traits>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/framework/tensor.h"
#include "common/framework/tensor_types.h"
#include "kernels/math/matmul_backend.h"
#include "unsupported/Eigen/CXX11/Tensor"

namespace tributary {
namespace functor {

// The [m, n] shape of op(a) * op(b), and its inner size k, with TensorFlow's
// MatMul checks and messages (InvalidArgument unless a and b are matrices
// whose inner dimensions agree). MatMul and _FusedMatMul share it.
absl::StatusOr<TensorShape> MatMulOutputShape(const Tensor& a, const Tensor& b,
                                              bool transpose_a, bool transpose_b,
                                              int64_t* k);

// Whether T's products may go to BLAS (which has no integer GEMM).
template <typename T>
constexpr bool kBlasType =
    std::is_same_v<T, float> || std::is_same_v<T, double>;

// Not OK when the backend the user asked for cannot serve T (e.g.
// TRIBUTARY_MATMUL_BACKEND=openblas without OpenBLAS). Kernels check it
// before computing, so a misconfiguration fails the step with its reason.
template <typename T>
absl::Status MatMulBackendStatus() {
  if constexpr (kBlasType<T>) return ActiveMatMulBackend().status;
  return absl::OkStatus();
}

// On the device's thread pool: the product is split into blocks that run
// on all pool threads (for a large single product).
template <typename T>
void MatMul(const Eigen::ThreadPoolDevice& d, typename TTypes<T>::Matrix out,
            typename TTypes<T>::ConstMatrix a,
            typename TTypes<T>::ConstMatrix b, bool transpose_a,
            bool transpose_b);

// On the calling thread only (for many small products run in parallel).
template <typename T>
void MatMulSingleThread(typename TTypes<T>::Matrix out,
                        typename TTypes<T>::ConstMatrix a,
                        typename TTypes<T>::ConstMatrix b, bool transpose_a,
                        bool transpose_b);

}  // namespace functor
}  // namespace tributary

#endif  // TRIBUTARY_KERNELS_MATH_MATMUL_FUNCTOR_H_
