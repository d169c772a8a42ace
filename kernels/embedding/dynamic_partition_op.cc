// DynamicPartition: splits `data` into num_partitions outputs by the
// partition index of each leading slice:
//
//   outputs[p] = data[partitions == p]   (slices in their original order)
//
// partitions.shape must be a prefix of data.shape; each output has shape
// [count_p] + data.shape[partitions.dims():]. Elements are moved, never
// interpreted, so every dtype is served by its element width.

#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "common/kernel/kernel_registry.h"
#include "common/kernel/op_kernel.h"
#include "kernels/array/array_util.h"
#include "kernels/embedding/embedding_util.h"

namespace tributary {
namespace {

class DynamicPartitionOp : public OpKernel {
 public:
  explicit DynamicPartitionOp(OpKernelConstruction* context)
      : OpKernel(context) {
    OP_REQUIRES_OK(context,
                   context->GetAttr("num_partitions", &num_partitions_));
  }

  void Compute(OpKernelContext* context) override {
    const Tensor& data = context->input(0);
    const Tensor& partitions = context->input(1);
    OP_REQUIRES(
        context, embedding::StartsWith(data.shape(), partitions.shape()),
        errors::InvalidArgument(
            "data.shape must start with partitions.shape, got data.shape = ",
            data.shape().DebugString(),
            ", partitions.shape = ", partitions.shape().DebugString()));

    const int64_t rows = partitions.NumElements();
    const int32_t* part =
        rows > 0 ? partitions.flat<int32_t>().data() : nullptr;
    std::vector<int64_t> counts(num_partitions_, 0);
    for (int64_t i = 0; i < rows; ++i) {
      const int32_t p = part[i];
      OP_REQUIRES(
          context, p >= 0 && p < num_partitions_,
          errors::InvalidArgument(
              "partitions", array_ops::SliceDebugString(partitions.shape(), i),
              " = ", p, " is not in [0, ", num_partitions_, ")"));
      ++counts[p];
    }

    const int64_t inner = embedding::InnerSize(data.shape(), partitions.dims());
    std::vector<Tensor*> outputs(num_partitions_, nullptr);
    for (int p = 0; p < num_partitions_; ++p) {
      TensorShape shape({counts[p]});
      for (int d = partitions.dims(); d < data.dims(); ++d) {
        shape.AddDim(data.dim_size(d));
      }
      OP_REQUIRES_OK(context, context->allocate_output(p, shape, &outputs[p]));
    }
    if (rows == 0 || inner == 0) return;

    const bool ok = array_ops::VisitMovableType(data.dtype(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T* src = array_ops::RawData<T>(data);
      std::vector<T*> dst(num_partitions_);
      for (int p = 0; p < num_partitions_; ++p) {
        dst[p] = array_ops::RawData<T>(outputs[p]);
      }
      for (int64_t i = 0; i < rows; ++i) {
        T*& out = dst[part[i]];
        if constexpr (std::is_trivially_copyable_v<T>) {
          std::memcpy(out, src + i * inner, inner * sizeof(T));
        } else {
          std::copy(src + i * inner, src + (i + 1) * inner, out);
        }
        out += inner;
      }
    });
    OP_REQUIRES(context, ok,
                array_ops::UnsupportedDtype("DynamicPartition", data.dtype()));
  }

 private:
  int32_t num_partitions_ = 0;
};

REGISTER_KERNEL_BUILDER(Name("DynamicPartition")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("T", array_ops::kAllTypes),
                        DynamicPartitionOp);

}  // namespace
}  // namespace tributary
