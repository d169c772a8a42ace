// GPU kernels (DEVICE_GPU, T in {float, double}) for the elementwise ops a
// dense float model runs: unary math and activations, their gradients, the
// broadcasting arithmetic binaries, BiasAdd and BiasAddGrad.
//
// Each kernel validates its inputs exactly as the CPU kernel of the same op
// does (same checks, same messages: cwise_ops.h, kernels/nn/relu_op.cc,
// activation_grads_op.cc, bias_add_op.cc), allocates its output, and
// enqueues one CUDA kernel from cwise_kernels.cu on the GPU's compute
// stream; nothing waits for the GPU here. Outputs are never forwarded from
// inputs. Which CUDA kernel an op runs is decided in one place, KernelBase.

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <type_traits>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "common/framework/status.h"
#include "common/framework/tensor.h"
#include "common/framework/tensor_shape.h"
#include "common/framework/types.h"
#include "common/kernel/device_type.h"
#include "common/kernel/kernel_registry.h"
#include "common/kernel/op_kernel.h"
#include "devices/gpu/gpu_device.h"
#include "devices/gpu/gpu_launch.h"
#include "kernels/math/bcast.h"
#include "kernels/math/cwise_gpu_broadcast.h"
#include "kernels/math/cwise_kernels_gpu.h"
#include "kernels/nn/window_util.h"

namespace tributary {
namespace {

// The cwise_kernels.cu stem for an op ("" when the op has none). Several
// ops share arithmetic: AddV2 is Add, float Div is RealDiv.
absl::string_view KernelBase(absl::string_view op) {
  static constexpr struct {
    const char* op;
    const char* kernel;
  } kTable[] = {
      {"Neg", "neg"},
      {"Abs", "abs"},
      {"Square", "square"},
      {"Sqrt", "sqrt"},
      {"Rsqrt", "rsqrt"},
      {"Reciprocal", "reciprocal"},
      {"Exp", "exp"},
      {"Log", "log"},
      {"Tanh", "tanh"},
      {"Sigmoid", "sigmoid"},
      {"Relu", "relu"},
      {"Relu6", "relu6"},
      {"ReluGrad", "relu_grad"},
      {"Relu6Grad", "relu6_grad"},
      {"TanhGrad", "tanh_grad"},
      {"SigmoidGrad", "sigmoid_grad"},
      {"Add", "add"},
      {"AddV2", "add"},
      {"Sub", "sub"},
      {"Mul", "mul"},
      {"RealDiv", "div"},
      {"Div", "div"},
      {"Maximum", "maximum"},
      {"Minimum", "minimum"},
      {"SquaredDifference", "squared_difference"},
      {"BiasAdd", "bias_add"},
      {"BiasAddGrad", "bias_add_grad"},
  };
  for (const auto& entry : kTable) {
    if (op == entry.op) return entry.kernel;
  }
  return "";
}

// The full kernel name: base, an optional variant ("_bcast"), the dtype.
template <typename T>
std::string KernelName(absl::string_view base, absl::string_view variant) {
  static_assert(std::is_same<T, float>::value || std::is_same<T, double>::value,
                "cwise_kernels.cu has float and double kernels only");
  return absl::StrCat(base, variant,
                      std::is_same<T, float>::value ? "_f32" : "_f64");
}

// Base class: resolves the kernel names once, at construction, and
// launches them.
template <typename T>
class CwiseGpuKernel : public OpKernel {
 public:
  explicit CwiseGpuKernel(OpKernelConstruction* ctx) : OpKernel(ctx) {
    const absl::string_view base = KernelBase(type_string());
    OP_REQUIRES(
        ctx, !base.empty(),
        errors::Internal("No GPU elementwise kernel for op ", type_string()));
    kernel_ = KernelName<T>(base, "");
    bcast_kernel_ = KernelName<T>(base, "_bcast");
  }

