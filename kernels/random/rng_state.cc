#include "kernels/random/rng_state.h"

#include "absl/synchronization/mutex.h"
#include "common/framework/status.h"
#include "common/framework/types.h"
#include "common/resource/resource_lookup.h"
#include "common/resource/var.h"
#include "kernels/state/variable_update.h"

namespace tributary {
namespace random {
namespace {

uint32_t Lo(int64_t v) { return static_cast<uint32_t>(v); }
uint32_t Hi(int64_t v) {
  return static_cast<uint32_t>(static_cast<uint64_t>(v) >> 32);
}
int64_t Join(uint32_t lo, uint32_t hi) {
  return static_cast<int64_t>(static_cast<uint64_t>(lo) |
                              (static_cast<uint64_t>(hi) << 32));
}

template <typename T>
absl::Status ScalarInput(OpKernelContext* ctx, int index, T* value) {
  const Tensor& t = ctx->input(index);
  if (t.dims() != 0) {
    return errors::InvalidArgument("input ", index,
                                   " (0-based) must have shape [], not ",
                                   t.shape().DebugString());
  }
  *value = t.scalar<T>()();
  return absl::OkStatus();
}

}  // namespace

absl::Status ScalarInputInt64(OpKernelContext* ctx, int index, int64_t* value) {
  return ScalarInput(ctx, index, value);
}
absl::Status ScalarInputUint64(OpKernelContext* ctx, int index,
                               uint64_t* value) {
  return ScalarInput(ctx, index, value);
}
absl::Status ScalarInputInt32(OpKernelContext* ctx, int index, int32_t* value) {
  return ScalarInput(ctx, index, value);
}

absl::Status ReadAndSkipPhilox(OpKernelContext* ctx, int input,
                               RngAlgorithm alg, uint64_t samples,
                               PhiloxRandom* gen, int64_t* old_state) {
  TRIB_ASSIGN_OR_RETURN(const ResourceHandle* handle,
                        HandleFromInput(ctx, input));
  RefCountPtr<Var> var;
  TRIB_RETURN_IF_ERROR(LookupResource(ctx, *handle, &var));
  absl::MutexLock lock(var->mu());
  Tensor* state = var->tensor();
  if (state->dtype() != DT_INT64) {
    return errors::InvalidArgument("dtype of RNG state variable must be ",
                                   DataTypeString(DT_INT64), ", not ",
                                   DataTypeString(state->dtype()));
  }
  if (state->dims() != 1) {
    return errors::InvalidArgument(
        "RNG state must have one and only one dimension, not ", state->dims());
  }
  int64_t skip = 0;  // words before the Philox state
  if (alg.in_state) {
    if (state->NumElements() < 1) {
      return errors::InvalidArgument("Size of tensor must be at least 1");
    }
    alg.id = state->flat<int64_t>()(0);
    skip = 1;
  }
  if (!alg.philox_only && alg.id == kRngAlgAutoSelect) alg.id = kRngAlgPhilox;
  if (!alg.philox_only && alg.id == kRngAlgThreeFry) {
    return errors::Unimplemented(
        "Non-XLA devices don't support the ThreeFry algorithm.");
  }
  if (alg.id != kRngAlgPhilox) {
    return errors::InvalidArgument("Unsupported algorithm id: ", alg.id);
  }
  if (state->NumElements() < skip + kPhiloxStateSize) {
    return errors::InvalidArgument(
        "For the Philox algorithm, the size of state must be at least ",
        skip + kPhiloxStateSize, "; got ", state->NumElements());
  }
  TRIB_RETURN_IF_ERROR(PrepareToUpdateVariable(ctx, state));
  int64_t* words = state->flat<int64_t>().data() + skip;
  if (old_state != nullptr) {
    for (int i = 0; i < kPhiloxStateSize; ++i) old_state[i] = words[i];
  }
  *gen = PhiloxRandom({Lo(words[0]), Hi(words[0]), Lo(words[1]), Hi(words[1])},
                      {Lo(words[2]), Hi(words[2])});
  PhiloxRandom next = *gen;
  next.Skip(samples);
  words[0] = Join(next.counter()[0], next.counter()[1]);
  words[1] = Join(next.counter()[2], next.counter()[3]);
  words[2] = Join(next.key()[0], next.key()[1]);
  return absl::OkStatus();
}

}  // namespace random
}  // namespace tributary
