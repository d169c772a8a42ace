// FusedBatchNorm{,V2,V3} and FusedBatchNormGrad{,V2,V3} on CPU (TensorFlow's
// fused_batch_norm_op.cc semantics), T in {float, half, bfloat16}, U = float
// (V1: float only).
//
// Contract, as TensorFlow's CPU kernel behaves (checked by nn_oracle_test):
//  * x is 4-D or 5-D; the channel is last for NHWC/NDHWC, dim 1 for
//    NCHW/NCDHW (the layout string, not the rank, picks it).
//  * Training: y uses the batch mean and biased variance; batch_mean and
//    batch_variance are the running estimates: the batch mean and the
//    Bessel-corrected variance (n / max(n - 1, 1)), blended with the given
//    mean/variance as (1 - f) * old + f * batch when exponential_avg_factor
//    f != 1 (then mean/variance must have C elements; otherwise they are
//    ignored). reserve_space_1/2 = batch mean and biased variance.
//  * Inference: y uses the given mean/variance, which are also returned as
//    batch_mean/variance (and as reserve_space_1/2, which TF leaves
//    uninitialised in inference).
//  * An empty x gives NaN statistics in both modes.
//  * The gradient with is_training=false supports only NHWC/NDHWC, as in
//    TensorFlow's CPU kernel (InvalidArgument otherwise).
//  * V3's reserve_space_3 is a scalar 0 (TensorFlow's CPU placeholder); the
//    gradient's last two outputs are empty vectors in every version.
//  * _FusedBatchNormEx (the remapper's FusedBatchNorm [+ Add] + Relu) is
//    V3 with y = activation(normalized + side_input) written in the same
//    pass: at most one side input, of x's shape exactly (no broadcasting);
//    activation_mode "Identity" or "Relu". Statistics as V3's.
//
// The tensor is viewed as [outer, C, inner] (NHWC: inner = 1; NCHW: outer =
// batch, inner = spatial) so that one set of loops covers every layout with
// no transpose. Sums are accumulated in double: the results differ from
// TensorFlow's float reductions only by their rounding (the oracle's stated
// tolerance). Both the sums and the elementwise passes split the outer rows
// over the device's threads (so an NCHW batch of one runs on one thread).

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "common/framework/tensor.h"
#include "common/framework/tensor_shape.h"
#include "common/framework/types.h"
#include "common/kernel/kernel_registry.h"
#include "common/kernel/op_kernel.h"
#include "unsupported/Eigen/CXX11/Tensor"

