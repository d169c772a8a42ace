// CPU kernels of TensorFlow's binomial samplers: StatelessRandomBinomial
// (seed input, tf.random.stateless_binomial) and StatefulRandomBinomial
// (a tf.random.Generator's state variable, Generator.binomial). Parameter
// type T is half, float or double; output dtype half, float, double, int32
// or int64. binomial_sampler.h has the recipe and the layout; the outputs
// are TensorFlow's bits.
//
// Inputs: `shape` (an int32/int64 vector) must end with the broadcast shape
// of `counts` and `probs`; its leading dims count the samples per (count,
// prob) pair. Checks and words in TensorFlow's order. The stateful op
// advances the state by num_batches * 2 * 100 * (samples_per_batch + 3) / 4
// times 256 samples (TensorFlow's reservation, times the multiplier its
// state updates apply), takes only algorithm 1 (Philox: unlike
// the other Generator ops, auto-select is "Unsupported algorithm id: 3", as
// in TensorFlow) and always moves the state, also for an empty output.

#include <cstdint>
#include <vector>

#include "common/framework/tensor.h"
#include "common/framework/tensor_shape.h"
#include "common/framework/types.h"
#include "common/kernel/kernel_registry.h"
#include "common/kernel/op_kernel.h"
#include "kernels/array/array_util.h"
#include "kernels/math/bcast.h"
#include "kernels/random/binomial_sampler.h"
#include "kernels/random/per_output_sampling.h"
#include "kernels/random/rng_state.h"
#include "kernels/random/sampler_inputs.h"

namespace tributary {
namespace {

using random::PhiloxRandom;

// The output shape and how it splits into samples x broadcast (count, prob)
// pairs.
struct BinomialPlan {
  TensorShape output_shape;
  int64_t num_batches = 1;
  int64_t samples_per_batch = 1;
  std::vector<int64_t> count_index;
  std::vector<int64_t> prob_index;
};

absl::Status PlanBinomial(const Tensor& shape_t, const Tensor& counts,
                          const Tensor& probs, BinomialPlan* plan) {
  const BCastList bcast({ShapeToVec(counts.shape()), ShapeToVec(probs.shape())},
                        /*fewer_dims=*/false);
  if (!bcast.IsValid()) {
    return errors::InvalidArgument(
        "counts and probs must have compatible batch dimensions: ",
        counts.shape().DebugString(), " vs. ", probs.shape().DebugString());
  }
  if (shape_t.dims() != 1) {
    return errors::InvalidArgument(
        "Input shape should be a vector, got shape: ",
        shape_t.shape().DebugString());
  }
  if (shape_t.dtype() != DT_INT32 && shape_t.dtype() != DT_INT64) {
    return errors::InvalidArgument(
        "Input shape should have dtype {int32, int64}.");
  }
  TRIB_RETURN_IF_ERROR(
      array_ops::MakeShapeFromShapeTensor(shape_t, &plan->output_shape));
  const TensorShape bcast_shape = bcast.output_tensor_shape();
  TRIB_RETURN_IF_ERROR(
      random::CheckEndsWithParameterShape(plan->output_shape, bcast_shape));
  const int sample_dims = plan->output_shape.dims() - bcast_shape.dims();
  for (int i = 0; i < plan->output_shape.dims(); ++i) {
    (i < sample_dims ? plan->samples_per_batch : plan->num_batches) *=
        plan->output_shape.dim_size(i);
  }
  plan->count_index = bcast.SourceIndices(0);
  plan->prob_index = bcast.SourceIndices(1);
  return absl::OkStatus();
}

template <typename T, typename U>
void SampleBinomial(OpKernelContext* ctx, const BinomialPlan& plan,
                    const PhiloxRandom& gen, const Tensor& counts,
                    const Tensor& probs, Tensor* out) {
  const T* count = counts.flat<T>().data();
  const T* prob = probs.flat<T>().data();
  OP_REQUIRES_OK(ctx, random::CheckBinomialCounts(
                          count, prob, plan.count_index.data(),
                          plan.prob_index.data(), plan.num_batches));
  random::FillBinomial(ctx, gen, count, prob, plan.count_index.data(),
                       plan.prob_index.data(), plan.num_batches,
                       plan.samples_per_batch, out->flat<U>().data());
}

// (shape, seed, counts, probs).
template <typename T, typename U>
class StatelessRandomBinomialOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& seed = ctx->input(1);
    const Tensor& counts = ctx->input(2);
    const Tensor& probs = ctx->input(3);
    OP_REQUIRES_OK(ctx, random::CheckSeedShape(seed));
    BinomialPlan plan;
    OP_REQUIRES_OK(ctx, PlanBinomial(ctx->input(0), counts, probs, &plan));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, plan.output_shape, &out));
    if (out->NumElements() == 0) return;
    PhiloxRandom gen;
    OP_REQUIRES_OK(ctx, random::PhiloxFromSeed(seed, &gen));
    SampleBinomial<T, U>(ctx, plan, gen, counts, probs, out);
  }
};