 protected:
  // Enqueues `kernel` with a grid-stride launch sized for `n` elements, or
  // with `config` when the kernel wants another shape.
  static absl::Status Launch(OpKernelContext* ctx, const std::string& kernel,
                             int64_t n, std::initializer_list<void*> args) {
    GpuDevice* gpu = GpuDevice::FromDeviceBase(ctx->device());
    if (gpu == nullptr) return NotOnGpu(ctx);
    return LaunchGpuKernel(gpu, fatbin::cwise_kernels(), kernel.c_str(),
                           GpuLaunchConfigFor(gpu, n), args);
  }
  static absl::Status Launch(OpKernelContext* ctx, const std::string& kernel,
                             const GpuLaunchConfig& config,
                             std::initializer_list<void*> args) {
    GpuDevice* gpu = GpuDevice::FromDeviceBase(ctx->device());
    if (gpu == nullptr) return NotOnGpu(ctx);
    return LaunchGpuKernel(gpu, fatbin::cwise_kernels(), kernel.c_str(), config,
                           args);
  }

  const std::string& kernel() const { return kernel_; }
  const std::string& bcast_kernel() const { return bcast_kernel_; }

 private:
  static absl::Status NotOnGpu(OpKernelContext* ctx) {
    return errors::Internal("GPU kernel run on a non-GPU device ",
                            ctx->device()->name());
  }

  std::string kernel_;
  std::string bcast_kernel_;
};

// y = f(x), same shape.
template <typename T>
class GpuUnaryOp : public CwiseGpuKernel<T> {
 public:
  using CwiseGpuKernel<T>::CwiseGpuKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    int64_t n = in.NumElements();
    if (n == 0) return;
    const void* x = in.data();
    void* y = out->data();
    OP_REQUIRES_OK(ctx, this->Launch(ctx, this->kernel(), n, {&x, &y, &n}));
  }
};

// ReluGrad, Relu6Grad (gradients, features): equal shapes, with
// TensorFlow's ValidateInputsAreSameShape wording.
template <typename T>
class GpuReluGradOp : public CwiseGpuKernel<T> {
 public:
  using CwiseGpuKernel<T>::CwiseGpuKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& gradients = ctx->input(0);
    const Tensor& features = ctx->input(1);
    OP_REQUIRES(ctx, gradients.shape().IsSameSize(features.shape()),
                errors::InvalidArgument(
                    "Inputs to operation ", this->name(), " of type ",
                    this->type_string(),
                    " must have the same size and shape.  Input 0: ",
                    gradients.shape().DebugString(),
                    " != input 1: ", features.shape().DebugString()));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, gradients.shape(), &out));
    int64_t n = gradients.NumElements();
    if (n == 0) return;
    const void* g = gradients.data();
    const void* f = features.data();
    void* z = out->data();
    OP_REQUIRES_OK(ctx, this->Launch(ctx, this->kernel(), n, {&g, &f, &z, &n}));
  }
};

// TanhGrad, SigmoidGrad (y, dy): equal element counts (TensorFlow's
// SimpleBinaryOp), the output shaped like y.
template <typename T>
class GpuSimpleBinaryOp : public CwiseGpuKernel<T> {
 public:
  using CwiseGpuKernel<T>::CwiseGpuKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in0 = ctx->input(0);
    const Tensor& in1 = ctx->input(1);
    OP_REQUIRES(ctx, in0.NumElements() == in1.NumElements(),
                errors::InvalidArgument(
                    "The two arguments to a cwise op must have same number of "
                    "elements, got ",
                    in0.NumElements(), " and ", in1.NumElements()));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in0.shape(), &out));
    int64_t n = in0.NumElements();
    if (n == 0) return;
    const void* a = in0.data();
    const void* b = in1.data();
    void* z = out->data();
    OP_REQUIRES_OK(ctx, this->Launch(ctx, this->kernel(), n, {&a, &b, &z, &n}));
  }
};

// The strides of each input over BCast's merged result shape.
CwiseGpuBroadcast MakeGeometry(const BCast& bcast) {
  CwiseGpuBroadcast g = {};
  const BCast::Vec& result = bcast.result_shape();
  g.rank = static_cast<int64_t>(result.size());
  for (int64_t d = 0; d < g.rank; ++d) g.out_dims[d] = result[d];
  int64_t* strides[2] = {g.x_strides, g.y_strides};
  for (int i = 0; i < 2; ++i) {
    const BCast::Vec& reshape = bcast.reshape(i);
    int64_t stride = 1;
    for (int64_t d = g.rank - 1; d >= 0; --d) {
      // A size-1 dimension is read again for every output coordinate.
      strides[i][d] = reshape[d] == 1 ? 0 : stride;
      stride *= reshape[d];
    }
  }
  return g;
}

