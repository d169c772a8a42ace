// The Philox key and counter of TensorFlow's V1 stateless random ops, derived
// from their `seed` input (shape [2], int32 or int64) exactly as TensorFlow
// derives them, so the same seed gives TensorFlow's bits.
//
// Contract: seed0, seed1 widen to uint64 (int32 sign-extends); they form the
// counter of one Philox block under a fixed key, and that block's output is
// the stream's key (words 0, 1) and the high half of its counter (words 2, 3).
// The scrambling lets a user vary either seed half and still get an unrelated
// stream. The V2 ops take the same stream as a uint64 key and counter
// (StatelessRandomGetKeyCounter computes them from a seed).

#ifndef TRIBUTARY_KERNELS_RANDOM_STATELESS_SEED_H_
#define TRIBUTARY_KERNELS_RANDOM_STATELESS_SEED_H_

#include <cstdint>

#include "kernels/random/philox.h"

namespace tributary {
namespace random {

inline PhiloxRandom StatelessPhiloxFromSeed(uint64_t seed0, uint64_t seed1) {
  // TensorFlow's fixed scrambling key.
  const PhiloxRandom::Key scramble_key = {0x3ec8f720u, 0x02461e29u};
  const PhiloxRandom::ResultType seed_block = {
      static_cast<uint32_t>(seed0), static_cast<uint32_t>(seed0 >> 32),
      static_cast<uint32_t>(seed1), static_cast<uint32_t>(seed1 >> 32)};
  const PhiloxRandom::ResultType mix = PhiloxRandom(seed_block, scramble_key)();
  return PhiloxRandom({0u, 0u, mix[2], mix[3]}, {mix[0], mix[1]});
}

// The V2 ops carry the stream as tensors: key uint64[1] and counter
// uint64[2], each uint64 holding two Philox words, low word first.
inline uint64_t JoinWords(uint32_t lo, uint32_t hi) {
  return static_cast<uint64_t>(lo) | (static_cast<uint64_t>(hi) << 32);
}

inline PhiloxRandom PhiloxFromKeyCounter(uint64_t key, uint64_t counter0,
                                         uint64_t counter1) {
  return PhiloxRandom(
      {static_cast<uint32_t>(counter0), static_cast<uint32_t>(counter0 >> 32),
       static_cast<uint32_t>(counter1), static_cast<uint32_t>(counter1 >> 32)},
      {static_cast<uint32_t>(key), static_cast<uint32_t>(key >> 32)});
}

}  // namespace random
}  // namespace tributary

#endif  // TRIBUTARY_KERNELS_RANDOM_STATELESS_SEED_H_
