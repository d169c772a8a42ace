// ResourceGather: rows of a resource variable's current value picked by
// `indices` (GatherV2 on axis 0), under the variable's shared lock, so a
// lookup into a large table copies only the rows it needs.
//
//   output = value[indices]   shape: indices.shape + value.shape[1:]
//
// batch_dims > 0 (batched lookups) is not supported yet: Unimplemented.

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "common/kernel/kernel_registry.h"
#include "common/kernel/op_kernel.h"
#include "common/resource/resource_lookup.h"
#include "common/resource/var.h"
#include "kernels/array/array_util.h"
#include "kernels/embedding/embedding_util.h"

namespace tributary {
namespace {

class ResourceGatherOp : public OpKernel {
 public:
  explicit ResourceGatherOp(OpKernelConstruction* context) : OpKernel(context) {
    OP_REQUIRES_OK(context, context->GetAttr("batch_dims", &batch_dims_));
    OP_REQUIRES_OK(context, context->GetAttr("dtype", &dtype_));
  }

  void Compute(OpKernelContext* context) override {
    OP_REQUIRES(context, batch_dims_ == 0,
                errors::Unimplemented("ResourceGather with batch_dims = ",
                                      batch_dims_, " is not supported"));
    absl::StatusOr<const ResourceHandle*> handle = HandleFromInput(context, 0);
    OP_REQUIRES_OK(context, handle.status());
    RefCountPtr<Var> variable;
    OP_REQUIRES_OK(context, LookupResource(context, **handle, &variable));
    const Tensor& indices = context->input(1);
    const std::vector<int64_t> idx = array_ops::IndexValues(indices);

    absl::ReaderMutexLock lock(variable->mu());
    OP_REQUIRES(context, variable->is_initialized,
                errors::FailedPrecondition(
                    "Attempting to read uninitialized variable ",
                    (*handle)->container(), "/", (*handle)->name()));
    const Tensor& params = *variable->tensor();
    OP_REQUIRES(
        context, params.dtype() == dtype_,
        errors::InvalidArgument(
            "Trying to read variable with wrong dtype. Expected ",
            DataTypeString(dtype_), " got ", DataTypeString(params.dtype())));
    OP_REQUIRES(
        context, params.dims() >= 1,
        errors::InvalidArgument("params must be at least 1 dimensional"));
    const int64_t limit = params.dim_size(0);
    for (size_t i = 0; i < idx.size(); ++i) {
      OP_REQUIRES(context, idx[i] >= 0 && idx[i] < limit,
                  errors::InvalidArgument(
                      "indices",
                      array_ops::SliceDebugString(indices.shape(),
                                                  static_cast<int64_t>(i)),
                      " = ", idx[i], " is not in [0, ", limit, ")"));
    }
    TensorShape out_shape = indices.shape();
    for (int d = 1; d < params.dims(); ++d)
      out_shape.AddDim(params.dim_size(d));
    Tensor* output = nullptr;
    OP_REQUIRES_OK(context, context->allocate_output(0, out_shape, &output));
    const int64_t inner = embedding::InnerSize(params.shape(), 1);
    if (idx.empty() || inner == 0) return;

    const bool ok = array_ops::VisitMovableType(params.dtype(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T* src = array_ops::RawData<T>(params);
      T* dst = array_ops::RawData<T>(output);
      for (size_t i = 0; i < idx.size(); ++i) {
        if constexpr (std::is_trivially_copyable_v<T>) {
          std::memcpy(dst + i * inner, src + idx[i] * inner, inner * sizeof(T));
        } else {
          std::copy(src + idx[i] * inner, src + (idx[i] + 1) * inner,
                    dst + i * inner);
        }
      }
    });
    OP_REQUIRES(context, ok,
                array_ops::UnsupportedDtype("ResourceGather", params.dtype()));
  }

 private:
  int32_t batch_dims_ = 0;
  DataType dtype_ = DT_INVALID;
};

REGISTER_KERNEL_BUILDER(Name("ResourceGather")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("dtype", array_ops::kAllTypes)
                            .TypeConstraint("Tindices", array_ops::kIndexTypes),
                        ResourceGatherOp);

}  // namespace
}  // namespace tributary
