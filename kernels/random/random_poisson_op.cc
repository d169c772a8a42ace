// CPU kernels of TensorFlow's stateful Poisson samplers: RandomPoisson
// (rate and output of one type: half, float, double) and RandomPoissonV2
// (rate type R and output type dtype, each half, float, double, int32 or
// int64), seeded by their seed/seed2 attrs. poisson_sampler.h has the recipe
// and the layout; the outputs are TensorFlow's bits.
//
// `shape` must be an int32/int64 vector; the output is shape + rate.shape.
// When `shape` has no elements nothing is drawn or reserved; otherwise the
// kernel's generator reserves 256 samples per output, as TensorFlow's does.
// StatelessRandomPoisson is in stateless_random_ops.cc.

#include <cstdint>

#include "common/framework/tensor.h"
#include "common/framework/types.h"
#include "common/kernel/kernel_registry.h"
#include "common/kernel/op_kernel.h"
#include "kernels/array/array_util.h"
#include "kernels/random/guarded_philox.h"
#include "kernels/random/per_output_sampling.h"
#include "kernels/random/poisson_sampler.h"
#include "kernels/random/sampler_inputs.h"

namespace tributary {
namespace {

using random::PhiloxRandom;

template <typename R, typename U>
class RandomPoissonOp : public OpKernel {
 public:
  explicit RandomPoissonOp(OpKernelConstruction* context) : OpKernel(context) {
    OP_REQUIRES_OK(context, generator_.Init(context));
  }

  void Compute(OpKernelContext* context) override {
    const Tensor& rate_t = context->input(1);
    Tensor* out = nullptr;
    int64_t num_samples = 0;
    OP_REQUIRES_OK(
        context, random::AllocateSamples(context, rate_t, &out, &num_samples));
    if (num_samples == 0) return;
    const R* rate = rate_t.flat<R>().data();
    const int64_t num_rates = rate_t.NumElements();
    OP_REQUIRES_OK(context, random::CheckPoissonRates<R, U>(rate, num_rates));
    const PhiloxRandom gen = generator_.ReserveRandomOutputs(
        num_samples * num_rates, random::kReservedSamplesPerOutput);
    random::FillPoisson(context, gen, rate, num_rates, num_samples,
                        out->flat<U>().data());
  }

 private:
  random::GuardedPhiloxRandom generator_;
};

#define TRIB_REGISTER_POISSON_V1(T)                                        \
  REGISTER_KERNEL_BUILDER(                                                 \
      Name("RandomPoisson").Device(DEVICE_CPU).TypeConstraint<T>("dtype"), \
      RandomPoissonOp<T, T>)
TRIB_REGISTER_POISSON_V1(half);
TRIB_REGISTER_POISSON_V1(float);
TRIB_REGISTER_POISSON_V1(double);
#undef TRIB_REGISTER_POISSON_V1

#define TRIB_REGISTER_POISSON_V2(R, U)                     \
  REGISTER_KERNEL_BUILDER(Name("RandomPoissonV2")          \
                              .Device(DEVICE_CPU)          \
                              .TypeConstraint<R>("R")      \
                              .TypeConstraint<U>("dtype"), \
                          RandomPoissonOp<R, U>)
#define TRIB_REGISTER_POISSON_V2_RATE(R) \
  TRIB_REGISTER_POISSON_V2(R, half);     \
  TRIB_REGISTER_POISSON_V2(R, float);    \
  TRIB_REGISTER_POISSON_V2(R, double);   \
  TRIB_REGISTER_POISSON_V2(R, int32_t);  \
  TRIB_REGISTER_POISSON_V2(R, int64_t)
TRIB_REGISTER_POISSON_V2_RATE(half);
TRIB_REGISTER_POISSON_V2_RATE(float);
TRIB_REGISTER_POISSON_V2_RATE(double);
TRIB_REGISTER_POISSON_V2_RATE(int32_t);
TRIB_REGISTER_POISSON_V2_RATE(int64_t);
#undef TRIB_REGISTER_POISSON_V2_RATE
#undef TRIB_REGISTER_POISSON_V2

}  // namespace
}  // namespace tributary
