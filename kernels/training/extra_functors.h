#ifndef TRIBUTARY_KERNELS_TRAINING_EXTRA_FUNCTORS_H_
#define TRIBUTARY_KERNELS_TRAINING_EXTRA_FUNCTORS_H_

// Update rules of the less common tf.compat.v1 / Keras optimizers:
// Adadelta, ProximalGradientDescent, ProximalAdagrad, AdagradDA, AdaMax,
// AddSign, PowerSign and KerasMomentum. Contract: flat views of equal size,
// scalars already checked by the kernel; the arithmetic follows TensorFlow's
// CPU functors term by term, so results agree with TensorFlow to rounding.

#include <cmath>

// Built with -DEIGEN_USE_THREADS (see BUILD.bazel): ThreadPoolDevice.
#include "common/framework/tensor_types.h"
#include "unsupported/Eigen/CXX11/Tensor"

namespace tributary {
namespace functor {

template <typename T>
using Flat = typename TTypes<T>::Flat;
template <typename T>
using ConstFlat = typename TTypes<T>::ConstFlat;

// accum = rho * accum + (1 - rho) * grad^2
// update = sqrt(accum_update + eps) / sqrt(accum + eps) * grad
// var -= lr * update
// accum_update = rho * accum_update + (1 - rho) * update^2
template <typename T>
struct ApplyAdadelta {
  template <typename Device>
  void operator()(const Device& d, Flat<T> var, Flat<T> accum,
                  Flat<T> accum_update, T lr, T rho, T epsilon,
                  ConstFlat<T> grad) const {
    accum.device(d) = accum * rho + grad.square() * (T(1) - rho);
    const auto update =
        (accum_update + epsilon).sqrt() * (accum + epsilon).rsqrt() * grad;
    var.device(d) -= update * lr;
    accum_update.device(d) =
        accum_update * rho + update.square() * (T(1) - rho);
  }
};

// The proximal step shared by the two proximal optimizers, with per-element
// step size `step` (a scalar lr, or lr / sqrt(accum)):
//   prox = var - step * grad
//   var = sign(prox) * max(|prox| - step * l1, 0) / (1 + step * l2)  (l1 > 0)
//   var = prox / (1 + step * l2)                                     (else)
template <typename T, typename Device, typename Step>
void ProximalStep(const Device& d, Flat<T> var,
                  const Step& step, T l1, T l2, ConstFlat<T> grad) {
  const auto prox = var - grad * step;
  if (l1 > T(0)) {
    var.device(d) = prox.sign() * (prox.abs() - step * l1).cwiseMax(T(0)) /
                    (step * l2 + T(1));
  } else {
    var.device(d) = prox / (step * l2 + T(1));
  }
}

// ProximalGradientDescent: the proximal step with step size alpha.
template <typename T>
struct ApplyProximalGradientDescent {
  template <typename Device>
  void operator()(const Device& d, Flat<T> var, T alpha, T l1,
                  T l2, ConstFlat<T> delta) const {
    ProximalStep<T>(d, var, var.constant(alpha), l1, l2, delta);
  }
};

// ProximalAdagrad: accum += grad^2, then the proximal step with step size
// lr / sqrt(accum).
template <typename T>
struct ApplyProximalAdagrad {
  template <typename Device>
  void operator()(const Device& d, Flat<T> var, Flat<T> accum,
                  T lr, T l1, T l2, ConstFlat<T> grad) const {
    accum.device(d) += grad.square();
    ProximalStep<T>(d, var, accum.rsqrt() * lr, l1, l2, grad);
  }
};

// AdagradDA, with g, gg the accumulated gradient and squared gradient and
// t = global_step:
//   g += grad; gg += grad^2
//   var = -sign(g) * lr * max(|g| - l1 * t, 0) / (l2 * t * lr + sqrt(gg))  (l1
//   > 0) var = -g * lr / (l2 * t * lr + sqrt(gg)) (else)
template <typename T>
struct ApplyAdagradDA {
  template <typename Device>
  void operator()(const Device& d, Flat<T> var,
                  Flat<T> gradient_accum, Flat<T> gradient_squared_accum,
                  ConstFlat<T> grad, T lr, T l1, T l2, T global_step) const {
    gradient_accum.device(d) += grad;
    gradient_squared_accum.device(d) += grad.square();
    const auto denom = gradient_squared_accum.sqrt() + l2 * (global_step * lr);
    if (l1 > T(0)) {
      var.device(d) = gradient_accum.sign() * (-lr) *
                      (gradient_accum.abs() - global_step * l1).cwiseMax(T(0)) /
                      denom;
    } else {
      var.device(d) = gradient_accum * (-lr) / denom;
    }
  }
};

// m += (grad - m) * (1 - beta1); v = max(beta2 * v, |grad|)
// var -= lr / (1 - beta1_power) * m / (v + epsilon)
template <typename T>
struct ApplyAdaMax {
  template <typename Device>
  void operator()(const Device& d, Flat<T> var, Flat<T> m,
                  Flat<T> v, T beta1_power, T lr, T beta1, T beta2, T epsilon,
                  ConstFlat<T> grad) const {
    m.device(d) += (grad - m) * (T(1) - beta1);
    v.device(d) = (v * beta2).cwiseMax(grad.abs());
    var.device(d) -= (m / (v + epsilon)) * (lr / (T(1) - beta1_power));
  }
};

// AddSign (power_sign == false):
//   m = beta * m + (1 - beta) * grad
//   var -= lr * (alpha + sign_decay * sign(grad) * sign(m)) * grad
// PowerSign (power_sign == true; `alpha_or_logbase` is logbase):
//   var -= lr * exp(logbase * sign_decay * sign(grad) * sign(m)) * grad
template <typename T>
struct ApplySign {
  template <typename Device>
  void operator()(const Device& d, Flat<T> var, Flat<T> m,
                  T lr, T alpha_or_logbase, T sign_decay, T beta,
                  ConstFlat<T> grad, bool power_sign) const {
    m.device(d) = m * beta + grad * (T(1) - beta);
    const auto sign_gm = grad.sign() * m.sign();
    if (power_sign) {
      var.device(d) -=
          (sign_gm * (alpha_or_logbase * sign_decay)).exp() * lr * grad;
    } else {
      var.device(d) -= (sign_gm * sign_decay + alpha_or_logbase) * lr * grad;
    }
  }
};

// accum = accum * momentum - lr * grad
// var += accum                              (classic)
// var += accum * momentum - lr * grad       (Nesterov)
template <typename T>
struct ApplyKerasMomentum {
  template <typename Device>
  void operator()(const Device& d, Flat<T> var, Flat<T> accum,
                  T lr, ConstFlat<T> grad, T momentum,
                  bool use_nesterov) const {
    accum.device(d) = accum * momentum - grad * lr;
    if (use_nesterov) {
      var.device(d) += accum * momentum - grad * lr;
    } else {
      var.device(d) += accum;
    }
  }
};

}  // namespace functor
}  // namespace tributary

#endif  // TRIBUTARY_KERNELS_TRAINING_EXTRA_FUNCTORS_H_
