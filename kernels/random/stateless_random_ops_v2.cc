// CPU kernels of TensorFlow's V2 stateless random ops:
// StatelessRandomUniformV2, StatelessRandomNormalV2, StatelessTruncatedNormalV2
// (half, bfloat16, float, double).
//
// The stream comes as inputs key (uint64[1]), counter (uint64[>=2]) and alg
// (int32 scalar): the CPU runs Philox (alg 1), auto-select (3) picks Philox,
// and any other alg (ThreeFry, 2, included) is TensorFlow's InvalidArgument.
// The fill is the stateful ops' group-wise one, so the bits are TensorFlow's.

#include <cstdint>

#include "common/framework/tensor.h"
#include "common/framework/types.h"
#include "common/kernel/kernel_registry.h"
#include "common/kernel/op_kernel.h"
#include "kernels/array/array_util.h"
#include "kernels/random/distributions.h"
#include "kernels/random/fill_philox.h"
#include "kernels/random/stateless_seed.h"

namespace tributary {
namespace {

using random::PhiloxRandom;

// TensorFlow's algorithm ids (rng_alg.h).
constexpr int kAlgPhilox = 1;
constexpr int kAlgAutoSelect = 3;
constexpr int kPhiloxCounterSize = 2;  // uint64 words

// Reads inputs key, counter and alg (indices 1-3) into a Philox stream.
absl::Status PhiloxFromInputs(OpKernelContext* context, PhiloxRandom* gen) {
  const Tensor& key = context->input(1);
  const Tensor& counter = context->input(2);
  const Tensor& alg_t = context->input(3);
  if (alg_t.dims() != 0) {
    return errors::InvalidArgument("input 3 (0-based) must have shape [], not ",
                                   alg_t.shape().DebugString());
  }
  int alg = alg_t.scalar<int32_t>()();
  if (alg == kAlgAutoSelect) alg = kAlgPhilox;
  if (key.dims() != 1 || key.dim_size(0) != 1) {
    return errors::InvalidArgument(
        "key must have shape [1], not ", key.shape().DebugString(),
        ". (Note that batched keys are not supported yet.)");
  }
  if (alg != kAlgPhilox) {
    return errors::InvalidArgument("Unsupported algorithm id: ", alg);
  }
  if (counter.dims() != 1 || counter.dim_size(0) < kPhiloxCounterSize) {
    return errors::InvalidArgument(
        "counter must be a vector with length at least ", kPhiloxCounterSize,
        "; got shape: ", counter.shape().DebugString(),
        ". (Note that batched counters are not supported yet.)");
  }
  const auto c = counter.flat<uint64_t>();
  *gen = random::PhiloxFromKeyCounter(key.flat<uint64_t>()(0), c(0), c(1));
  return absl::OkStatus();
}

template <class Distribution>
class StatelessRandomV2Op : public OpKernel {
 public:
  using T = typename Distribution::ResultElementType;
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* context) override {
    TensorShape shape;
    OP_REQUIRES_OK(context, array_ops::MakeShapeFromShapeTensor(
                                context->input(0), &shape));
    PhiloxRandom gen;
    OP_REQUIRES_OK(context, PhiloxFromInputs(context, &gen));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(context, context->allocate_output(0, shape, &out));
    random::FillPhiloxRandom(context, gen, out->flat<T>().data(),
                             out->NumElements(), Distribution());
  }
};

#define TRIB_REGISTER_STATELESS_V2_FLOAT(NAME, DIST, TYPE)    \
  REGISTER_KERNEL_BUILDER(Name(NAME)                          \
                              .Device(DEVICE_CPU)             \
                              .HostMemory("shape")            \
                              .HostMemory("key")              \
                              .HostMemory("counter")          \
                              .HostMemory("alg")              \
                              .TypeConstraint<TYPE>("dtype"), \
                          StatelessRandomV2Op<random::DIST<TYPE>>)
#define TRIB_REGISTER_STATELESS_V2(TYPE)                                       \
  TRIB_REGISTER_STATELESS_V2_FLOAT("StatelessRandomUniformV2", Uniform, TYPE); \
  TRIB_REGISTER_STATELESS_V2_FLOAT("StatelessRandomNormalV2", Normal, TYPE);   \
  TRIB_REGISTER_STATELESS_V2_FLOAT("StatelessTruncatedNormalV2",               \
                                   TruncatedNormal, TYPE)

TRIB_REGISTER_STATELESS_V2(half);
TRIB_REGISTER_STATELESS_V2(bfloat16);
TRIB_REGISTER_STATELESS_V2(float);
TRIB_REGISTER_STATELESS_V2(double);
#undef TRIB_REGISTER_STATELESS_V2
#undef TRIB_REGISTER_STATELESS_V2_FLOAT

}  // namespace
}  // namespace tributary
