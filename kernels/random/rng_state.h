// The state of a tf.random.Generator: a resource variable holding an int64
// vector, read and advanced by the resource-based random ops
// (stateful_random_ops.cc) exactly as TensorFlow does it.
//
// Contract (Philox, the only algorithm TensorFlow's CPU runs):
//  * state[0] and state[1] are the 128-bit counter (each int64 two Philox
//    words, low word first), state[2] the 64-bit key. A state may be longer;
//    the rest is unused. With RngAlgorithm::in_state (TensorFlow's deprecated
//    layout) the algorithm id is state[0] and the Philox state state[1..3].
//  * Algorithm ids: 1 Philox; 3 auto-select, which is Philox on CPU; 2
//    ThreeFry is Unimplemented ("Non-XLA devices don't support the ThreeFry
//    algorithm."); anything else InvalidArgument "Unsupported algorithm id".
//  * Errors, in TensorFlow's order and words: the variable's lookup error;
//    "dtype of RNG state variable must be int64, not <t>"; "RNG state must
//    have one and only one dimension, not <n>"; the algorithm; "For the Philox
//    algorithm, the size of state must be at least <n>; got <m>".
//  * ReadAndSkipPhilox returns the generator at the current state and moves
//    the state `samples` 128-bit samples on (TensorFlow's callers pass
//    256 per output element, or delta * 256 for RngSkip/RngReadAndSkip),
//    under the variable's lock and copy-on-write, so a concurrent read of the
//    variable keeps its old value and two ops never draw the same samples.

#ifndef TRIBUTARY_KERNELS_RANDOM_RNG_STATE_H_
#define TRIBUTARY_KERNELS_RANDOM_RNG_STATE_H_

#include <cstdint>

#include "absl/status/status.h"
#include "common/kernel/op_kernel.h"
#include "kernels/random/philox.h"

namespace tributary {
namespace random {

// TensorFlow's algorithm ids (rng_alg.h).
inline constexpr int64_t kRngAlgPhilox = 1;
inline constexpr int64_t kRngAlgThreeFry = 2;
inline constexpr int64_t kRngAlgAutoSelect = 3;
// int64 words of Philox state: counter (2) and key (1).
inline constexpr int64_t kPhiloxStateSize = 3;

// Where the algorithm comes from: an input (the V2 ops) or state[0].
// philox_only: the op takes id 1 alone (StatefulRandomBinomial), so
// auto-select and ThreeFry are "Unsupported algorithm id" too.
struct RngAlgorithm {
  int64_t id = kRngAlgPhilox;
  bool in_state = false;
  bool philox_only = false;
};

// Reads the Philox generator of the state variable behind resource input
// `input` and advances the state by `samples`. *old_state (optional) gets the
// kPhiloxStateSize words as they were.
absl::Status ReadAndSkipPhilox(OpKernelContext* ctx, int input,
                               RngAlgorithm alg, uint64_t samples,
                               PhiloxRandom* gen, int64_t* old_state = nullptr);

// Scalar input `index` of type T: InvalidArgument "input <i> (0-based) must
// have shape [], not <shape>" otherwise.
absl::Status ScalarInputInt64(OpKernelContext* ctx, int index, int64_t* value);
absl::Status ScalarInputUint64(OpKernelContext* ctx, int index,
                               uint64_t* value);
absl::Status ScalarInputInt32(OpKernelContext* ctx, int index, int32_t* value);

}  // namespace random
}  // namespace tributary

#endif  // TRIBUTARY_KERNELS_RANDOM_RNG_STATE_H_
