#include "kernels/math/matmul_functor.h"

#include <cstdint>

#include "common/framework/status.h"
#include "kernels/math/matmul_blas.h"

namespace tributary {
namespace functor {

absl::StatusOr<TensorShape> MatMulOutputShape(const Tensor& a, const Tensor& b,
                                              bool transpose_a, bool transpose_b,
                                              int64_t* k) {
  // TensorFlow's CPU MatMul is its BatchMatMul kernel in "legacy" mode;
  // same checks, same messages.
  if (a.dims() != b.dims()) {
    return errors::InvalidArgument("In[0] and In[1] has different ndims: ",
                                   a.shape().DebugString(), " vs. ",
                                   b.shape().DebugString());
  }
  if (a.dims() != 2) {
    return errors::InvalidArgument("In[0] and In[1] ndims must be == 2: ",
                                   a.dims());
  }
  *k = a.dim_size(transpose_a ? 0 : 1);
  if (*k != b.dim_size(transpose_b ? 1 : 0)) {
    return errors::InvalidArgument("Matrix size-incompatible: In[0]: ",
                                   a.shape().DebugString(), ", In[1]: ",
                                   b.shape().DebugString());
  }
  return TensorShape(
      {a.dim_size(transpose_a ? 1 : 0), b.dim_size(transpose_b ? 0 : 1)});
}

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

// half and bfloat16 (Keras mixed precision): widened to float, multiplied by
// the float path (BLAS), rounded once at the end; TensorFlow's CPU kernels
// also accumulate these in float.
template <typename T>
constexpr bool kWidenedType = std::is_same_v<T, Eigen::half> ||
                              std::is_same_v<T, Eigen::bfloat16>;

template <typename T>
void WidenedMatMul(const Eigen::ThreadPoolDevice* d,
                   typename TTypes<T>::Matrix out,
                   typename TTypes<T>::ConstMatrix a,
                   typename TTypes<T>::ConstMatrix b, bool transpose_a,
                   bool transpose_b);

template <typename T>
void MatMul(const Eigen::ThreadPoolDevice& d, typename TTypes<T>::Matrix out,
            typename TTypes<T>::ConstMatrix a,
            typename TTypes<T>::ConstMatrix b, bool transpose_a,
            bool transpose_b) {
  if constexpr (kWidenedType<T>) {
    WidenedMatMul<T>(&d, out, a, b, transpose_a, transpose_b);
    return;
  }
  if (TryBlas<T>(&d, out, a, b, transpose_a, transpose_b)) return;
  out.device(d) = a.contract(b, ContractDims(transpose_a, transpose_b));
}

template <typename T>
void MatMulSingleThread(typename TTypes<T>::Matrix out,
                        typename TTypes<T>::ConstMatrix a,
                        typename TTypes<T>::ConstMatrix b, bool transpose_a,
                        bool transpose_b) {
  if constexpr (kWidenedType<T>) {
    WidenedMatMul<T>(nullptr, out, a, b, transpose_a, transpose_b);
    return;
  }
  if (TryBlas<T>(nullptr, out, a, b, transpose_a, transpose_b)) return;
  out = a.contract(b, ContractDims(transpose_a, transpose_b));
}

template <typename T>
void WidenedMatMul(const Eigen::ThreadPoolDevice* d,
                   typename TTypes<T>::Matrix out,
                   typename TTypes<T>::ConstMatrix a,
                   typename TTypes<T>::ConstMatrix b, bool transpose_a,
                   bool transpose_b) {
  Eigen::Tensor<float, 2, Eigen::RowMajor> wa = a.template cast<float>();
  Eigen::Tensor<float, 2, Eigen::RowMajor> wb = b.template cast<float>();
  Eigen::Tensor<float, 2, Eigen::RowMajor> wout(out.dimension(0),
                                                out.dimension(1));
  TTypes<float>::Matrix wout_map(wout.data(), out.dimension(0),
                                 out.dimension(1));
  TTypes<float>::ConstMatrix wa_map(wa.data(), a.dimension(0), a.dimension(1));
  TTypes<float>::ConstMatrix wb_map(wb.data(), b.dimension(0), b.dimension(1));
  if (d != nullptr) {
    MatMul<float>(*d, wout_map, wa_map, wb_map, transpose_a, transpose_b);
  } else {
    MatMulSingleThread<float>(wout_map, wa_map, wb_map, transpose_a,
                              transpose_b);
  }
  out = wout.template cast<T>();
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
INSTANTIATE(int16_t)
INSTANTIATE(int32_t)
INSTANTIATE(int64_t)
INSTANTIATE(Eigen::half)
INSTANTIATE(Eigen::bfloat16)
INSTANTIATE(complex64)
INSTANTIATE(complex128)
#undef INSTANTIATE

}  // namespace functor
}  // namespace tributary
