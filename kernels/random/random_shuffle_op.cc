// RandomShuffle: the input's rows (dimension 0) in a random order, with
// TensorFlow's stream so a seeded node gives TensorFlow's permutation.
//
// As TensorFlow's kernel: inputs with at most one element or one row come
// back unchanged and draw nothing; otherwise n = rows, ceil((n-1)/4) Philox
// blocks are reserved from the kernel's generator and shuffle_rows.h's
// Fisher-Yates pass reads them.

#include <cstdint>

#include "common/framework/tensor.h"
#include "common/kernel/kernel_registry.h"
#include "common/kernel/op_kernel.h"
#include "kernels/array/array_util.h"
#include "kernels/random/guarded_philox.h"
#include "kernels/random/shuffle_rows.h"

namespace tributary {
namespace {

class RandomShuffleOp : public OpKernel {
 public:
  explicit RandomShuffleOp(OpKernelConstruction* context) : OpKernel(context) {
    OP_REQUIRES_OK(context, generator_.Init(context));
  }

  void Compute(OpKernelContext* context) override {
    const Tensor& input = context->input(0);
    if (input.NumElements() <= 1 || input.dim_size(0) <= 1) {
      context->set_output(0, input);  // draws nothing, as TensorFlow's
      return;
    }
    // TensorFlow's ReserveSamples32(rows - 1): whole 128-bit blocks.
    const int64_t rows = input.dim_size(0);
    random::ShuffleRows(context, input,
                        generator_.ReserveSamples128((rows - 1 + 3) / 4));
  }

 private:
  random::GuardedPhiloxRandom generator_;
};

REGISTER_KERNEL_BUILDER(Name("RandomShuffle")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("T", array_ops::kAllTypes),
                        RandomShuffleOp);

}  // namespace
}  // namespace tributary
