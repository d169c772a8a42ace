#include "kernels/array/scatter_nd.h"

#include "absl/strings/str_join.h"
#include "common/framework/status.h"
#include "common/kernel/op_kernel.h"
#include "kernels/array/array_util.h"

namespace tributary {
namespace array_ops {

absl::Status GetIgnoreBadIndices(OpKernelConstruction* context, bool* ignore) {
  std::string policy;
  TRIB_RETURN_IF_ERROR(context->GetAttr("bad_indices_policy", &policy));
  if (policy.empty() || policy == "DEFAULT" || policy == "ERROR") {
    *ignore = false;
  } else if (policy == "IGNORE") {
    *ignore = true;
  } else {
    return errors::InvalidArgument("Unknown bad indices handling attribute: ",
                                   policy);
  }
  return absl::OkStatus();
}

absl::Status ValidateScatterNdUpdateShape(const TensorShape& params_shape,
                                          const TensorShape& indices_shape,
                                          const TensorShape& updates_shape) {
  const int64_t slice_dim =
      indices_shape.dims() > 1 ? indices_shape.dim_size(indices_shape.dims() - 1)
                               : 1;
  const int64_t batch_dim =
      indices_shape.dims() > 1 ? indices_shape.dims() - 1 : 1;
  auto prefix_error = [&] {
    return errors::InvalidArgument(
        "Dimensions [0,", batch_dim, ") of indices[shape=",
        indices_shape.DebugString(), "] must match dimensions [0,", batch_dim,
        ") of updates[shape=", updates_shape.DebugString(), "]");
  };
  auto suffix_error = [&] {
    return errors::InvalidArgument(
        "Dimensions [", slice_dim, ",", params_shape.dims(),
        ") of input[shape=", params_shape.DebugString(),
        "] must match dimensions [", slice_dim, ",", updates_shape.dims(),
        ") of updates[shape=", updates_shape.DebugString(), "]");
  };
  if (updates_shape.dims() < batch_dim) return prefix_error();
  if (params_shape.dims() < slice_dim + (updates_shape.dims() - batch_dim) ||
      updates_shape.dims() != batch_dim + params_shape.dims() - slice_dim) {
    return suffix_error();
  }
  for (int d = 0; d < batch_dim; ++d) {
    if (updates_shape.dim_size(d) != indices_shape.dim_size(d)) {
      return prefix_error();
    }
  }
  for (int d = 0; d < updates_shape.dims() - batch_dim; ++d) {
    if (updates_shape.dim_size(d + batch_dim) !=
        params_shape.dim_size(d + slice_dim)) {
      return suffix_error();
    }
  }
  return absl::OkStatus();
}

absl::Status PlanScatterNd(const TensorShape& params_shape,
                           const Tensor& indices, const Tensor& updates,
                           bool ignore_bad_indices, ScatterNdPlan* plan) {
  if (indices.dims() < 1 || updates.dims() < 1) {
    return errors::InvalidArgument(
        indices.dims() < 1 ? "Indices" : "Updates",
        " shape must have rank at least one. Found:",
        (indices.dims() < 1 ? indices : updates).shape().DebugString());
  }
  if (params_shape.dims() < 1) {
    return errors::InvalidArgument("Output must be at least 1-D, got shape: ",
                                   params_shape.DebugString());
  }
  if (!(params_shape.num_elements() > 0 ||
        (indices.NumElements() == 0 && updates.NumElements() == 0))) {
    return errors::InvalidArgument(
        "Indices and updates specified for empty output.  indices shape: ",
        indices.shape().DebugString());
  }
  TRIB_RETURN_IF_ERROR(ValidateScatterNdUpdateShape(
      params_shape, indices.shape(), updates.shape()));

  const int64_t slice_dim =
      indices.dims() > 1 ? indices.dim_size(indices.dims() - 1) : 1;
  plan->slice_size = 1;
  for (int d = slice_dim; d < params_shape.dims(); ++d) {
    plan->slice_size *= params_shape.dim_size(d);
  }
  // An indices vector is a list of 1-element tuples.
  int64_t num_updates = indices.dims() > 0 ? indices.dim_size(0) : 0;
  if (indices.dims() > 1) {
    num_updates = 1;
    for (int d = 0; d + 1 < indices.dims(); ++d) {
      num_updates *= indices.dim_size(d);
    }
  }
  // Row-major strides of the indexed (leading) dims, in elements.
  std::vector<int64_t> strides(slice_dim);
  int64_t stride = plan->slice_size;
  for (int64_t d = slice_dim - 1; d >= 0; --d) {
    strides[d] = stride;
    stride *= params_shape.dim_size(d);
  }
  const std::vector<int64_t> index = IndexValues(indices);
  plan->offsets.assign(num_updates, 0);
  for (int64_t i = 0; i < num_updates; ++i) {
    const int64_t* tuple = index.data() + i * slice_dim;
    int64_t offset = 0;
    bool in_range = true;
    for (int64_t d = 0; d < slice_dim; ++d) {
      if (tuple[d] < 0 || tuple[d] >= params_shape.dim_size(d)) {
        in_range = false;
        break;
      }
      offset += tuple[d] * strides[d];
    }
    if (in_range) {
      plan->offsets[i] = offset;
    } else if (ignore_bad_indices) {
      plan->offsets[i] = -1;
    } else {
      return errors::InvalidArgument(
          "indices[", i, "] = [",
          absl::StrJoin(tuple, tuple + slice_dim, ", "),
          "] does not index into shape ", params_shape.DebugString());
    }
  }
  return absl::OkStatus();
}

}  // namespace array_ops
}  // namespace tributary
