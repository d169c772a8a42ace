// BiasAdd and its gradient BiasAddGrad (TensorFlow's bias_op.cc semantics).
//
// Both view the tensor as [outer, channels, inner]: NHWC puts the channel
// last (inner = 1), NCHW second (outer = batch, inner = the spatial
// product). That one view covers every rank >= 2 and both layouts. The
// loops are written out (split over the device's thread pool) instead of
// Eigen broadcast/reduction expressions, which cost several times the
// compile time for four dtypes and run no faster.

#include <algorithm>
#include <cstdint>

#include "common/framework/tensor.h"
#include "common/framework/tensor_shape.h"
#include "common/framework/types.h"
#include "common/kernel/kernel_registry.h"
#include "common/kernel/op_kernel.h"
#include "kernels/nn/window_util.h"
#include "unsupported/Eigen/CXX11/Tensor"

namespace tributary {
namespace {

// The [outer, channels, inner] view of `shape` for `format`.
struct BiasView {
  int64_t outer = 1;
  int64_t channels = 1;
  int64_t inner = 1;
};

// TensorFlow's NCHW bias on CPU: the channel is dim 1 for every rank >= 2.
int ChannelDim(const TensorShape& shape, nn::TensorFormat format) {
  return format == nn::TensorFormat::kNCHW ? 1 : shape.dims() - 1;
}

BiasView MakeBiasView(const TensorShape& shape, nn::TensorFormat format) {
  BiasView view;
  const int channel_dim = ChannelDim(shape, format);
  for (int d = 0; d < shape.dims(); ++d) {
    if (d < channel_dim) {
      view.outer *= shape.dim_size(d);
    } else if (d > channel_dim) {
      view.inner *= shape.dim_size(d);
    }
  }
  view.channels = shape.dim_size(channel_dim);
  return view;
}

absl::Status ReadDataFormat(OpKernelConstruction* context,
                            nn::TensorFormat* format) {
  std::string data_format;
  TRIB_RETURN_IF_ERROR(context->GetAttr("data_format", &data_format));
  return nn::ParseTensorFormat(data_format, format);
}

template <typename T>
class BiasAddOp : public OpKernel {
 public:
  explicit BiasAddOp(OpKernelConstruction* context) : OpKernel(context) {
    OP_REQUIRES_OK(context, ReadDataFormat(context, &format_));
  }

  void Compute(OpKernelContext* context) override {
    const Tensor& input = context->input(0);
    const Tensor& bias = context->input(1);
    OP_REQUIRES(context, input.dims() >= 2,
                errors::InvalidArgument("Input tensor must be at least 2D: ",
                                        input.shape().DebugString()));
    OP_REQUIRES(context, bias.dims() == 1,
                errors::InvalidArgument("Biases must be 1D: ",
                                        bias.shape().DebugString()));
    const int channel_dim = ChannelDim(input.shape(), format_);
    OP_REQUIRES(
        context, bias.dim_size(0) == input.dim_size(channel_dim),
        errors::InvalidArgument(
            "Must provide as many biases as the last dimension of the input "
            "tensor: ",
            bias.shape().DebugString(), " vs. ", input.shape().DebugString()));

    Tensor* output = nullptr;
    OP_REQUIRES_OK(context, context->forward_input_or_allocate_output(
                                {0}, 0, input.shape(), &output));
    if (input.NumElements() == 0) return;

    const BiasView v = MakeBiasView(input.shape(), format_);
    const T* in = input.flat<T>().data();
    const T* b = bias.flat<T>().data();
    T* out = output->flat<T>().data();
    // Plain loops rather than an Eigen broadcast expression: as fast (the
    // inner loop is contiguous and vectorises) and far cheaper to compile
    // for four dtypes. In place is fine: each element is read, then written.
    const Eigen::TensorOpCost row_cost(v.channels * v.inner * sizeof(T),
                                       v.channels * v.inner * sizeof(T),
                                       v.channels * v.inner);
    context->eigen_cpu_device().parallelFor(
        v.outer, row_cost,
        [&v, in, b, out](Eigen::Index first, Eigen::Index last) {
          for (Eigen::Index o = first; o < last; ++o) {
            const int64_t row = o * v.channels * v.inner;
            if (v.inner == 1) {
              for (int64_t c = 0; c < v.channels; ++c) {
                out[row + c] = in[row + c] + b[c];
              }
              continue;
            }
            for (int64_t c = 0; c < v.channels; ++c) {
              const int64_t start = row + c * v.inner;
              for (int64_t i = 0; i < v.inner; ++i) {
                out[start + i] = in[start + i] + b[c];
              }
            }
          }
        });
  }

