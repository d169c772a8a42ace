// ArgMax, ArgMin: index of the first largest/smallest element along one
// axis (int32 or int64 output).
#include <limits>

#include "common/framework/status.h"
#include "common/framework/tensor.h"
#include "common/framework/types.h"
#include "common/kernel/kernel_registry.h"
#include "common/kernel/op_kernel.h"
#include "kernels/math/reduction_helper.h"
#include "unsupported/Eigen/CXX11/Tensor"

namespace tributary {
namespace {

struct Greater {
  template <typename T>
  bool operator()(const T& a, const T& b) const {
    return a > b;
  }
};
struct Less {
  template <typename T>
  bool operator()(const T& a, const T& b) const {
    return a < b;
  }
};

// A plain loop rather than Eigen's tuple reducers: the input is viewed as
// [outer, axis, inner] so one instantiation serves every rank, and ties
// resolve to the first index as in TensorFlow.
template <typename T, typename Tout, typename Better>
class ArgOp : public OpKernel {
 public:
  explicit ArgOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    absl::StatusOr<ArgReductionShape> shape =
        ArgReduction(input, ctx->input(1));
    OP_REQUIRES_OK(ctx, shape.status());
    const int axis = shape->axis;
    const int64_t outer = shape->outer, inner = shape->inner;
    const TensorShape& out_shape = shape->out_shape;
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    if (out->NumElements() == 0) return;

    const int64_t n = input.dim_size(axis);
    const T* in = input.flat<T>().data();
    Tout* o = out->flat<Tout>().data();
    const Better better;
    auto work = [=](Eigen::Index start, Eigen::Index end) {
      for (Eigen::Index idx = start; idx < end; ++idx) {
        const int64_t a = idx / inner, b = idx % inner;
        const T* p = in + a * n * inner + b;
        int64_t best = 0;
        T best_value = p[0];
        for (int64_t k = 1; k < n; ++k) {
          const T v = p[k * inner];
          if (better(v, best_value)) {
            best = k;
            best_value = v;
          }
        }
        o[idx] = static_cast<Tout>(best);
      }
    };
    ctx->eigen_device<Eigen::ThreadPoolDevice>().parallelFor(
        outer * inner, Eigen::TensorOpCost(sizeof(T) * n, sizeof(Tout), 2 * n),
        work);
  }
};

#define REGISTER_ARG(T, TOUT)                                               \
  REGISTER_KERNEL_BUILDER(Name("ArgMax")                                    \
                              .Device(DEVICE_CPU)                           \
                              .TypeConstraint<T>("T")                       \
                              .TypeConstraint<TOUT>("output_type")          \
                              .TypeConstraint("Tidx", {DT_INT32, DT_INT64}) \
                              .HostMemory("dimension"),                     \
                          ArgOp<T, TOUT, Greater>);                         \
  REGISTER_KERNEL_BUILDER(Name("ArgMin")                                    \
                              .Device(DEVICE_CPU)                           \
                              .TypeConstraint<T>("T")                       \
                              .TypeConstraint<TOUT>("output_type")          \
                              .TypeConstraint("Tidx", {DT_INT32, DT_INT64}) \
                              .HostMemory("dimension"),                     \
                          ArgOp<T, TOUT, Less>)
#define REGISTER_ARG_TYPES(T) \
  REGISTER_ARG(T, int32_t);   \
  REGISTER_ARG(T, int64_t)
REGISTER_ARG_TYPES(float);
REGISTER_ARG_TYPES(double);
REGISTER_ARG_TYPES(int32_t);
REGISTER_ARG_TYPES(int64_t);
REGISTER_ARG_TYPES(bool);
#undef REGISTER_ARG_TYPES
#undef REGISTER_ARG

}  // namespace
}  // namespace tributary
