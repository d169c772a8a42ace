// The frame TensorFlow's rejection samplers (gamma, Poisson) share, so the
// same Philox stream gives the same bits here:
//  * output o reads the stream skipped by 256 * o samples
//    (kReservedSamplesPerOutput, fill_philox.h), so the values do not
//    depend on how outputs are split over threads;
//  * the values of one distribution call are handed out last-first
//    (CountdownBuffer: TensorFlow's buffers count down), and a buffer starts
//    empty for every output;
//  * ShardOutputs splits [0, total) over the device's threads;
//  * a stateless sampler's output `shape` must end with its parameter's
//    shape (CheckEndsWithParameterShape, TensorFlow's message).

#ifndef TRIBUTARY_KERNELS_RANDOM_PER_OUTPUT_SAMPLING_H_
#define TRIBUTARY_KERNELS_RANDOM_PER_OUTPUT_SAMPLING_H_

#include <cstdint>

#include "absl/status/status.h"
#include "common/framework/status.h"
#include "common/framework/tensor_shape.h"
#include "common/kernel/device_base.h"
#include "common/kernel/op_kernel.h"
#include "kernels/random/fill_philox.h"
#include "kernels/random/philox.h"
#include "unsupported/Eigen/CXX11/Tensor"

namespace tributary {
namespace random {

// The stream output o draws from.
inline PhiloxRandom StreamForOutput(const PhiloxRandom& base, int64_t o) {
  PhiloxRandom gen = base;
  gen.Skip(static_cast<uint64_t>(kReservedSamplesPerOutput) *
           static_cast<uint64_t>(o));
  return gen;
}

// Values of one distribution call, handed out last-first.
template <class Distribution>
class CountdownBuffer {
 public:
  double Next(PhiloxRandom* gen) {
    if (remaining_ == 0) {
      values_ = Distribution()(gen);
      remaining_ = Distribution::kResultElementCount;
    }
    return values_[--remaining_];
  }

 private:
  typename Distribution::ResultType values_{};
  int remaining_ = 0;
};

// Calls range(first, last) over [0, total), split over the context's device
// threads when it has several and there is enough work.
template <class Range>
void ShardOutputs(OpKernelContext* context, int64_t total,
                  double cycles_per_output, Range range) {
  if (total == 0) return;
  const Eigen::ThreadPoolDevice* device =
      (context != nullptr && context->device() != nullptr)
          ? context->device()->eigen_cpu_device()
          : nullptr;
  if (device == nullptr || device->numThreads() <= 1 || total < 64) {
    range(int64_t{0}, total);
    return;
  }
  device->parallelFor(total, Eigen::TensorOpCost(0, 8, cycles_per_output),
                      [&](Eigen::Index first, Eigen::Index last) {
                        range(static_cast<int64_t>(first),
                              static_cast<int64_t>(last));
                      });
}

inline absl::Status CheckEndsWithParameterShape(const TensorShape& shape,
                                                const TensorShape& parameter) {
  const int offset = shape.dims() - parameter.dims();
  bool ends_with = offset >= 0;
  for (int i = 0; ends_with && i < parameter.dims(); ++i) {
    ends_with = shape.dim_size(offset + i) == parameter.dim_size(i);
  }
  if (!ends_with) {
    return errors::InvalidArgument(
        "Shape passed in must end with broadcasted shape.");
  }
  return absl::OkStatus();
}

}  // namespace random
}  // namespace tributary

#endif  // TRIBUTARY_KERNELS_RANDOM_PER_OUTPUT_SAMPLING_H_
