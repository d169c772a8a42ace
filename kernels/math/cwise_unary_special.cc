// Round (half to even) and Rint, the inverse and hyperbolic trigonometric
// functions, Tan, and the special functions Lgamma, Digamma, Erfinv, Ndtri.
// Eigen's scalar functors, as TensorFlow's kernels use, on the dtypes
// TensorFlow registers for the CPU (complex aside).
#include "kernels/math/cwise_ops.h"

namespace tributary {
namespace functor {

// Ndtri and Erfinv outside their domains ([0, 1] and [-1, 1]) are NaN, as
// in TensorFlow (Eigen 3.4's ndtri returns infinities there).
template <typename T, bool kErfinv>
struct DomainCheckedNdtri {
  T operator()(const T& x) const {
    const T lo = kErfinv ? T(-1) : T(0);
    if (x < lo || x > T(1)) return Eigen::NumTraits<T>::quiet_NaN();
    return kErfinv ? ErfinvF<T>()(x) : Eigen::numext::ndtri(x);
  }
  template <typename Packet>
  Packet packetOp(const Packet& x) const {
    using namespace Eigen::internal;  // NOLINT
    const Packet lo = pset1<Packet>(kErfinv ? T(-1) : T(0));
    const Packet out = por(pcmp_lt(x, lo), pcmp_lt(pset1<Packet>(T(1)), x));
    const Packet y =
        kErfinv ? ErfinvF<T>().packetOp(x) : pndtri<Packet>(x);
    return pselect(out, pset1<Packet>(Eigen::NumTraits<T>::quiet_NaN()), y);
  }
};
template <typename T>
struct ndtri_checked : Spec<T, DomainCheckedNdtri<T, false>> {};
template <typename T>
struct erfinv_checked : Spec<T, DomainCheckedNdtri<T, true>> {};

}  // namespace functor
}  // namespace tributary

namespace Eigen {
namespace internal {
template <typename T, bool E>
struct functor_traits<tributary::functor::DomainCheckedNdtri<T, E>> {
  enum {
    Cost = functor_traits<scalar_ndtri_op<T>>::Cost + 2 * NumTraits<T>::AddCost,
    PacketAccess = packet_traits<T>::HasNdtri && packet_traits<T>::HasCmp
  };
};
}  // namespace internal
}  // namespace Eigen

namespace tributary {

#define REGISTER_TRIG(T)                           \
  TRIB_REGISTER_CWISE("Round", UnaryOp, round, T); \
  TRIB_REGISTER_CWISE("Tan", UnaryOp, tan, T);     \
  TRIB_REGISTER_CWISE("Asin", UnaryOp, asin, T);   \
  TRIB_REGISTER_CWISE("Acos", UnaryOp, acos, T);   \
  TRIB_REGISTER_CWISE("Atan", UnaryOp, atan, T);   \
  TRIB_REGISTER_CWISE("Sinh", UnaryOp, sinh, T);   \
  TRIB_REGISTER_CWISE("Cosh", UnaryOp, cosh, T);   \
  TRIB_REGISTER_CWISE("Asinh", UnaryOp, asinh, T); \
  TRIB_REGISTER_CWISE("Acosh", UnaryOp, acosh, T); \
  TRIB_REGISTER_CWISE("Atanh", UnaryOp, atanh, T);

REGISTER_TRIG(float)
REGISTER_TRIG(double)
REGISTER_TRIG(Eigen::half)
REGISTER_TRIG(Eigen::bfloat16)
#undef REGISTER_TRIG

// Integers round to themselves.
TRIB_REGISTER_CWISE("Round", UnaryOp, round, int32_t);
TRIB_REGISTER_CWISE("Round", UnaryOp, round, int64_t);

#define REGISTER_SPECIAL(T)                            \
  TRIB_REGISTER_CWISE("Rint", UnaryOp, rint, T);       \
  TRIB_REGISTER_CWISE("Lgamma", UnaryOp, lgamma, T);   \
  TRIB_REGISTER_CWISE("Digamma", UnaryOp, digamma, T); \
  TRIB_REGISTER_CWISE("Erfinv", UnaryOp, erfinv_checked, T); \
  TRIB_REGISTER_CWISE("Ndtri", UnaryOp, ndtri_checked, T);

REGISTER_SPECIAL(float)
REGISTER_SPECIAL(double)
#undef REGISTER_SPECIAL
TRIB_REGISTER_CWISE("Lgamma", UnaryOp, lgamma, Eigen::half);
TRIB_REGISTER_CWISE("Digamma", UnaryOp, digamma, Eigen::half);

}  // namespace tributary
