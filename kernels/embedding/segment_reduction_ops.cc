// Segment reductions over the leading dims of `data`:
//
//   Segment{Sum,Mean,Prod,Max,Min}(data, segment_ids)
//     segment_ids: a sorted vector, one id per row of data (dim 0);
//     output rows: last id + 1. Rows no id names are 0 (1 for Prod).
//   UnsortedSegment{Sum,Prod,Max,Min}(data, segment_ids, num_segments)
//     segment_ids.shape a prefix of data.shape, any order; negative ids are
//     dropped; output rows: num_segments. Empty segments hold the
//     reduction's identity (0, 1, lowest, highest), as in TensorFlow.
//
// Rows are reduced in input order, so sums match a sequential loop.

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "Eigen/Core"
#include "common/kernel/kernel_registry.h"
#include "common/kernel/op_kernel.h"
#include "kernels/array/array_util.h"
#include "kernels/embedding/embedding_util.h"

namespace tributary {
namespace {

enum class Reduction { kSum, kMean, kProd, kMax, kMin };

template <typename T>
T Identity(Reduction r) {
  switch (r) {
    case Reduction::kProd:
      return T(1);
    case Reduction::kMax:
      return Eigen::NumTraits<T>::lowest();
    case Reduction::kMin:
      return Eigen::NumTraits<T>::highest();
    default:
      return T(0);
  }
}

template <typename T>
void Combine(Reduction r, const T* in, T* out, int64_t inner) {
  switch (r) {
    case Reduction::kProd:
      for (int64_t k = 0; k < inner; ++k) out[k] = out[k] * in[k];
      return;
    case Reduction::kMax:
      if constexpr (Eigen::NumTraits<T>::IsComplex)
        return;
      else
        for (int64_t k = 0; k < inner; ++k)
          out[k] = in[k] > out[k] ? in[k] : out[k];
      return;
    case Reduction::kMin:
      if constexpr (Eigen::NumTraits<T>::IsComplex)
        return;
      else
        for (int64_t k = 0; k < inner; ++k)
          out[k] = in[k] < out[k] ? in[k] : out[k];
      return;
    default:
      for (int64_t k = 0; k < inner; ++k) out[k] = out[k] + in[k];
      return;
  }
}

template <typename T, Reduction R>
class SegmentReductionOp : public OpKernel {
 public:
  explicit SegmentReductionOp(OpKernelConstruction* context)
      : OpKernel(context) {}

  void Compute(OpKernelContext* context) override {
    const Tensor& data = context->input(0);
    const Tensor& segment_ids = context->input(1);
    OP_REQUIRES(context, segment_ids.dims() == 1,
                errors::InvalidArgument("segment_ids should be a vector."));
    OP_REQUIRES(context, data.dims() >= 1,
                errors::InvalidArgument(
                    "Shape must be at least rank 1 but is rank ", data.dims()));
    const int64_t n = segment_ids.NumElements();
    OP_REQUIRES(context, n == data.dim_size(0),
                errors::InvalidArgument(
                    "segment_ids should be the same size as dimension 0 of"
                    " input."));
    const std::vector<int64_t> ids = array_ops::IndexValues(segment_ids);
    const int64_t rows = n > 0 ? ids[n - 1] + 1 : 0;
    // TensorFlow checks that the next id does not decrease before it
    // bounds-checks the current one; keep its order so errors match.
    for (int64_t i = 0; i < n; ++i) {
      OP_REQUIRES(context, i + 1 == n || ids[i] <= ids[i + 1],
                  errors::InvalidArgument("segment ids are not increasing"));
      OP_REQUIRES(context, ids[i] >= 0 && ids[i] < rows,
                  errors::InvalidArgument(
                      "Segment id ", ids[i], " out of range [0, ", rows,
                      "), possibly because 'segment_ids' input is not "
                      "sorted."));
    }
    TensorShape out_shape = data.shape();
    out_shape.set_dim(0, rows);
    Tensor* output = nullptr;
    OP_REQUIRES_OK(context, context->allocate_output(0, out_shape, &output));
    const int64_t inner = embedding::InnerSize(data.shape(), 1);
    if (rows == 0 || inner == 0) return;

    const T* in = data.flat<T>().data();
    T* out = output->flat<T>().data();
    std::fill(out, out + rows * inner, Identity<T>(R));
    std::vector<int64_t> counts(rows, 0);
    for (int64_t i = 0; i < n; ++i) {
      Combine<T>(R, in + i * inner, out + ids[i] * inner, inner);
      ++counts[ids[i]];
    }
    for (int64_t s = 0; s < rows; ++s) {
      T* row = out + s * inner;
      if (counts[s] == 0) {
        // Sorted reductions give 0 to empty segments (1 for Prod).
        std::fill(row, row + inner, R == Reduction::kProd ? T(1) : T(0));
      } else if (R == Reduction::kMean) {
        const T c = static_cast<T>(counts[s]);
        for (int64_t k = 0; k < inner; ++k) row[k] = row[k] / c;
      }
    }
  }
};

template <typename T, Reduction R>
class UnsortedSegmentReductionOp : public OpKernel {
 public:
  explicit UnsortedSegmentReductionOp(OpKernelConstruction* context)
      : OpKernel(context) {}