namespace tributary {
namespace {

struct ChannelView {
  int64_t outer = 1;
  int64_t channels = 1;
  int64_t inner = 1;
  int64_t rest() const { return outer * inner; }  // elements per channel
};

// True for NCHW/NCDHW (channel second), false for NHWC/NDHWC (channel last).
absl::Status ReadChannelsFirst(OpKernelConstruction* context,
                               bool* channels_first) {
  std::string data_format;
  TRIB_RETURN_IF_ERROR(context->GetAttr("data_format", &data_format));
  if (data_format == "NHWC" || data_format == "NDHWC") {
    *channels_first = false;
  } else if (data_format == "NCHW" || data_format == "NCDHW") {
    *channels_first = true;
  } else {
    return errors::InvalidArgument("Invalid data format: ", data_format);
  }
  return absl::OkStatus();
}

ChannelView MakeView(const TensorShape& shape, bool channels_first) {
  ChannelView v;
  const int channel_dim = channels_first ? 1 : shape.dims() - 1;
  for (int d = 0; d < shape.dims(); ++d) {
    if (d < channel_dim) v.outer *= shape.dim_size(d);
    if (d > channel_dim) v.inner *= shape.dim_size(d);
  }
  v.channels = shape.dim_size(channel_dim);
  return v;
}

// Calls fn(channel, flat index) for every element, split over the device's
// threads by outer row. fn may only write element i.
template <typename Fn>
void ParallelForEach(const Eigen::ThreadPoolDevice& device,
                     const ChannelView& v, double cycles_per_element, Fn fn) {
  const int64_t row = v.channels * v.inner;
  const Eigen::TensorOpCost row_cost(row * 8.0, row * 4.0,
                                     row * cycles_per_element);
  device.parallelFor(v.outer, row_cost,
                     [&v, row, &fn](Eigen::Index first, Eigen::Index last) {
                       for (Eigen::Index o = first; o < last; ++o) {
                         int64_t i = o * row;
                         for (int64_t c = 0; c < v.channels; ++c) {
                           for (int64_t k = 0; k < v.inner; ++k) fn(c, i++);
                         }
                       }
                     });
}

// kSums per-channel sums: fn(channel, flat index, double* acc) adds element
// i's terms to acc[0..kSums). Each shard of outer rows sums into its own
// buffer; the buffers are added in shard order, so the result does not
// depend on scheduling. Returns the sums, channel-major ([C][kSums]).
template <int kSums, typename Fn>
std::vector<double> ChannelSums(const Eigen::ThreadPoolDevice& device,
                                const ChannelView& v, Fn fn) {
  const int64_t width = v.channels * kSums;
  const int64_t shards = std::max<int64_t>(
      1, std::min<int64_t>(v.outer, 4 * std::max(1, device.numThreads())));
  const int64_t rows_per_shard = (v.outer + shards - 1) / shards;
  std::vector<double> partial(shards * width, 0.0);
  const double shard_elements =
      static_cast<double>(rows_per_shard) * v.channels * v.inner;
  const Eigen::TensorOpCost shard_cost(shard_elements * 8.0, width * 8.0,
                                       shard_elements * 4.0 * kSums);
  device.parallelFor(
      shards, shard_cost, [&](Eigen::Index first, Eigen::Index last) {
        for (Eigen::Index shard = first; shard < last; ++shard) {
          double* acc = partial.data() + shard * width;
          const int64_t end =
              std::min<int64_t>(v.outer, (shard + 1) * rows_per_shard);
          for (int64_t o = shard * rows_per_shard; o < end; ++o) {
            int64_t i = o * v.channels * v.inner;
            for (int64_t c = 0; c < v.channels; ++c) {
              for (int64_t k = 0; k < v.inner; ++k) fn(c, i++, acc + c * kSums);
            }
          }
        }
      });
  std::vector<double> sums(width, 0.0);
  for (int64_t shard = 0; shard < shards; ++shard) {
    for (int64_t j = 0; j < width; ++j) sums[j] += partial[shard * width + j];
  }
  return sums;
}

absl::Status CheckRank(const Tensor& t, const char* what, int min_rank,
                       int max_rank, const char* rank_text) {
  if (t.dims() < min_rank || t.dims() > max_rank) {
    return errors::InvalidArgument(what, " must be ", rank_text,
                                   t.shape().DebugString());
  }
  return absl::OkStatus();
}

absl::Status CheckChannels(const Tensor& t, const std::string& what,
                           int64_t channels) {
  if (t.NumElements() != channels) {
    return errors::InvalidArgument(
        what,
        " must have the same number of elements as the channels of x, got ",
        t.NumElements(), " and ", channels);
  }
  return absl::OkStatus();
}

template <typename T>
class FusedBatchNormV3Op : public OpKernel {
 public:
  explicit FusedBatchNormV3Op(OpKernelConstruction* context)
      : OpKernel(context) {
    OP_REQUIRES_OK(context, context->GetAttr("epsilon", &epsilon_));
    OP_REQUIRES_OK(context, context->GetAttr("exponential_avg_factor",
                                             &exponential_avg_factor_));
    OP_REQUIRES_OK(context, context->GetAttr("is_training", &is_training_));
    OP_REQUIRES_OK(context, ReadChannelsFirst(context, &channels_first_));
    if (type_string() == "_FusedBatchNormEx") {
      int64_t num_side_inputs = 0;
      OP_REQUIRES_OK(context,
                     context->GetAttr("num_side_inputs", &num_side_inputs));
      OP_REQUIRES(context, num_side_inputs <= 1,
                  errors::InvalidArgument(
                      "_FusedBatchNormEx accepts at most one side input, got ",
                      num_side_inputs, " in node '", name(), "'"));
      has_side_input_ = num_side_inputs == 1;
      std::string activation_mode;
      OP_REQUIRES_OK(context,
                     context->GetAttr("activation_mode", &activation_mode));
      OP_REQUIRES(context,
                  activation_mode == "Identity" || activation_mode == "Relu",
                  errors::InvalidArgument(
                      "_FusedBatchNormEx supports activation_mode Identity "
                      "and Relu, got '",
                      activation_mode, "' in node '", name(), "'"));
      relu_ = activation_mode == "Relu";
    }
  }

