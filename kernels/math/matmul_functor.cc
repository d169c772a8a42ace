#include "kernels/math/matmul_functor.h"

#include <cstdint>

#include "kernels/math/matmul_blas.h"

namespace tributary {
namespace functor {
namespace {

// Contract a's dimension 1 (0 when transposed) with b's 0 (1 when
// transposed): a transpose costs nothing, Eigen packs panels either way.
Eigen::array<Eigen::IndexPair<Eigen::DenseIndex>, 1> ContractDims(
    bool transpose_a, bool transpose_b) {
  Eigen::array<Eigen::IndexPair<Eigen::DenseIndex>, 1> dims;
  dims[0].first = transpose_a ? 0 : 1;
  dims[0].second = transpose_b ? 1 : 0;
  return dims;
}

// True when OpenBLAS computed the product (float/double under the openblas
// backend); false: the caller runs Eigen's contraction.
template <typename T>
bool TryBlas(const Eigen::ThreadPoolDevice* d, typename TTypes<T>::Matrix out,
             typename TTypes<T>::ConstMatrix a,
             typename TTypes<T>::ConstMatrix b, bool transpose_a,
             bool transpose_b) {
  if constexpr (kBlasType<T>) {
    const blas::OpenBlas* openblas = ActiveMatMulBackend().openblas;
    if (openblas == nullptr || out.size() == 0) return false;
    const int64_t k = a.dimension(transpose_a ? 0 : 1);
    if (k == 0) return false;  // BLAS asks lda >= 1; Eigen writes the zeros
    return BlasMatMul<T>(*openblas, d, out.data(), a.data(), b.data(),
                         out.dimension(0), out.dimension(1), k, transpose_a,
                         transpose_b);
  }
  return false;
}

}  // namespace

template <typename T>
void MatMul(const Eigen::ThreadPoolDevice& d, typename TTypes<T>::Matrix out,
            typename TTypes<T>::ConstMatrix a,
            typename TTypes<T>::ConstMatrix b, bool transpose_a,
            bool transpose_b) {
  if (TryBlas<T>(&d, out, a, b, transpose_a, transpose_b)) return;
  out.device(d) = a.contract(b, ContractDims(transpose_a, transpose_b));
}

template <typename T>
void MatMulSingleThread(typename TTypes<T>::Matrix out,
                        typename TTypes<T>::ConstMatrix a,
                        typename TTypes<T>::ConstMatrix b, bool transpose_a,
                        bool transpose_b) {
  if (TryBlas<T>(nullptr, out, a, b, transpose_a, transpose_b)) return;
  out = a.contract(b, ContractDims(transpose_a, transpose_b));
}

#define INSTANTIATE(T)                                                       \
  template void MatMul<T>(const Eigen::ThreadPoolDevice&,                   \
                          TTypes<T>::Matrix, TTypes<T>::ConstMatrix,        \
                          TTypes<T>::ConstMatrix, bool, bool);              \
  template void MatMulSingleThread<T>(TTypes<T>::Matrix,                    \
                                      TTypes<T>::ConstMatrix,               \
                                      TTypes<T>::ConstMatrix, bool, bool);
INSTANTIATE(float)
INSTANTIATE(double)
INSTANTIATE(int32_t)
INSTANTIATE(int64_t)
#undef INSTANTIATE

}  // namespace functor
}  // namespace tributary
