// CPU kernels of the resource-based random ops tf.random.Generator uses:
// RngReadAndSkip, RngSkip, StatefulUniform, StatefulStandardNormalV2,
// StatefulTruncatedNormal (half, bfloat16, float, double),
// StatefulUniformInt (int32, int64), StatefulUniformFullInt (int32, int64,
// uint32, uint64) and NonDeterministicInts. (The deprecated
// StatefulStandardNormal, which TensorFlow refuses in GraphDefs since version
// 29, is not here.)
//
// Bit-exact with TensorFlow: a sampling op draws from the Philox generator at
// the variable's state and advances the state by 256 samples per output
// element (rng_state.h), then fills with the stateless ops' distributions and
// thread-count-independent fill. RngSkip and RngReadAndSkip advance by
// delta * 256; RngReadAndSkip returns the 3 state words from before.
// Check order follows TensorFlow: the algorithm scalar, then (UniformInt)
// the bounds, then the shape, then the state.

#include <cstdint>

#include "common/framework/tensor.h"
#include "common/framework/types.h"
#include "common/kernel/kernel_registry.h"
#include "common/kernel/op_kernel.h"
#include "kernels/array/array_util.h"
#include "kernels/random/distributions.h"
#include "kernels/random/fill_philox.h"
#include "kernels/random/guarded_philox.h"
#include "kernels/random/rng_state.h"

namespace tributary {
namespace {

using random::PhiloxRandom;
using random::RngAlgorithm;

// Shape input `shape_input`, state input 0; draws output 0 from `dist`.
template <class Distribution>
void StatefulRandomCompute(OpKernelContext* ctx, const Distribution& dist,
                           int shape_input, RngAlgorithm alg) {
  using T = typename Distribution::ResultElementType;
  TensorShape shape;
  OP_REQUIRES_OK(ctx, array_ops::MakeShapeFromShapeTensor(
                          ctx->input(shape_input), &shape));
  Tensor* out = nullptr;
  OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
  const int64_t size = out->NumElements();
  PhiloxRandom gen;
  OP_REQUIRES_OK(
      ctx, random::ReadAndSkipPhilox(
               ctx, 0, alg,
               static_cast<uint64_t>(size) * random::kReservedSamplesPerOutput,
               &gen));
  random::FillPhiloxRandom(ctx, gen, out->flat<T>().data(), size, dist);
}

// StatefulUniform, StatefulStandardNormalV2, StatefulTruncatedNormal,
// StatefulUniformFullInt: (resource, algorithm, shape).
template <class Distribution>
class StatefulRandomOpV2 : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    RngAlgorithm alg;
    OP_REQUIRES_OK(ctx, random::ScalarInputInt64(ctx, 1, &alg.id));
    StatefulRandomCompute(ctx, Distribution(), 2, alg);
  }
};

template <typename T>
class StatefulUniformIntOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    RngAlgorithm alg;
    OP_REQUIRES_OK(ctx, random::ScalarInputInt64(ctx, 1, &alg.id));
    const Tensor& minval = ctx->input(3);
    const Tensor& maxval = ctx->input(4);
    OP_REQUIRES(ctx, minval.dims() == 0,
                errors::InvalidArgument("minval must be 0-D, got shape ",
                                        minval.shape().DebugString()));
    OP_REQUIRES(ctx, maxval.dims() == 0,
                errors::InvalidArgument("maxval must be 0-D, got shape ",
                                        maxval.shape().DebugString()));
    // Unlike the stateless op, an empty output does not excuse the bounds.
    const T lo = minval.scalar<T>()();
    const T hi = maxval.scalar<T>()();
    OP_REQUIRES(ctx, lo < hi,
                errors::InvalidArgument("Need minval < maxval, got ", lo,
                                        " >= ", hi));
    StatefulRandomCompute(ctx, random::UniformInt<T>(lo, hi), 2, alg);
  }
};

// RngSkip (algorithm int64, delta int64) and RngReadAndSkip (alg int32,
// delta uint64, returns the old state).
template <bool kRead>
class RngSkipOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    RngAlgorithm alg;
    uint64_t delta = 0;
    if (kRead) {
      int32_t id = 0;
      OP_REQUIRES_OK(ctx, random::ScalarInputInt32(ctx, 1, &id));
      alg.id = id;
      OP_REQUIRES_OK(ctx, random::ScalarInputUint64(ctx, 2, &delta));
    } else {
      int64_t signed_delta = 0;
      OP_REQUIRES_OK(ctx, random::ScalarInputInt64(ctx, 1, &alg.id));
      OP_REQUIRES_OK(ctx, random::ScalarInputInt64(ctx, 2, &signed_delta));
      // TensorFlow multiplies in int64 and skips by the result as uint64:
      // the same value modulo 2^64.
      delta = static_cast<uint64_t>(signed_delta);
    }
    int64_t old_state[random::kPhiloxStateSize];
    PhiloxRandom unused;
    OP_REQUIRES_OK(ctx, random::ReadAndSkipPhilox(
                            ctx, 0, alg,
                            delta * random::kReservedSamplesPerOutput, &unused,
                            old_state));
    if (!kRead) return;
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(
                            0, TensorShape({random::kPhiloxStateSize}), &out));
    for (int i = 0; i < random::kPhiloxStateSize; ++i) {
      out->flat<int64_t>()(i) = old_state[i];
    }
  }
};

