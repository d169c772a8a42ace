#include "kernels/array/transpose_plan.h"

#include <cstdint>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_join.h"
#include "common/framework/status.h"
#include "kernels/array/array_util.h"

namespace tributary {
namespace {

// Whether moving the non-size-1 dims keeps them in the same relative order:
// then the transpose does not move any element and the input buffer can be
// shared under the new shape (e.g. [1,3] -> [3,1]).
bool NonSingletonDimsAlign(const TensorShape& input,
                           const std::vector<int>& perm) {
  int last = -1;
  for (int d : perm) {
    if (input.dim_size(d) == 1) continue;
    if (d < last) return false;
    last = d;
  }
  return true;
}

}  // namespace

absl::StatusOr<TransposePlan> PlanTranspose(const Tensor& input,
                                            const Tensor& perm_t) {
  if (perm_t.dims() != 1) {
    return errors::InvalidArgument("perm must be rank 1, got shape ",
                                   perm_t.shape().DebugString());
  }
  const int rank = input.dims();
  if (perm_t.NumElements() != rank) {
    return errors::InvalidArgument("transpose expects a vector of size ", rank,
                                   ". But input(1) is a vector of size ",
                                   perm_t.NumElements());
  }
  const std::vector<int64_t> raw = array_ops::IndexValues(perm_t);
  TransposePlan plan;
  plan.perm.resize(rank);
  for (int i = 0; i < rank; ++i) {
    plan.perm[i] = static_cast<int>(raw[i] < 0 ? raw[i] + rank : raw[i]);
  }
  absl::InlinedVector<bool, 8> seen(rank, false);
  bool is_identity = true;
  for (int i = 0; i < rank; ++i) {
    const int d = plan.perm[i];
    if (d < 0 || d >= rank) {
      return errors::InvalidArgument(d, " is out of range [0 .. ", rank, ")");
    }
    seen[d] = true;
    plan.shape.AddDim(input.dim_size(d));
    if (d != i) is_identity = false;
  }
  for (int i = 0; i < rank; ++i) {
    if (!seen[i]) {
      return errors::InvalidArgument(i, " is missing from {",
                                     absl::StrJoin(plan.perm, ","), "}.");
    }
  }
  if (rank <= 1 || is_identity) {
    plan.kind = TransposePlan::Kind::kShare;
  } else if (NonSingletonDimsAlign(input.shape(), plan.perm)) {
    plan.kind = TransposePlan::Kind::kReshape;
  }
  return plan;
}

absl::Status TransposeWithoutMoving(OpKernelContext* ctx, const Tensor& input,
                                    const TransposePlan& plan, bool* done) {
  *done = plan.kind != TransposePlan::Kind::kMove;
  if (plan.kind == TransposePlan::Kind::kShare) {
    ctx->set_output(0, input);
  } else if (plan.kind == TransposePlan::Kind::kReshape) {
    Tensor output(input.dtype());
    if (!output.CopyFrom(input, plan.shape)) {
      return errors::Internal("Error reshaping Tensor.");
    }
    ctx->set_output(0, std::move(output));
  }
  return absl::OkStatus();
}

}  // namespace tributary