  void Compute(OpKernelContext* context) override {
    const Tensor& x = context->input(0);
    const Tensor& scale = context->input(1);
    const Tensor& offset = context->input(2);
    const Tensor& est_mean = context->input(3);
    const Tensor& est_var = context->input(4);
    // TensorFlow's checks, in its order.
    OP_REQUIRES_OK(context, CheckRank(x, "input", 4, 5, "4 or 5-dimensional"));
    OP_REQUIRES_OK(context, CheckRank(scale, "scale", 1, 1, "1-dimensional"));
    OP_REQUIRES_OK(context, CheckRank(offset, "offset", 1, 1, "1-dimensional"));
    OP_REQUIRES_OK(
        context, CheckRank(est_mean, "estimated_mean", 1, 1, "1-dimensional"));
    OP_REQUIRES_OK(context, CheckRank(est_var, "estimated_variance", 1, 1,
                                      "1-dimensional"));
    const ChannelView v = MakeView(x.shape(), channels_first_);
    OP_REQUIRES_OK(context, CheckChannels(scale, "scale", v.channels));
    OP_REQUIRES_OK(context, CheckChannels(offset, "offset", v.channels));
    const bool blend = exponential_avg_factor_ != 1.0f;
    if (!is_training_ || blend) {
      const std::string when = !is_training_
                                   ? "When is_training=false, "
                                   : "When exponential_avg_factor != 1, ";
      OP_REQUIRES_OK(context,
                     CheckChannels(est_mean, when + "mean", v.channels));
      OP_REQUIRES_OK(context,
                     CheckChannels(est_var, when + "variance", v.channels));
    }

    const T* side = nullptr;
    if (has_side_input_) {
      const Tensor& side_input = context->input(5);
      OP_REQUIRES(context, side_input.shape() == x.shape(),
                  errors::InvalidArgument(
                      "side_input must have the shape of x: ",
                      side_input.shape().DebugString(), " vs ",
                      x.shape().DebugString(), " in node '", name(), "'"));
      side = side_input.flat<T>().data();
    }

    const int64_t c_count = v.channels;
    Tensor* y = nullptr;
    OP_REQUIRES_OK(context, context->allocate_output(0, x.shape(), &y));
    Tensor* out[4] = {};
    for (int i = 0; i < 4; ++i) {
      OP_REQUIRES_OK(context,
                     context->allocate_output(i + 1, {c_count}, &out[i]));
    }
    if (context->num_outputs() > 5) {  // V3 only
      Tensor* reserve3 = nullptr;
      OP_REQUIRES_OK(context, context->allocate_output(5, {}, &reserve3));
      reserve3->scalar<float>()() = 0.0f;
    }
    float* batch_mean = out[0]->flat<float>().data();
    float* batch_var = out[1]->flat<float>().data();
    float* saved_mean = out[2]->flat<float>().data();
    float* saved_var = out[3]->flat<float>().data();

    const T* xs = x.flat<T>().data();
    T* ys = y->flat<T>().data();
    const float* sc = scale.flat<float>().data();
    const float* off = offset.flat<float>().data();

    std::vector<float> mean(c_count), var(c_count);
    if (x.NumElements() == 0) {
      // TensorFlow reports NaN statistics for an empty batch, in either mode.
      const float nan = std::numeric_limits<float>::quiet_NaN();
      for (int64_t c = 0; c < c_count; ++c) {
        batch_mean[c] = batch_var[c] = saved_mean[c] = saved_var[c] = nan;
      }
      return;
    }
    if (is_training_) {
      // Two passes (mean, then squared deviations) as TensorFlow does: a
      // one-pass sum of squares loses precision when |mean| >> stddev.
      const double n = static_cast<double>(v.rest());
      const auto& device = context->eigen_cpu_device();
      const std::vector<double> sums =
          ChannelSums<1>(device, v, [xs](int64_t, int64_t i, double* acc) {
            acc[0] += static_cast<float>(xs[i]);
          });
      for (int64_t c = 0; c < c_count; ++c) mean[c] = sums[c] / n;
      const std::vector<double> squares = ChannelSums<1>(
          device, v, [xs, &mean](int64_t c, int64_t i, double* acc) {
            const double d =
                static_cast<double>(static_cast<float>(xs[i])) - mean[c];
            acc[0] += d * d;
          });
      for (int64_t c = 0; c < c_count; ++c) var[c] = squares[c] / n;
      // The running variance is the unbiased estimate.
      const float adjust = static_cast<float>(v.rest()) /
                           static_cast<float>(v.rest() > 1 ? v.rest() - 1 : 1);
      const float* old_mean = est_mean.flat<float>().data();
      const float* old_var = est_var.flat<float>().data();
      const float f = exponential_avg_factor_;
      for (int64_t c = 0; c < c_count; ++c) {
        const float unbiased = var[c] * adjust;
        batch_mean[c] =
            blend ? (1.0f - f) * old_mean[c] + f * mean[c] : mean[c];
        batch_var[c] =
            blend ? (1.0f - f) * old_var[c] + f * unbiased : unbiased;
        saved_mean[c] = mean[c];
        saved_var[c] = var[c];
      }
    } else {
      const float* m = est_mean.flat<float>().data();
      const float* s = est_var.flat<float>().data();
      for (int64_t c = 0; c < c_count; ++c) {
        mean[c] = batch_mean[c] = saved_mean[c] = m[c];
        var[c] = batch_var[c] = saved_var[c] = s[c];
      }
    }
    std::vector<float> factor(c_count);
    for (int64_t c = 0; c < c_count; ++c) {
      factor[c] = sc[c] / std::sqrt(var[c] + epsilon_);
    }
    if (side == nullptr && !relu_) {
      ParallelForEach(
          context->eigen_cpu_device(), v, 4, [&](int64_t c, int64_t i) {
            ys[i] = static_cast<T>(
                (static_cast<float>(xs[i]) - mean[c]) * factor[c] + off[c]);
          });
      return;
    }
    // _FusedBatchNormEx: the same value, then + side, then the activation.
    const bool relu = relu_;
    ParallelForEach(
        context->eigen_cpu_device(), v, 6, [&](int64_t c, int64_t i) {
          float y_i = (static_cast<float>(xs[i]) - mean[c]) * factor[c] + off[c];
          if (side != nullptr) y_i += static_cast<float>(side[i]);
          if (relu && y_i < 0.0f) y_i = 0.0f;
          ys[i] = static_cast<T>(y_i);
        });
  }

