// CPU kernels of TensorFlow's gamma samplers: RandomGamma (seed/seed2 attrs),
// StatelessRandomGammaV2 (seed input) and StatelessRandomGammaV3 (key,
// counter, alg inputs), for half, float and double alphas. gamma_sampler.h
// has the recipe and the output layout; the outputs are TensorFlow's bits.
//
// RandomGamma: `shape` must be an int32/int64 vector; the output is shape +
// alpha.shape; nothing is reserved or checked further when the output has
// no elements (an empty alpha included); otherwise the kernel's
// generator reserves 256 samples per output (TensorFlow's bound).
// The stateless ops: the output is `shape`, which must end with alpha's
// shape; an empty output returns before the seed's type and alpha are
// checked, as in TensorFlow.

#include <cstdint>

#include "common/framework/tensor.h"
#include "common/framework/types.h"
#include "common/kernel/kernel_registry.h"
#include "common/kernel/op_kernel.h"
#include "kernels/array/array_util.h"
#include "kernels/random/gamma_sampler.h"
#include "kernels/random/guarded_philox.h"
#include "kernels/random/key_counter_alg.h"
#include "kernels/random/per_output_sampling.h"
#include "kernels/random/sampler_inputs.h"
#include "kernels/random/stateless_seed.h"

namespace tributary {
namespace {

using random::PhiloxRandom;

template <typename T>
class RandomGammaOp : public OpKernel {
 public:
  explicit RandomGammaOp(OpKernelConstruction* context) : OpKernel(context) {
    OP_REQUIRES_OK(context, generator_.Init(context));
  }

  void Compute(OpKernelContext* context) override {
    const Tensor& alpha_t = context->input(1);
    Tensor* out = nullptr;
    int64_t num_samples = 0;
    OP_REQUIRES_OK(
        context, random::AllocateSamples(context, alpha_t, &out, &num_samples));
    // TensorFlow 2.21 returns for any empty output (so an empty alpha is
    // never an error here, although the check below stays as its guard).
    if (out->NumElements() == 0) return;
    const int64_t num_alphas = alpha_t.NumElements();
    OP_REQUIRES(context, num_alphas > 0,
                errors::InvalidArgument(
                    "Input alpha should have non-zero element count, got: ",
                    num_alphas));
    const PhiloxRandom gen = generator_.ReserveRandomOutputs(
        num_samples * num_alphas, random::kReservedSamplesPerOutput);
    random::FillGamma(context, gen, alpha_t.flat<T>().data(), num_alphas,
                      num_samples, out->flat<T>().data());
  }

 private:
  random::GuardedPhiloxRandom generator_;
};

// Fills the stateless output from alpha (input `alpha_input`).
template <typename T>
void FillStatelessGamma(OpKernelContext* context, const PhiloxRandom& gen,
                        int alpha_input, Tensor* out) {
  const Tensor& alpha_t = context->input(alpha_input);
  const TensorShape& shape = out->shape();
  OP_REQUIRES_OK(context,
                 random::CheckEndsWithParameterShape(shape, alpha_t.shape()));
  const int64_t num_alphas = alpha_t.NumElements();
  OP_REQUIRES(
      context, num_alphas > 0,
      errors::InvalidArgument(
          "Input alpha should have non-zero element count, got: ", num_alphas));
  random::FillGamma(context, gen, alpha_t.flat<T>().data(), num_alphas,
                    shape.num_elements() / num_alphas, out->flat<T>().data());
}

template <typename T>
class StatelessRandomGammaV2Op : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* context) override {
    Tensor* out = nullptr;
    PhiloxRandom gen;
    bool empty = false;
    OP_REQUIRES_OK(context,
                   random::PrepareStateless(context, &out, &gen, &empty));
    if (empty) return;
    FillStatelessGamma<T>(context, gen, 2, out);
  }
};

template <typename T>
class StatelessRandomGammaV3Op : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* context) override {
    TensorShape shape;
    OP_REQUIRES_OK(context, array_ops::MakeShapeFromShapeTensor(
                                context->input(0), &shape));
    PhiloxRandom gen;
    OP_REQUIRES_OK(context, random::PhiloxFromInputs(context, &gen));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(context, context->allocate_output(0, shape, &out));
    if (shape.num_elements() == 0) return;
    FillStatelessGamma<T>(context, gen, 4, out);
  }
};

#define TRIB_REGISTER_GAMMA(TYPE)                                       \
  REGISTER_KERNEL_BUILDER(                                              \
      Name("RandomGamma").Device(DEVICE_CPU).TypeConstraint<TYPE>("T"), \
      RandomGammaOp<TYPE>);                                             \
  REGISTER_KERNEL_BUILDER(Name("StatelessRandomGammaV2")                \
                              .Device(DEVICE_CPU)                       \
                              .HostMemory("shape")                      \
                              .HostMemory("seed")                       \
                              .HostMemory("alpha")                      \
                              .TypeConstraint<TYPE>("dtype"),           \
                          StatelessRandomGammaV2Op<TYPE>);              \
  REGISTER_KERNEL_BUILDER(Name("StatelessRandomGammaV3")                \
                              .Device(DEVICE_CPU)                       \
                              .HostMemory("shape")                      \
                              .HostMemory("alg")                        \
                              .TypeConstraint<TYPE>("dtype"),           \
                          StatelessRandomGammaV3Op<TYPE>)

TRIB_REGISTER_GAMMA(half);
TRIB_REGISTER_GAMMA(float);
TRIB_REGISTER_GAMMA(double);
#undef TRIB_REGISTER_GAMMA

}  // namespace
}  // namespace tributary
