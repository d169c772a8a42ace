#ifndef TRIBUTARY_KERNELS_MATH_REDUCTION_HELPER_H_
#define TRIBUTARY_KERNELS_MATH_REDUCTION_HELPER_H_

// Shape logic of the reductions (Sum, Mean, Max, Min, Prod), kept out of the
// templates: validates the axes and collapses the input to alternating
// reduced/kept dimensions, so the kernels only instantiate a few Eigen
// patterns. [2,3,4,5] reduced over {1,2} becomes [2,12,5] = kept, reduced,
// kept; size-1 dimensions join their neighbour.

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/framework/tensor.h"
#include "common/framework/tensor_shape.h"

namespace tributary {

class ReductionHelper {
 public:
  // InvalidArgument (TensorFlow's messages) for an axis out of
  // [-rank, rank) or a repeated axis. `axes` is int32 or int64, any shape.
  absl::Status Simplify(const Tensor& data, const Tensor& axes, bool keep_dims);

  // Nothing is reduced (only size-1 axes, or none): the output is the
  // input reshaped to out_shape().
  bool nothing_reduced() const {
    return ndims() == 0 || (ndims() == 1 && !reduce_first_axis_);
  }

  // The op's output shape (keep_dims honoured).
  const TensorShape& out_shape() const { return out_shape_; }
  // The collapsed input shape: alternating reduced/kept dimensions,
  // starting with a reduced one iff reduce_first_axis().
  const std::vector<int64_t>& data_reshape() const { return data_reshape_; }
  int ndims() const { return static_cast<int>(data_reshape_.size()); }
  bool reduce_first_axis() const { return reduce_first_axis_; }
  // The kept dimensions of data_reshape(), i.e. the collapsed output.
  const std::vector<int64_t>& out_reshape() const { return out_reshape_; }

  // Writes data (of shape data_reshape()) into *out as
  // [prod(kept dims), prod(reduced dims)], kept dimensions first. *out must
  // be allocated with data's dtype and element count. Used for the rare
  // layouts with more than three collapsed dimensions.
  void TransposeReducedLast(const Tensor& data, Tensor* out) const;

 private:
  TensorShape out_shape_;
  std::vector<int64_t> data_reshape_;
  std::vector<int64_t> out_reshape_;
  bool reduce_first_axis_ = false;
};

// ArgMax/ArgMin's shape logic, shared by the CPU and GPU kernels: the input
// read as [outer, axis size, inner] and the output shape (the axis removed).
struct ArgReductionShape {
  int axis = 0;
  int64_t outer = 1;
  int64_t inner = 1;
  TensorShape out_shape;
};
// InvalidArgument with TensorFlow's messages when `dimension` (int32 or
// int64) is not a scalar, is out of [-rank, rank), or names an empty axis.
absl::StatusOr<ArgReductionShape> ArgReduction(const Tensor& input,
                                               const Tensor& dimension);

}  // namespace tributary

#endif  // TRIBUTARY_KERNELS_MATH_REDUCTION_HELPER_H_