 private:
  float epsilon_ = 1e-4f;
  float exponential_avg_factor_ = 1.0f;
  bool is_training_ = true;
  bool channels_first_ = false;
  bool has_side_input_ = false;  // _FusedBatchNormEx only
  bool relu_ = false;
};

template <typename T>
class FusedBatchNormGradV3Op : public OpKernel {
 public:
  explicit FusedBatchNormGradV3Op(OpKernelConstruction* context)
      : OpKernel(context) {
    OP_REQUIRES_OK(context, context->GetAttr("epsilon", &epsilon_));
    OP_REQUIRES_OK(context, context->GetAttr("is_training", &is_training_));
    OP_REQUIRES_OK(context, ReadChannelsFirst(context, &channels_first_));
  }

  void Compute(OpKernelContext* context) override {
    const Tensor& dy = context->input(0);
    const Tensor& x = context->input(1);
    const Tensor& scale = context->input(2);
    const Tensor& saved_mean = context->input(3);
    const Tensor& saved_var = context->input(4);
    OP_REQUIRES_OK(context, CheckRank(dy, "input", 4, 5, "4 or 5-dimensional"));
    OP_REQUIRES_OK(context, CheckRank(x, "input", 4, 5, "4 or 5-dimensional"));
    OP_REQUIRES_OK(context, CheckRank(scale, "scale", 1, 1, "1-dimensional"));
    OP_REQUIRES_OK(context,
                   CheckRank(saved_mean, "saved mean", 1, 1, "1-dimensional"));
    OP_REQUIRES_OK(
        context, CheckRank(saved_var, "saved variance", 1, 1, "1-dimensional"));
    OP_REQUIRES(context, x.shape() == dy.shape(),
                errors::InvalidArgument(
                    "x and y_backprop must have same shape, but x has shape ",
                    x.shape().DebugString(), " and y_backprop has shape ",
                    dy.shape().DebugString()));
    const ChannelView v = MakeView(x.shape(), channels_first_);
    const int64_t c_count = v.channels;
    OP_REQUIRES_OK(context, CheckChannels(scale, "scale", c_count));
    OP_REQUIRES_OK(context,
                   CheckChannels(saved_mean, "reserve_space_1", c_count));
    OP_REQUIRES_OK(context,
                   CheckChannels(saved_var, "reserve_space_2", c_count));

    // TensorFlow's CPU kernel rejects this combination; so do we, so that a
    // graph behaves the same on both runtimes.
    OP_REQUIRES(context, is_training_ || !channels_first_,
                errors::InvalidArgument(
                    "The implementation of FusedBatchNormGrad with "
                    "is_training=False only support NHWC tensor format for "
                    "now."));

    Tensor* dx = nullptr;
    OP_REQUIRES_OK(context, context->allocate_output(0, x.shape(), &dx));
    Tensor* dscale = nullptr;
    Tensor* doffset = nullptr;
    OP_REQUIRES_OK(context, context->allocate_output(1, {c_count}, &dscale));
    OP_REQUIRES_OK(context, context->allocate_output(2, {c_count}, &doffset));
    for (int i = 3; i < 5; ++i) {
      Tensor* empty = nullptr;
      OP_REQUIRES_OK(context, context->allocate_output(i, {0}, &empty));
    }

    const T* xs = x.flat<T>().data();
    const T* dys = dy.flat<T>().data();
    T* dxs = dx->flat<T>().data();
    const float* sc = scale.flat<float>().data();
    const float* mean = saved_mean.flat<float>().data();
    const float* var = saved_var.flat<float>().data();

    // Per channel: sum(dy) and sum(dy * (x - mean)).
    const auto& device = context->eigen_cpu_device();
    const std::vector<double> sums = ChannelSums<2>(
        device, v, [dys, xs, mean](int64_t c, int64_t i, double* acc) {
          const double g = static_cast<float>(dys[i]);
          acc[0] += g;
          acc[1] +=
              g * (static_cast<double>(static_cast<float>(xs[i])) - mean[c]);
        });
    std::vector<double> sum_dy(c_count), sum_dy_xc(c_count);
    for (int64_t c = 0; c < c_count; ++c) {
      sum_dy[c] = sums[2 * c];
      sum_dy_xc[c] = sums[2 * c + 1];
    }
    std::vector<float> inv_std(c_count);
    float* ds = dscale->flat<float>().data();
    float* doff = doffset->flat<float>().data();
    for (int64_t c = 0; c < c_count; ++c) {
      inv_std[c] = 1.0f / std::sqrt(var[c] + epsilon_);
      ds[c] = static_cast<float>(sum_dy_xc[c] * inv_std[c]);
      doff[c] = static_cast<float>(sum_dy[c]);
    }
    if (!is_training_) {
      // The statistics are constants: dx = dy * scale / sqrt(var + eps).
      ParallelForEach(device, v, 2, [&](int64_t c, int64_t i) {
        dxs[i] =
            static_cast<T>(static_cast<float>(dys[i]) * sc[c] * inv_std[c]);
      });
      return;
    }
    // The batch statistics depend on x:
    // dx = scale * inv_std * (dy - mean(dy) - xc * mean(dy * xc) * inv_std^2).
    if (v.rest() == 0) return;
    const double n = static_cast<double>(v.rest());
    std::vector<float> mean_dy(c_count), proj(c_count);
    for (int64_t c = 0; c < c_count; ++c) {
      mean_dy[c] = static_cast<float>(sum_dy[c] / n);
      proj[c] = static_cast<float>(sum_dy_xc[c] / n) * inv_std[c] * inv_std[c];
    }
    ParallelForEach(device, v, 6, [&](int64_t c, int64_t i) {
      const float xc = static_cast<float>(xs[i]) - mean[c];
      dxs[i] = static_cast<T>(
          sc[c] * inv_std[c] *
          (static_cast<float>(dys[i]) - mean_dy[c] - xc * proj[c]));
    });
  }

