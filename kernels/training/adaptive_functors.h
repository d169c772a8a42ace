#ifndef TRIBUTARY_KERNELS_TRAINING_ADAPTIVE_FUNCTORS_H_
#define TRIBUTARY_KERNELS_TRAINING_ADAPTIVE_FUNCTORS_H_

// Update rules of the optimizers that scale the step per element by a
// running second-moment estimate: Adagrad (V1 and V2) and RMSProp (plain and
// centered). Contract: flat views of equal size, scalars already checked by
// the kernel; the arithmetic follows TensorFlow's CPU functors term by term,
// so results agree with TensorFlow to rounding.

// Built with -DEIGEN_USE_THREADS (see BUILD.bazel): ThreadPoolDevice.
#include "common/framework/tensor_types.h"
#include "unsupported/Eigen/CXX11/Tensor"

namespace tributary {
namespace functor {

// accum += grad^2 (only with update_slots)
// var -= lr * grad / sqrt(accum)                (V1: epsilon == nullptr)
// var -= lr * grad / (sqrt(accum) + epsilon)    (V2)
template <typename T>
struct ApplyAdagrad {
  template <typename Device>
  void operator()(const Device& d,
                  typename TTypes<T>::Flat var, typename TTypes<T>::Flat accum,
                  typename TTypes<T>::ConstScalar lr, const T* epsilon,
                  typename TTypes<T>::ConstFlat grad, bool update_slots) const {
    if (update_slots) accum.device(d) += grad.square();
    if (epsilon == nullptr) {
      var.device(d) -= grad * lr() * accum.rsqrt();
    } else {
      var.device(d) -= grad * lr() / (accum.sqrt() + *epsilon);
    }
  }
};

// ms += (grad^2 - ms) * (1 - rho)
// mg += (grad - mg) * (1 - rho)                          (centered only)
// mom = mom * momentum + lr * grad / sqrt(ms + epsilon)           (plain)
// mom = mom * momentum + lr * grad / sqrt(ms - mg^2 + epsilon)    (centered)
// var -= mom
// `mg` is null for the plain form.
template <typename T>
struct ApplyRMSProp {
  template <typename Device>
  void operator()(const Device& d,
                  typename TTypes<T>::Flat var, typename TTypes<T>::Flat* mg,
                  typename TTypes<T>::Flat ms, typename TTypes<T>::Flat mom,
                  typename TTypes<T>::ConstScalar lr,
                  typename TTypes<T>::ConstScalar rho,
                  typename TTypes<T>::ConstScalar momentum,
                  typename TTypes<T>::ConstScalar epsilon,
                  typename TTypes<T>::ConstFlat grad) const {
    const T one_minus_rho = T(1) - rho();
    ms.device(d) += (grad.square() - ms) * one_minus_rho;
    if (mg == nullptr) {
      mom.device(d) =
          mom * momentum() + (grad * lr()) / ((ms + epsilon()).sqrt());
    } else {
      mg->device(d) += (grad - *mg) * one_minus_rho;
      mom.device(d) = mom * momentum() +
                      (grad * lr()) / ((ms - mg->square()) + epsilon()).sqrt();
    }
    var.device(d) -= mom;
  }
};

}  // namespace functor
}  // namespace tributary

#endif  // TRIBUTARY_KERNELS_TRAINING_ADAPTIVE_FUNCTORS_H_
