// The functional scatter_nd ops (scatter_nd.h has the element rule):
//  * ScatterNd(indices, updates, shape): zeros of `shape` plus the updates
//    (repeated indices add up) - tf.scatter_nd, and the gradient of
//    tf.gather_nd.
//  * TensorScatterUpdate/Add/Sub/Min/Max(tensor, indices, updates): a copy of
//    tensor with the updates combined in (the input's buffer is reused when
//    no one else holds it) - tf.tensor_scatter_nd_*.
//  * ScatterNdNonAliasingAdd(input, indices, updates): TensorScatterAdd with
//    the validation of the variable forms.
// Each runs TensorFlow's own checks in TensorFlow's order (the op's shape
// checks, then the shared ones), so a bad input gets TensorFlow's message.

#include <cstdint>
#include <cstring>

#include "common/framework/status.h"
#include "common/kernel/kernel_registry.h"
#include "common/kernel/op_kernel.h"
#include "kernels/array/array_util.h"
#include "kernels/array/scatter_nd.h"
#include "kernels/array/strided_copy.h"

namespace tributary {
namespace {

using array_ops::ScatterNdKind;

// The shape checks ScatterNd and TensorScatter* make before the shared
// ones: an indices matrix [..., K] against updates [..., params[K:]], where
// (unlike the shared check) an indices vector is one K-tuple.
absl::Status CheckOpShapes(const TensorShape& shape, const Tensor& indices,
                           const Tensor& updates, int64_t shape_size,
                           bool tensor_scatter) {
  if (indices.dims() < 1) {
    return errors::InvalidArgument(
        "Indices shape must have rank at least one. Found:",
        indices.shape().DebugString());
  }
  if (updates.dims() < 1) {
    return errors::InvalidArgument(
        "Updates shape must have rank at least one. Found:",
        updates.shape().DebugString());
  }
  const int64_t n_indices = indices.NumElements();
  const int64_t n_updates = updates.NumElements();
  const bool empty_ok = (n_indices == 0 && n_updates == 0) ||
                        (shape_size != 0 && n_indices != 0 && n_updates != 0);
  if (!empty_ok) {
    return errors::InvalidArgument(
        "Indices and updates specified for empty output shape");
  }
  const int outer = indices.dims() - 1;
  for (int d = 0; d < outer; ++d) {
    if (indices.dim_size(d) != updates.dim_size(d)) {
      if (tensor_scatter) {
        return errors::InvalidArgument(
            "Outer dimensions of indices and update must match. Indices "
            "shape: ",
            indices.shape().DebugString(),
            ", updates shape:", updates.shape().DebugString());
      }
      return errors::InvalidArgument(
          "Dimensions [0,", outer, ") of indices[shape=",
          indices.shape().DebugString(), "] must match dimensions [0,", outer,
          ") of updates[shape=", updates.shape().DebugString(), "]");
    }
  }
  const int64_t ix = indices.dim_size(outer);
  auto inner_error = [&] {
    if (tensor_scatter) {
      return errors::InvalidArgument(
          "Inner dimensions of output shape must match inner dimensions of "
          "updates shape. Output: ",
          shape.DebugString(), " updates: ", updates.shape().DebugString());
    }
    return errors::InvalidArgument(
        "Dimensions [", ix, ",", shape.dims(), ") of input[shape=",
        shape.DebugString(), "] must match dimensions [", outer, ",",
        updates.dims(), ") of updates[shape=", updates.shape().DebugString(),
        "]");
  };
  if (updates.dims() - outer != shape.dims() - ix) return inner_error();
  for (int d = 0; d + outer < updates.dims(); ++d) {
    if (updates.dim_size(d + outer) != shape.dim_size(ix + d)) {
      if (!tensor_scatter) return inner_error();
      return errors::InvalidArgument(
          "The inner ", shape.dims() - ix,
          " dimensions of output.shape=", shape.DebugString(),
          " must match the inner ", updates.dims() - outer,
          " dimensions of updates.shape=", updates.shape().DebugString());
    }
  }
  return absl::OkStatus();
}

template <typename T, ScatterNdKind kKind>
absl::Status Scatter(const Tensor& indices, const Tensor& updates,
                     bool ignore_bad_indices, Tensor* params) {
  array_ops::ScatterNdPlan plan;
  TRIB_RETURN_IF_ERROR(array_ops::PlanScatterNd(
      params->shape(), indices, updates, ignore_bad_indices, &plan));
  array_ops::ApplyScatterNd<T, kKind>(plan, array_ops::RawData<T>(updates),
                                      array_ops::RawData<T>(params));
  return absl::OkStatus();
}

// T: the element type, or for kUpdate the movement type of its width.
template <typename T>
class ScatterNdOp : public OpKernel {
 public:
  explicit ScatterNdOp(OpKernelConstruction* context) : OpKernel(context) {
    OP_REQUIRES_OK(context,
                   array_ops::GetIgnoreBadIndices(context, &ignore_bad_));
  }

