// Sparse segment reductions and their gradients:
//
//   SparseSegment{Sum,Mean,SqrtN}[WithNumSegments](data, indices, segment_ids
//                                                  [, num_segments])
//     output[s] = scale(s) * sum over i with segment_ids[i] == s of
//                 data[indices[i]]
//   scale: 1 (Sum), 1/count (Mean), 1/sqrt(count) (SqrtN). segment_ids are
//   sorted; output rows: num_segments, or last id + 1. Empty segments are 0.
//
//   SparseSegment{Sum,Mean,SqrtN}Grad(grad, indices, segment_ids, output_dim0)
//     output[indices[i]] += scale(segment_ids[i]) * grad[segment_ids[i]]
//     with output rows output_dim0 (the gradient w.r.t. data).
//
// half and bfloat16 accumulate in float. Error messages are TensorFlow's.

#include <algorithm>
#include <cstdint>
#include <vector>

#include "common/kernel/kernel_registry.h"
#include "common/kernel/op_kernel.h"
#include "kernels/array/array_util.h"
#include "kernels/embedding/embedding_util.h"

namespace tributary {
namespace {

using embedding::SegmentScale;

// Shapes shared by the forward ops and the gradients.
absl::Status ValidateIndexVectors(const Tensor& indices,
                                  const Tensor& segment_ids) {
  if (indices.dims() != 1) {
    return errors::InvalidArgument("indices should be a vector.");
  }
  if (segment_ids.dims() != 1) {
    return errors::InvalidArgument("segment_ids should be a vector.");
  }
  if (indices.NumElements() != segment_ids.NumElements()) {
    return errors::InvalidArgument(
        "segment_ids and indices should have same size.");
  }
  return absl::OkStatus();
}

template <typename T, SegmentScale S, bool kHasNumSegments>
class SparseSegmentReductionOp : public OpKernel {
 public:
  explicit SparseSegmentReductionOp(OpKernelConstruction* context)
      : OpKernel(context) {}

  void Compute(OpKernelContext* context) override {
    using A = embedding::Accumulator<T>;
    const Tensor& data = context->input(0);
    const Tensor& indices = context->input(1);
    const Tensor& segment_ids = context->input(2);
    OP_REQUIRES_OK(context, ValidateIndexVectors(indices, segment_ids));
    OP_REQUIRES(context, data.dims() >= 1,
                errors::InvalidArgument(
                    "Shape must be at least rank 1 but is rank ", data.dims()));
    const std::vector<int64_t> idx = array_ops::IndexValues(indices);
    const std::vector<int64_t> seg = array_ops::IndexValues(segment_ids);
    const int64_t n = static_cast<int64_t>(idx.size());
    const int64_t last_plus_one = n > 0 ? seg[n - 1] + 1 : 0;
    int64_t rows = last_plus_one;
    if (kHasNumSegments) {
      const Tensor& num_segments = context->input(3);
      OP_REQUIRES(
          context, num_segments.dims() == 0,
          errors::InvalidArgument("num_segments should be a scalar, not shape ",
                                  num_segments.shape().DebugString()));
      rows = array_ops::FirstIndexValue(num_segments);
      OP_REQUIRES(
          context, rows >= last_plus_one,
          errors::InvalidArgument("segment ids must be < num_segments"));
    }
    OP_REQUIRES(context, rows >= 0,
                errors::InvalidArgument("segment ids must be >= 0"));
    const int64_t data_rows = data.dim_size(0);
    // TensorFlow checks that the next id does not decrease before it
    // bounds-checks the current one; keep its order so errors match.
    for (int64_t i = 0; i < n; ++i) {
      OP_REQUIRES(context, i + 1 == n || seg[i] <= seg[i + 1],
                  errors::InvalidArgument("segment ids are not increasing"));
      OP_REQUIRES(context, seg[i] >= 0 && seg[i] < rows,
                  errors::InvalidArgument(
                      "Segment id ", seg[i], " out of range [0, ", rows,
                      "), possibly because 'segment_ids' input is not "
                      "sorted."));
      OP_REQUIRES(
          context, idx[i] >= 0 && idx[i] < data_rows,
          errors::InvalidArgument("Bad: indices[", i, "] == ", idx[i],
                                  " out of range [0, ", data_rows, ")"));
    }

    TensorShape out_shape = data.shape();
    out_shape.set_dim(0, rows);
    Tensor* output = nullptr;
    OP_REQUIRES_OK(context, context->allocate_output(0, out_shape, &output));
    const int64_t inner = embedding::InnerSize(data.shape(), 1);
    if (rows == 0 || inner == 0) return;
    T* out = output->flat<T>().data();
    std::fill(out, out + rows * inner, T(0));
    if (n == 0) return;
    const T* in = data.flat<T>().data();

    std::vector<A> acc(inner);
    for (int64_t start = 0; start < n;) {
      int64_t end = start + 1;
      while (end < n && seg[end] == seg[start]) ++end;
      std::fill(acc.begin(), acc.end(), A(0));
      for (int64_t i = start; i < end; ++i) {
        const T* row = in + idx[i] * inner;
        for (int64_t k = 0; k < inner; ++k) acc[k] += static_cast<A>(row[k]);
      }
      const A scale = embedding::SegmentScaleFor<A>(S, end - start);
      T* dst = out + seg[start] * inner;
      for (int64_t k = 0; k < inner; ++k)
        dst[k] = static_cast<T>(acc[k] * scale);
      start = end;
    }
  }
};

template <typename T, SegmentScale S>
class SparseSegmentGradOp : public OpKernel {
 public:
  explicit SparseSegmentGradOp(OpKernelConstruction* context)
      : OpKernel(context) {}

