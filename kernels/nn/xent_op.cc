// SoftmaxCrossEntropyWithLogits and SparseSoftmaxCrossEntropyWithLogits.
//
// Both return the per-example loss and its gradient with respect to the
// logits in one pass (the gradient is softmax - labels, a by-product of the
// loss), which is why TensorFlow's gradient for these ops is nearly free.
// Per row, with s = logits - max(logits) and Z = sum(exp(s)):
//   loss     = sum_j labels_j * (log Z - s_j)
//   backprop = exp(s) / Z - labels
// The sparse form has a one-hot labels row given by its class index.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "common/framework/tensor.h"
#include "common/framework/tensor_shape.h"
#include "common/kernel/kernel_registry.h"
#include "common/kernel/op_kernel.h"
#include "kernels/nn/xent_shape.h"
#include "unsupported/Eigen/CXX11/Tensor"

namespace tributary {
namespace {

template <typename T>
using RowMap = Eigen::Map<Eigen::Array<T, Eigen::Dynamic, 1>>;
template <typename T>
using ConstRowMap = Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, 1>>;

// Cost of one row for parallelFor: a few passes over it and an exp each.
template <typename T>
Eigen::TensorOpCost RowCost(int64_t classes) {
  return Eigen::TensorOpCost(3.0 * classes * sizeof(T),
                             1.0 * classes * sizeof(T), 25.0 * classes);
}

// ---- Dense labels, with TensorFlow's broadcasting of logits/labels ----------

// `in` broadcast to [rows, cols] in a fresh buffer. Only used when shapes
// differ, which real models rarely do, so clarity beats speed here.
template <typename T>
absl::Status MaterializeBroadcast(OpKernelContext* context, const Tensor& in,
                                  int64_t rows, int64_t cols, Tensor* out) {
  TRIB_RETURN_IF_ERROR(context->allocate_temp(DataTypeToEnum<T>::value,
                                              TensorShape({rows, cols}), out));
  int64_t in_rows = 0;
  int64_t in_cols = 0;
  AsMatrixDims(in.shape(), &in_rows, &in_cols);
  const T* src = in.flat<T>().data();
  T* dst = out->flat<T>().data();
  for (int64_t r = 0; r < rows; ++r) {
    const T* src_row = src + (in_rows == 1 ? 0 : r) * in_cols;
    for (int64_t c = 0; c < cols; ++c) {
      dst[r * cols + c] = src_row[in_cols == 1 ? 0 : c];
    }
  }
  return absl::OkStatus();
}

template <typename T>
class SoftmaxXentWithLogitsOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* context) override {
    const Tensor& logits_in = context->input(0);
    const Tensor& labels_in = context->input(1);
    absl::StatusOr<TensorShape> xent_shape =
        XentShape(logits_in.shape(), labels_in.shape());
    OP_REQUIRES_OK(context, xent_shape.status());
    const TensorShape& shape = *xent_shape;
    const int64_t batch = shape.dim_size(0);
    const int64_t classes = shape.dim_size(1);

    // Pointers, not Tensor copies: a copy would hold a second reference to
    // the logits buffer and stop forward_input from reusing it below.
    const Tensor* logits = &logits_in;
    const Tensor* labels = &labels_in;
    Tensor logits_broadcast;
    Tensor labels_broadcast;
    if (!logits_in.shape().IsSameSize(shape)) {
      OP_REQUIRES_OK(context,
                     MaterializeBroadcast<T>(context, logits_in, batch, classes,
                                             &logits_broadcast));
      logits = &logits_broadcast;
    }
    if (!labels_in.shape().IsSameSize(shape)) {
      OP_REQUIRES_OK(context,
                     MaterializeBroadcast<T>(context, labels_in, batch, classes,
                                             &labels_broadcast));
      labels = &labels_broadcast;
    }

    Tensor* loss_out = nullptr;
    OP_REQUIRES_OK(context, context->allocate_output(0, {batch}, &loss_out));
    Tensor* backprop_out = nullptr;
    // The backprop may take over the logits buffer: each row is read in
    // full (for its max) before it is overwritten.
    OP_REQUIRES_OK(context, context->forward_input_or_allocate_output(
                                {0}, 1, shape, &backprop_out));
    if (batch == 0) return;
    T* loss = loss_out->flat<T>().data();
    if (classes == 0) {
      // A sum over no classes.
      std::fill(loss, loss + batch, static_cast<T>(0));
      return;
    }
    const T* logits_data = logits->flat<T>().data();
    const T* labels_data = labels->flat<T>().data();
    T* backprop = backprop_out->flat<T>().data();
    context->eigen_cpu_device().parallelFor(
        batch, RowCost<T>(classes), [=](Eigen::Index first, Eigen::Index last) {
          for (Eigen::Index r = first; r < last; ++r) {
            const ConstRowMap<T> x(logits_data + r * classes, classes);
            const ConstRowMap<T> y(labels_data + r * classes, classes);
            RowMap<T> b(backprop + r * classes, classes);
            const T max = x.maxCoeff();
            b = x - max;  // shifted logits
            const T sum_exp = b.exp().sum();
            const T log_sum = std::log(sum_exp);
            loss[r] = (y * (log_sum - b)).sum();
            b = b.exp() / sum_exp - y;
          }
        });
  }
};