  void Compute(OpKernelContext* context) override {
    const Tensor& indices = context->input(0);
    const Tensor& updates = context->input(1);
    const Tensor& shape_input = context->input(2);
    OP_REQUIRES(context, shape_input.dims() == 1,
                errors::InvalidArgument("Shape must be a vector"));
    TensorShape shape;
    OP_REQUIRES_OK(context,
                   array_ops::MakeShapeFromShapeTensor(shape_input, &shape));
    OP_REQUIRES_OK(context, CheckOpShapes(shape, indices, updates,
                                          shape_input.NumElements(),
                                          /*tensor_scatter=*/false));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(context, context->allocate_output(0, shape, &out));
    // Strings start empty; every other dtype's zero is all bits clear.
    if (out->NumElements() > 0 && out->dtype() != DT_STRING) {
      std::memset(out->data(), 0, out->TotalBytes());
    }
    OP_REQUIRES_OK(context, (Scatter<T, ScatterNdKind::kAdd>(
                                indices, updates, ignore_bad_, out)));
  }

 private:
  bool ignore_bad_ = false;
};

// TensorScatter* (tensor_scatter = true) and ScatterNdNonAliasingAdd.
template <typename T, ScatterNdKind kKind, bool kTensorScatter>
class TensorScatterOp : public OpKernel {
 public:
  explicit TensorScatterOp(OpKernelConstruction* context) : OpKernel(context) {
    OP_REQUIRES_OK(context,
                   array_ops::GetIgnoreBadIndices(context, &ignore_bad_));
  }

  void Compute(OpKernelContext* context) override {
    const Tensor& input = context->input(0);
    const Tensor& indices = context->input(1);
    const Tensor& updates = context->input(2);
    if (kTensorScatter) {
      OP_REQUIRES_OK(context, CheckOpShapes(input.shape(), indices, updates,
                                            input.NumElements(),
                                            /*tensor_scatter=*/true));
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(context, context->forward_input_or_allocate_output(
                                {0}, 0, input.shape(), &out));
    const int64_t n = input.NumElements();
    if (out->data() != input.data() && n > 0) {
      OP_REQUIRES_OK(context,
                     array_ops::StridedCopy(context, input.dtype(),
                                            input.data(), {n}, {1},
                                            out->data()));
    }
    OP_REQUIRES_OK(context, (Scatter<T, kKind>(indices, updates, ignore_bad_,
                                               out)));
  }

 private:
  bool ignore_bad_ = false;
};

#define TRIB_REGISTER_FOR_INDICES(NAME, T, ...)                            \
  REGISTER_KERNEL_BUILDER(Name(NAME)                                       \
                              .Device(DEVICE_CPU)                          \
                              .TypeConstraint<T>("T")                      \
                              .TypeConstraint<int32_t>("Tindices"),        \
                          __VA_ARGS__);                                    \
  REGISTER_KERNEL_BUILDER(Name(NAME)                                       \
                              .Device(DEVICE_CPU)                          \
                              .TypeConstraint<T>("T")                      \
                              .TypeConstraint<int64_t>("Tindices"),        \
                          __VA_ARGS__)

// Adds and subtracts: every number type.
#define TRIB_REGISTER_ADD_SUB(T)                                              \
  TRIB_REGISTER_FOR_INDICES("ScatterNd", T, ScatterNdOp<T>);                 \
  TRIB_REGISTER_FOR_INDICES(                                                  \
      "TensorScatterAdd", T, TensorScatterOp<T, ScatterNdKind::kAdd, true>);  \
  TRIB_REGISTER_FOR_INDICES(                                                  \
      "TensorScatterSub", T, TensorScatterOp<T, ScatterNdKind::kSub, true>);  \
  TRIB_REGISTER_FOR_INDICES("ScatterNdNonAliasingAdd", T,                     \
                            TensorScatterOp<T, ScatterNdKind::kAdd, false>)
// Minimum and maximum: the real number types.
#define TRIB_REGISTER_MIN_MAX(T)                                             \
  TRIB_REGISTER_FOR_INDICES(                                                 \
      "TensorScatterMin", T, TensorScatterOp<T, ScatterNdKind::kMin, true>); \
  TRIB_REGISTER_FOR_INDICES(                                                 \
      "TensorScatterMax", T, TensorScatterOp<T, ScatterNdKind::kMax, true>)
#define TRIB_REGISTER_REAL(T) \
  TRIB_REGISTER_ADD_SUB(T);   \
  TRIB_REGISTER_MIN_MAX(T)

TRIB_FOR_EACH_SCATTER_ND_NUMBER(TRIB_REGISTER_REAL, TRIB_REGISTER_ADD_SUB);
// ScatterNd of strings: zeros are empty strings, "adding" concatenates.
TRIB_REGISTER_FOR_INDICES("ScatterNd", std::string, ScatterNdOp<std::string>);

// Updates move elements: one kernel per element width (or string).
#define TRIB_REGISTER_UPDATE(DTYPE, MOVE)                                 \
  REGISTER_KERNEL_BUILDER(                                               \
      Name("TensorScatterUpdate")                                        \
          .Device(DEVICE_CPU)                                            \
          .TypeConstraint("T", DTYPE)                                    \
          .TypeConstraint("Tindices", {DT_INT32, DT_INT64}),             \
      TensorScatterOp<MOVE, ScatterNdKind::kUpdate, true>)

TRIB_FOR_EACH_MOVABLE_DTYPE(TRIB_REGISTER_UPDATE);

}  // namespace
}  // namespace tributary
