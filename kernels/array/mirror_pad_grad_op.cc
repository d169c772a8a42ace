// MirrorPadGrad(input, paddings): the gradient of MirrorPad. `input` has the
// padded shape; each dim is folded back in turn: the output element i gets
// the padded element at i + before, then every padding element that mirrored
// it (left padding first, then right). REFLECT excludes the edge, SYMMETRIC
// repeats it, as in MirrorPad (mirror_pad_index.h). TensorFlow's message for
// too much padding: "Total paddings must be less than the input dimension
// size: 3 was not less than 3".

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "common/kernel/kernel_registry.h"
#include "common/kernel/op_kernel.h"
#include "kernels/array/array_util.h"
#include "kernels/array/mirror_pad_index.h"

namespace tributary {
namespace {

// Folds dim `d` of `in` (viewed as [outer, size, inner]) into `out`
// ([outer, size - before - after, inner]).
template <typename T>
void FoldDim(const T* in, int64_t outer, int64_t size, int64_t inner,
             int64_t before, int64_t after, int64_t offset, T* out) {
  const int64_t n = size - before - after;
  for (int64_t o = 0; o < outer; ++o) {
    const T* src = in + o * size * inner;
    T* dst = out + o * n * inner;
    std::copy(src + before * inner, src + (before + n) * inner, dst);
    auto fold = [&](int64_t p) {
      const int64_t target = array_ops::MirrorSourceIndex(p, before, n, offset);
      for (int64_t k = 0; k < inner; ++k) {
        dst[target * inner + k] += src[p * inner + k];
      }
    };
    for (int64_t p = 0; p < before; ++p) fold(p);
    for (int64_t p = before + n; p < size; ++p) fold(p);
  }
}

template <typename T>
class MirrorPadGradOp : public OpKernel {
 public:
  explicit MirrorPadGradOp(OpKernelConstruction* context) : OpKernel(context) {
    std::string mode;
    OP_REQUIRES_OK(context, context->GetAttr("mode", &mode));
    offset_ = array_ops::MirrorOffset(mode);
  }

  void Compute(OpKernelContext* context) override {
    const Tensor& input = context->input(0);
    const Tensor& paddings_t = context->input(1);
    const int rank = input.dims();
    std::vector<int64_t> paddings;
    OP_REQUIRES_OK(context,
                   array_ops::ReadMirrorPaddings(input, paddings_t, &paddings));
    std::vector<int64_t> out_dims(rank);
    for (int d = 0; d < rank; ++d) {
      const int64_t before = paddings[2 * d], after = paddings[2 * d + 1];
      const int64_t size = input.dim_size(d);
      OP_REQUIRES(context, before >= 0 && after >= 0,
                  errors::InvalidArgument(
                      "Paddings must be non-negative: ", before, ", ", after));
      if (offset_ == 1) {
        OP_REQUIRES(context, before + after < size,
                    errors::InvalidArgument(
                        "Total paddings must be less than the input "
                        "dimension size: ",
                        before + after, " was not less than ", size));
      } else {
        OP_REQUIRES(
            context, before + after <= size,
            errors::InvalidArgument(
                "Total paddings must be less than or equal to the "
                "input dimension size: ",
                before + after, " was not less than or equal to ", size));
      }
      out_dims[d] = size - before - after;
      // The folded dim must still hold what each side mirrors.
      OP_REQUIRES(
          context,
          before <= out_dims[d] - offset_ && after <= out_dims[d] - offset_,
          errors::InvalidArgument("paddings ", before, ", ", after,
                                  " do not fit the unpadded dimension size ",
                                  out_dims[d]));
    }
    TensorShape out_shape;
    OP_REQUIRES_OK(context, array_ops::MakeShape(out_dims, &out_shape));
    // Fold one dim at a time, through temporaries.
    Tensor current = input;
    std::vector<int64_t> dims(input.shape().dim_sizes().begin(),
                              input.shape().dim_sizes().end());
    for (int d = 0; d < rank; ++d) {
      const int64_t before = paddings[2 * d], after = paddings[2 * d + 1];
      if (before == 0 && after == 0) continue;
      int64_t outer = 1, inner = 1;
      for (int k = 0; k < d; ++k) outer *= dims[k];
      for (int k = d + 1; k < rank; ++k) inner *= dims[k];
      const int64_t size = dims[d];
      dims[d] = size - before - after;
      TensorShape shape;
      OP_REQUIRES_OK(context, array_ops::MakeShape(dims, &shape));
      Tensor next(input.dtype(), shape);
      if (shape.num_elements() > 0) {
        FoldDim<T>(current.flat<T>().data(), outer, size, inner, before, after,
                   offset_, next.flat<T>().data());
      }
      current = std::move(next);
    }
    context->set_output(0, current);
  }

 private:
  int64_t offset_ = 0;
};

#define TRIB_REGISTER(T)                                        \
  REGISTER_KERNEL_BUILDER(                                      \
      Name("MirrorPadGrad")                                     \
          .Device(DEVICE_CPU)                                   \
          .TypeConstraint<T>("T")                               \
          .TypeConstraint("Tpaddings", array_ops::kIndexTypes), \
      MirrorPadGradOp<T>)
TRIB_REGISTER(half);
TRIB_REGISTER(bfloat16);
TRIB_REGISTER(float);
TRIB_REGISTER(double);
TRIB_REGISTER(int8_t);
TRIB_REGISTER(int16_t);
TRIB_REGISTER(int32_t);
TRIB_REGISTER(int64_t);
TRIB_REGISTER(uint8_t);
TRIB_REGISTER(uint16_t);
TRIB_REGISTER(uint32_t);
TRIB_REGISTER(uint64_t);
TRIB_REGISTER(complex64);
TRIB_REGISTER(complex128);
#undef TRIB_REGISTER

}  // namespace
}  // namespace tributary
