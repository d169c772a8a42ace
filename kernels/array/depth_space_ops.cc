// DepthToSpace and SpaceToDepth (NHWC, the layout TensorFlow's CPU kernels
// take): blocks of block_size x block_size pixels moved into or out of the
// depth dim, as one strided copy each.
//   DepthToSpace: out[b, h*bs + i, w*bs + j, c] = in[b, h, w, (i*bs + j)*C' + c]
//   SpaceToDepth: out[b, h, w, (i*bs + j)*C + c] = in[b, h*bs + i, w*bs + j, c]
// TensorFlow's messages: "Input rank should be 4 instead of 3", "Input depth
// dimension 6 should be divisible by: 4", "Image width 2 and height 3 should
// be divisible by block_size: 2"; NCHW is "Only NHWC data_format supported
// on CPU. Got NCHW".

#include <cstdint>
#include <string>
#include <vector>

#include "common/kernel/kernel_registry.h"
#include "common/kernel/op_kernel.h"
#include "kernels/array/array_util.h"
#include "kernels/array/strided_copy.h"

namespace tributary {
namespace {

template <bool kToSpace>
class DepthSpaceOp : public OpKernel {
 public:
  explicit DepthSpaceOp(OpKernelConstruction* context) : OpKernel(context) {
    OP_REQUIRES_OK(context, context->GetAttr("block_size", &block_));
    std::string format;
    OP_REQUIRES_OK(context, context->GetAttr("data_format", &format));
    OP_REQUIRES(context, format == "NHWC",
                errors::InvalidArgument(
                    "Only NHWC data_format supported on CPU. Got ", format));
  }

  void Compute(OpKernelContext* context) override {
    const Tensor& input = context->input(0);
    OP_REQUIRES(context, input.dims() == 4,
                errors::InvalidArgument("Input rank should be 4 instead of ",
                                        input.dims()));
    const int64_t batch = input.dim_size(0), height = input.dim_size(1),
                  width = input.dim_size(2), depth = input.dim_size(3);
    const int64_t bs = block_;
    std::vector<int64_t> dims, strides;
    TensorShape out_shape;
    if (kToSpace) {
      OP_REQUIRES(context, depth % (bs * bs) == 0,
                  errors::InvalidArgument(
                      "Input depth dimension ", depth,
                      " should be divisible by: ", bs * bs));
      const int64_t out_depth = depth / (bs * bs);
      out_shape = TensorShape({batch, height * bs, width * bs, out_depth});
      // Output walked as [B, H, bs, W, bs, C'].
      dims = {batch, height, bs, width, bs, out_depth};
      strides = {height * width * depth, width * depth, bs * out_depth, depth,
                 out_depth, 1};
    } else {
      OP_REQUIRES(context, width % bs == 0 && height % bs == 0,
                  errors::InvalidArgument(
                      "Image width ", width, " and height ", height,
                      " should be divisible by block_size: ", bs));
      out_shape =
          TensorShape({batch, height / bs, width / bs, depth * bs * bs});
      // Output walked as [B, H/bs, W/bs, bs, bs, C].
      dims = {batch, height / bs, width / bs, bs, bs, depth};
      strides = {height * width * depth, bs * width * depth, bs * depth,
                 width * depth, depth, 1};
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(context, context->allocate_output(0, out_shape, &out));
    if (out->NumElements() == 0) return;
    OP_REQUIRES_OK(context,
                   array_ops::StridedCopy(context, input.dtype(), input.data(),
                                          dims, strides, out->data()));
  }

 private:
  int64_t block_ = 2;
};

REGISTER_KERNEL_BUILDER(Name("DepthToSpace")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("T", array_ops::kAllTypes),
                        DepthSpaceOp<true>);
REGISTER_KERNEL_BUILDER(Name("SpaceToDepth")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("T", array_ops::kAllTypes),
                        DepthSpaceOp<false>);

}  // namespace
}  // namespace tributary
