#ifndef TRIBUTARY_KERNELS_TRAINING_FTRL_FUNCTOR_H_
#define TRIBUTARY_KERNELS_TRAINING_FTRL_FUNCTOR_H_

// The FTRL-proximal update (ApplyFtrl, ApplyFtrlV2 and their resource
// forms). Contract: flat views of equal size; the hyperparameters are not
// range-checked (TensorFlow's dense kernel does not either), so a bad one
// gives TensorFlow's inf/NaN, not an error. Per element, with p(x) =
// x^(-lr_power) (sqrt when lr_power == -0.5, as TensorFlow special-cases it):
//
//   g' = grad + 2 * l2_shrinkage * var        (V2; grad itself for V1)
//   new_accum = accum + grad^2
//   linear += g' - (p(new_accum) - p(accum)) / lr * var
//   var = |linear| > l1 ? (l1 * sign(linear) - linear)
//                         / (p(new_accum) / lr + 2 * l2) : 0
//   accum = new_accum
//
// With multiply_linear_by_lr, linear is kept pre-multiplied by lr:
//   linear += g' * lr - (p(new_accum) - p(accum)) * var, and l1, l2 are
//   scaled by lr in the shrinkage step instead of dividing p by lr.
//
// One fused pass per element range (var, accum and linear are each read
// and written once), evaluated on the device's thread pool.

#include <cmath>

// Built with -DEIGEN_USE_THREADS (see BUILD.bazel): ThreadPoolDevice.
#include "common/framework/tensor_types.h"
#include "unsupported/Eigen/CXX11/Tensor"

namespace tributary {
namespace functor {

template <typename T>
struct ApplyFtrl {
  struct Params {
    T lr, l1, l2, lr_power;
    const T* l2_shrinkage;  // Null for V1.
    bool multiply_linear_by_lr;
  };

  // The rule on n consecutive elements. The dense kernel shards its
  // tensors over the device's pool with it; the sparse ones call it once per
  // indexed row.
  static void Update(const Params& p, T* var_ptr, T* accum_ptr, T* linear_ptr,
                     const T* g_ptr, Eigen::Index n) {
    const bool sqrt_power = p.lr_power == T(-0.5);
    const T neg_power = -p.lr_power;
    const T shrink2 = p.l2_shrinkage ? T(2) * *p.l2_shrinkage : T(0);
    const bool has_shrink = p.l2_shrinkage != nullptr;
    auto pw = [=](T x) {
      return sqrt_power ? T(Eigen::numext::sqrt(x))
                        : T(Eigen::numext::pow(x, neg_power));
    };
    for (Eigen::Index i = 0; i < n; ++i) {
      const T g = g_ptr[i];
      const T w = var_ptr[i];
      const T gs = has_shrink ? g + shrink2 * w : g;
      const T a = accum_ptr[i];
      const T na = a + g * g;
      const T pn = pw(na);
      T lin = linear_ptr[i];
      T threshold, y;
      if (p.multiply_linear_by_lr) {
        lin += gs * p.lr - (pn - pw(a)) * w;
        threshold = p.l1 * p.lr;
        y = pn + T(2) * p.l2 * p.lr;
      } else {
        lin += gs - (pn - pw(a)) / p.lr * w;
        threshold = p.l1;
        y = pn / p.lr + T(2) * p.l2;
      }
      const T sign = lin > T(0) ? T(1) : (lin < T(0) ? T(-1) : T(0));
      linear_ptr[i] = lin;
      var_ptr[i] = Eigen::numext::abs(lin) > threshold
                       ? (threshold * sign - lin) / y
                       : T(0);
      accum_ptr[i] = na;
    }
  }

  void operator()(const Eigen::ThreadPoolDevice& d,
                  typename TTypes<T>::Flat var, typename TTypes<T>::Flat accum,
                  typename TTypes<T>::Flat linear,
                  typename TTypes<T>::ConstFlat grad, const Params& p) const {
    T* var_ptr = var.data();
    T* accum_ptr = accum.data();
    T* linear_ptr = linear.data();
    const T* g_ptr = grad.data();
    auto shard = [=, &p](Eigen::Index begin, Eigen::Index end) {
      Update(p, var_ptr + begin, accum_ptr + begin, linear_ptr + begin,
             g_ptr + begin, end - begin);
    };
    // Per element: 4 arrays read, 3 written, two pows (or sqrts), a divide.
    const Eigen::TensorOpCost cost(4 * sizeof(T), 3 * sizeof(T),
                                   60 + Eigen::TensorOpCost::DivCost<T>());
    d.parallelFor(var.size(), cost, shard);
  }
};

}  // namespace functor
}  // namespace tributary

#endif  // TRIBUTARY_KERNELS_TRAINING_FTRL_FUNCTOR_H_
