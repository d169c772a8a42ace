// The (key, counter, alg) inputs of TensorFlow's V2/V3 stateless random ops
// (StatelessRandom*V2, StatelessShuffle, StatelessRandomGammaV3) as a Philox
// stream, with TensorFlow's checks, order and messages.
//
// Contract: inputs 1, 2, 3 are key (uint64[1]), counter (uint64[>=2]) and alg
// (int32 scalar). Checks in order: alg is a scalar ("input 3 (0-based) must
// have shape [], ..."); key has shape [1]; alg is Philox (1) or auto-select
// (3, Philox on CPU), else "Unsupported algorithm id"; counter is a vector of
// at least 2. Each uint64 holds two Philox words, low word first.

#ifndef TRIBUTARY_KERNELS_RANDOM_KEY_COUNTER_ALG_H_
#define TRIBUTARY_KERNELS_RANDOM_KEY_COUNTER_ALG_H_

#include <cstdint>

#include "absl/status/status.h"
#include "common/framework/status.h"
#include "common/framework/tensor.h"
#include "common/kernel/op_kernel.h"
#include "kernels/random/philox.h"
#include "kernels/random/stateless_seed.h"

namespace tributary {
namespace random {

inline absl::Status PhiloxFromInputs(OpKernelContext* context,
                                     PhiloxRandom* gen) {
  constexpr int kAlgPhilox = 1;       // TensorFlow's rng_alg.h ids
  constexpr int kAlgAutoSelect = 3;
  constexpr int kPhiloxCounterSize = 2;  // uint64 words
  const Tensor& key = context->input(1);
  const Tensor& counter = context->input(2);
  const Tensor& alg_t = context->input(3);
  if (alg_t.dims() != 0) {
    return errors::InvalidArgument("input 3 (0-based) must have shape [], not ",
                                   alg_t.shape().DebugString());
  }
  int alg = alg_t.scalar<int32_t>()();
  if (alg == kAlgAutoSelect) alg = kAlgPhilox;
  if (key.dims() != 1 || key.dim_size(0) != 1) {
    return errors::InvalidArgument(
        "key must have shape [1], not ", key.shape().DebugString(),
        ". (Note that batched keys are not supported yet.)");
  }
  if (alg != kAlgPhilox) {
    return errors::InvalidArgument("Unsupported algorithm id: ", alg);
  }
  if (counter.dims() != 1 || counter.dim_size(0) < kPhiloxCounterSize) {
    return errors::InvalidArgument(
        "counter must be a vector with length at least ", kPhiloxCounterSize,
        "; got shape: ", counter.shape().DebugString(),
        ". (Note that batched counters are not supported yet.)");
  }
  const auto c = counter.flat<uint64_t>();
  *gen = PhiloxFromKeyCounter(key.flat<uint64_t>()(0), c(0), c(1));
  return absl::OkStatus();
}

}  // namespace random
}  // namespace tributary

#endif  // TRIBUTARY_KERNELS_RANDOM_KEY_COUNTER_ALG_H_
