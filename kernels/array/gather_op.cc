// GatherV2: slices of `params` along `axis` picked by `indices`, with
// optional leading batch dims shared by params and indices:
//
//   output[b, o, i, r] = params[b, o, indices[b, i], r]
//
// b: the batch_dims leading dims, o: params dims between them and the axis,
// i: the remaining indices dims, r: params dims after the axis (one
// contiguous run of `inner` elements, copied as a block). The work is
// array_ops::GatherV2ToOutput (gather_functor.h), shared with
// ResourceGather.

#include <cstdint>

#include "common/kernel/kernel_registry.h"
#include "common/kernel/op_kernel.h"
#include "kernels/array/array_util.h"
#include "kernels/array/gather_functor.h"

namespace tributary {
namespace {

class GatherV2Op : public OpKernel {
 public:
  explicit GatherV2Op(OpKernelConstruction* context) : OpKernel(context) {
    OP_REQUIRES_OK(context, context->GetAttr("batch_dims", &batch_dims_));
  }

  void Compute(OpKernelContext* context) override {
    const Tensor& params = context->input(0);
    const Tensor& indices = context->input(1);
    const Tensor& axis_t = context->input(2);
    OP_REQUIRES(
        context, params.dims() >= 1,
        errors::InvalidArgument("params must be at least 1 dimensional"));
    OP_REQUIRES(context, axis_t.dims() == 0,
                errors::InvalidArgument("axis must be scalar"));
    int64_t axis = array_ops::FirstIndexValue(axis_t);
    const int64_t params_dims = params.dims();
    // TensorFlow 2.x reports this through its rank check on params.
    OP_REQUIRES(context, axis >= -params_dims && axis < params_dims,
                errors::InvalidArgument("Shape must be at least rank ",
                                        axis >= 0 ? axis + 1 : -axis,
                                        " but is rank ", params_dims));
    if (axis < 0) axis += params_dims;

    OP_REQUIRES_OK(context, array_ops::GatherV2ToOutput(
                                context, params, indices, axis, batch_dims_,
                                0, "GatherV2"));
  }

 private:
  int32_t batch_dims_ = 0;
};

REGISTER_KERNEL_BUILDER(Name("GatherV2")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("Tparams", array_ops::kAllTypes)
                            .TypeConstraint("Tindices", array_ops::kIndexTypes)
                            .TypeConstraint("Taxis", array_ops::kIndexTypes),
                        GatherV2Op);

}  // namespace
}  // namespace tributary
