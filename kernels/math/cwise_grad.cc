// SqrtGrad, RsqrtGrad, ReciprocalGrad/InvGrad (what training graphs of layer
// and batch normalisation, tf.norm and 1/x emit) and Inv, Reciprocal's older
// name. Floating point only, as TensorFlow's CPU kernels (complex aside).
#include "kernels/math/cwise_ops.h"

namespace tributary {

#define REGISTER_FLOAT(T)                                                   \
  TRIB_REGISTER_CWISE("SqrtGrad", SimpleBinaryOp, sqrt_grad, T);            \
  TRIB_REGISTER_CWISE("RsqrtGrad", SimpleBinaryOp, rsqrt_grad, T);          \
  TRIB_REGISTER_CWISE("ReciprocalGrad", SimpleBinaryOp, inverse_grad, T);   \
  TRIB_REGISTER_CWISE("InvGrad", SimpleBinaryOp, inverse_grad, T);          \
  TRIB_REGISTER_CWISE("Inv", UnaryOp, reciprocal, T);

REGISTER_FLOAT(float)
REGISTER_FLOAT(double)
REGISTER_FLOAT(Eigen::half)
REGISTER_FLOAT(Eigen::bfloat16)
#undef REGISTER_FLOAT

}  // namespace tributary
