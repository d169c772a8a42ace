// Multinomial and StatelessMultinomial: num_samples class indices per row of
// logits [batch, classes] (half, bfloat16, float, double), drawn with
// TensorFlow's CPU algorithm and stream, so a seeded node (or the same seed
// input) gives TensorFlow's samples.
//
// Multinomial's generator reserves batch * ceil4(num_samples) * 2 outputs
// (x256 samples, as every stateful random kernel); StatelessMultinomial draws
// from its seed's stream (seed checked first: shape [2], then its type).
// Then, per row: the largest finite logit m, cdf[j] = running sum over
// finite logits of exp(l - m) (in double), and each sample is
// upper_bound(cdf, u * total) with u a double from two uint32 words. Rows run
// in order from one stream. TensorFlow splits large batches over its
// intra-op threads, each shard skipping start_row * (num_samples + 3) / 4
// blocks; we never split, so the samples are TensorFlow's whenever its cost
// model keeps the op on one thread (batch * 50 * (num_samples * log2(classes)
// + classes) below ~100k cycles, or intra_op_parallelism_threads = 1), and a
// valid draw from the same distribution otherwise.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "Eigen/Core"
#include "common/framework/tensor.h"
#include "common/framework/types.h"
#include "common/kernel/kernel_registry.h"
#include "common/kernel/op_kernel.h"
#include "kernels/random/distributions.h"
#include "kernels/random/guarded_philox.h"
#include "kernels/random/philox.h"
#include "kernels/random/sampler_inputs.h"

namespace tributary {
namespace {

template <typename T, typename OutputType, bool kStateless>
class MultinomialOp : public OpKernel {
 public:
  explicit MultinomialOp(OpKernelConstruction* context) : OpKernel(context) {
    if (!kStateless) OP_REQUIRES_OK(context, generator_.Init(context));
  }

  void Compute(OpKernelContext* context) override {
    const Tensor& logits = context->input(0);
    const Tensor& num_samples_t = context->input(1);
    random::PhiloxRandom gen;
    if (kStateless) {
      const Tensor& seed = context->input(2);
      OP_REQUIRES_OK(context, random::CheckSeedShape(seed));
      OP_REQUIRES_OK(context, random::PhiloxFromSeed(seed, &gen));
    }
    OP_REQUIRES(context, logits.dims() == 2,
                errors::InvalidArgument("logits should be a matrix, got shape ",
                                        logits.shape().DebugString()));
    OP_REQUIRES(
        context, num_samples_t.dims() == 0,
        errors::InvalidArgument("num_samples should be a scalar, got shape ",
                                num_samples_t.shape().DebugString()));
    const int num_samples = num_samples_t.scalar<int32_t>()();
    OP_REQUIRES(context, num_samples >= 0,
                errors::InvalidArgument(
                    "num_samples should be non-negative, got ", num_samples));
    const int64_t batch = logits.dim_size(0);
    const int64_t classes = logits.dim_size(1);
    OP_REQUIRES(context, batch <= std::numeric_limits<int>::max(),
                errors::InvalidArgument("batch_size cannot exceed max int"));
    OP_REQUIRES(context, classes <= std::numeric_limits<int>::max(),
                errors::InvalidArgument("num_classes cannot exceed max int"));
    OP_REQUIRES(context, classes > 0,
                errors::InvalidArgument("num_classes should be positive, got ",
                                        classes));
    Tensor* output = nullptr;
    OP_REQUIRES_OK(context, context->allocate_output(
                                0, TensorShape({batch, num_samples}), &output));
    if (output->NumElements() == 0) return;
    if (!kStateless) {
      // Two uint32 words per double sample.
      const int64_t ceil4 = (num_samples + 3) / 4 * 4 * 2;
      gen = generator_.ReserveRandomOutputs(batch * ceil4, 256);
    }
    Sample(logits.flat<T>().data(), batch, classes, num_samples, gen,
           output->flat<OutputType>().data());
  }

 private:
  static void Sample(const T* in, int64_t batch, int64_t classes,
                     int num_samples, random::PhiloxRandom gen,
                     OutputType* out) {
    random::SingleSampleAdapter<random::PhiloxRandom> single(&gen);
    std::vector<double> cdf(classes);
    Eigen::ArrayXd shifted(classes);
    for (int64_t b = 0; b < batch; ++b) {
      const T* row = in + b * classes;
      T max = std::numeric_limits<T>::lowest();
      for (int64_t j = 0; j < classes; ++j) {
        if (std::isfinite(static_cast<double>(row[j])))
          max = std::max(max, row[j]);
      }
      const double max_logit = static_cast<double>(max);
      // Eigen's vectorised exp, as TensorFlow's expression evaluates it.
      for (int64_t j = 0; j < classes; ++j) {
        shifted[j] = static_cast<double>(row[j]) - max_logit;
      }
      const Eigen::ArrayXd weights = shifted.exp();
      double total = 0;
      for (int64_t j = 0; j < classes; ++j) {
        if (std::isfinite(static_cast<double>(row[j]))) total += weights[j];
        cdf[j] = total;
      }
      for (int64_t s = 0; s < num_samples; ++s) {
        const uint32_t x0 = single();
        const uint32_t x1 = single();
        const double to_find = random::Uint64ToDouble(x0, x1) * total;
        out[b * num_samples + s] = static_cast<OutputType>(
            std::upper_bound(cdf.begin(), cdf.end(), to_find) - cdf.begin());
      }
    }
  }

  random::GuardedPhiloxRandom generator_;
};

#define TRIB_REGISTER_MULTINOMIAL(OP, T, OUT, STATELESS)            \
  REGISTER_KERNEL_BUILDER(Name(OP)                                  \
                              .Device(DEVICE_CPU)                   \
                              .TypeConstraint<T>("T")               \
                              .TypeConstraint<OUT>("output_dtype"), \
                          MultinomialOp<T, OUT, STATELESS>)
#define TRIB_REGISTER_MULTINOMIAL_TYPE(T)                              \
  TRIB_REGISTER_MULTINOMIAL("Multinomial", T, int32_t, false);         \
  TRIB_REGISTER_MULTINOMIAL("Multinomial", T, int64_t, false);         \
  TRIB_REGISTER_MULTINOMIAL("StatelessMultinomial", T, int32_t, true); \
  TRIB_REGISTER_MULTINOMIAL("StatelessMultinomial", T, int64_t, true)
TRIB_REGISTER_MULTINOMIAL_TYPE(half);
TRIB_REGISTER_MULTINOMIAL_TYPE(bfloat16);
TRIB_REGISTER_MULTINOMIAL_TYPE(float);
TRIB_REGISTER_MULTINOMIAL_TYPE(double);
#undef TRIB_REGISTER_MULTINOMIAL_TYPE
#undef TRIB_REGISTER_MULTINOMIAL

}  // namespace
}  // namespace tributary