// ---- Sparse labels
// -----------------------------------------------------------

template <typename Index>
absl::Status CheckLabelRange(const Tensor& labels, int64_t num_classes) {
  if (labels.NumElements() == 0) return absl::OkStatus();
  const Index* data = labels.flat<Index>().data();
  const auto minmax = std::minmax_element(data, data + labels.NumElements());
  if (*minmax.first >= 0 && *minmax.second < num_classes) {
    return absl::OkStatus();
  }
  // TensorFlow reports the smallest value when one is negative, else the
  // largest, and lists every label.
  const Index bad = *minmax.first < 0 ? *minmax.first : *minmax.second;
  return errors::InvalidArgument(
      "Received a label value of ", bad,
      " which is outside the valid range of [0, ", num_classes,
      ").  Label values: ", labels.SummarizeValue(labels.NumElements()));
}

template <typename T, typename Index>
class SparseSoftmaxXentWithLogitsOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* context) override {
    const Tensor& logits = context->input(0);
    const Tensor& labels = context->input(1);
    OP_REQUIRES(context, logits.dims() == 2,
                errors::InvalidArgument("logits must be 2-D, but got shape ",
                                        logits.shape().DebugString()));
    OP_REQUIRES(context, labels.dims() == 1,
                errors::InvalidArgument("labels must be 1-D, but got shape ",
                                        labels.shape().DebugString()));
    OP_REQUIRES(context, logits.dim_size(0) == labels.dim_size(0),
                errors::InvalidArgument(
                    "logits and labels must have the same first dimension, "
                    "got logits shape ",
                    logits.shape().DebugString(), " and labels shape ",
                    labels.shape().DebugString()));
    OP_REQUIRES(context, logits.dim_size(1) > 0,
                errors::InvalidArgument(
                    "Must have at least one class, but got logits shape ",
                    logits.shape().DebugString()));
    const int64_t batch = logits.dim_size(0);
    const int64_t classes = logits.dim_size(1);

    Tensor* loss_out = nullptr;
    OP_REQUIRES_OK(context, context->allocate_output(0, {batch}, &loss_out));
    Tensor* backprop_out = nullptr;
    OP_REQUIRES_OK(context, context->forward_input_or_allocate_output(
                                {0}, 1, logits.shape(), &backprop_out));
    if (batch == 0) return;
    OP_REQUIRES_OK(context, CheckLabelRange<Index>(labels, classes));

    const T* logits_data = logits.flat<T>().data();
    const Index* label_data = labels.flat<Index>().data();
    T* loss = loss_out->flat<T>().data();
    T* backprop = backprop_out->flat<T>().data();
    context->eigen_cpu_device().parallelFor(
        batch, RowCost<T>(classes), [=](Eigen::Index first, Eigen::Index last) {
          for (Eigen::Index r = first; r < last; ++r) {
            const ConstRowMap<T> x(logits_data + r * classes, classes);
            RowMap<T> b(backprop + r * classes, classes);
            const int64_t label = static_cast<int64_t>(label_data[r]);
            const T max = x.maxCoeff();
            b = x - max;
            const T sum_exp = b.exp().sum();
            loss[r] = std::log(sum_exp) - b[label];
            b = b.exp() / sum_exp;
            b[label] -= static_cast<T>(1);
          }
        });
  }
};

#define REGISTER_XENT_KERNELS(T)                                      \
  REGISTER_KERNEL_BUILDER(Name("SoftmaxCrossEntropyWithLogits")       \
                              .Device(DEVICE_CPU)                     \
                              .TypeConstraint<T>("T"),                \
                          SoftmaxXentWithLogitsOp<T>);                \
  REGISTER_KERNEL_BUILDER(Name("SparseSoftmaxCrossEntropyWithLogits") \
                              .Device(DEVICE_CPU)                     \
                              .TypeConstraint<T>("T")                 \
                              .TypeConstraint<int32_t>("Tlabels"),    \
                          SparseSoftmaxXentWithLogitsOp<T, int32_t>); \
  REGISTER_KERNEL_BUILDER(Name("SparseSoftmaxCrossEntropyWithLogits") \
                              .Device(DEVICE_CPU)                     \
                              .TypeConstraint<T>("T")                 \
                              .TypeConstraint<int64_t>("Tlabels"),    \
                          SparseSoftmaxXentWithLogitsOp<T, int64_t>)

REGISTER_XENT_KERNELS(float);
REGISTER_XENT_KERNELS(double);

#undef REGISTER_XENT_KERNELS

}  // namespace
}  // namespace tributary
