// Unique and UniqueWithCounts: the distinct values of a 1-D tensor in order
// of first appearance, each element's position among them, and (WithCounts)
// how often each appears.
//
// Values compare with ==, as TensorFlow's kernel does: -0.0 equals 0.0 (the
// first one seen is kept) and every NaN is distinct.

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "common/kernel/kernel_registry.h"
#include "common/kernel/op_kernel.h"

namespace tributary {
namespace {

// std::hash for the arithmetic types, half/bfloat16 through float; 0.0 and
// -0.0 hash alike since they compare equal.
template <typename T>
struct ValueHash {
  size_t operator()(const T& v) const {
    if constexpr (std::is_same_v<T, half> || std::is_same_v<T, bfloat16>) {
      const float f = static_cast<float>(v);
      return std::hash<float>()(f == 0.0f ? 0.0f : f);
    } else if constexpr (std::is_floating_point_v<T>) {
      return std::hash<T>()(v == T(0) ? T(0) : v);
    } else {
      return std::hash<T>()(v);
    }
  }
};

template <typename T>
class UniqueOp : public OpKernel {
 public:
  explicit UniqueOp(OpKernelConstruction* context) : OpKernel(context) {}

  void Compute(OpKernelContext* context) override {
    const Tensor& input = context->input(0);
    OP_REQUIRES(context, input.dims() == 1,
                errors::InvalidArgument("unique expects a 1D vector."));
    const int64_t n = input.NumElements();
    const DataType idx_type = context->expected_output_dtype(1);
    OP_REQUIRES(
        context,
        idx_type == DT_INT64 || n <= std::numeric_limits<int32_t>::max(),
        errors::InvalidArgument(
            "unique does not support input tensors larger than ",
            std::numeric_limits<int32_t>::max(), " elements"));
    const T* x = n > 0 ? input.flat<T>().data() : nullptr;

    std::unordered_map<T, int64_t, ValueHash<T>> first_position;
    first_position.reserve(static_cast<size_t>(n));
    std::vector<int64_t> idx(static_cast<size_t>(n));
    std::vector<int64_t> counts;
    std::vector<const T*> uniques;
    for (int64_t i = 0; i < n; ++i) {
      auto [it, inserted] =
          first_position.emplace(x[i], static_cast<int64_t>(uniques.size()));
      if (inserted) {
        uniques.push_back(&x[i]);
        counts.push_back(0);
      }
      idx[i] = it->second;
      ++counts[it->second];
    }

    Tensor* y = nullptr;
    OP_REQUIRES_OK(
        context,
        context->allocate_output(
            0, TensorShape({static_cast<int64_t>(uniques.size())}), &y));
    T* out = y->NumElements() > 0 ? y->flat<T>().data() : nullptr;
    for (size_t u = 0; u < uniques.size(); ++u) out[u] = *uniques[u];

    OP_REQUIRES_OK(context, WriteIndices(context, 1, idx));
    if (context->num_outputs() > 2) {
      OP_REQUIRES_OK(context, WriteIndices(context, 2, counts));
    }
  }

 private:
  static absl::Status WriteIndices(OpKernelContext* context, int index,
                                   const std::vector<int64_t>& values) {
    Tensor* t = nullptr;
    absl::Status s = context->allocate_output(
        index, TensorShape({static_cast<int64_t>(values.size())}), &t);
    if (!s.ok()) return s;
    if (values.empty()) return absl::OkStatus();
    if (t->dtype() == DT_INT32) {
      int32_t* p = t->flat<int32_t>().data();
      for (size_t i = 0; i < values.size(); ++i) {
        p[i] = static_cast<int32_t>(values[i]);
      }
    } else {
      int64_t* p = t->flat<int64_t>().data();
      for (size_t i = 0; i < values.size(); ++i) p[i] = values[i];
    }
    return absl::OkStatus();
  }
};

// TensorFlow registers Unique on CPU for the real number types, string and
// bool, with int32 and int64 out_idx.
#define TRIB_REGISTER_UNIQUE(T)                             \
  REGISTER_KERNEL_BUILDER(                                  \
      Name("Unique")                                        \
          .Device(DEVICE_CPU)                               \
          .TypeConstraint<T>("T")                           \
          .TypeConstraint("out_idx", {DT_INT32, DT_INT64}), \
      UniqueOp<T>);                                         \
  REGISTER_KERNEL_BUILDER(                                  \
      Name("UniqueWithCounts")                              \
          .Device(DEVICE_CPU)                               \
          .TypeConstraint<T>("T")                           \
          .TypeConstraint("out_idx", {DT_INT32, DT_INT64}), \
      UniqueOp<T>)

TRIB_REGISTER_UNIQUE(float);
TRIB_REGISTER_UNIQUE(double);
TRIB_REGISTER_UNIQUE(half);
TRIB_REGISTER_UNIQUE(bfloat16);
TRIB_REGISTER_UNIQUE(int8_t);
TRIB_REGISTER_UNIQUE(int16_t);
TRIB_REGISTER_UNIQUE(int32_t);
TRIB_REGISTER_UNIQUE(int64_t);
TRIB_REGISTER_UNIQUE(uint8_t);
TRIB_REGISTER_UNIQUE(uint16_t);
TRIB_REGISTER_UNIQUE(uint32_t);
TRIB_REGISTER_UNIQUE(uint64_t);
TRIB_REGISTER_UNIQUE(bool);
TRIB_REGISTER_UNIQUE(std::string);
#undef TRIB_REGISTER_UNIQUE

}  // namespace
}  // namespace tributary
