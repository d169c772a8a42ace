// Equal and NotEqual on strings (feature columns compare a string feature
// with its ignore value ""), with NumPy broadcasting; incompatible shapes are
// INVALID_ARGUMENT, or with incompatible_shape_error=false a scalar false
// (Equal) / true (NotEqual), as for the numeric kernels in cwise_ops.h.
// Element by element, no Eigen: strings are not packet types.

#include <cstdint>
#include <string>
#include <vector>

#include "common/framework/types.h"
#include "common/kernel/kernel_registry.h"
#include "common/kernel/op_kernel.h"
#include "kernels/math/bcast.h"

namespace tributary {
namespace {

class StringEqualityOp : public OpKernel {
 public:
  explicit StringEqualityOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    if (ctx->HasAttr("incompatible_shape_error")) {
      OP_REQUIRES_OK(ctx, ctx->GetAttr("incompatible_shape_error",
                                       &incompatible_shape_error_));
    }
    not_equal_ = type_string() == "NotEqual";
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    const Tensor& y = ctx->input(1);
    BCast bcast(ShapeToVec(x.shape()), ShapeToVec(y.shape()),
                /*fewer_dims=*/false);
    Tensor* out = nullptr;
    if (!bcast.IsValid()) {
      OP_REQUIRES(ctx, !incompatible_shape_error_,
                  errors::InvalidArgument("Incompatible shapes: ",
                                          x.shape().DebugString(), " vs. ",
                                          y.shape().DebugString()));
      OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({}), &out));
      out->scalar<bool>()() = not_equal_;
      return;
    }
    OP_REQUIRES_OK(ctx,
                   ctx->allocate_output(0, bcast.output_tensor_shape(), &out));
    const int64_t n = out->NumElements();
    if (n == 0) return;
    const std::string* xs = static_cast<const std::string*>(x.data());
    const std::string* ys = static_cast<const std::string*>(y.data());
    bool* o = static_cast<bool*>(out->data());
    if (x.shape() == y.shape()) {
      for (int64_t i = 0; i < n; ++i) o[i] = (xs[i] == ys[i]) != not_equal_;
      return;
    }
    // Full-rank form: each input's dims padded with 1s to the output rank.
    const std::vector<int64_t>& dims = bcast.output_shape();
    const std::vector<int64_t>& xd = bcast.x_reshape();
    const std::vector<int64_t>& yd = bcast.y_reshape();
    const int rank = static_cast<int>(dims.size());
    std::vector<int64_t> xstride(rank), ystride(rank), index(rank, 0);
    int64_t xs_acc = 1, ys_acc = 1;
    for (int d = rank - 1; d >= 0; --d) {
      xstride[d] = xd[d] == 1 ? 0 : xs_acc;
      ystride[d] = yd[d] == 1 ? 0 : ys_acc;
      xs_acc *= xd[d];
      ys_acc *= yd[d];
    }
    int64_t xi = 0, yi = 0;
    for (int64_t i = 0; i < n; ++i) {
      o[i] = (xs[xi] == ys[yi]) != not_equal_;
      for (int d = rank - 1; d >= 0; --d) {
        xi += xstride[d];
        yi += ystride[d];
        if (++index[d] < dims[d]) break;
        xi -= xstride[d] * dims[d];
        yi -= ystride[d] * dims[d];
        index[d] = 0;
      }
    }
  }

 private:
  bool incompatible_shape_error_ = true;
  bool not_equal_ = false;
};

REGISTER_KERNEL_BUILDER(
    Name("Equal").Device(DEVICE_CPU).TypeConstraint<std::string>("T"),
    StringEqualityOp);
REGISTER_KERNEL_BUILDER(
    Name("NotEqual").Device(DEVICE_CPU).TypeConstraint<std::string>("T"),
    StringEqualityOp);

}  // namespace
}  // namespace tributary