 private:
  float epsilon_ = 1e-4f;
  bool is_training_ = true;
  bool channels_first_ = false;
};

// V2 and V3 take T in {float, half, bfloat16} with U = float; V1 is float
// throughout. All share the kernels (V1/V2 have no reserve_space_3 output;
// the grad's V3-only reserve_space_3 input is unused on CPU).
#define REGISTER_FUSED_BATCH_NORM(T)                       \
  REGISTER_KERNEL_BUILDER(Name("FusedBatchNormV2")         \
                              .Device(DEVICE_CPU)          \
                              .TypeConstraint<T>("T")      \
                              .TypeConstraint<float>("U"), \
                          FusedBatchNormV3Op<T>);          \
  REGISTER_KERNEL_BUILDER(Name("FusedBatchNormV3")         \
                              .Device(DEVICE_CPU)          \
                              .TypeConstraint<T>("T")      \
                              .TypeConstraint<float>("U"), \
                          FusedBatchNormV3Op<T>);          \
  REGISTER_KERNEL_BUILDER(Name("_FusedBatchNormEx")        \
                              .Device(DEVICE_CPU)          \
                              .TypeConstraint<T>("T")      \
                              .TypeConstraint<float>("U"), \
                          FusedBatchNormV3Op<T>);          \
  REGISTER_KERNEL_BUILDER(Name("FusedBatchNormGradV2")     \
                              .Device(DEVICE_CPU)          \
                              .TypeConstraint<T>("T")      \
                              .TypeConstraint<float>("U"), \
                          FusedBatchNormGradV3Op<T>);      \
  REGISTER_KERNEL_BUILDER(Name("FusedBatchNormGradV3")     \
                              .Device(DEVICE_CPU)          \
                              .TypeConstraint<T>("T")      \
                              .TypeConstraint<float>("U"), \
                          FusedBatchNormGradV3Op<T>)

REGISTER_FUSED_BATCH_NORM(float);
REGISTER_FUSED_BATCH_NORM(half);
REGISTER_FUSED_BATCH_NORM(bfloat16);

REGISTER_KERNEL_BUILDER(
    Name("FusedBatchNorm").Device(DEVICE_CPU).TypeConstraint<float>("T"),
    FusedBatchNormV3Op<float>);
REGISTER_KERNEL_BUILDER(
    Name("FusedBatchNormGrad").Device(DEVICE_CPU).TypeConstraint<float>("T"),
    FusedBatchNormGradV3Op<float>);

#undef REGISTER_FUSED_BATCH_NORM

}  // namespace
}  // namespace tributary
