// RealDiv, Div, DivNoNan, FloorDiv, FloorMod, Pow: floating point and integer
// forms differ (integers check for division by zero / negative exponents).
#include "kernels/math/cwise_ops.h"

namespace tributary {
namespace functor {

// x / y, but 0 where y == 0 (TensorFlow's DivNoNan), whatever x is. Kept
// here, not in cwise_functors.h, since only this file uses it.
template <typename T>
struct DivNoNanF {
  T operator()(const T& x, const T& y) const {
    return y == T(0) ? T(0) : x / y;
  }
};
template <typename T>
struct div_no_nan : Spec<T, DivNoNanF<T>> {};

}  // namespace functor

#define REGISTER_REAL(T)                                        \
  TRIB_REGISTER_CWISE("RealDiv", BinaryOp, div, T);             \
  TRIB_REGISTER_CWISE("Div", BinaryOp, div, T);                 \
  TRIB_REGISTER_CWISE("DivNoNan", BinaryOp, div_no_nan, T);     \
  TRIB_REGISTER_CWISE("FloorDiv", BinaryOp, floor_div_real, T); \
  TRIB_REGISTER_CWISE("FloorMod", BinaryOp, floor_fmod, T);     \
  TRIB_REGISTER_CWISE("Pow", BinaryOp, pow, T);

#define REGISTER_INT(T)                                         \
  TRIB_REGISTER_CWISE("Div", BinaryOp, safe_div, T);            \
  TRIB_REGISTER_CWISE("FloorDiv", BinaryOp, safe_floor_div, T); \
  TRIB_REGISTER_CWISE("FloorMod", BinaryOp, safe_floor_mod, T); \
  TRIB_REGISTER_CWISE("Pow", BinaryOp, safe_pow, T);

REGISTER_REAL(float)
REGISTER_REAL(double)
REGISTER_REAL(Eigen::half)
REGISTER_REAL(Eigen::bfloat16)
REGISTER_INT(int32_t)
REGISTER_INT(int64_t)
#undef REGISTER_REAL
#undef REGISTER_INT

}  // namespace tributary
