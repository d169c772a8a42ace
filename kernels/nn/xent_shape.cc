#include "kernels/nn/xent_shape.h"

#include "common/framework/status.h"
#include "kernels/array/broadcast_shapes.h"

namespace tributary {

absl::StatusOr<TensorShape> XentShape(const TensorShape& logits,
                                      const TensorShape& labels) {
  TensorShape shape = logits;
  if (!logits.IsSameSize(labels)) {
    const array_ops::BroadcastResult broadcast =
        array_ops::BroadcastShapes(logits.dim_sizes(), labels.dim_sizes());
    if (!broadcast.valid) {
      return errors::InvalidArgument(
          "logits and labels must be broadcastable: logits_size=",
          logits.DebugString(), " labels_size=", labels.DebugString());
    }
    shape = TensorShape(broadcast.output_shape);
  }
  if (shape.dims() != 2) {
    return errors::InvalidArgument(
        "logits and labels must be either 2-dimensional, or broadcasted to be "
        "2-dimensional");
  }
  return shape;
}

void AsMatrixDims(const TensorShape& shape, int64_t* rows, int64_t* cols) {
  *rows = shape.dims() >= 2 ? shape.dim_size(shape.dims() - 2) : 1;
  *cols = shape.dims() >= 1 ? shape.dim_size(shape.dims() - 1) : 1;
}

}  // namespace tributary
