#include "kernels/random/shuffle_rows.h"

#include <cstdint>
#include <cstring>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "common/framework/types.h"

namespace tributary {
namespace random {

void ShuffleRows(OpKernelContext* context, const Tensor& input,
                 PhiloxRandom gen) {
  if (input.NumElements() <= 1 || input.dim_size(0) <= 1) {
    context->set_output(0, input);
    return;
  }
  const int64_t rows = input.dim_size(0);
  SingleSampleAdapter<PhiloxRandom> single(&gen);
  std::vector<int64_t> order(rows);
  std::iota(order.begin(), order.end(), 0);
  for (int64_t i = 0; i + 1 < rows; ++i) {
    const uint32_t n = static_cast<uint32_t>(rows - i);
    std::swap(order[i], order[i + single() % n]);
  }
  Tensor* output = nullptr;
  OP_REQUIRES_OK(context, context->allocate_output(0, input.shape(), &output));
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

}  // namespace random
}  // namespace tributary
