// CPU kernels of ParameterizedTruncatedNormal (seeded by its seed/seed2
// attrs; tf.compat.v1's parameterized truncated normal) and
// StatelessParameterizedTruncatedNormal (seed input,
// tf.random.stateless_parameterized_truncated_normal), half, float and
// double. truncated_normal_sampler.h has the recipe.
//
// ParameterizedTruncatedNormal: output `shape` (a non-empty int32/int64
// vector); row b (dimension 0) takes parameter b of each of means, stdevs,
// minvals, maxvals (scalars or vectors of length 1 or shape[0]). When every
// parameter is one value, TensorFlow regroups the output into batches of 100
// samples. Batches draw in order from one stream, after reserving
// num_batches * 2 * 1000 * (samples_per_batch + 3) / 4 samples.
//
// StatelessParameterizedTruncatedNormal: `shape` must end with the broadcast
// shape of the four parameters; sample s of parameter set b is written at
// s * num_batches + b, drawing in output order from the seed's stream.
//
// Both run on one thread: TensorFlow splits the batches over its intra-op
// threads with each shard restarting the stream at a skip, so its values
// depend on its thread count and cost model. Ours equal TensorFlow's when
// it runs the op on one thread (intra_op_parallelism_threads = 1, or an
// output small enough that its cost model keeps one shard: below about
// 500 samples), and are draws from the same distribution otherwise.

#include <algorithm>
#include <cstdint>
#include <vector>

#include "common/framework/tensor.h"
#include "common/framework/tensor_shape.h"
#include "common/framework/types.h"
#include "common/kernel/kernel_registry.h"
#include "common/kernel/op_kernel.h"
#include "kernels/array/array_util.h"
#include "kernels/math/bcast.h"
#include "kernels/random/guarded_philox.h"
#include "kernels/random/per_output_sampling.h"
#include "kernels/random/sampler_inputs.h"
#include "kernels/random/truncated_normal_sampler.h"

namespace tributary {
namespace {

using random::PhiloxRandom;
using random::TruncatedNormalBatch;

// The parameter inputs, in order: means, stddevs, minvals, maxvals.
constexpr const char* kParameterNames[] = {"means", "stddevs", "minvals",
                                           "maxvals"};

// Draws batch (mean, stddev, minval, maxval) from *gen: n samples, sample s
// written at out[s * stride].
template <typename T>
absl::Status DrawBatch(PhiloxRandom* gen, T mean, T stddev, T minval, T maxval,
                       int64_t n, T* out, int64_t stride) {
  if (!TruncatedNormalBatch<T>::Valid(stddev, minval, maxval)) {
    return errors::InvalidArgument("Invalid parameters");
  }
  return TruncatedNormalBatch<T>(mean, stddev, minval, maxval)
      .Draw(gen, n, [&](int64_t s, T value) { out[s * stride] = value; });
}

template <typename T>
class ParameterizedTruncatedNormalOp : public OpKernel {
 public:
  explicit ParameterizedTruncatedNormalOp(OpKernelConstruction* context)
      : OpKernel(context) {
    OP_REQUIRES_OK(context, generator_.Init(context));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& shape_t = ctx->input(0);
    OP_REQUIRES(
        ctx, shape_t.dims() == 1,
        errors::InvalidArgument("Input shape should be a vector, got shape: ",
                                shape_t.shape().DebugString()));
    OP_REQUIRES(ctx, shape_t.NumElements() > 0,
                errors::InvalidArgument("Shape tensor must not be empty, got ",
                                        shape_t.DebugString()));
    TensorShape shape;
    OP_REQUIRES_OK(ctx, array_ops::MakeShapeFromShapeTensor(shape_t, &shape));
    int64_t num_batches = shape.dim_size(0);
    int64_t samples_per_batch = 1;
    for (int i = 1; i < shape.dims(); ++i)
      samples_per_batch *= shape.dim_size(i);
    const int64_t num_elements = shape.num_elements();
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));

