// The gathers GatherV2/GatherNd and their resource-variable twins
// (ResourceGather, ResourceGatherNd in kernels/state) share: shape checks,
// index validation with TensorFlow's messages, output allocation and the
// block copies. Elements are moved by width (array_util.h), so every dtype
// VisitMovableType accepts is served.
//
// Contract of both functions: on success output `output_index` of `ctx` is
// allocated and filled; on failure nothing is written to it that a reader
// could see (indices are validated before any copy) and the returned status
// is InvalidArgument in TensorFlow's words (Unimplemented for a dtype whose
// elements cannot be moved). Neither checks the ranks of params/indices the
// callers' ops word differently ("params must be at least 1 dimensional",
// "indices must be at least a vector", ...): callers check those first.
#ifndef TRIBUTARY_KERNELS_ARRAY_GATHER_FUNCTOR_H_
#define TRIBUTARY_KERNELS_ARRAY_GATHER_FUNCTOR_H_

#include <cstdint>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "common/framework/tensor.h"

namespace tributary {

class OpKernelContext;

namespace array_ops {

// GatherV2 along `axis` (already in [0, rank(params))) with `batch_dims`
// leading dims shared by params and indices (negative counts from the end
// of indices' rank):
//
//   output[b, o, i, r] = params[b, o, indices[b, i], r]
//
// output shape params[:axis] + indices[batch_dims:] + params[axis+1:].
// Errors: "Expected batch_dims in the range [-2, 2], but got 3",
// "batch_dims (2) must be less than rank(params) (2).",
// "batch_dims (1) must be less than or equal to axis (0).",
// "params.shape[0]: 2 should be equal to indices.shape[0]: 3",
// "indices[1,0] = 7 is not in [0, 4)". `op_name` names the op in the
// Unimplemented error for an unmovable dtype.
absl::Status GatherV2ToOutput(OpKernelContext* ctx, const Tensor& params,
                              const Tensor& indices, int64_t axis,
                              int64_t batch_dims, int output_index,
                              absl::string_view op_name);

// GatherNd: indices [i1..ik, n] with n <= rank(params); output
// [i1..ik] + params.shape[n:], output[i1..ik] = params[indices[i1..ik, :]].
// Errors: "index innermost dimension length must be <= params rank; saw: 4
// vs. 3", "indices[1] = [1, 3] does not index into param shape [2,3,4]".
// Callers have checked rank(params) >= 1 and rank(indices) >= 1.
absl::Status GatherNdToOutput(OpKernelContext* ctx, const Tensor& params,
                              const Tensor& indices, int output_index,
                              absl::string_view op_name);

}  // namespace array_ops
}  // namespace tributary

#endif  // TRIBUTARY_KERNELS_ARRAY_GATHER_FUNCTOR_H_