// Not reproducible by design: 64 bits from the OS-seeded engine per element.
template <typename T>
class NonDeterministicIntsOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    TensorShape shape;
    OP_REQUIRES_OK(ctx,
                   array_ops::MakeShapeFromShapeTensor(ctx->input(0), &shape));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    auto flat = out->flat<T>();
    for (int64_t i = 0; i < flat.size(); ++i) {
      flat(i) = static_cast<T>(random::New64());
    }
  }
};

REGISTER_KERNEL_BUILDER(Name("RngSkip")
                            .Device(DEVICE_CPU)
                            .HostMemory("resource")
                            .HostMemory("algorithm")
                            .HostMemory("delta"),
                        RngSkipOp<false>);
REGISTER_KERNEL_BUILDER(Name("RngReadAndSkip")
                            .Device(DEVICE_CPU)
                            .HostMemory("resource")
                            .HostMemory("alg")
                            .HostMemory("delta"),
                        RngSkipOp<true>);

#define TRIB_REGISTER_STATEFUL(NAME, DIST, TYPE)              \
  REGISTER_KERNEL_BUILDER(Name(NAME)                          \
                              .Device(DEVICE_CPU)             \
                              .HostMemory("resource")         \
                              .HostMemory("algorithm")        \
                              .HostMemory("shape")            \
                              .TypeConstraint<TYPE>("dtype"), \
                          StatefulRandomOpV2<random::DIST<TYPE>>)
#define TRIB_REGISTER_STATEFUL_FLOAT(TYPE)                                   \
  TRIB_REGISTER_STATEFUL("StatefulUniform", Uniform, TYPE);                  \
  TRIB_REGISTER_STATEFUL("StatefulStandardNormalV2", Normal, TYPE);          \
  TRIB_REGISTER_STATEFUL("StatefulTruncatedNormal", TruncatedNormal, TYPE)

TRIB_REGISTER_STATEFUL_FLOAT(half);
TRIB_REGISTER_STATEFUL_FLOAT(bfloat16);
TRIB_REGISTER_STATEFUL_FLOAT(float);
TRIB_REGISTER_STATEFUL_FLOAT(double);
#undef TRIB_REGISTER_STATEFUL_FLOAT

#define TRIB_REGISTER_STATEFUL_INTS(TYPE)                                     \
  TRIB_REGISTER_STATEFUL("StatefulUniformFullInt", UniformFullInt, TYPE);     \
  REGISTER_KERNEL_BUILDER(Name("NonDeterministicInts")                        \
                              .Device(DEVICE_CPU)                             \
                              .HostMemory("shape")                            \
                              .TypeConstraint<TYPE>("dtype"),                 \
                          NonDeterministicIntsOp<TYPE>)

TRIB_REGISTER_STATEFUL_INTS(int32_t);
TRIB_REGISTER_STATEFUL_INTS(int64_t);
TRIB_REGISTER_STATEFUL_INTS(uint32_t);
TRIB_REGISTER_STATEFUL_INTS(uint64_t);
#undef TRIB_REGISTER_STATEFUL_INTS
#undef TRIB_REGISTER_STATEFUL

#define TRIB_REGISTER_STATEFUL_UNIFORM_INT(TYPE)              \
  REGISTER_KERNEL_BUILDER(Name("StatefulUniformInt")          \
                              .Device(DEVICE_CPU)             \
                              .HostMemory("resource")         \
                              .HostMemory("algorithm")        \
                              .HostMemory("shape")            \
                              .HostMemory("minval")           \
                              .HostMemory("maxval")           \
                              .TypeConstraint<TYPE>("dtype"), \
                          StatefulUniformIntOp<TYPE>)

TRIB_REGISTER_STATEFUL_UNIFORM_INT(int32_t);
TRIB_REGISTER_STATEFUL_UNIFORM_INT(int64_t);
#undef TRIB_REGISTER_STATEFUL_UNIFORM_INT

}  // namespace
}  // namespace tributary
