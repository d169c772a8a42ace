// CPU kernels of TensorFlow's V1 stateless random ops: StatelessRandomUniform,
// StatelessRandomNormal, StatelessTruncatedNormal (half, bfloat16, float,
// double), StatelessRandomUniformInt (int32, int64) and
// StatelessRandomUniformFullInt (int32, int64, uint32, uint64),
// StatelessRandomPoisson (rate and output: half, float, double, int32,
// int64); and StatelessRandomGetKeyCounter{,Alg}, the same seed-to-stream
// step for the V2 ops (stateless_random_ops_v2.cc), and
// StatelessRandomGetAlg (Philox, 1).
//
// A stateless op is a pure function of (shape, seed): the seed input (shape
// [2], int32 or int64) gives the Philox stream (stateless_seed.h) and the same
// group-wise fill as the stateful ops writes the output, so the same seed gives
// TensorFlow's bits on every call. Checks and their order follow TensorFlow:
// shape, then seed shape, then (for a non-empty output only) the seed's type
// (int32 or int64, else "Invalid seed type") and minval/maxval.

#include <cstdint>

#include "common/framework/tensor.h"
#include "common/framework/types.h"
#include "common/kernel/kernel_registry.h"
#include "common/kernel/op_kernel.h"
#include "kernels/array/array_util.h"
#include "kernels/random/distributions.h"
#include "kernels/random/fill_philox.h"
#include "kernels/random/per_output_sampling.h"
#include "kernels/random/poisson_sampler.h"
#include "kernels/random/sampler_inputs.h"
#include "kernels/random/stateless_seed.h"

namespace tributary {
namespace {

using random::CheckSeedShape;
using random::FillPhiloxRandom;
using random::PhiloxFromSeed;
using random::PhiloxRandom;
using random::PrepareStateless;

constexpr int32_t kAlgPhilox = 1;  // TensorFlow's RNG_ALG_PHILOX

template <class Distribution>
class StatelessRandomOp : public OpKernel {
 public:
  using T = typename Distribution::ResultElementType;
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* context) override {
    Tensor* out = nullptr;
    PhiloxRandom gen;
    bool empty = false;
    OP_REQUIRES_OK(context, PrepareStateless(context, &out, &gen, &empty));
    if (empty) return;
    FillPhiloxRandom(context, gen, out->flat<T>().data(), out->NumElements(),
                     Distribution());
  }
};

template <typename T>
class StatelessRandomUniformIntOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* context) override {
    Tensor* out = nullptr;
    PhiloxRandom gen;
    bool empty = false;
    OP_REQUIRES_OK(context, PrepareStateless(context, &out, &gen, &empty));
    if (empty) return;
    const Tensor& minval = context->input(2);
    const Tensor& maxval = context->input(3);
    OP_REQUIRES(context, minval.shape().dims() == 0,
                errors::InvalidArgument("minval must be 0-D, got shape ",
                                        minval.shape().DebugString()));
    OP_REQUIRES(context, maxval.shape().dims() == 0,
                errors::InvalidArgument("maxval must be 0-D, got shape ",
                                        maxval.shape().DebugString()));
    const T lo = minval.scalar<T>()();
    const T hi = maxval.scalar<T>()();
    OP_REQUIRES(
        context, lo < hi,
        errors::InvalidArgument("Need minval < maxval: ", lo, " >= ", hi));
    FillPhiloxRandom(context, gen, out->flat<T>().data(), out->NumElements(),
                     random::UniformInt<T>(lo, hi));
  }
};

