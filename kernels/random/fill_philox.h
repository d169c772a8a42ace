// Fills an output buffer from a distribution, in TensorFlow's group layout, so
// the values never depend on how many threads share the work.
//
// Contract: output element i belongs to group g = i / kResultElementCount.
//  * Fixed-cost distributions: group g is the distribution applied to the
//    generator skipped by g samples (each group takes exactly one sample).
//  * Variable-cost ones (truncated normal): group g reads words from the
//    generator skipped by g * kResultElementCount * 256 / 4 samples, a budget
//    the rejection loop never exhausts in practice (as in TensorFlow).
//  * A last partial group computes a full group and keeps its first elements.
// Groups are split over the device's Eigen thread pool when there is one.

#ifndef TRIBUTARY_KERNELS_RANDOM_FILL_PHILOX_H_
#define TRIBUTARY_KERNELS_RANDOM_FILL_PHILOX_H_

#include <algorithm>
#include <cstdint>

#include "common/kernel/device_base.h"
#include "common/kernel/op_kernel.h"
#include "kernels/random/philox.h"
#include "unsupported/Eigen/CXX11/Tensor"

namespace tributary {
namespace random {

// Samples reserved per output by variable-cost distributions, and by every
// kernel when it reserves a step's samples (ReserveRandomOutputs).
inline constexpr int kReservedSamplesPerOutput = 256;

template <class Distribution>
void FillPhiloxGroups(PhiloxRandom base, const Distribution& dist,
                      typename Distribution::ResultElementType* data,
                      int64_t size, int64_t first_group, int64_t last_group) {
  constexpr int kGroup = Distribution::kResultElementCount;
  const int64_t full_groups = std::min(last_group, size / kGroup);
  if constexpr (!Distribution::kVariableSamplesPerOutput) {
    PhiloxRandom gen = base;
    gen.Skip(first_group);
    for (int64_t g = first_group; g < last_group; ++g) {
      const auto samples = dist(&gen);
      const int64_t n = g < full_groups ? kGroup : size - g * kGroup;
      std::copy(samples.begin(), samples.begin() + n, data + g * kGroup);
    }
  } else {
    constexpr int64_t kSkipPerGroup =
        kGroup * kReservedSamplesPerOutput / PhiloxRandom::kResultElementCount;
    for (int64_t g = first_group; g < last_group; ++g) {
      // Each group restarts from its own offset, so its values do not depend
      // on how many words the groups before it rejected.
      PhiloxRandom gen = base;
      gen.Skip(static_cast<uint64_t>(g) * kSkipPerGroup);
      SingleSampleAdapter<PhiloxRandom> words(&gen);
      const auto samples = dist(&words);
      const int64_t n = g < full_groups ? kGroup : size - g * kGroup;
      std::copy(samples.begin(), samples.begin() + n, data + g * kGroup);
    }
  }
}

template <class Distribution>
void FillPhiloxRandom(OpKernelContext* context, PhiloxRandom gen,
                      typename Distribution::ResultElementType* data,
                      int64_t size, const Distribution& dist) {
  constexpr int kGroup = Distribution::kResultElementCount;
  const int64_t groups = (size + kGroup - 1) / kGroup;
  if (groups == 0) return;
  const Eigen::ThreadPoolDevice* device =
      (context != nullptr && context->device() != nullptr)
          ? context->device()->eigen_cpu_device()
          : nullptr;
  if (device == nullptr || device->numThreads() <= 1 || groups < 64) {
    FillPhiloxGroups(gen, dist, data, size, 0, groups);
    return;
  }
  const double cost = PhiloxRandom::kResultElementCount *
                      (PhiloxRandom::kElementCost + Distribution::kElementCost);
  device->parallelFor(groups, Eigen::TensorOpCost(0, kGroup * 4, cost),
                      [&](Eigen::Index first, Eigen::Index last) {
                        FillPhiloxGroups(gen, dist, data, size, first, last);
                      });
}

}  // namespace random
}  // namespace tributary

#endif  // TRIBUTARY_KERNELS_RANDOM_FILL_PHILOX_H_
