#ifndef TRIBUTARY_KERNELS_TRAINING_TRAINING_FUNCTORS_H_
#define TRIBUTARY_KERNELS_TRAINING_TRAINING_FUNCTORS_H_

// The optimizer update rules on flat views, evaluated on the device's
// thread pool. Same arithmetic, in the same order, as TensorFlow's CPU
// functors, so results agree to rounding.

// Built with -DEIGEN_USE_THREADS (see BUILD.bazel): ThreadPoolDevice.
#include "unsupported/Eigen/CXX11/Tensor"
#include "common/framework/tensor_types.h"

namespace tributary {
namespace functor {

// var -= lr * grad
template <typename T>
struct ApplyGradientDescent {
  template <typename Device>
  void operator()(const Device& d,
                  typename TTypes<T>::Flat var,
                  typename TTypes<T>::ConstScalar lr,
                  typename TTypes<T>::ConstFlat grad) const {
    var.device(d) -= grad * lr();
  }
};

// accum = accum * momentum + grad
// var -= lr * accum                         (classic)
// var -= lr * grad + lr * momentum * accum  (Nesterov)
template <typename T>
struct ApplyMomentum {
  template <typename Device>
  void operator()(const Device& d,
                  typename TTypes<T>::Flat var, typename TTypes<T>::Flat accum,
                  typename TTypes<T>::ConstScalar lr,
                  typename TTypes<T>::ConstFlat grad,
                  typename TTypes<T>::ConstScalar momentum,
                  bool use_nesterov) const {
    accum.device(d) = accum * momentum() + grad;
    if (use_nesterov) {
      var.device(d) -= grad * lr() + accum * momentum() * lr();
    } else {
      var.device(d) -= accum * lr();
    }
  }
};

// alpha = lr * sqrt(1 - beta2^t) / (1 - beta1^t)
// m += (g - m) * (1 - beta1);  v += (g^2 - v) * (1 - beta2)
// var -= alpha * m / (sqrt(v) + eps)                       (classic)
// var -= alpha * (g * (1 - beta1) + beta1 * m) / (sqrt(v) + eps)  (Nesterov)
//
// One fused pass per element range: three expressions over three arrays
// would stream var/m/v through the cache three times.
template <typename T>
struct ApplyAdam {
  void operator()(const Eigen::ThreadPoolDevice& d,
                  typename TTypes<T>::Flat var, typename TTypes<T>::Flat m,
                  typename TTypes<T>::Flat v,
                  typename TTypes<T>::ConstScalar beta1_power,
                  typename TTypes<T>::ConstScalar beta2_power,
                  typename TTypes<T>::ConstScalar lr,
                  typename TTypes<T>::ConstScalar beta1,
                  typename TTypes<T>::ConstScalar beta2,
                  typename TTypes<T>::ConstScalar epsilon,
                  typename TTypes<T>::ConstFlat grad,
                  bool use_nesterov) const {
    const T alpha = lr() * Eigen::numext::sqrt(T(1) - beta2_power()) /
                    (T(1) - beta1_power());
    const T b1 = beta1();
    const T b2 = beta2();
    const T eps = epsilon();
    T* var_ptr = var.data();
    T* m_ptr = m.data();
    T* v_ptr = v.data();
    const T* g_ptr = grad.data();
    auto shard = [=](Eigen::Index begin, Eigen::Index end) {
      using Vec = Eigen::TensorMap<Eigen::Tensor<T, 1, Eigen::RowMajor>>;
      using ConstVec =
          Eigen::TensorMap<Eigen::Tensor<const T, 1, Eigen::RowMajor>>;
      const Eigen::Index n = end - begin;
      Vec var_s(var_ptr + begin, n);
      Vec m_s(m_ptr + begin, n);
      Vec v_s(v_ptr + begin, n);
      ConstVec g(g_ptr + begin, n);
      m_s += (g - m_s) * (T(1) - b1);
      v_s += (g.square() - v_s) * (T(1) - b2);
      if (use_nesterov) {
        var_s -= ((g * (T(1) - b1) + b1 * m_s) * alpha) / (v_s.sqrt() + eps);
      } else {
        var_s -= (m_s * alpha) / (v_s.sqrt() + eps);
      }
    };
    // Per element: 4 arrays read, 3 written, ~20 flops and a divide.
    const Eigen::TensorOpCost cost(4 * sizeof(T), 3 * sizeof(T),
                                   20 + Eigen::TensorOpCost::DivCost<T>());
    d.parallelFor(var.size(), cost, shard);
  }
};

}  // namespace functor
}  // namespace tributary

#endif  // TRIBUTARY_KERNELS_TRAINING_TRAINING_FUNCTORS_H_