 private:
  nn::TensorFormat format_ = nn::TensorFormat::kNHWC;
};

template <typename T>
class BiasAddGradOp : public OpKernel {
 public:
  explicit BiasAddGradOp(OpKernelConstruction* context) : OpKernel(context) {
    OP_REQUIRES_OK(context, ReadDataFormat(context, &format_));
  }

  void Compute(OpKernelContext* context) override {
    const Tensor& backprop = context->input(0);
    OP_REQUIRES(context, backprop.dims() >= 2,
                errors::InvalidArgument("Input tensor must be at least 2D: ",
                                        backprop.shape().DebugString()));
    const BiasView v = MakeBiasView(backprop.shape(), format_);
    Tensor* output = nullptr;
    OP_REQUIRES_OK(context, context->allocate_output(0, {v.channels}, &output));
    T* out = output->flat<T>().data();
    std::fill(out, out + v.channels, T(0));
    if (backprop.NumElements() == 0) return;  // the gradient of nothing

    // Each shard sums a range of outer rows into its own partial vector;
    // the partials are added at the end. Shards are few (a small multiple
    // of the threads) so the partials stay tiny.
    const auto& device = context->eigen_cpu_device();
    const int64_t shards =
        std::min<int64_t>(v.outer, 4 * std::max(1, device.numThreads()));
    Tensor partials;
    OP_REQUIRES_OK(context, context->allocate_temp(
                                DataTypeToEnum<T>::value,
                                TensorShape({shards, v.channels}), &partials));
    T* partial = partials.flat<T>().data();
    const T* in = backprop.flat<T>().data();
    const int64_t rows_per_shard = (v.outer + shards - 1) / shards;
    const double shard_elements =
        static_cast<double>(rows_per_shard) * v.channels * v.inner;
    const Eigen::TensorOpCost shard_cost(
        shard_elements * sizeof(T), v.channels * sizeof(T), shard_elements);
    device.parallelFor(
        shards, shard_cost,
        [&v, in, partial, rows_per_shard](Eigen::Index first,
                                          Eigen::Index last) {
          for (Eigen::Index shard = first; shard < last; ++shard) {
            T* acc = partial + shard * v.channels;
            std::fill(acc, acc + v.channels, T(0));
            const int64_t end =
                std::min<int64_t>(v.outer, (shard + 1) * rows_per_shard);
            for (int64_t o = shard * rows_per_shard; o < end; ++o) {
              const T* row = in + o * v.channels * v.inner;
              if (v.inner == 1) {  // NHWC: a contiguous row of channels
                for (int64_t c = 0; c < v.channels; ++c) acc[c] += row[c];
                continue;
              }
              for (int64_t c = 0; c < v.channels; ++c) {
                const T* run = row + c * v.inner;
                T sum = acc[c];
                for (int64_t i = 0; i < v.inner; ++i) sum += run[i];
                acc[c] = sum;
              }
            }
          }
        });
    for (int64_t shard = 0; shard < shards; ++shard) {
      const T* acc = partial + shard * v.channels;
      for (int64_t c = 0; c < v.channels; ++c) out[c] += acc[c];
    }
  }

 private:
  nn::TensorFormat format_ = nn::TensorFormat::kNHWC;
};

#define REGISTER_BIAS_KERNELS(T)                                     \
  REGISTER_KERNEL_BUILDER(                                           \
      Name("BiasAdd").Device(DEVICE_CPU).TypeConstraint<T>("T"),     \
      BiasAddOp<T>);                                                 \
  REGISTER_KERNEL_BUILDER(                                           \
      Name("BiasAddGrad").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      BiasAddGradOp<T>)

REGISTER_BIAS_KERNELS(float);
REGISTER_BIAS_KERNELS(double);
REGISTER_BIAS_KERNELS(int32_t);
REGISTER_BIAS_KERNELS(int64_t);
REGISTER_BIAS_KERNELS(Eigen::half);  // Keras mixed precision
REGISTER_BIAS_KERNELS(Eigen::bfloat16);

#undef REGISTER_BIAS_KERNELS

}  // namespace
}  // namespace tributary