  void Compute(OpKernelContext* context) override {
    const Tensor& data = context->input(0);
    const Tensor& segment_ids = context->input(1);
    const Tensor& num_segments = context->input(2);
    OP_REQUIRES(
        context, num_segments.dims() == 0,
        errors::InvalidArgument("num_segments should be a scalar, not shape ",
                                num_segments.shape().DebugString()));
    OP_REQUIRES(
        context, embedding::StartsWith(data.shape(), segment_ids.shape()),
        errors::InvalidArgument("data.shape = ", data.shape().DebugString(),
                                " does not start with segment_ids.shape = ",
                                segment_ids.shape().DebugString()));
    const int64_t rows = array_ops::FirstIndexValue(num_segments);
    OP_REQUIRES(context, rows >= 0,
                errors::InvalidArgument("Input num_segments == ", rows,
                                        " must not be negative."));
    const std::vector<int64_t> ids = array_ops::IndexValues(segment_ids);
    const int64_t n = static_cast<int64_t>(ids.size());
    for (int64_t i = 0; i < n; ++i) {
      OP_REQUIRES(context, ids[i] < rows,
                  errors::InvalidArgument(
                      "segment_ids",
                      array_ops::SliceDebugString(segment_ids.shape(), i),
                      " = ", ids[i], " is out of range [0, ", rows, ")"));
    }
    TensorShape out_shape({rows});
    for (int d = segment_ids.dims(); d < data.dims(); ++d) {
      out_shape.AddDim(data.dim_size(d));
    }
    Tensor* output = nullptr;
    OP_REQUIRES_OK(context, context->allocate_output(0, out_shape, &output));
    const int64_t inner =
        embedding::InnerSize(data.shape(), segment_ids.dims());
    if (rows == 0 || inner == 0) return;
    T* out = output->flat<T>().data();
    std::fill(out, out + rows * inner, Identity<T>(R));
    if (n == 0) return;
    const T* in = data.flat<T>().data();
    for (int64_t i = 0; i < n; ++i) {
      if (ids[i] < 0) continue;  // TensorFlow drops negative ids.
      Combine<T>(R, in + i * inner, out + ids[i] * inner, inner);
    }
  }
};

constexpr DataType kIdTypes[] = {DT_INT32, DT_INT64};
constexpr DataType kSumIdTypes[] = {DT_INT16, DT_INT32, DT_INT64};

#define TRIB_REGISTER_SORTED(NAME, R, T)                             \
  REGISTER_KERNEL_BUILDER(Name(NAME)                                 \
                              .Device(DEVICE_CPU)                    \
                              .TypeConstraint<T>("T")                \
                              .TypeConstraint("Tindices", kIdTypes), \
                          SegmentReductionOp<T, R>)
#define TRIB_REGISTER_UNSORTED(NAME, R, T, IDS)                          \
  REGISTER_KERNEL_BUILDER(Name(NAME)                                     \
                              .Device(DEVICE_CPU)                        \
                              .TypeConstraint<T>("T")                    \
                              .TypeConstraint("Tindices", IDS)           \
                              .TypeConstraint("Tnumsegments", kIdTypes), \
                          UnsortedSegmentReductionOp<T, R>)

// Sum, Mean and Prod: TensorFlow's numbertype less the quantized types.
#define TRIB_REGISTER_ARITH(T)                                     \
  TRIB_REGISTER_SORTED("SegmentSum", Reduction::kSum, T);          \
  TRIB_REGISTER_SORTED("SegmentMean", Reduction::kMean, T);        \
  TRIB_REGISTER_SORTED("SegmentProd", Reduction::kProd, T);        \
  TRIB_REGISTER_UNSORTED("UnsortedSegmentSum", Reduction::kSum, T, \
                         kSumIdTypes);                             \
  TRIB_REGISTER_UNSORTED("UnsortedSegmentProd", Reduction::kProd, T, kIdTypes)
// Max and Min: realnumbertype.
#define TRIB_REGISTER_ORDERED(T)                                              \
  TRIB_REGISTER_SORTED("SegmentMax", Reduction::kMax, T);                     \
  TRIB_REGISTER_SORTED("SegmentMin", Reduction::kMin, T);                     \
  TRIB_REGISTER_UNSORTED("UnsortedSegmentMax", Reduction::kMax, T, kIdTypes); \
  TRIB_REGISTER_UNSORTED("UnsortedSegmentMin", Reduction::kMin, T, kIdTypes)
#define TRIB_REGISTER_REAL(T) \
  TRIB_REGISTER_ARITH(T);     \
  TRIB_REGISTER_ORDERED(T)

TRIB_REGISTER_REAL(float);
TRIB_REGISTER_REAL(double);
TRIB_REGISTER_REAL(half);
TRIB_REGISTER_REAL(bfloat16);
TRIB_REGISTER_REAL(int8_t);
TRIB_REGISTER_REAL(int16_t);
TRIB_REGISTER_REAL(int32_t);
TRIB_REGISTER_REAL(int64_t);
TRIB_REGISTER_REAL(uint8_t);
TRIB_REGISTER_REAL(uint16_t);
TRIB_REGISTER_REAL(uint32_t);
TRIB_REGISTER_REAL(uint64_t);
TRIB_REGISTER_ARITH(complex64);
TRIB_REGISTER_ARITH(complex128);

#undef TRIB_REGISTER_REAL
#undef TRIB_REGISTER_ORDERED
#undef TRIB_REGISTER_ARITH
#undef TRIB_REGISTER_UNSORTED
#undef TRIB_REGISTER_SORTED

}  // namespace
}  // namespace tributary
