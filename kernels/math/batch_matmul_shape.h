#ifndef TRIBUTARY_KERNELS_MATH_BATCH_MATMUL_SHAPE_H_
#define TRIBUTARY_KERNELS_MATH_BATCH_MATMUL_SHAPE_H_

// BatchMatMulV2's shapes, checked as TensorFlow checks them: both inputs at
// least matrices, batch dimensions that broadcast, inner dimensions that
// agree (after adj_x / adj_y). Shared by the CPU and GPU kernels so that
// both accept the same inputs and give the same errors.

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "common/framework/tensor.h"
#include "common/framework/tensor_shape.h"

namespace tributary {

struct BatchMatMulShape {
  int64_t x_rows = 0, x_cols = 0;  // x's matrices as stored
  int64_t y_rows = 0, y_cols = 0;  // y's matrices as stored
  int64_t m = 0, k = 0, n = 0;     // each product: [m, k] x [k, n]
  TensorShape out;                 // broadcast batch dims, then [m, n]
  // Whether a batch dimension is broadcast; then, for each output batch
  // (flattened), the index of the x and y matrix it multiplies. Without
  // broadcasting output batch b multiplies matrix b of each.
  bool broadcast = false;
  std::vector<int64_t> x_index, y_index;
};

// InvalidArgument with TensorFlow's messages for inputs that do not fit.
absl::StatusOr<BatchMatMulShape> ComputeBatchMatMulShape(const Tensor& x,
                                                         const Tensor& y,
                                                         bool adj_x,
                                                         bool adj_y);

}  // namespace tributary

#endif  // TRIBUTARY_KERNELS_MATH_BATCH_MATMUL_SHAPE_H_
