// AddN: the sum of N same-shaped tensors.
#include "common/framework/tensor.h"
#include "common/framework/types.h"
#include "common/kernel/kernel_registry.h"
#include "common/kernel/op_kernel.h"
#include "unsupported/Eigen/CXX11/Tensor"

namespace tributary {
namespace {

template <typename T>
class AddNOp : public OpKernel {
 public:
  explicit AddNOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const int n = ctx->num_inputs();
    if (!ctx->ValidateInputsAreSameShape(this)) return;
    const Tensor& in0 = ctx->input(0);
    if (n == 1) {
      ctx->set_output(0, in0);
      return;
    }
    std::vector<int> candidates(n);
    for (int i = 0; i < n; ++i) candidates[i] = i;
    Tensor* out = nullptr;
    int forwarded = -1;
    OP_REQUIRES_OK(ctx, ctx->forward_input_or_allocate_output(
                            candidates, 0, in0.shape(), &out, &forwarded));
    if (out->NumElements() == 0) return;
    const Eigen::ThreadPoolDevice& d = ctx->eigen_device<Eigen::ThreadPoolDevice>();
    auto o = out->flat<T>();
    auto in = [ctx](int i) { return ctx->input(i).flat<T>(); };
    // Adds up to three inputs per pass: one pass over the output per three
    // inputs keeps memory traffic low without instantiating many arities.
    // The forwarded input (if any) is the output buffer: it must be read in
    // the first pass, before being overwritten.
    std::vector<int> order;
    if (forwarded >= 0) order.push_back(forwarded);
    for (int i = 0; i < n; ++i) {
      if (i != forwarded) order.push_back(i);
    }
    size_t i = 0;
    if (order.size() >= 3) {
      o.device(d) = in(order[0]) + in(order[1]) + in(order[2]);
      i = 3;
    } else {
      o.device(d) = in(order[0]) + in(order[1]);
      i = 2;
    }
    for (; i + 1 < order.size(); i += 2) {
      o.device(d) = o + in(order[i]) + in(order[i + 1]);
    }
    if (i < order.size()) o.device(d) = o + in(order[i]);
  }
};

#define REGISTER_ADDN(T)                                             \
  REGISTER_KERNEL_BUILDER(                                           \
      Name("AddN").Device(DEVICE_CPU).TypeConstraint<T>("T"), AddNOp<T>)
REGISTER_ADDN(float);
REGISTER_ADDN(double);
REGISTER_ADDN(int32_t);
REGISTER_ADDN(int64_t);
REGISTER_ADDN(complex64);
REGISTER_ADDN(complex128);
#undef REGISTER_ADDN

}  // namespace
}  // namespace tributary
