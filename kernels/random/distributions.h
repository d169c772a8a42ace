// The distributions TensorFlow's random ops draw from Philox samples, with
// TensorFlow's exact bit recipes, so the same samples give the same outputs.
//
// Contract (one "draw" = one call on a generator):
//  * Uniform<T> (half, bfloat16, float, double), UniformInt<T> and
//    UniformFullInt<T> (int32, int64, uint32, uint64)
//    turn exactly one 128-bit sample into kResultElementCount outputs:
//    4 for 16/32-bit types, 2 for 64-bit types (each takes two words).
//  * Normal<T> does the same through Box-Muller (pairs of words for floats,
//    quadruples for double).
//  * TruncatedNormal<T> draws single words from a SingleSampleAdapter until it
//    has kResultElementCount values with |x| < 2: it uses a variable number of
//    samples, which is why the fill gives each of its groups a fixed budget.
//  * Uniform floats are in [0, 1): random mantissa bits under the exponent of
//    1.0, minus 1 (exact, never rounds up to 1). UniformInt is lo +
//    (bits mod (hi - lo)), with the same modulo bias TensorFlow has;
//    UniformFullInt is the bits themselves.
//
// The float math (logf, sqrtf, sincosf; 2*pi*u computed in double for floats
// as TensorFlow's expression promotes it) must stay as written here: any
// reassociation changes the last bit and the oracle test catches it.

#ifndef TRIBUTARY_KERNELS_RANDOM_DISTRIBUTIONS_H_
#define TRIBUTARY_KERNELS_RANDOM_DISTRIBUTIONS_H_

#include <math.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "Eigen/Core"
#include "kernels/random/philox.h"

namespace tributary {
namespace random {

// --- Bits to floating point in [0, 1) --------------------------------------

inline float Uint32ToFloat(uint32_t x) {
  // Sign 0, exponent 127 (the value 1.0), 23 random mantissa bits: [1, 2).
  const uint32_t bits = (127u << 23) | (x & 0x7fffffu);
  float f;
  std::memcpy(&f, &bits, sizeof(f));
  return f - 1.0f;
}

inline double Uint64ToDouble(uint32_t x0, uint32_t x1) {
  // 20 mantissa bits from x0, 32 from x1, under the exponent of 1.0.
  const uint64_t mantissa =
      (static_cast<uint64_t>(x0 & 0xfffffu) << 32) | static_cast<uint64_t>(x1);
  const uint64_t bits = (uint64_t{1023} << 52) | mantissa;
  double d;
  std::memcpy(&d, &bits, sizeof(d));
  return d - 1.0;
}

// Only the low 16 bits of the word are used (TensorFlow passes the uint32
// sample to a uint16 parameter).
inline Eigen::half Uint16ToHalf(uint16_t x) {
  const uint16_t bits = static_cast<uint16_t>((15u << 10) | (x & 0x3ffu));
  return Eigen::numext::bit_cast<Eigen::half>(bits) - Eigen::half(1.0f);
}

inline Eigen::bfloat16 Uint16ToBfloat16(uint16_t x) {
  const uint16_t bits = static_cast<uint16_t>((127u << 7) | (x & 0x7fu));
  return Eigen::numext::bit_cast<Eigen::bfloat16>(bits) - Eigen::bfloat16(1.0f);
}

// --- Box-Muller ------------------------------------------------------------

// Two standard normals from two words. u1 is clamped away from 0 so log is
// finite.
inline void BoxMullerFloat(uint32_t x0, uint32_t x1, float* f0, float* f1) {
  const float epsilon = 1.0e-7f;
  float u1 = Uint32ToFloat(x0);
  if (u1 < epsilon) u1 = epsilon;
  // Double 2*pi times a float, then narrowed: TensorFlow's M_PI is a double.
  const float v1 = static_cast<float>(2.0 * M_PI * Uint32ToFloat(x1));
  const float u2 = sqrtf(-2.0f * logf(u1));
  sincosf(v1, f0, f1);
  *f0 *= u2;
  *f1 *= u2;
}

// Two standard normals (double) from four words.
inline void BoxMullerDouble(uint32_t x0, uint32_t x1, uint32_t x2, uint32_t x3,
                            double* d0, double* d1) {
  const double epsilon = 1.0e-7;
  double u1 = Uint64ToDouble(x0, x1);
  if (u1 < epsilon) u1 = epsilon;
  const double v1 = 2 * M_PI * Uint64ToDouble(x2, x3);
  const double u2 = sqrt(-2.0 * log(u1));
  sincos(v1, d0, d1);
  *d0 *= u2;
  *d1 *= u2;
}

// --- Distributions ---------------------------------------------------------

template <typename T>
constexpr int OutputsPerSample() {
  return sizeof(T) == 8 ? 2 : 4;
}

template <typename T>
class Uniform {
 public:
  using ResultElementType = T;
  static constexpr int kResultElementCount = OutputsPerSample<T>();
  static constexpr bool kVariableSamplesPerOutput = false;
  static constexpr int kElementCost = 3;
  using ResultType = std::array<T, kResultElementCount>;