// StatelessRandomPoisson: `shape` must end with lam's shape; each rate gets
// shape.num_elements() / lam.NumElements() samples (poisson_sampler.h).
template <typename R, typename U>
class StatelessRandomPoissonOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* context) override {
    Tensor* out = nullptr;
    PhiloxRandom gen;
    bool empty = false;
    OP_REQUIRES_OK(context, PrepareStateless(context, &out, &gen, &empty));
    if (empty) return;
    const Tensor& lam = context->input(2);
    OP_REQUIRES_OK(context, random::CheckEndsWithParameterShape(out->shape(),
                                                                lam.shape()));
    // Not empty: the output is non-empty and ends with lam's shape.
    const int64_t num_rates = lam.NumElements();
    const R* rate = lam.flat<R>().data();
    OP_REQUIRES_OK(context, random::CheckPoissonRates<R, U>(rate, num_rates));
    random::FillPoisson(context, gen, rate, num_rates,
                        out->NumElements() / num_rates, out->flat<U>().data());
  }
};

// StatelessRandomGetKeyCounter: the V1 stream of `seed` as the V2 ops' key
// (uint64[1]) and counter (uint64[2]); Philox is the CPU's algorithm.
// StatelessRandomGetKeyCounterAlg also outputs that algorithm's id (1).
template <bool kWithAlg>
class StatelessRandomGetKeyCounterOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* context) override {
    const Tensor& seed = context->input(0);
    OP_REQUIRES_OK(context, CheckSeedShape(seed));
    PhiloxRandom gen;
    OP_REQUIRES_OK(context, PhiloxFromSeed(seed, &gen));
    Tensor* key = nullptr;
    Tensor* counter = nullptr;
    OP_REQUIRES_OK(context,
                   context->allocate_output(0, TensorShape({1}), &key));
    OP_REQUIRES_OK(context,
                   context->allocate_output(1, TensorShape({2}), &counter));
    key->flat<uint64_t>()(0) = random::JoinWords(gen.key()[0], gen.key()[1]);
    counter->flat<uint64_t>()(0) =
        random::JoinWords(gen.counter()[0], gen.counter()[1]);
    counter->flat<uint64_t>()(1) =
        random::JoinWords(gen.counter()[2], gen.counter()[3]);
    if (kWithAlg) {
      Tensor* alg = nullptr;
      OP_REQUIRES_OK(context,
                     context->allocate_output(2, TensorShape({}), &alg));
      alg->scalar<int32_t>()() = kAlgPhilox;
    }
  }
};

// StatelessRandomGetAlg: the algorithm auto-select means here (Philox).
class StatelessRandomGetAlgOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* context) override {
    Tensor* alg = nullptr;
    OP_REQUIRES_OK(context, context->allocate_output(0, TensorShape({}), &alg));
    alg->scalar<int32_t>()() = kAlgPhilox;
  }
};

REGISTER_KERNEL_BUILDER(
    Name("StatelessRandomGetKeyCounter").Device(DEVICE_CPU).HostMemory("seed"),
    StatelessRandomGetKeyCounterOp<false>);
REGISTER_KERNEL_BUILDER(Name("StatelessRandomGetKeyCounterAlg")
                            .Device(DEVICE_CPU)
                            .HostMemory("seed")
                            .HostMemory("key")
                            .HostMemory("counter")
                            .HostMemory("alg"),
                        StatelessRandomGetKeyCounterOp<true>);
REGISTER_KERNEL_BUILDER(
    Name("StatelessRandomGetAlg").Device(DEVICE_CPU).HostMemory("alg"),
    StatelessRandomGetAlgOp);

// shape and seed (and the int op's bounds) are read on the host.
#define TRIB_REGISTER_STATELESS_FLOAT(TYPE)                          \
  REGISTER_KERNEL_BUILDER(Name("StatelessRandomUniform")             \
                              .Device(DEVICE_CPU)                    \
                              .HostMemory("shape")                   \
                              .HostMemory("seed")                    \
                              .TypeConstraint<TYPE>("dtype"),        \
                          StatelessRandomOp<random::Uniform<TYPE>>); \
  REGISTER_KERNEL_BUILDER(Name("StatelessRandomNormal")              \
                              .Device(DEVICE_CPU)                    \
                              .HostMemory("shape")                   \
                              .HostMemory("seed")                    \
                              .TypeConstraint<TYPE>("dtype"),        \
                          StatelessRandomOp<random::Normal<TYPE>>);  \
  REGISTER_KERNEL_BUILDER(Name("StatelessTruncatedNormal")           \
                              .Device(DEVICE_CPU)                    \
                              .HostMemory("shape")                   \
                              .HostMemory("seed")                    \
                              .TypeConstraint<TYPE>("dtype"),        \
                          StatelessRandomOp<random::TruncatedNormal<TYPE>>)

