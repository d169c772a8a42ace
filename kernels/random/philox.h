// Philox4x32-10, the counter-based generator behind TensorFlow's stateful and
// stateless random ops, laid out exactly as TensorFlow lays it out so that the
// same (key, counter) gives the same 128 bits here and there.
//
// Contract:
//  * State is a 128-bit counter (four uint32 words, word 0 least significant)
//    and a 64-bit key (two uint32 words).
//  * PhiloxRandom(seed) keys with the 64-bit seed (low word first) and a zero
//    counter; PhiloxRandom(seed_lo, seed_hi) also puts seed_hi in counter
//    words 2 and 3 (low word first). This is how GuardedPhiloxRandom turns
//    (seed, seed2) into a generator.
//  * operator() returns the 10-round block of the current counter and then
//    advances the counter by one: every call is one 128-bit sample.
//  * Skip(n) advances the counter by n samples (128-bit add of a 64-bit n), so
//    any sample can be reached without computing those before it.
//
// Header-only and allocation-free: the distributions inline it in their loops.

#ifndef TRIBUTARY_KERNELS_RANDOM_PHILOX_H_
#define TRIBUTARY_KERNELS_RANDOM_PHILOX_H_

#include <array>
#include <cstdint>

namespace tributary {
namespace random {

class PhiloxRandom {
 public:
  static constexpr int kResultElementCount = 4;  // uint32 words per sample
  // Cost estimate of one output word, used to size parallel shards (the
  // same figure TensorFlow uses, so shard sizes are comparable).
  static constexpr int kElementCost = 10;

  using ResultType = std::array<uint32_t, 4>;
  using Key = std::array<uint32_t, 2>;

  PhiloxRandom() = default;
  explicit PhiloxRandom(uint64_t seed) { SetKey(seed); }
  PhiloxRandom(uint64_t seed_lo, uint64_t seed_hi) {
    SetKey(seed_lo);
    counter_[2] = static_cast<uint32_t>(seed_hi);
    counter_[3] = static_cast<uint32_t>(seed_hi >> 32);
  }
  PhiloxRandom(const ResultType& counter, const Key& key)
      : counter_(counter), key_(key) {}

  const ResultType& counter() const { return counter_; }
  const Key& key() const { return key_; }

  // Replaces the key, keeping the counter (TensorFlow's ResetKey).
  void ResetKey(uint64_t key) { SetKey(key); }

  // Advances the counter by `count` samples.
  void Skip(uint64_t count) {
    const uint32_t count_lo = static_cast<uint32_t>(count);
    uint32_t count_hi = static_cast<uint32_t>(count >> 32);
    counter_[0] += count_lo;
    if (counter_[0] < count_lo) ++count_hi;  // carry out of word 0
    counter_[1] += count_hi;
    if (counter_[1] < count_hi) {  // carry out of word 1
      if (++counter_[2] == 0) ++counter_[3];
    }
  }

  // The sample at the current counter; then moves to the next one.
  ResultType operator()() {
    ResultType block = counter_;
    Key key = key_;
    // Ten rounds; the key is bumped between rounds (nine times).
    for (int round = 0; round < 10; ++round) {
      if (round > 0) RaiseKey(&key);
      block = Round(block, key);
    }
    SkipOne();
    return block;
  }

 private:
  // Philox's multipliers and Weyl key increments (golden ratio and sqrt(3)-1).
  static constexpr uint32_t kM0 = 0xD2511F53;
  static constexpr uint32_t kM1 = 0xCD9E8D57;
  static constexpr uint32_t kW0 = 0x9E3779B9;
  static constexpr uint32_t kW1 = 0xBB67AE85;

  void SetKey(uint64_t seed) {
    key_[0] = static_cast<uint32_t>(seed);
    key_[1] = static_cast<uint32_t>(seed >> 32);
  }

  void SkipOne() {
    if (++counter_[0] == 0 && ++counter_[1] == 0 && ++counter_[2] == 0) {
      ++counter_[3];
    }
  }

  static void RaiseKey(Key* key) {
    (*key)[0] += kW0;
    (*key)[1] += kW1;
  }

  static ResultType Round(const ResultType& c, const Key& key) {
    const uint64_t p0 = static_cast<uint64_t>(kM0) * c[0];
    const uint64_t p1 = static_cast<uint64_t>(kM1) * c[2];
    const uint32_t lo0 = static_cast<uint32_t>(p0);
    const uint32_t hi0 = static_cast<uint32_t>(p0 >> 32);
    const uint32_t lo1 = static_cast<uint32_t>(p1);
    const uint32_t hi1 = static_cast<uint32_t>(p1 >> 32);
    return {hi1 ^ c[1] ^ key[0], lo1, hi0 ^ c[3] ^ key[1], lo0};
  }

  ResultType counter_{};
  Key key_{};
};

// Hands out a generator's 128-bit samples one uint32 word at a time, for
// distributions that consume a variable number of words per output (the
// truncated normal's rejection loop). Words of a sample not yet used are kept
// for the next call.
template <typename Generator>
class SingleSampleAdapter {
 public:
  static constexpr int kNativeElementCount = Generator::kResultElementCount;

  explicit SingleSampleAdapter(Generator* generator) : generator_(generator) {}

  uint32_t operator()() {
    if (used_ == kNativeElementCount) {
      buffer_ = (*generator_)();
      used_ = 0;
    }
    return buffer_[used_++];
  }

 private:
  Generator* generator_;
  typename Generator::ResultType buffer_{};
  int used_ = kNativeElementCount;
};

}  // namespace random
}  // namespace tributary

#endif  // TRIBUTARY_KERNELS_RANDOM_PHILOX_H_
