// Gamma(alpha, 1) samples with TensorFlow's exact recipe (RandomGamma,
// StatelessRandomGammaV2/V3), so the same Philox stream gives the same bits.
//
// Contract:
//  * Output index o (0 <= o < num_alphas * samples_per_alpha) is alpha
//    a = o / samples_per_alpha, sample s = o % samples_per_alpha, and is
//    written at out[a + s * num_alphas] (the alphas vary fastest in memory).
//  * Sample o reads its own stream (per_output_sampling.h), so the values do
//    not depend on how outputs are split over threads.
//  * All math is in double. Uniform and normal doubles come two per Philox
//    sample and are used last-first; the buffers start empty for every
//    output. alpha == 1: -log1p(-u) of one
//    uniform. Otherwise
//    Marsaglia-Tsang: d = alpha - 1/3 (alpha + 2/3 when alpha < 1),
//    c = 1/3/sqrt(d); draw a normal x until v = 1 + c x > 0, cube v, draw u;
//    accept when u < 1 - 0.0331 x^4 or log u < x^2/2 + d (1 - v + log v),
//    giving d v (times b^(1/alpha) of one more uniform when alpha < 1);
//    a rejection keeps drawing from the same buffers. Denormals flush to zero
//    while sampling (flush_denormal.h), as on TensorFlow's kernel threads.

#ifndef TRIBUTARY_KERNELS_RANDOM_GAMMA_SAMPLER_H_
#define TRIBUTARY_KERNELS_RANDOM_GAMMA_SAMPLER_H_

#include <cmath>
#include <cstdint>

#include "common/kernel/op_kernel.h"
#include "kernels/random/distributions.h"
#include "common/framework/flush_denormal.h"
#include "kernels/random/per_output_sampling.h"
#include "kernels/random/philox.h"

namespace tributary {
namespace random {

template <typename T>
void GammaRange(const PhiloxRandom& base, const T* alpha, int64_t num_alphas,
                int64_t samples_per_alpha, T* out, int64_t first,
                int64_t last) {
  ScopedFlushDenormal flush;  // as on TensorFlow's kernel threads
  for (int64_t o = first; o < last; ++o) {
    const int64_t a = o / samples_per_alpha;
    const int64_t s = o % samples_per_alpha;
    const double alpha_d = static_cast<double>(alpha[a]);
    PhiloxRandom gen = StreamForOutput(base, o);
    CountdownBuffer<Uniform<double>> uniform;
    double result;
    if (alpha_d == 1.0) {
      const double u = uniform.Next(&gen);
      result = -std::log1p(-u);
    } else {
      CountdownBuffer<Normal<double>> normal;
      const bool below_one = alpha_d < 1;
      const double d = alpha_d + (below_one ? 2.0 / 3 : -1.0 / 3);
      const double c = 1.0 / 3 / std::sqrt(d);
      while (true) {
        const double x = normal.Next(&gen);
        double v = 1 + c * x;
        if (v <= 0) continue;
        v = v * v * v;
        const double u = uniform.Next(&gen);
        if ((u < 1 - 0.0331 * (x * x) * (x * x)) ||
            (std::log(u) < 0.5 * x * x + d * (1 - v + std::log(v)))) {
          result = d * v;
          if (below_one) {
            const double b = uniform.Next(&gen);
            result *= std::pow(b, 1 / alpha_d);
          }
          break;
        }
      }
    }
    out[a + s * num_alphas] = static_cast<T>(result);
  }
}

// All num_alphas * samples_per_alpha outputs, split over the device's
// threads when it has several.
template <typename T>
void FillGamma(OpKernelContext* context, const PhiloxRandom& base,
               const T* alpha, int64_t num_alphas, int64_t samples_per_alpha,
               T* out) {
  ShardOutputs(context, num_alphas * samples_per_alpha, 400,
               [&](int64_t first, int64_t last) {
                 GammaRange(base, alpha, num_alphas, samples_per_alpha, out,
                            first, last);
               });
}

}  // namespace random
}  // namespace tributary

#endif  // TRIBUTARY_KERNELS_RANDOM_GAMMA_SAMPLER_H_
