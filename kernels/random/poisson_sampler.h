// Poisson(rate) samples with TensorFlow's exact recipe (RandomPoisson,
// RandomPoissonV2, StatelessRandomPoisson), so the same Philox stream gives
// the same bits.
//
// Contract:
//  * Output index o (0 <= o < num_rates * samples_per_rate) is rate
//    r = o / samples_per_rate, sample s = o % samples_per_rate, written at
//    out[r + s * num_rates] (rates vary fastest in memory); it draws from its
//    own stream (per_output_sampling.h).
//  * All math is in double, whatever the rate and output types; uniform
//    doubles come two per Philox sample, used last-first.
//  * rate < 10 (negative included): Knuth. Multiply uniforms until the
//    product is <= exp(-rate); the sample is the number of factors before
//    the last.
//  * rate >= 10: Hormann's transformed rejection (PTRS). With
//    b = 0.931 + 2.53 sqrt(rate), a = -0.059 + 0.02483 b,
//    1/alpha = 1.1239 + 1.1328 / (b - 3.4), draw u (minus 0.5) then v;
//    us = 0.5 - |u|, k = floor((2a / us + b) u + rate + 0.43). A k above the
//    output type's largest value draws again; accept when us >= 0.07 and
//    v <= 0.9277 - 3.6224 / (b - 2); draw again when k < 0 or (us < 0.013
//    and v > us); otherwise accept when
//    log(v / alpha / (a / us^2 + b)) <= -rate + k log(rate) - lgamma(k + 1).
//  * CheckPoissonRates refuses a rate TensorFlow would loop on forever
//    (NaN, infinite, or above the output type's largest value, where every k
//    is drawn again): INVALID_ARGUMENT instead of a hung step.

#ifndef TRIBUTARY_KERNELS_RANDOM_POISSON_SAMPLER_H_
#define TRIBUTARY_KERNELS_RANDOM_POISSON_SAMPLER_H_

#include <cmath>
#include <cstdint>
#include <limits>

#include "absl/status/status.h"
#include "common/framework/status.h"
#include "common/framework/types.h"
#include "common/kernel/op_kernel.h"
#include "kernels/random/distributions.h"
#include "common/framework/flush_denormal.h"
#include "kernels/random/per_output_sampling.h"
#include "kernels/random/philox.h"

namespace tributary {
namespace random {

// The largest value of output type U, as a double.
template <typename U>
double HighestPoissonOutput() {
  return static_cast<double>(Eigen::NumTraits<U>::highest());
}

template <typename R, typename U>
absl::Status CheckPoissonRates(const R* rate, int64_t num_rates) {
  const double highest = HighestPoissonOutput<U>();
  for (int64_t r = 0; r < num_rates; ++r) {
    const double value = static_cast<double>(rate[r]);
    if (!std::isfinite(value) || value > highest) {
      return errors::InvalidArgument(
          "Poisson rate ", value, " at index ", r,
          " cannot be sampled: rates must be finite and no larger than the "
          "output type's largest value (",
          highest, ")");
    }
  }
  return absl::OkStatus();
}

template <typename U>
double PoissonSample(double rate, PhiloxRandom* gen) {
  CountdownBuffer<Uniform<double>> uniform;
  const double highest = HighestPoissonOutput<U>();
  if (rate < 10) {
    const double exp_neg_rate = std::exp(-rate);
    double prod = 1;
    double x = 0;
    while (true) {
      prod = prod * uniform.Next(gen);
      if (prod <= exp_neg_rate && x <= highest) return x;
      x += 1;
    }
  }
  const double log_rate = std::log(rate);
  const double b = 0.931 + 2.53 * std::sqrt(rate);
  const double a = -0.059 + 0.02483 * b;
  const double inv_alpha = 1.1239 + 1.1328 / (b - 3.4);
  while (true) {
    const double u = uniform.Next(gen) - 0.5;
    const double v = uniform.Next(gen);
    const double u_shifted = 0.5 - std::abs(u);
    const double k = std::floor((2 * a / u_shifted + b) * u + rate + 0.43);
    if (k > highest) continue;
    if (u_shifted >= 0.07 && v <= 0.9277 - 3.6224 / (b - 2)) return k;
    if (k < 0 || (u_shifted < 0.013 && v > u_shifted)) continue;
    const double s =
        std::log(v * inv_alpha / (a / (u_shifted * u_shifted) + b));
    const double t = -rate + k * log_rate - std::lgamma(k + 1);
    if (s <= t) return k;
  }
}

// All num_rates * samples_per_rate outputs (rates checked by the caller),
// split over the device's threads when it has several.
template <typename R, typename U>
void FillPoisson(OpKernelContext* context, const PhiloxRandom& base,
                 const R* rate, int64_t num_rates, int64_t samples_per_rate,
                 U* out) {
  ShardOutputs(context, num_rates * samples_per_rate, 200,
               [&](int64_t first, int64_t last) {
                 ScopedFlushDenormal flush;  // as on TensorFlow's threads
                 for (int64_t o = first; o < last; ++o) {
                   const int64_t r = o / samples_per_rate;
                   const int64_t s = o % samples_per_rate;
                   PhiloxRandom gen = StreamForOutput(base, o);
                   out[r + s * num_rates] = static_cast<U>(
                       PoissonSample<U>(static_cast<double>(rate[r]), &gen));
                 }
               });
}

}  // namespace random
}  // namespace tributary

#endif  // TRIBUTARY_KERNELS_RANDOM_POISSON_SAMPLER_H_