    const Tensor* params[4];
    for (int i = 0; i < 4; ++i) {
      params[i] = &ctx->input(1 + i);
      OP_REQUIRES(
          ctx, params[i]->dims() <= 1,
          errors::InvalidArgument("Input ", kParameterNames[i],
                                  " should be a scalar or vector, got shape: ",
                                  params[i]->shape().DebugString()));
    }
    auto one_value = [](const Tensor& t) {
      return t.dims() == 0 || t.dim_size(0) == 1;
    };
    if (one_value(*params[0]) && one_value(*params[1]) &&
        params[2]->dims() == 0 && params[3]->dims() == 0) {
      // TensorFlow's regrouping into batches of 100 samples.
      constexpr int64_t kBatchSize = 100;
      num_batches = (num_elements + kBatchSize - 1) / kBatchSize;
      samples_per_batch = kBatchSize;
    } else {
      for (int i = 0; i < 4; ++i) {
        OP_REQUIRES(ctx,
                    params[i]->dims() == 0 || params[i]->dim_size(0) == 1 ||
                        params[i]->dim_size(0) == num_batches,
                    errors::InvalidArgument(
                        "Input ", kParameterNames[i],
                        " should have length 1 or shape[0], got shape: ",
                        params[i]->shape().DebugString()));
      }
    }
    PhiloxRandom gen = generator_.ReserveSamples128(
        num_batches * 2 * random::kTruncatedNormalMaxIterations *
        (samples_per_batch + 3) / 4);
    T* output = out->flat<T>().data();
    auto value = [&](int i, int64_t b) {
      const Tensor& t = *params[i];
      return t.flat<T>()(t.NumElements() == 1 ? 0 : b);
    };
    for (int64_t b = 0; b < num_batches; ++b) {
      const int64_t first = b * samples_per_batch;
      const int64_t n =
          std::min((b + 1) * samples_per_batch, num_elements) - first;
      OP_REQUIRES_OK(ctx, DrawBatch(&gen, value(0, b), value(1, b), value(2, b),
                                    value(3, b), n, output + first, 1));
    }
  }

 private:
  random::GuardedPhiloxRandom generator_;
};

template <typename T>
class StatelessParameterizedTruncatedNormalOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& shape_t = ctx->input(0);
    const Tensor& seed = ctx->input(1);
    OP_REQUIRES_OK(ctx, random::CheckSeedShape(seed));
    const Tensor* params[4];
    std::vector<BCastList::Vec> shapes;
    for (int i = 0; i < 4; ++i) {
      params[i] = &ctx->input(2 + i);
      shapes.push_back(ShapeToVec(params[i]->shape()));
    }
    const BCastList bcast(shapes, /*fewer_dims=*/false);
    OP_REQUIRES(ctx, bcast.IsValid(),
                errors::InvalidArgument(
                    "means, stddevs, minvals, maxvals must have compatible "
                    "batch dimensions: ",
                    params[0]->shape().DebugString(), " vs. ",
                    params[1]->shape().DebugString(), " vs. ",
                    params[2]->shape().DebugString(), " vs. ",
                    params[3]->shape().DebugString()));
    OP_REQUIRES(
        ctx, shape_t.dims() == 1,
        errors::InvalidArgument("Input shape should be a vector, got shape: ",
                                shape_t.shape().DebugString()));
    TensorShape shape;
    OP_REQUIRES_OK(ctx, array_ops::MakeShapeFromShapeTensor(shape_t, &shape));
    const TensorShape bcast_shape = bcast.output_tensor_shape();
    OP_REQUIRES_OK(ctx,
                   random::CheckEndsWithParameterShape(shape, bcast_shape));
    const int sample_dims = shape.dims() - bcast_shape.dims();
    int64_t samples_per_batch = 1;
    int64_t num_batches = 1;
    for (int i = 0; i < shape.dims(); ++i) {
      (i < sample_dims ? samples_per_batch : num_batches) *= shape.dim_size(i);
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    PhiloxRandom gen;
    OP_REQUIRES_OK(ctx, random::PhiloxFromSeed(seed, &gen));
    if (shape.num_elements() == 0) return;
    std::vector<int64_t> index[4];
    for (int i = 0; i < 4; ++i) index[i] = bcast.SourceIndices(i);
    T* output = out->flat<T>().data();
    auto value = [&](int i, int64_t b) {
      return params[i]->flat<T>()(index[i][b]);
    };
    for (int64_t b = 0; b < num_batches; ++b) {
      OP_REQUIRES_OK(ctx, DrawBatch(&gen, value(0, b), value(1, b), value(2, b),
                                    value(3, b), samples_per_batch, output + b,
                                    num_batches));
    }
  }
};

#define TRIB_REGISTER_TRUNCATED_NORMAL(T)                               \
  REGISTER_KERNEL_BUILDER(Name("ParameterizedTruncatedNormal")          \
                              .Device(DEVICE_CPU)                       \
                              .TypeConstraint<T>("dtype"),              \
                          ParameterizedTruncatedNormalOp<T>);           \
  REGISTER_KERNEL_BUILDER(Name("StatelessParameterizedTruncatedNormal") \
                              .Device(DEVICE_CPU)                       \
                              .TypeConstraint<T>("dtype"),              \
                          StatelessParameterizedTruncatedNormalOp<T>)
TRIB_REGISTER_TRUNCATED_NORMAL(half);
TRIB_REGISTER_TRUNCATED_NORMAL(float);
TRIB_REGISTER_TRUNCATED_NORMAL(double);
#undef TRIB_REGISTER_TRUNCATED_NORMAL

}  // namespace
}  // namespace tributary
