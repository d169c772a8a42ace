// SparseSegment{Sum,Mean,SqrtN}GradV2(grad, indices, segment_ids,
// dense_output_dim0) -> (output, sorted_unique_indices): the gradient of a
// sparse segment reduction built with sparse_gradient=True, as
// IndexedSlices rows. sorted_unique_indices are the distinct values of
// `indices`, ascending; output[u] is the sum over every i with
// indices[i] == sorted_unique_indices[u] of
// scale(segment_ids[i]) * grad[segment_ids[i]], scale being 1 (Sum),
// 1/count (Mean) or 1/sqrt(count) (SqrtN), count the number of entries of
// segment_ids naming that segment. segment_ids need not be sorted. Output
// shape [unique count] + grad.shape[1:]; half and bfloat16 accumulate in
// float, rows are summed in input order.
//
// Errors are InvalidArgument in TensorFlow 2.21's words: "indices should be
// a vector.", "segment_ids should be a vector.", "segment_ids and indices
// should have same size.", "dense_output_dim0 should be a scalar.",
// "Expected a non-negative size, got -1", "Index 7 out of range [0, 6).",
// "Invalid number of segments" (a segment id outside grad's rows). A
// scalar grad is refused ("Shape must be at least rank 1 but is rank 0";
// TensorFlow words it "Index must be less than 0, got 0").

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

template <typename T, typename Tidx, SegmentScale S>
class SparseSegmentGradV2Op : public OpKernel {
 public:
  explicit SparseSegmentGradV2Op(OpKernelConstruction* context)
      : OpKernel(context) {}

  void Compute(OpKernelContext* context) override {
    const Tensor& grad = context->input(0);
    const Tensor& indices = context->input(1);
    const Tensor& segment_ids = context->input(2);
    const Tensor& dim0 = context->input(3);
    OP_REQUIRES(context, indices.dims() == 1,
                errors::InvalidArgument("indices should be a vector."));
    OP_REQUIRES(context, segment_ids.dims() == 1,
                errors::InvalidArgument("segment_ids should be a vector."));
    OP_REQUIRES(context, indices.NumElements() == segment_ids.NumElements(),
                errors::InvalidArgument(
                    "segment_ids and indices should have same size."));
    OP_REQUIRES(
        context, dim0.dims() == 0,
        errors::InvalidArgument("dense_output_dim0 should be a scalar."));
    OP_REQUIRES(context, grad.dims() >= 1,
                errors::InvalidArgument(
                    "Shape must be at least rank 1 but is rank ", grad.dims()));
    const int64_t rows = dim0.flat<int32_t>()(0);
    OP_REQUIRES(
        context, rows >= 0,
        errors::InvalidArgument("Expected a non-negative size, got ", rows));
    const std::vector<int64_t> idx = array_ops::IndexValues(indices);
    const std::vector<int64_t> seg = array_ops::IndexValues(segment_ids);
    const int64_t n = static_cast<int64_t>(idx.size());
    const int64_t segments = grad.dim_size(0);
    for (int64_t i = 0; i < n; ++i) {
      OP_REQUIRES(context, idx[i] >= 0 && idx[i] < rows,
                  errors::InvalidArgument("Index ", idx[i],
                                          " out of range [0, ", rows, ")."));
      OP_REQUIRES(context, seg[i] >= 0 && seg[i] < segments,
                  errors::InvalidArgument("Invalid number of segments"));
    }

    std::vector<int64_t> unique = idx;
    std::sort(unique.begin(), unique.end());
    unique.erase(std::unique(unique.begin(), unique.end()), unique.end());
    const int64_t u = static_cast<int64_t>(unique.size());

    TensorShape out_shape = grad.shape();
    out_shape.set_dim(0, u);
    Tensor* output = nullptr;
    OP_REQUIRES_OK(context, context->allocate_output(0, out_shape, &output));
    Tensor* sorted = nullptr;
    OP_REQUIRES_OK(context,
                   context->allocate_output(1, TensorShape({u}), &sorted));
    if (u == 0) return;
    Tidx* sorted_out = sorted->flat<Tidx>().data();
    for (int64_t k = 0; k < u; ++k)
      sorted_out[k] = static_cast<Tidx>(unique[k]);
    const int64_t inner = embedding::InnerSize(grad.shape(), 1);
    if (inner == 0) return;

    // Each index goes to its row among the sorted unique indices.
    embedding::ScatterSegmentGradient(
        grad.flat<T>().data(), seg, segments, inner, S, u,
        [&](size_t i) {
          return std::lower_bound(unique.begin(), unique.end(), idx[i]) -
                 unique.begin();
        },
        output->flat<T>().data());
  }
};

constexpr DataType kSegmentIdTypes[] = {DT_INT32, DT_INT64};

#define TRIB_REGISTER_GRAD_V2(NAME, S, T, TIDX)                                \
  REGISTER_KERNEL_BUILDER(Name(NAME)                                           \
                              .Device(DEVICE_CPU)                              \
                              .TypeConstraint<T>("T")                          \
                              .TypeConstraint<TIDX>("Tidx")                    \
                              .TypeConstraint("Tsegmentids", kSegmentIdTypes), \
                          SparseSegmentGradV2Op<T, TIDX, S>)
#define TRIB_REGISTER_GRAD_V2_IDX(T, TIDX)                                   \
  TRIB_REGISTER_GRAD_V2("SparseSegmentSumGradV2", SegmentScale::kSum, T,     \
                        TIDX);                                               \
  TRIB_REGISTER_GRAD_V2("SparseSegmentMeanGradV2", SegmentScale::kMean, T,   \
                        TIDX);                                               \
  TRIB_REGISTER_GRAD_V2("SparseSegmentSqrtNGradV2", SegmentScale::kSqrtN, T, \
                        TIDX)
#define TRIB_REGISTER_GRAD_V2_TYPE(T)    \
  TRIB_REGISTER_GRAD_V2_IDX(T, int32_t); \
  TRIB_REGISTER_GRAD_V2_IDX(T, int64_t)

TRIB_REGISTER_GRAD_V2_TYPE(float);
TRIB_REGISTER_GRAD_V2_TYPE(double);
TRIB_REGISTER_GRAD_V2_TYPE(half);
TRIB_REGISTER_GRAD_V2_TYPE(bfloat16);

#undef TRIB_REGISTER_GRAD_V2_TYPE
#undef TRIB_REGISTER_GRAD_V2_IDX
#undef TRIB_REGISTER_GRAD_V2

}  // namespace
}  // namespace tributary
