#include "kernels/math/batch_matmul_shape.h"

#include "absl/types/span.h"
#include "common/framework/status.h"
#include "kernels/math/bcast.h"

namespace tributary {

absl::StatusOr<BatchMatMulShape> ComputeBatchMatMulShape(const Tensor& x,
                                                         const Tensor& y,
                                                         bool adj_x,
                                                         bool adj_y) {
  if (x.dims() < 2) {
    return errors::InvalidArgument("In[0] ndims must be >= 2: ", x.dims());
  }
  if (y.dims() < 2) {
    return errors::InvalidArgument("In[1] ndims must be >= 2: ", y.dims());
  }
  BCast::Vec x_batch(x.shape().dim_sizes().begin(),
                     x.shape().dim_sizes().end() - 2);
  BCast::Vec y_batch(y.shape().dim_sizes().begin(),
                     y.shape().dim_sizes().end() - 2);
  BCast bcast(x_batch, y_batch);
  if (!bcast.IsValid()) {
    return errors::InvalidArgument(
        "In[0] and In[1] must have compatible batch dimensions: ",
        x.shape().DebugString(), " vs. ", y.shape().DebugString());
  }
  BatchMatMulShape s;
  s.x_rows = x.dim_size(x.dims() - 2);
  s.x_cols = x.dim_size(x.dims() - 1);
  s.y_rows = y.dim_size(y.dims() - 2);
  s.y_cols = y.dim_size(y.dims() - 1);
  s.m = adj_x ? s.x_cols : s.x_rows;
  s.k = adj_x ? s.x_rows : s.x_cols;
  const int64_t k2 = adj_y ? s.y_cols : s.y_rows;
  s.n = adj_y ? s.y_rows : s.y_cols;
  if (s.k != k2) {
    return errors::InvalidArgument(
        "Matrix size-incompatible: In[0]: ", x.shape().DebugString(),
        ", In[1]: ", y.shape().DebugString());
  }
  s.out = TensorShape(absl::Span<const int64_t>(bcast.output_shape()));
  TRIB_RETURN_IF_ERROR(s.out.AddDimWithStatus(s.m));
  TRIB_RETURN_IF_ERROR(s.out.AddDimWithStatus(s.n));
  s.broadcast = !bcast.IsIdentity(0) || !bcast.IsIdentity(1);
  if (s.broadcast) {
    s.x_index = BroadcastBatchIndices(bcast.result_shape(), bcast.x_reshape());
    s.y_index = BroadcastBatchIndices(bcast.result_shape(), bcast.y_reshape());
  }
  return s;
}

}  // namespace tributary