TRIB_REGISTER_STATELESS_FLOAT(half);
TRIB_REGISTER_STATELESS_FLOAT(bfloat16);
TRIB_REGISTER_STATELESS_FLOAT(float);
TRIB_REGISTER_STATELESS_FLOAT(double);
#undef TRIB_REGISTER_STATELESS_FLOAT

#define TRIB_REGISTER_STATELESS_INT(TYPE)                     \
  REGISTER_KERNEL_BUILDER(Name("StatelessRandomUniformInt")   \
                              .Device(DEVICE_CPU)             \
                              .HostMemory("shape")            \
                              .HostMemory("seed")             \
                              .HostMemory("minval")           \
                              .HostMemory("maxval")           \
                              .TypeConstraint<TYPE>("dtype"), \
                          StatelessRandomUniformIntOp<TYPE>)

TRIB_REGISTER_STATELESS_INT(int32_t);
TRIB_REGISTER_STATELESS_INT(int64_t);
#undef TRIB_REGISTER_STATELESS_INT

#define TRIB_REGISTER_STATELESS_FULL_INT(TYPE)                  \
  REGISTER_KERNEL_BUILDER(Name("StatelessRandomUniformFullInt") \
                              .Device(DEVICE_CPU)               \
                              .HostMemory("shape")              \
                              .HostMemory("seed")               \
                              .TypeConstraint<TYPE>("dtype"),   \
                          StatelessRandomOp<random::UniformFullInt<TYPE>>)

TRIB_REGISTER_STATELESS_FULL_INT(int32_t);
TRIB_REGISTER_STATELESS_FULL_INT(int64_t);
TRIB_REGISTER_STATELESS_FULL_INT(uint32_t);
TRIB_REGISTER_STATELESS_FULL_INT(uint64_t);
#undef TRIB_REGISTER_STATELESS_FULL_INT

#define TRIB_REGISTER_STATELESS_POISSON(R, U)              \
  REGISTER_KERNEL_BUILDER(Name("StatelessRandomPoisson")   \
                              .Device(DEVICE_CPU)          \
                              .HostMemory("shape")         \
                              .HostMemory("seed")          \
                              .HostMemory("lam")           \
                              .TypeConstraint<R>("Rtype")  \
                              .TypeConstraint<U>("dtype"), \
                          StatelessRandomPoissonOp<R, U>)
#define TRIB_REGISTER_STATELESS_POISSON_RATE(R) \
  TRIB_REGISTER_STATELESS_POISSON(R, half);     \
  TRIB_REGISTER_STATELESS_POISSON(R, float);    \
  TRIB_REGISTER_STATELESS_POISSON(R, double);   \
  TRIB_REGISTER_STATELESS_POISSON(R, int32_t);  \
  TRIB_REGISTER_STATELESS_POISSON(R, int64_t)
TRIB_REGISTER_STATELESS_POISSON_RATE(half);
TRIB_REGISTER_STATELESS_POISSON_RATE(float);
TRIB_REGISTER_STATELESS_POISSON_RATE(double);
TRIB_REGISTER_STATELESS_POISSON_RATE(int32_t);
TRIB_REGISTER_STATELESS_POISSON_RATE(int64_t);
#undef TRIB_REGISTER_STATELESS_POISSON_RATE
#undef TRIB_REGISTER_STATELESS_POISSON

}  // namespace
}  // namespace tributary
