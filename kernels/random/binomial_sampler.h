// Binomial(count, prob) samples with TensorFlow's exact recipe
// (StatelessRandomBinomial, StatefulRandomBinomial), so the same Philox
// stream gives the same bits.
//
// Contract:
//  * Output index o (0 <= o < num_batches * samples_per_batch) is batch
//    b = o / samples_per_batch, sample s = o % samples_per_batch, written at
//    out[b + s * num_batches] (the batch, i.e. the broadcast (count, prob)
//    pair, varies fastest in memory).
//  * Batch b reads counts[count_index[b]] and probs[prob_index[b]]
//    (broadcasting; the indices are TensorFlow's flattened batch indices).
//  * count <= 0 or prob <= 0: 0. prob >= 1: count. NaN prob: NaN (integer
//    outputs get the type's lowest value, which is what x86 makes of NaN;
//    TensorFlow's kernel leaves those elements unset). Otherwise with
//    p = min(prob, 1 - prob), the sample for p is taken from count - sample
//    when prob > 0.5:
//      count * p >= 10 (in the parameter type): Hormann's BTRS, reading
//        the stream skipped by 256 * o samples;
//      below: inversion (sum geometric variables ceil(log u / log1p(-p))
//        until the sum exceeds count), stream skipped by 42 * o samples.
//    Uniform doubles come two per Philox sample and are used last-first.
//  * A result converts to an integer output as x86 does: NaN and values out
//    of the type's range give its lowest value (a TensorFlow binary built for
//    x86 gives the same), never undefined behaviour here.
//  * CheckBinomialCounts refuses a NaN count with 0 < prob < 1, which
//    TensorFlow's inversion loops on forever: INVALID_ARGUMENT instead of a
//    hung step.

#ifndef TRIBUTARY_KERNELS_RANDOM_BINOMIAL_SAMPLER_H_
#define TRIBUTARY_KERNELS_RANDOM_BINOMIAL_SAMPLER_H_

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "absl/status/status.h"
#include "common/framework/status.h"
#include "common/kernel/op_kernel.h"
#include "kernels/random/distributions.h"
#include "common/framework/flush_denormal.h"
#include "kernels/random/per_output_sampling.h"
#include "kernels/random/philox.h"