// (resource, algorithm, shape, counts, probs).
template <typename T, typename U>
class StatefulRandomBinomialOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& alg_t = ctx->input(1);
    const Tensor& counts = ctx->input(3);
    const Tensor& probs = ctx->input(4);
    BinomialPlan plan;
    OP_REQUIRES_OK(ctx, PlanBinomial(ctx->input(2), counts, probs, &plan));
    OP_REQUIRES(ctx, alg_t.dims() == 0,
                errors::InvalidArgument("algorithm must be of shape [], not ",
                                        alg_t.shape().DebugString()));
    random::RngAlgorithm alg;
    alg.id = alg_t.scalar<int64_t>()();
    alg.philox_only = true;
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, plan.output_shape, &out));
    // TensorFlow's reservation, in its Philox state's units of 256 samples.
    const uint64_t reserved = static_cast<uint64_t>(
        plan.num_batches * 2 * 100 * (plan.samples_per_batch + 3) / 4 * 256);
    PhiloxRandom gen;
    OP_REQUIRES_OK(ctx, random::ReadAndSkipPhilox(ctx, 0, alg, reserved, &gen));
    if (out->NumElements() == 0) return;
    SampleBinomial<T, U>(ctx, plan, gen, counts, probs, out);
  }
};

#define TRIB_REGISTER_BINOMIAL(T, U)                        \
  REGISTER_KERNEL_BUILDER(Name("StatelessRandomBinomial")   \
                              .Device(DEVICE_CPU)           \
                              .TypeConstraint<T>("T")       \
                              .TypeConstraint<U>("dtype"),  \
                          StatelessRandomBinomialOp<T, U>); \
  REGISTER_KERNEL_BUILDER(Name("StatefulRandomBinomial")    \
                              .Device(DEVICE_CPU)           \
                              .TypeConstraint<T>("T")       \
                              .TypeConstraint<U>("dtype"),  \
                          StatefulRandomBinomialOp<T, U>)
#define TRIB_REGISTER_BINOMIAL_OUTPUT(U) \
  TRIB_REGISTER_BINOMIAL(half, U);       \
  TRIB_REGISTER_BINOMIAL(float, U);      \
  TRIB_REGISTER_BINOMIAL(double, U)
TRIB_REGISTER_BINOMIAL_OUTPUT(half);
TRIB_REGISTER_BINOMIAL_OUTPUT(float);
TRIB_REGISTER_BINOMIAL_OUTPUT(double);
TRIB_REGISTER_BINOMIAL_OUTPUT(int32_t);
TRIB_REGISTER_BINOMIAL_OUTPUT(int64_t);
#undef TRIB_REGISTER_BINOMIAL_OUTPUT
#undef TRIB_REGISTER_BINOMIAL

}  // namespace
}  // namespace tributary
