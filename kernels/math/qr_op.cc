// Qr: the QR decomposition of each innermost [M, N] matrix of the input
// (shape [..., M, N]) with Eigen's HouseholderQR, as TensorFlow's CPU kernel
// does, so Q and R are TensorFlow's up to rounding (Eigen versions and
// vectorisation may differ in the last bits). Outputs q [..., M, P] and
// r [..., P, N], P = M with full_matrices, else min(M, N); R is upper
// triangular. Rank < 2: INVALID_ARGUMENT. Empty matrices give empty outputs
// (Q the identity when full_matrices).

#include <algorithm>
#include <cstdint>
#include <vector>

#include "Eigen/Core"
#include "Eigen/QR"
#include "common/framework/tensor.h"
#include "common/framework/tensor_shape.h"
#include "common/framework/types.h"
#include "common/kernel/kernel_registry.h"
#include "common/kernel/op_kernel.h"

namespace tributary {
namespace {

template <typename T>
class QrOp : public OpKernel {
 public:
  using Matrix =
      Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  using ConstMap = Eigen::Map<const Matrix>;
  using Map = Eigen::Map<Matrix>;

  explicit QrOp(OpKernelConstruction* context) : OpKernel(context) {
    OP_REQUIRES_OK(context, context->GetAttr("full_matrices", &full_));
  }

  void Compute(OpKernelContext* context) override {
    const Tensor& input = context->input(0);
    const int rank = input.dims();
    OP_REQUIRES(context, rank >= 2,
                errors::InvalidArgument("Input tensor 0 must have rank >= 2, "
                                        "got ",
                                        rank));
    const int64_t m = input.dim_size(rank - 2);
    const int64_t n = input.dim_size(rank - 1);
    const int64_t p = full_ ? m : std::min(m, n);
    std::vector<int64_t> q_dims, r_dims;
    int64_t batch = 1;
    for (int d = 0; d < rank - 2; ++d) {
      q_dims.push_back(input.dim_size(d));
      batch *= input.dim_size(d);
    }
    r_dims = q_dims;
    q_dims.insert(q_dims.end(), {m, p});
    r_dims.insert(r_dims.end(), {p, n});
    Tensor* q = nullptr;
    Tensor* r = nullptr;
    OP_REQUIRES_OK(context,
                   context->allocate_output(0, TensorShape(q_dims), &q));
    OP_REQUIRES_OK(context,
                   context->allocate_output(1, TensorShape(r_dims), &r));
    if (batch == 0) return;
    const T* in = input.flat<T>().data();
    T* q_out = q->flat<T>().data();
    T* r_out = r->flat<T>().data();
    for (int64_t b = 0; b < batch; ++b) {
      Map q_mat(q_out + b * m * p, m, p);
      Map r_mat(r_out + b * p * n, p, n);
      if (m == 0 || n == 0) {
        // Nothing to factor: R is empty or zero, Q the identity's columns.
        q_mat.setIdentity();
        r_mat.setZero();
        continue;
      }
      Eigen::HouseholderQR<Matrix> qr(ConstMap(in + b * m * n, m, n));
      if (full_) {
        q_mat = qr.householderQ();
      } else {
        // Q's first P columns: apply the reflectors to the thin identity.
        q_mat = qr.householderQ() * Matrix::Identity(m, p);
      }
      r_mat = qr.matrixQR().topRows(p).template triangularView<Eigen::Upper>();
    }
  }

 private:
  bool full_ = false;
};

#define REGISTER_QR(T)     \
  REGISTER_KERNEL_BUILDER( \
      Name("Qr").Device(DEVICE_CPU).TypeConstraint<T>("T"), QrOp<T>)
REGISTER_QR(float);
REGISTER_QR(double);
REGISTER_QR(Eigen::half);
REGISTER_QR(complex64);
REGISTER_QR(complex128);
#undef REGISTER_QR

}  // namespace
}  // namespace tributary
