// The generator a stateful random kernel owns, with TensorFlow's seeding and
// reservation rules (TensorFlow's GuardedPhiloxRandom).
//
// Contract:
//  * Init(seed, seed2): both 0 -> two fresh non-deterministic 64-bit seeds;
//    otherwise PhiloxRandom(seed, seed2) (key = seed, counter words 2..3 =
//    seed2). Init(ctx) reads the `seed` and `seed2` attrs.
//  * ReserveSamples128(n) returns the generator as it is and advances the
//    shared one by n samples, atomically: concurrent or successive steps of
//    one kernel get disjoint streams, and step k of a kernel starts where
//    TensorFlow's step k starts.
//  * ReserveRandomOutputs(outputs, multiplier) reserves outputs * multiplier
//    samples (a conservative bound: TensorFlow's kernels pass 256, whatever
//    the distribution actually consumes, and so must we to stay in step).

#ifndef TRIBUTARY_KERNELS_RANDOM_GUARDED_PHILOX_H_
#define TRIBUTARY_KERNELS_RANDOM_GUARDED_PHILOX_H_

#include <cstdint>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "common/kernel/op_kernel.h"
#include "kernels/random/philox.h"

namespace tributary {
namespace random {

class GuardedPhiloxRandom {
 public:
  GuardedPhiloxRandom() = default;
  GuardedPhiloxRandom(const GuardedPhiloxRandom&) = delete;
  GuardedPhiloxRandom& operator=(const GuardedPhiloxRandom&) = delete;

  // Reads the seed/seed2 attrs of the kernel being built.
  absl::Status Init(OpKernelConstruction* context);
  void Init(int64_t seed, int64_t seed2);

  PhiloxRandom ReserveSamples128(int64_t samples);
  PhiloxRandom ReserveRandomOutputs(int64_t output_count, int multiplier) {
    return ReserveSamples128(output_count * multiplier);
  }

 private:
  absl::Mutex mu_;
  PhiloxRandom generator_ ABSL_GUARDED_BY(mu_);
  bool initialized_ = false;
};

// A non-deterministic 64-bit value (for unseeded ops).
uint64_t New64();

}  // namespace random
}  // namespace tributary

#endif  // TRIBUTARY_KERNELS_RANDOM_GUARDED_PHILOX_H_