// Arithmetic with TensorFlow broadcasting. Shapes are handled as the CPU's
// BinaryOp handles them, so the output shapes and the errors (incompatible
// shapes, more than 5 merged dimensions) are the same.
template <typename T>
class GpuBinaryOp : public CwiseGpuKernel<T> {
 public:
  using CwiseGpuKernel<T>::CwiseGpuKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in0 = ctx->input(0);
    const Tensor& in1 = ctx->input(1);
    const void* x = in0.data();
    const void* y = in1.data();
    Tensor* out = nullptr;
    if (in0.shape() == in1.shape()) {
      OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in0.shape(), &out));
      int64_t n = out->NumElements();
      if (n == 0) return;
      void* z = out->data();
      OP_REQUIRES_OK(ctx,
                     this->Launch(ctx, this->kernel(), n, {&x, &y, &z, &n}));
      return;
    }
    // Scalar operands go through the broadcast kernel too (a stride of 0).
    BCast bcast(ShapeToVec(in0.shape()), ShapeToVec(in1.shape()));
    OP_REQUIRES(ctx, bcast.IsValid(),
                errors::InvalidArgument(
                    "Incompatible shapes: ", in0.shape().DebugString(), " vs. ",
                    in1.shape().DebugString()));
    OP_REQUIRES_OK(ctx,
                   ctx->allocate_output(0, bcast.output_tensor_shape(), &out));
    int64_t n = out->NumElements();
    if (n == 0) return;
    OP_REQUIRES(ctx, bcast.result_shape().size() <= 5,
                errors::Unimplemented(
                    "Broadcast between ", in0.shape().DebugString(), " and ",
                    in1.shape().DebugString(), " is not supported yet."));
    static_assert(kCwiseGpuMaxDims >= 5, "geometry too small");
    CwiseGpuBroadcast geometry = MakeGeometry(bcast);
    void* z = out->data();
    OP_REQUIRES_OK(ctx, this->Launch(ctx, this->bcast_kernel(), n,
                                     {&x, &y, &z, &n, &geometry}));
  }
};

// The [outer, channels, inner] view of BiasAdd's tensor (bias_add_op.cc):
// NHWC puts the channel last, NCHW at dimension 1 for every rank >= 2.
struct BiasView {
  int64_t outer = 1;
  int64_t channels = 1;
  int64_t inner = 1;
};

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

absl::Status ReadDataFormat(OpKernelConstruction* ctx,
                            nn::TensorFormat* format) {
  std::string data_format;
  TRIB_RETURN_IF_ERROR(ctx->GetAttr("data_format", &data_format));
  return nn::ParseTensorFormat(data_format, format);
}

template <typename T>
class GpuBiasAddOp : public CwiseGpuKernel<T> {
 public:
  explicit GpuBiasAddOp(OpKernelConstruction* ctx) : CwiseGpuKernel<T>(ctx) {
    OP_REQUIRES_OK(ctx, ReadDataFormat(ctx, &format_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& bias = ctx->input(1);
    OP_REQUIRES(ctx, input.dims() >= 2,
                errors::InvalidArgument("Input tensor must be at least 2D: ",
                                        input.shape().DebugString()));
    OP_REQUIRES(ctx, bias.dims() == 1,
                errors::InvalidArgument("Biases must be 1D: ",
                                        bias.shape().DebugString()));
    const int channel_dim = ChannelDim(input.shape(), format_);
    OP_REQUIRES(
        ctx, bias.dim_size(0) == input.dim_size(channel_dim),
        errors::InvalidArgument(
            "Must provide as many biases as the last dimension of the input "
            "tensor: ",
            bias.shape().DebugString(), " vs. ", input.shape().DebugString()));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input.shape(), &out));
    int64_t n = input.NumElements();
    if (n == 0) return;
    const BiasView v = MakeBiasView(input.shape(), format_);
    int64_t channels = v.channels;
    int64_t inner = v.inner;
    const void* x = input.data();
    const void* b = bias.data();
    void* z = out->data();
    OP_REQUIRES_OK(ctx, this->Launch(ctx, this->kernel(), n,
                                     {&x, &b, &z, &n, &channels, &inner}));
  }

 private:
  nn::TensorFormat format_ = nn::TensorFormat::kNHWC;
};