namespace tributary {
namespace random {

// Philox samples reserved per output by the inversion sampler (TensorFlow:
// mean and variance at most 10, so 42 uniforms cover ten deviations).
inline constexpr int64_t kBinomialInversionSamplesPerOutput = 42;

// Number of geometric(prob) variables whose sum stays <= count.
inline double BinomialInversion(double count, double prob, PhiloxRandom* gen) {
  CountdownBuffer<Uniform<double>> uniform;
  double geom_sum = 0;
  int num_geom = 0;
  while (true) {
    const double u = uniform.Next(gen);
    geom_sum += std::ceil(std::log(u) / std::log1p(-prob));
    if (geom_sum > count) break;
    ++num_geom;
  }
  return num_geom;
}

// The tail of Stirling's series for log(k!), tabulated for k <= 9.
inline double StirlingApproxTail(double k) {
  static constexpr double kTailValues[] = {
      0.0810614667953272,  0.0413406959554092, 0.0276779256849983,
      0.02079067210376509, 0.0166446911898211, 0.0138761288230707,
      0.0118967099458917,  0.0104112652619720, 0.00925546218271273,
      0.00833056343336287};
  if (k <= 9) return kTailValues[static_cast<int>(k)];
  const double kp1sq = (k + 1) * (k + 1);
  return (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / kp1sq) / kp1sq) / (k + 1);
}

// Hormann's transformed rejection with squeeze, as TensorFlow writes it
// (its upper bound omits one log of the paper's; the bits follow it).
inline double BinomialBtrs(double count, double prob, PhiloxRandom* gen) {
  const double stddev = std::sqrt(count * prob * (1 - prob));
  const double b = 1.15 + 2.53 * stddev;
  const double a = -0.0873 + 0.0248 * b + 0.01 * prob;
  const double c = count * prob + 0.5;
  const double v_r = 0.92 - 4.2 / b;
  const double r = prob / (1 - prob);
  const double alpha = (2.83 + 5.1 / b) * stddev;
  const double m = std::floor((count + 1) * prob);
  CountdownBuffer<Uniform<double>> uniform;
  while (true) {
    double u = uniform.Next(gen);
    double v = uniform.Next(gen);
    u = u - 0.5;
    const double us = 0.5 - std::abs(u);
    const double k = std::floor((2 * a / us + b) * u + c);
    if (us >= 0.07 && v <= v_r) return k;
    if (k < 0 || k > count) continue;
    v = std::log(v * alpha / (a / (us * us) + b));
    const double upperbound =
        ((m + 0.5) * std::log((m + 1) / (r * (count - m + 1))) +
         (count + 1) * std::log((count - m + 1) / (count - k + 1)) +
         (k + 0.5) * std::log(r * (count - k + 1) / (k + 1)) +
         StirlingApproxTail(m) + StirlingApproxTail(count - m) -
         StirlingApproxTail(k) - StirlingApproxTail(count - k));
    if (v <= upperbound) return k;
  }
}

// A double result as output type U (see the contract for integers).
template <typename U>
U BinomialOutput(double x) {
  if constexpr (std::is_integral_v<U>) {
    constexpr double kLimit =
        -static_cast<double>(std::numeric_limits<U>::min());
    if (!(x > -kLimit - 1 && x < kLimit)) return std::numeric_limits<U>::min();
    return static_cast<U>(x);
  } else {
    return static_cast<U>(x);
  }
}

// One sample of batch (count, prob) for output index o of stream `base`.
template <typename T>
double BinomialSample(const PhiloxRandom& base, int64_t o, T count, T prob) {
  const double dcount = static_cast<double>(count);
  if (dcount <= 0.0 || prob <= T(0.0)) return 0.0;
  if (prob >= T(1.0)) return dcount;
  if (!(prob <= T(0.5)) && !(prob > T(0.5))) {
    return std::numeric_limits<double>::quiet_NaN();
  }
  const bool flip = prob > T(0.5);
  const T p = flip ? T(T(1) - prob) : prob;
  const double dp = static_cast<double>(p);
  double k;
  if (T(count * p) >= T(10)) {
    PhiloxRandom gen = StreamForOutput(base, o);
    k = BinomialBtrs(dcount, dp, &gen);
  } else {
    PhiloxRandom gen = base;
    gen.Skip(static_cast<uint64_t>(kBinomialInversionSamplesPerOutput) *
             static_cast<uint64_t>(o));
    k = BinomialInversion(dcount, dp, &gen);
  }
  return flip ? dcount - k : k;
}

template <typename T>
absl::Status CheckBinomialCounts(const T* counts, const T* probs,
                                 const int64_t* count_index,
                                 const int64_t* prob_index,
                                 int64_t num_batches) {
  for (int64_t b = 0; b < num_batches; ++b) {
    const T count = counts[count_index[b]];
    const T prob = probs[prob_index[b]];
    if (std::isnan(static_cast<double>(count)) && prob > T(0) && prob < T(1)) {
      return errors::InvalidArgument(
          "Binomial count at index ", count_index[b],
          " is NaN: counts must be numbers when 0 < probs < 1");
    }
  }
  return absl::OkStatus();
}

// All num_batches * samples_per_batch outputs, split over the device's
// threads when it has several (each output has its own stream).
template <typename T, typename U>
void FillBinomial(OpKernelContext* context, const PhiloxRandom& base,
                  const T* counts, const T* probs, const int64_t* count_index,
                  const int64_t* prob_index, int64_t num_batches,
                  int64_t samples_per_batch, U* out) {
  ShardOutputs(
      context, num_batches * samples_per_batch, 500,
      [&](int64_t first, int64_t last) {
        ScopedFlushDenormal flush;  // as on TensorFlow's kernel threads
        for (int64_t o = first; o < last; ++o) {
          const int64_t b = o / samples_per_batch;
          const int64_t s = o % samples_per_batch;
          out[b + s * num_batches] = BinomialOutput<U>(BinomialSample(
              base, o, counts[count_index[b]], probs[prob_index[b]]));
        }
      });
}

}  // namespace random
}  // namespace tributary

#endif  // TRIBUTARY_KERNELS_RANDOM_BINOMIAL_SAMPLER_H_
