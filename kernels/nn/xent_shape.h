#ifndef TRIBUTARY_KERNELS_NN_XENT_SHAPE_H_
#define TRIBUTARY_KERNELS_NN_XENT_SHAPE_H_

// The shapes SoftmaxCrossEntropyWithLogits works in, shared by its CPU
// (xent_op.cc) and GPU (kernels/math/gpu_more_ops.cc) kernels: logits and
// labels broadcast to one 2-D [batch, classes], and each input read as
// [rows, cols].

#include <cstdint>

#include "absl/status/statusor.h"
#include "common/framework/tensor_shape.h"

namespace tributary {

// The broadcast of `logits` and `labels`; InvalidArgument with TensorFlow's
// messages when they do not broadcast or the result is not 2-D.
absl::StatusOr<TensorShape> XentShape(const TensorShape& logits,
                                      const TensorShape& labels);

// `shape` (rank <= 2) right-aligned into [rows, cols].
void AsMatrixDims(const TensorShape& shape, int64_t* rows, int64_t* cols);

}  // namespace tributary

#endif  // TRIBUTARY_KERNELS_NN_XENT_SHAPE_H_
