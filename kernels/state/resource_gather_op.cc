// ResourceGather and ResourceGatherNd: GatherV2 / GatherNd on the tensor of
// a resource variable (what tf.gather / tf.gather_nd on a resource variable
// emit; their gradients are IndexedSlices / ScatterNd). The rows are copied
// under the Var's shared lock, so the result is a snapshot. The copies and
// checks are array_ops::GatherV2ToOutput / GatherNdToOutput
// (kernels/array/gather_functor.h), so both ops take every dtype the array
// gathers move.
//
// ResourceGather with batch_dims = b > 0 is GatherV2 with axis = b: output
// shape params[:b] + indices[b:] + params[b+1:]. TensorFlow 2.21's CPU
// kernel rejects a negative batch_dims ("batch_dims is negative (-1)") and
// otherwise does not validate the batch case (an index past its batch reads
// the next batch's row; batch_dims >= rank or mismatched batch dims abort
// the process); here those cases are GatherV2's InvalidArgument errors
// ("indices[0,1] = 3 is not in [0, 3)", "params.shape[0]: 2 should be
// equal to indices.shape[0]: 3", ...). Indices are always validated, as
// TensorFlow's CPU kernel does whatever validate_indices says.

#include "absl/synchronization/mutex.h"
#include "common/framework/status.h"
#include "common/framework/tensor.h"
#include "common/framework/types.h"
#include "common/kernel/kernel_registry.h"
#include "common/kernel/op_kernel.h"
#include "common/resource/resource_lookup.h"
#include "common/resource/var.h"
#include "kernels/array/array_util.h"
#include "kernels/array/gather_functor.h"

namespace tributary {
namespace {

// Runs fn(params) on the initialised tensor of the variable named by input
// 0, under its shared lock, after checking its dtype against attr `dtype`.
template <typename Fn>
void WithVariableTensor(OpKernelContext* ctx, DataType dtype, Fn&& fn) {
  absl::StatusOr<const ResourceHandle*> handle = HandleFromInput(ctx, 0);
  OP_REQUIRES_OK(ctx, handle.status());
  RefCountPtr<Var> variable;
  OP_REQUIRES_OK(ctx, LookupResource(ctx, **handle, &variable));
  absl::ReaderMutexLock lock(variable->mu());
  OP_REQUIRES(ctx, variable->is_initialized,
              errors::FailedPrecondition(
                  "Attempting to read uninitialized variable ",
                  (*handle)->container(), "/", (*handle)->name()));
  const Tensor& params = *variable->tensor();
  OP_REQUIRES(ctx, params.dtype() == dtype,
              errors::InvalidArgument(
                  "Trying to read variable with wrong dtype. Expected ",
                  DataTypeString(dtype), " got ",
                  DataTypeString(params.dtype())));
  fn(params);
}

class ResourceGatherOp : public OpKernel {
 public:
  explicit ResourceGatherOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("batch_dims", &batch_dims_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("dtype", &dtype_));
  }

  void Compute(OpKernelContext* ctx) override {
    OP_REQUIRES(ctx, batch_dims_ >= 0,
                errors::InvalidArgument("batch_dims is negative (",
                                        batch_dims_, ")"));
    WithVariableTensor(ctx, dtype_, [&](const Tensor& params) {
      OP_REQUIRES(
          ctx, params.dims() >= 1,
          errors::InvalidArgument("params must be at least 1 dimensional"));
      OP_REQUIRES_OK(ctx, array_ops::GatherV2ToOutput(
                              ctx, params, ctx->input(1), batch_dims_,
                              batch_dims_, 0, "ResourceGather"));
    });
  }

 private:
  int batch_dims_ = 0;
  DataType dtype_ = DT_INVALID;
};

class ResourceGatherNdOp : public OpKernel {
 public:
  explicit ResourceGatherNdOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("dtype", &dtype_));
  }

  void Compute(OpKernelContext* ctx) override {
    WithVariableTensor(ctx, dtype_, [&](const Tensor& params) {
      const Tensor& indices = ctx->input(1);
      OP_REQUIRES(ctx, params.dims() >= 1,
                  errors::InvalidArgument("params must be at least a vector"));
      OP_REQUIRES(ctx, indices.dims() >= 1,
                  errors::InvalidArgument("indices must be at least a vector"));
      OP_REQUIRES_OK(ctx, array_ops::GatherNdToOutput(ctx, params, indices, 0,
                                                      "ResourceGatherNd"));
    });
  }

 private:
  DataType dtype_ = DT_INVALID;
};

REGISTER_KERNEL_BUILDER(Name("ResourceGather")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("dtype", array_ops::kAllTypes)
                            .TypeConstraint("Tindices", array_ops::kIndexTypes),
                        ResourceGatherOp);
REGISTER_KERNEL_BUILDER(Name("ResourceGatherNd")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("dtype", array_ops::kAllTypes)
                            .TypeConstraint("Tindices", array_ops::kIndexTypes),
                        ResourceGatherNdOp);

}  // namespace
}  // namespace tributary
