#include "kernels/random/guarded_philox.h"

#include <random>

#include "common/framework/logging.h"

namespace tributary {
namespace random {

uint64_t New64() {
  // One engine per thread, seeded from the OS: cheap after the first call and
  // never shared, so no lock.
  thread_local std::mt19937_64 engine([] {
    std::random_device device;
    return (static_cast<uint64_t>(device()) << 32) | device();
  }());
  return engine();
}

absl::Status GuardedPhiloxRandom::Init(OpKernelConstruction* context) {
  int64_t seed = 0, seed2 = 0;
  absl::Status s = context->GetAttr("seed", &seed);
  if (!s.ok()) return s;
  s = context->GetAttr("seed2", &seed2);
  if (!s.ok()) return s;
  Init(seed, seed2);
  return absl::OkStatus();
}

void GuardedPhiloxRandom::Init(int64_t seed, int64_t seed2) {
  absl::MutexLock lock(&mu_);
  if (seed == 0 && seed2 == 0) {
    // Unseeded: every kernel gets its own stream.
    seed = static_cast<int64_t>(New64());
    seed2 = static_cast<int64_t>(New64());
  }
  generator_ =
      PhiloxRandom(static_cast<uint64_t>(seed), static_cast<uint64_t>(seed2));
  initialized_ = true;
}

PhiloxRandom GuardedPhiloxRandom::ReserveSamples128(int64_t samples) {
  absl::MutexLock lock(&mu_);
  CHECK(initialized_);
  PhiloxRandom reserved = generator_;
  generator_.Skip(static_cast<uint64_t>(samples));
  return reserved;
}

}  // namespace random
}  // namespace tributary
