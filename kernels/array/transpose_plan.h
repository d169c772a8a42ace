#ifndef TRIBUTARY_KERNELS_ARRAY_TRANSPOSE_PLAN_H_
#define TRIBUTARY_KERNELS_ARRAY_TRANSPOSE_PLAN_H_

// What Transpose(input, perm) produces, checked with TensorFlow's messages:
// shared by the CPU kernel (transpose_op.cc) and the GPU one
// (kernels/math/gpu_more_ops.cc), which differ only in how they move data.

#include <vector>

#include "absl/status/statusor.h"
#include "common/framework/tensor.h"
#include "common/framework/tensor_shape.h"
#include "common/kernel/op_kernel.h"

namespace tributary {

struct TransposePlan {
  // perm with negative entries counted from the end (TensorFlow 2.x).
  std::vector<int> perm;
  // The output's shape.
  TensorShape shape;
  // kShare: rank <= 1 or the identity: the output is the input.
  // kReshape: only size-1 dimensions move: the input's buffer under the new
  //   shape.
  // kMove: elements move.
  enum class Kind { kShare, kReshape, kMove } kind = Kind::kMove;
};

// InvalidArgument as TensorFlow words it for a perm that is not rank 1, not
// of the input's rank, out of range or not a permutation.
absl::StatusOr<TransposePlan> PlanTranspose(const Tensor& input,
                                            const Tensor& perm);

// For kShare and kReshape: sets output 0 without moving data and *done;
// for kMove does nothing (*done false).
absl::Status TransposeWithoutMoving(OpKernelContext* ctx, const Tensor& input,
                                    const TransposePlan& plan, bool* done);

}  // namespace tributary

#endif  // TRIBUTARY_KERNELS_ARRAY_TRANSPOSE_PLAN_H_