  ResultType operator()(PhiloxRandom* gen) const {
    const PhiloxRandom::ResultType s = (*gen)();
    ResultType out;
    for (int i = 0; i < kResultElementCount; ++i) {
      if constexpr (std::is_same_v<T, double>) {
        out[i] = Uint64ToDouble(s[2 * i], s[2 * i + 1]);
      } else if constexpr (std::is_same_v<T, float>) {
        out[i] = Uint32ToFloat(s[i]);
      } else if constexpr (std::is_same_v<T, Eigen::half>) {
        out[i] = Uint16ToHalf(static_cast<uint16_t>(s[i]));
      } else {
        static_assert(std::is_same_v<T, Eigen::bfloat16>);
        out[i] = Uint16ToBfloat16(static_cast<uint16_t>(s[i]));
      }
    }
    return out;
  }
};

// The integer of type T that one word (32-bit T) or two words (64-bit T, low
// word first) of a sample make, as raw bits.
template <typename T>
std::make_unsigned_t<T> IntBits(const PhiloxRandom::ResultType& s, int i) {
  if constexpr (sizeof(T) == 8) {
    return static_cast<uint64_t>(s[2 * i]) |
           (static_cast<uint64_t>(s[2 * i + 1]) << 32);
  } else {
    return s[i];
  }
}

template <typename T>
constexpr bool kIsRandomInt =
    std::is_same_v<T, int32_t> || std::is_same_v<T, int64_t> ||
    std::is_same_v<T, uint32_t> || std::is_same_v<T, uint64_t>;

// Integers in [lo, hi); lo < hi is the caller's check.
template <typename T>
class UniformInt {
 public:
  static_assert(kIsRandomInt<T>);
  using ResultElementType = T;
  using Unsigned = std::make_unsigned_t<T>;
  static constexpr int kResultElementCount = OutputsPerSample<T>();
  static constexpr bool kVariableSamplesPerOutput = false;
  static constexpr int kElementCost = 3;
  using ResultType = std::array<T, kResultElementCount>;

  UniformInt(T lo, T hi)
      : lo_(lo),
        range_(static_cast<Unsigned>(hi) - static_cast<Unsigned>(lo)) {}

  ResultType operator()(PhiloxRandom* gen) const {
    const PhiloxRandom::ResultType s = (*gen)();
    ResultType out;
    for (int i = 0; i < kResultElementCount; ++i) {
      out[i] = static_cast<T>(static_cast<Unsigned>(lo_) +
                              IntBits<T>(s, i) % range_);
    }
    return out;
  }

 private:
  T lo_;
  Unsigned range_;
};

// Every value of T equally likely: the sample's bits reinterpreted.
template <typename T>
class UniformFullInt {
 public:
  static_assert(kIsRandomInt<T>);
  using ResultElementType = T;
  static constexpr int kResultElementCount = OutputsPerSample<T>();
  static constexpr bool kVariableSamplesPerOutput = false;
  static constexpr int kElementCost = 1;
  using ResultType = std::array<T, kResultElementCount>;

  ResultType operator()(PhiloxRandom* gen) const {
    const PhiloxRandom::ResultType s = (*gen)();
    ResultType out;
    for (int i = 0; i < kResultElementCount; ++i) {
      out[i] = static_cast<T>(IntBits<T>(s, i));
    }
    return out;
  }
};

template <typename T>
class Normal {
 public:
  using ResultElementType = T;
  static constexpr int kResultElementCount = OutputsPerSample<T>();
  static constexpr bool kVariableSamplesPerOutput = false;
  static constexpr int kElementCost = 70;
  using ResultType = std::array<T, kResultElementCount>;

  ResultType operator()(PhiloxRandom* gen) const {
    const PhiloxRandom::ResultType s = (*gen)();
    ResultType out;
    if constexpr (std::is_same_v<T, double>) {
      BoxMullerDouble(s[0], s[1], s[2], s[3], &out[0], &out[1]);
    } else {
      for (int i = 0; i < 4; i += 2) {
        float f0, f1;
        BoxMullerFloat(s[i], s[i + 1], &f0, &f1);
        out[i] = static_cast<T>(f0);
        out[i + 1] = static_cast<T>(f1);
      }
    }
    return out;
  }
};

// Standard normals with |x| < 2, by rejection. Draws words one at a time.
template <typename T>
class TruncatedNormal {
 public:
  using ResultElementType = T;
  static constexpr int kResultElementCount = OutputsPerSample<T>();
  static constexpr bool kVariableSamplesPerOutput = true;
  static constexpr int kElementCost = 90;
  using ResultType = std::array<T, kResultElementCount>;

  ResultType operator()(SingleSampleAdapter<PhiloxRandom>* gen) const {
    ResultType out;
    int n = 0;
    // Each Box-Muller pair is tested in order; the first accepted values fill
    // the group, the rest of the pair is dropped.
    while (true) {
      if constexpr (std::is_same_v<T, double>) {
        const uint32_t x0 = (*gen)(), x1 = (*gen)(), x2 = (*gen)(),
                       x3 = (*gen)();
        double d[2];
        BoxMullerDouble(x0, x1, x2, x3, &d[0], &d[1]);
        for (double v : d) {
          if (std::abs(v) < 2.0) {
            out[n++] = v;
            if (n == kResultElementCount) return out;
          }
        }
      } else {
        const uint32_t x0 = (*gen)(), x1 = (*gen)();
        float f[2];
        BoxMullerFloat(x0, x1, &f[0], &f[1]);
        for (float v : f) {
          if (std::abs(v) < 2.0f) {
            out[n++] = static_cast<T>(v);
            if (n == kResultElementCount) return out;
          }
        }
      }
    }
  }
};

}  // namespace random
}  // namespace tributary

#endif  // TRIBUTARY_KERNELS_RANDOM_DISTRIBUTIONS_H_
