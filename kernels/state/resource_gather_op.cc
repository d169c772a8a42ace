// ResourceGather: the rows of a resource variable named by `indices`
// (tf.gather on a resource variable, the read whose gradient is an
// IndexedSlices), output shape indices.shape + var.shape[1:]. The rows are
// copied under the Var's shared lock, so the result is a snapshot. Only
// batch_dims = 0 (what tf.gather emits without batch_dims) is supported;
// other values are Unimplemented. Indices are always validated
// ("indices[1] = 7 is not in [0, 4)"), as TensorFlow's CPU kernel does
// whatever validate_indices says.

#include <cstring>

#include "absl/synchronization/mutex.h"
#include "common/framework/status.h"
#include "common/framework/tensor.h"
#include "common/framework/tensor_shape.h"
#include "common/framework/types.h"
#include "common/kernel/kernel_registry.h"
#include "common/kernel/op_kernel.h"
#include "common/resource/resource_lookup.h"
#include "common/resource/var.h"
#include "kernels/state/scatter_util.h"

namespace tributary {
namespace {

template <typename T, typename Tindex>
class ResourceGatherOp : public OpKernel {
 public:
  explicit ResourceGatherOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("batch_dims", &batch_dims_));
  }

  void Compute(OpKernelContext* ctx) override {
    OP_REQUIRES(ctx, batch_dims_ == 0,
                errors::Unimplemented("ResourceGather with batch_dims = ",
                                      batch_dims_, " is not supported"));
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
    OP_REQUIRES(ctx, params.dtype() == DataTypeToEnum<T>::v(),
                errors::InvalidArgument(
                    "Trying to read variable with wrong dtype. Expected ",
                    DataTypeString(DataTypeToEnum<T>::v()), " got ",
                    DataTypeString(params.dtype())));
    OP_REQUIRES(
        ctx, params.dims() >= 1,
        errors::InvalidArgument("params must be at least 1 dimensional"));
    const Tensor& indices = ctx->input(1);
    const int64_t rows = params.dim_size(0);
    const Tindex* idx = indices.flat<Tindex>().data();
    OP_REQUIRES_OK(ctx, CheckScatterIndices(idx, indices.shape(), rows));

    TensorShape out_shape = indices.shape();
    for (int d = 1; d < params.dims(); ++d)
      out_shape.AddDim(params.dim_size(d));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    const int64_t n = indices.NumElements();
    if (n == 0 || rows == 0) return;
    const int64_t inner = params.NumElements() / rows;
    const T* src = params.flat<T>().data();
    T* dst = out->flat<T>().data();
    for (int64_t i = 0; i < n; ++i) {
      std::memcpy(dst + i * inner, src + static_cast<int64_t>(idx[i]) * inner,
                  inner * sizeof(T));
    }
  }

 private:
  int batch_dims_ = 0;
};

#define TRIB_REGISTER_GATHER_TI(T, TI)                         \
  REGISTER_KERNEL_BUILDER(Name("ResourceGather")               \
                              .Device(DEVICE_CPU)              \
                              .TypeConstraint<T>("dtype")      \
                              .TypeConstraint<TI>("Tindices"), \
                          ResourceGatherOp<T, TI>)
#define TRIB_REGISTER_GATHER(T)        \
  TRIB_REGISTER_GATHER_TI(T, int32_t); \
  TRIB_REGISTER_GATHER_TI(T, int64_t)

TRIB_REGISTER_GATHER(half);
TRIB_REGISTER_GATHER(bfloat16);
TRIB_REGISTER_GATHER(float);
TRIB_REGISTER_GATHER(double);
TRIB_REGISTER_GATHER(int32_t);
TRIB_REGISTER_GATHER(int64_t);
TRIB_REGISTER_GATHER(bool);
#undef TRIB_REGISTER_GATHER
#undef TRIB_REGISTER_GATHER_TI

}  // namespace
}  // namespace tributary
