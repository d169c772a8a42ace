// GatherNd: for indices of shape [i1..ik, n] (n <= rank(params)), the output
// of shape [i1..ik] + params.shape[n:], where output[i1..ik] is the slice
// params[indices[i1..ik, 0], ..., indices[i1..ik, n-1]] (a contiguous run of
// the trailing params dims, copied as a block). Feature columns read the
// non-empty values of a dense string feature with it (to_sparse_input).
// An index out of range is INVALID_ARGUMENT (TensorFlow's default policy).

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "common/kernel/kernel_registry.h"
#include "common/kernel/op_kernel.h"
#include "kernels/array/array_util.h"

namespace tributary {
namespace {

template <typename T>
void CopySlices(const T* params, const std::vector<int64_t>& offsets,
                int64_t slice, T* out) {
  for (size_t k = 0; k < offsets.size(); ++k) {
    const T* src = params + offsets[k] * slice;
    T* dst = out + k * slice;
    if constexpr (std::is_trivially_copyable_v<T>) {
      std::memcpy(dst, src, slice * sizeof(T));
    } else {
      std::copy(src, src + slice, dst);
    }
  }
}

class GatherNdOp : public OpKernel {
 public:
  explicit GatherNdOp(OpKernelConstruction* context) : OpKernel(context) {
    std::string policy;
    OP_REQUIRES_OK(context, context->GetAttr("bad_indices_policy", &policy));
    OP_REQUIRES(context, policy.empty() || policy == "DEFAULT" ||
                             policy == "ERROR",
                errors::InvalidArgument(
                    "bad_indices_policy '", policy,
                    "' is not supported here (only the default: an error)"));
  }

  void Compute(OpKernelContext* context) override {
    const Tensor& params = context->input(0);
    const Tensor& indices = context->input(1);
    OP_REQUIRES(context, params.dims() >= 1,
                errors::InvalidArgument("params must be at least a vector"));
    OP_REQUIRES(context, indices.dims() >= 1,
                errors::InvalidArgument("index must be at least a vector"));
    const int64_t n = indices.dim_size(indices.dims() - 1);
    OP_REQUIRES(
        context, n <= params.dims(),
        errors::InvalidArgument("index innermost dimension length must be <= "
                                "params rank; saw: ",
                                n, " vs. ", params.dims()));
    TensorShape output_shape;
    int64_t count = 1;
    for (int d = 0; d + 1 < indices.dims(); ++d) {
      output_shape.AddDim(indices.dim_size(d));
      count *= indices.dim_size(d);
    }
    int64_t slice = 1;
    for (int d = static_cast<int>(n); d < params.dims(); ++d) {
      output_shape.AddDim(params.dim_size(d));
      slice *= params.dim_size(d);
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(context, context->allocate_output(0, output_shape, &out));
    if (count == 0 || slice == 0) return;

    const std::vector<int64_t> index_values = array_ops::IndexValues(indices);
    std::vector<int64_t> offsets(count);
    for (int64_t k = 0; k < count; ++k) {
      int64_t offset = 0;
      for (int64_t j = 0; j < n; ++j) {
        const int64_t v = index_values[k * n + j];
        const int64_t dim = params.dim_size(static_cast<int>(j));
        if (v < 0 || v >= dim) {
          std::string tuple;
          for (int64_t m = 0; m < n; ++m) {
            if (m > 0) tuple += ", ";
            tuple += std::to_string(index_values[k * n + m]);
          }
          context->SetStatus(errors::InvalidArgument(
              "indices", array_ops::SliceDebugString(indices.shape(), k * n),
              " = [", tuple, "] does not index into param shape ",
              params.shape().DebugString()));
          return;
        }
        offset = offset * dim + v;
      }
      offsets[k] = offset;
    }
    const bool ok = array_ops::VisitMovableType(params.dtype(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      CopySlices<T>(array_ops::RawData<T>(params), offsets, slice,
                    array_ops::RawData<T>(out));
    });
    OP_REQUIRES(context, ok,
                array_ops::UnsupportedDtype("GatherNd", params.dtype()));
  }
};

constexpr DataType kGatherNdIndexTypes[] = {DT_INT16, DT_INT32, DT_INT64};

REGISTER_KERNEL_BUILDER(
    Name("GatherNd")
        .Device(DEVICE_CPU)
        .TypeConstraint("Tparams", array_ops::kAllTypes)
        .TypeConstraint("Tindices", kGatherNdIndexTypes),
    GatherNdOp);

}  // namespace
}  // namespace tributary
