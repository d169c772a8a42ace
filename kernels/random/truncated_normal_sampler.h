// Truncated normal samples with per-batch parameters, TensorFlow's recipe
// for ParameterizedTruncatedNormal and StatelessParameterizedTruncatedNormal,
// so the same Philox stream gives the same bits.
//
// Contract:
//  * Parameters (mean, stddev, minval, maxval) are valid when stddev > 0,
//    minval < maxval and one bound is finite; otherwise the kernels fail
//    with InvalidArgument "Invalid parameters" (TensorFlow's words).
//  * The bounds are flipped (with the sign of stddev) when minval is -inf or
//    maxval < mean, then normalised: lo = (minval - mean) / stddev,
//    hi = (maxval - mean) / stddev. The method:
//      - when [lo, hi] holds the mean and reaches 1.3 deviations past it on
//        one side: normal samples, rejected outside [lo, hi];
//      - else when hi - lo is below 2 exp(1/2 + lo (lo - sqrt(lo^2 + 4)) / 4)
//        / (lo + sqrt(lo^2 + 4)): a uniform z in [lo, hi] accepted when a
//        second uniform u <= exp((max(lo, 0)^2 - z^2) / 2), a block of each
//        per round;
//      - else: an exponential proposal z = lo - log(u1) / alpha with
//        alpha = (lo + sqrt(lo^2 + 4)) / 2, accepted when
//        u2 <= exp(-(x^2) / 2) (x = alpha - z if lo < alpha, else
//        lo - alpha) and z < hi, pairs from one uniform block.
//    The result is z * stddev + mean. All arithmetic is in the output type
//    T (half rounds every step, as Eigen::half does in TensorFlow).
//  * Draw takes whole distribution blocks from one stream shared by every
//    batch the caller draws in turn; a block's values left after the last
//    sample of a batch are dropped. 1000 rejections in a row fail with
//    Internal (TensorFlow's words), never a hang.

#ifndef TRIBUTARY_KERNELS_RANDOM_TRUNCATED_NORMAL_SAMPLER_H_
#define TRIBUTARY_KERNELS_RANDOM_TRUNCATED_NORMAL_SAMPLER_H_

#include <array>
#include <cstdint>
#include <utility>

#include "Eigen/Core"
#include "absl/status/status.h"
#include "common/framework/status.h"
#include "kernels/random/distributions.h"
#include "kernels/random/philox.h"

namespace tributary {
namespace random {

inline constexpr int kTruncatedNormalMaxIterations = 1000;

template <typename T>
class TruncatedNormalBatch {
 public:
  static bool Valid(T stddev, T minval, T maxval) {
    return stddev > T(0) && minval < maxval &&
           (Eigen::numext::isfinite(minval) || Eigen::numext::isfinite(maxval));
  }

  // Parameters must be Valid.
  TruncatedNormalBatch(T mean, T stddev, T minval, T maxval) : mean_(mean) {
    if ((Eigen::numext::isinf(minval) && minval < T(0)) || maxval < mean) {
      std::swap(minval, maxval);
      stddev = -stddev;
    }
    stddev_ = stddev;
    lo_ = (minval - mean) / stddev;
    hi_ = (maxval - mean) / stddev;
  }

  // Draws n samples from *gen; emit(k, value) receives sample k (0-based).
  template <class Emit>
  absl::Status Draw(PhiloxRandom* gen, int64_t n, Emit emit) const {
    const T kInsideDeviations = T(1.3);
    const T sqrt_factor = Eigen::numext::sqrt((lo_ * lo_) + T(4));
    const T cutoff =
        T(2) * Eigen::numext::exp(T(0.5) + (lo_ * (lo_ - sqrt_factor)) / T(4)) /
        (lo_ + sqrt_factor);
    const T diff = hi_ - lo_;
    if (((lo_ < -kInsideDeviations) && (hi_ >= T(0.))) ||
        ((hi_ > kInsideDeviations) && (lo_ <= T(0.)))) {
      return DrawNormal(gen, n, emit);
    }
    if (diff < cutoff) return DrawUniform(gen, n, diff, emit);
    return DrawExponential(gen, n, emit);
  }

 private:
  template <class Emit>
  absl::Status DrawNormal(PhiloxRandom* gen, int64_t n, Emit emit) const {
    int64_t k = 0;
    int rejections = 0;
    while (k < n) {
      const auto block = Normal<T>()(gen);
      for (const T x : block) {
        if (x >= lo_ && x <= hi_) {
          emit(k, T(x * stddev_ + mean_));
          if (++k >= n) break;
          rejections = 0;
        } else if (++rejections > kTruncatedNormalMaxIterations) {
          return errors::Internal(
              "TruncatedNormal randn rejection sampler failed to accept a "
              "sample.");
        }
      }
    }
    return absl::OkStatus();
  }

  template <class Emit>
  absl::Status DrawUniform(PhiloxRandom* gen, int64_t n, T diff,
                           Emit emit) const {
    using Block = typename Uniform<T>::ResultType;
    const T plus_factor = (lo_ < T(0)) ? T(0) : T(lo_ * lo_);
    int64_t k = 0;
    int rejections = 0;
    while (k < n) {
      const Block rand = Uniform<T>()(gen);
      Block z, g;
      for (size_t i = 0; i < rand.size(); ++i) {
        z[i] = rand[i] * diff + lo_;
        g[i] = (plus_factor - z[i] * z[i]) / T(2.0);
      }
      const Block u = Uniform<T>()(gen);
      for (size_t i = 0; i < rand.size(); ++i) {
        const bool accept = u[i] <= Eigen::numext::exp(g[i]);
        if (accept || rejections + 1 >= kTruncatedNormalMaxIterations) {
          if (!accept) {
            return errors::Internal(
                "TruncatedNormal uniform rejection sampler failed to  accept "
                "a sample.");
          }
          emit(k, T(z[i] * stddev_ + mean_));
          if (++k >= n) break;
          rejections = 0;
        } else {
          ++rejections;
        }
      }
    }
    return absl::OkStatus();
  }

  template <class Emit>
  absl::Status DrawExponential(PhiloxRandom* gen, int64_t n, Emit emit) const {
    const T alpha = (lo_ + Eigen::numext::sqrt((lo_ * lo_) + T(4))) / T(2);
    int64_t k = 0;
    int rejections = 0;
    while (k < n) {
      const auto rand = Uniform<T>()(gen);
      for (size_t i = 0; i < rand.size(); i += 2) {
        const T z = -Eigen::numext::log(rand[i]) / alpha + lo_;
        const T x = lo_ < alpha ? T(alpha - z) : T(lo_ - alpha);
        const T g = Eigen::numext::exp(-x * x / T(2.0));
        const T u = rand[i + 1];
        const bool accept = u <= g && z < hi_;
        if (accept || rejections + 1 >= kTruncatedNormalMaxIterations) {
          if (!accept) {
            return errors::Internal(
                "TruncatedNormal exponential distribution rejection sampler "
                "failed to accept a sample.");
          }
          emit(k, T(z * stddev_ + mean_));
          if (++k >= n) break;
          rejections = 0;
        } else {
          ++rejections;
        }
      }
    }
    return absl::OkStatus();
  }

  T mean_;
  T stddev_;
  T lo_;
  T hi_;
};

}  // namespace random
}  // namespace tributary

#endif  // TRIBUTARY_KERNELS_RANDOM_TRUNCATED_NORMAL_SAMPLER_H_