  void Compute(OpKernelContext* context) override {
    const Tensor& grad = context->input(0);
    const Tensor& indices = context->input(1);
    const Tensor& segment_ids = context->input(2);
    const Tensor& output_dim0 = context->input(3);
    OP_REQUIRES_OK(context, ValidateIndexVectors(indices, segment_ids));
    OP_REQUIRES(context, output_dim0.dims() == 0,
                errors::InvalidArgument("output_dim0 should be a scalar."));
    OP_REQUIRES(context, grad.dims() >= 1,
                errors::InvalidArgument(
                    "Shape must be at least rank 1 but is rank ", grad.dims()));
    const int64_t rows = output_dim0.flat<int32_t>()(0);
    OP_REQUIRES(context, rows >= 0,
                errors::InvalidArgument("Invalid output_dim0: ", rows));
    const std::vector<int64_t> idx = array_ops::IndexValues(indices);
    const std::vector<int64_t> seg = array_ops::IndexValues(segment_ids);
    const int64_t n = static_cast<int64_t>(idx.size());
    const int64_t segments = grad.dim_size(0);
    for (int64_t i = 0; i < n; ++i) {
      OP_REQUIRES(
          context, seg[i] >= 0 && seg[i] < segments,
          errors::InvalidArgument("Invalid number of segments: id ", seg[i],
                                  " not in [0, ", segments, ")"));
      OP_REQUIRES(context, idx[i] >= 0 && idx[i] < rows,
                  errors::InvalidArgument("Index ", idx[i],
                                          " out of range [0, ", rows, ")"));
    }
    TensorShape out_shape = grad.shape();
    out_shape.set_dim(0, rows);
    Tensor* output = nullptr;
    OP_REQUIRES_OK(context, context->allocate_output(0, out_shape, &output));
    const int64_t inner = embedding::InnerSize(grad.shape(), 1);
    if (rows == 0 || inner == 0) return;

    // Segment sizes give the scales; sums run in input order.
    embedding::ScatterSegmentGradient(
        n > 0 ? grad.flat<T>().data() : nullptr, seg, segments, inner, S, rows,
        [&](size_t i) { return idx[i]; }, output->flat<T>().data());
  }
};

constexpr DataType kIdTypes[] = {DT_INT32, DT_INT64};

#define TRIB_REGISTER_FORWARD(NAME, S, HAS_NUM, T)                      \
  REGISTER_KERNEL_BUILDER(Name(NAME)                                    \
                              .Device(DEVICE_CPU)                       \
                              .TypeConstraint<T>("T")                   \
                              .TypeConstraint("Tidx", kIdTypes)         \
                              .TypeConstraint("Tsegmentids", kIdTypes), \
                          SparseSegmentReductionOp<T, S, HAS_NUM>)
#define TRIB_REGISTER_SUM(T)                                                   \
  TRIB_REGISTER_FORWARD("SparseSegmentSum", SegmentScale::kSum, false, T);     \
  TRIB_REGISTER_FORWARD("SparseSegmentSumWithNumSegments", SegmentScale::kSum, \
                        true, T)
#define TRIB_REGISTER_FLOATING(T)                                              \
  TRIB_REGISTER_SUM(T);                                                        \
  TRIB_REGISTER_FORWARD("SparseSegmentMean", SegmentScale::kMean, false, T);   \
  TRIB_REGISTER_FORWARD("SparseSegmentMeanWithNumSegments",                    \
                        SegmentScale::kMean, true, T);                         \
  TRIB_REGISTER_FORWARD("SparseSegmentSqrtN", SegmentScale::kSqrtN, false, T); \
  TRIB_REGISTER_FORWARD("SparseSegmentSqrtNWithNumSegments",                   \
                        SegmentScale::kSqrtN, true, T);                        \
  REGISTER_KERNEL_BUILDER(Name("SparseSegmentSumGrad")                         \
                              .Device(DEVICE_CPU)                              \
                              .TypeConstraint<T>("T")                          \
                              .TypeConstraint("Tidx", kIdTypes)                \
                              .TypeConstraint("Tsegmentids", kIdTypes),        \
                          SparseSegmentGradOp<T, SegmentScale::kSum>);         \
  REGISTER_KERNEL_BUILDER(Name("SparseSegmentMeanGrad")                        \
                              .Device(DEVICE_CPU)                              \
                              .TypeConstraint<T>("T")                          \
                              .TypeConstraint("Tidx", kIdTypes)                \
                              .TypeConstraint("Tsegmentids", kIdTypes),        \
                          SparseSegmentGradOp<T, SegmentScale::kMean>);        \
  REGISTER_KERNEL_BUILDER(Name("SparseSegmentSqrtNGrad")                       \
                              .Device(DEVICE_CPU)                              \
                              .TypeConstraint<T>("T")                          \
                              .TypeConstraint("Tidx", kIdTypes)                \
                              .TypeConstraint("Tsegmentids", kIdTypes),        \
                          SparseSegmentGradOp<T, SegmentScale::kSqrtN>)

TRIB_REGISTER_FLOATING(float);
TRIB_REGISTER_FLOATING(double);
TRIB_REGISTER_FLOATING(half);
TRIB_REGISTER_FLOATING(bfloat16);
// Sum also takes the integer types (realnumbertype).
TRIB_REGISTER_SUM(int8_t);
TRIB_REGISTER_SUM(int16_t);
TRIB_REGISTER_SUM(int32_t);
TRIB_REGISTER_SUM(int64_t);
TRIB_REGISTER_SUM(uint8_t);
TRIB_REGISTER_SUM(uint16_t);
TRIB_REGISTER_SUM(uint32_t);
TRIB_REGISTER_SUM(uint64_t);

#undef TRIB_REGISTER_FLOATING
#undef TRIB_REGISTER_SUM
#undef TRIB_REGISTER_FORWARD

}  // namespace
}  // namespace tributary
