#ifndef TRIBUTARY_KERNELS_NN_CONV2D_LAUNCH_H_
#define TRIBUTARY_KERNELS_NN_CONV2D_LAUNCH_H_

// LaunchConv2DAnyType<T>: LaunchConv2D (conv2d_im2col.h) for every dtype the
// convolution kernels register, with the same contract (shapes validated,
// output allocated and non-empty).
//
// half and bfloat16 (what Keras's mixed_float16 / mixed_bfloat16 policies
// compute convolutions in) are widened to float, convolved by the float
// path, and rounded once to T: the products and their sums are float, as in
// TensorFlow's CPU kernels for these types, and the fast float GEMM does the
// work instead of a scalar half loop.

#include <type_traits>

#include "absl/status/status.h"
#include "common/framework/status.h"
#include "common/framework/tensor.h"
#include "common/framework/types.h"
#include "common/kernel/op_kernel.h"
#include "kernels/nn/conv2d_im2col.h"

namespace tributary {
namespace nn {

template <typename T>
constexpr bool kConvolvedInFloat =
    std::is_same_v<T, Eigen::half> || std::is_same_v<T, Eigen::bfloat16>;

template <typename T>
absl::Status LaunchConv2DAnyType(OpKernelContext* context,
                                 const Conv2DGeometry& g, const Tensor& input,
                                 const Tensor& filter, Tensor* output,
                                 OneDnnWeightsCache* weights_cache = nullptr) {
  if constexpr (!kConvolvedInFloat<T>) {
    return LaunchConv2D<T>(context, g, input, filter, output, weights_cache);
  } else {
    const auto& device = context->eigen_cpu_device();
    Tensor wide_input, wide_filter, wide_output;
    TRIB_RETURN_IF_ERROR(
        context->allocate_temp(DT_FLOAT, input.shape(), &wide_input));
    TRIB_RETURN_IF_ERROR(
        context->allocate_temp(DT_FLOAT, filter.shape(), &wide_filter));
    TRIB_RETURN_IF_ERROR(
        context->allocate_temp(DT_FLOAT, output->shape(), &wide_output));
    wide_input.flat<float>().device(device) =
        input.flat<T>().template cast<float>();
    wide_filter.flat<float>().device(device) =
        filter.flat<T>().template cast<float>();
    // No weights cache: the widened filter is a fresh temporary each call.
    TRIB_RETURN_IF_ERROR(LaunchConv2D<float>(context, g, wide_input,
                                             wide_filter, &wide_output));
    output->flat<T>().device(device) =
        wide_output.flat<float>().template cast<T>();
    return absl::OkStatus();
  }
}

}  // namespace nn
}  // namespace tributary

#endif  // TRIBUTARY_KERNELS_NN_CONV2D_LAUNCH_H_