template <typename T>
class GpuBiasAddGradOp : public CwiseGpuKernel<T> {
 public:
  explicit GpuBiasAddGradOp(OpKernelConstruction* ctx)
      : CwiseGpuKernel<T>(ctx) {
    OP_REQUIRES_OK(ctx, ReadDataFormat(ctx, &format_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& backprop = ctx->input(0);
    OP_REQUIRES(ctx, backprop.dims() >= 2,
                errors::InvalidArgument("Input tensor must be at least 2D: ",
                                        backprop.shape().DebugString()));
    const BiasView v = MakeBiasView(backprop.shape(), format_);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, {v.channels}, &out));
    // No early return for an empty backprop: the kernel still writes the
    // zero sums, which is the gradient of nothing.
    if (v.channels == 0) return;
    int64_t outer = v.outer;
    int64_t channels = v.channels;
    int64_t inner = v.inner;
    // One block per channel up to a cap; blocks stride over the rest. The
    // kernel's shared buffer holds 256 partial sums, the default block.
    GpuLaunchConfig config;
    config.threads_per_block = 256;
    config.blocks =
        static_cast<unsigned int>(std::min<int64_t>(channels, 65535));
    const void* in = backprop.data();
    void* z = out->data();
    OP_REQUIRES_OK(ctx, this->Launch(ctx, this->kernel(), config,
                                     {&in, &z, &outer, &channels, &inner}));
  }

 private:
  nn::TensorFormat format_ = nn::TensorFormat::kNHWC;
};

#define TRIB_REGISTER_GPU(OP, KERNEL, T)                                      \
  REGISTER_KERNEL_BUILDER(Name(OP).Device(DEVICE_GPU).TypeConstraint<T>("T"), \
                          KERNEL<T>)

#define TRIB_REGISTER_GPU_CWISE(T)                        \
  TRIB_REGISTER_GPU("Neg", GpuUnaryOp, T);                \
  TRIB_REGISTER_GPU("Abs", GpuUnaryOp, T);                \
  TRIB_REGISTER_GPU("Square", GpuUnaryOp, T);             \
  TRIB_REGISTER_GPU("Sqrt", GpuUnaryOp, T);               \
  TRIB_REGISTER_GPU("Rsqrt", GpuUnaryOp, T);              \
  TRIB_REGISTER_GPU("Reciprocal", GpuUnaryOp, T);         \
  TRIB_REGISTER_GPU("Exp", GpuUnaryOp, T);                \
  TRIB_REGISTER_GPU("Log", GpuUnaryOp, T);                \
  TRIB_REGISTER_GPU("Tanh", GpuUnaryOp, T);               \
  TRIB_REGISTER_GPU("Sigmoid", GpuUnaryOp, T);            \
  TRIB_REGISTER_GPU("Relu", GpuUnaryOp, T);               \
  TRIB_REGISTER_GPU("Relu6", GpuUnaryOp, T);              \
  TRIB_REGISTER_GPU("ReluGrad", GpuReluGradOp, T);        \
  TRIB_REGISTER_GPU("Relu6Grad", GpuReluGradOp, T);       \
  TRIB_REGISTER_GPU("TanhGrad", GpuSimpleBinaryOp, T);    \
  TRIB_REGISTER_GPU("SigmoidGrad", GpuSimpleBinaryOp, T); \
  TRIB_REGISTER_GPU("Add", GpuBinaryOp, T);               \
  TRIB_REGISTER_GPU("AddV2", GpuBinaryOp, T);             \
  TRIB_REGISTER_GPU("Sub", GpuBinaryOp, T);               \
  TRIB_REGISTER_GPU("Mul", GpuBinaryOp, T);               \
  TRIB_REGISTER_GPU("RealDiv", GpuBinaryOp, T);           \
  TRIB_REGISTER_GPU("Div", GpuBinaryOp, T);               \
  TRIB_REGISTER_GPU("Maximum", GpuBinaryOp, T);           \
  TRIB_REGISTER_GPU("Minimum", GpuBinaryOp, T);           \
  TRIB_REGISTER_GPU("SquaredDifference", GpuBinaryOp, T); \
  TRIB_REGISTER_GPU("BiasAdd", GpuBiasAddOp, T);          \
  TRIB_REGISTER_GPU("BiasAddGrad", GpuBiasAddGradOp, T)

TRIB_REGISTER_GPU_CWISE(float);
TRIB_REGISTER_GPU_CWISE(double);

#undef TRIB_REGISTER_GPU_CWISE
#undef TRIB_REGISTER_GPU

}  // namespace
}  // namespace tributary
