// RandomShuffle: the input's rows (dimension 0) in a random order, with
// TensorFlow's stream so a seeded node gives TensorFlow's permutation.
//
// As TensorFlow's kernel: inputs with at most one element or one row come
// back unchanged and draw nothing; otherwise n = rows, n - 1 uint32 words are
// reserved (ceil((n-1)/4) Philox blocks), read one at a time, and a
// Fisher-Yates pass from the front swaps position i with
// i + word % (n - i). For rank >= 2 the permutation of row indices is
// shuffled that way and rows copied by it, which is the same order.

#include <cstdint>
#include <cstring>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "common/framework/tensor.h"
#include "common/framework/types.h"
#include "common/kernel/kernel_registry.h"
#include "common/kernel/op_kernel.h"
#include "kernels/array/array_util.h"
#include "kernels/random/guarded_philox.h"
#include "kernels/random/philox.h"

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
      context->set_output(0, input);
      return;
    }
    const int64_t rows = input.dim_size(0);
    // TensorFlow's ReserveSamples32(rows - 1): whole 128-bit blocks.
    random::PhiloxRandom local =
        generator_.ReserveSamples128((rows - 1 + 3) / 4);
    random::SingleSampleAdapter<random::PhiloxRandom> single(&local);
    std::vector<int64_t> order(rows);
    std::iota(order.begin(), order.end(), 0);
    for (int64_t i = 0; i + 1 < rows; ++i) {
      const uint32_t n = static_cast<uint32_t>(rows - i);
      std::swap(order[i], order[i + single() % n]);
    }
    Tensor* output = nullptr;
    OP_REQUIRES_OK(context,
                   context->allocate_output(0, input.shape(), &output));
    const int64_t width = input.NumElements() / rows;
    if (input.dtype() == DT_STRING) {
      const auto in = input.flat<std::string>();
      auto out = output->flat<std::string>();
      for (int64_t r = 0; r < rows; ++r) {
        for (int64_t k = 0; k < width; ++k) {
          out(r * width + k) = in(order[r] * width + k);
        }
      }
      return;
    }
    const int64_t row_bytes = width * DataTypeSize(input.dtype());
    const char* in = static_cast<const char*>(input.data());
    char* out = static_cast<char*>(output->data());
    for (int64_t r = 0; r < rows; ++r) {
      std::memcpy(out + r * row_bytes, in + order[r] * row_bytes, row_bytes);
    }
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
