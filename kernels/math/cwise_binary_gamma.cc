// The special functions of two arguments around the gamma function, float
// and double as TensorFlow's CPU registers them: Igamma, Igammac (the
// regularized incomplete gamma functions), IgammaGradA (dIgamma/da),
// RandomGammaGrad (d sample / d alpha of a Gamma(alpha) sample, the gradient
// TensorFlow's autodiff gives tf.random.gamma), Zeta (Hurwitz) and
// Polygamma. Elementwise with broadcasting; all are Eigen's special
// functions, the ones TensorFlow's kernels evaluate.
#include "kernels/math/cwise_ops.h"
#include "unsupported/Eigen/SpecialFunctions"

namespace tributary {
namespace functor {

template <typename T>
struct igamma : Spec<T, Eigen::internal::scalar_igamma_op<T>> {};
template <typename T>
struct igammac : Spec<T, Eigen::internal::scalar_igammac_op<T>> {};
template <typename T>
struct igamma_grad_a : Spec<T, Eigen::internal::scalar_igamma_der_a_op<T>> {};
template <typename T>
struct random_gamma_grad
    : Spec<T, Eigen::internal::scalar_gamma_sample_der_alpha_op<T>> {};
template <typename T>
struct zeta : Spec<T, Eigen::internal::scalar_zeta_op<T>> {};
template <typename T>
struct polygamma : Spec<T, Eigen::internal::scalar_polygamma_op<T>> {};

}  // namespace functor

#define REGISTER_GAMMA_FAMILY(T)                                          \
  TRIB_REGISTER_CWISE("Igamma", BinaryOp, igamma, T);                     \
  TRIB_REGISTER_CWISE("Igammac", BinaryOp, igammac, T);                   \
  TRIB_REGISTER_CWISE("IgammaGradA", BinaryOp, igamma_grad_a, T);         \
  TRIB_REGISTER_CWISE("RandomGammaGrad", BinaryOp, random_gamma_grad, T); \
  TRIB_REGISTER_CWISE("Zeta", BinaryOp, zeta, T);                         \
  TRIB_REGISTER_CWISE("Polygamma", BinaryOp, polygamma, T);

REGISTER_GAMMA_FAMILY(float)
REGISTER_GAMMA_FAMILY(double)
#undef REGISTER_GAMMA_FAMILY

}  // namespace tributary
