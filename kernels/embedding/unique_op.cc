// Unique, UniqueWithCounts and their V2 forms with an `axis` input: the
// distinct values (V2 with an axis: the distinct slices along that axis) in
// order of first appearance, each element's (slice's) position among them,
// and (WithCounts) how often each appears.
//
// V2's axis is a vector of at most one element (InvalidArgument "axis
// expects a 1D vector." / "axis does not support input tensors larger than 1
// elements"); empty means the input must be 1-D, as for V1 ("unique expects
// a 1D vector."); a negative axis counts from the end ("axis has to be
// between [0, 2)"). y has x's shape with dim `axis` cut to the number of
// distinct slices; idx and count are vectors.
//
// Values compare with ==, as TensorFlow's kernel does: -0.0 equals 0.0 (the
// first one seen is kept) and every NaN is distinct; slices compare
// element by element (so all empty slices are equal).

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
    // x viewed as [outer, mid, inner]; the slices x[:, k, :] are compared.
    int64_t outer = 1, mid = 0, inner = 1;
    int axis = 0;
    bool has_axis = false;
    if (context->num_inputs() > 1) {
      const Tensor& axis_t = context->input(1);
      OP_REQUIRES(context, axis_t.dims() == 1,
                  errors::InvalidArgument("axis expects a 1D vector."));
      OP_REQUIRES(context, axis_t.NumElements() <= 1,
                  errors::InvalidArgument(
                      "axis does not support input tensors larger than 1 "
                      "elements"));
      if (axis_t.NumElements() == 1) {
        int64_t a = axis_t.dtype() == DT_INT32
                        ? axis_t.flat<int32_t>()(0)
                        : axis_t.flat<int64_t>()(0);
        if (a < 0) a += input.dims();
        OP_REQUIRES(context, a >= 0 && a < input.dims(),
                    errors::InvalidArgument("axis has to be between [0, ",
                                            input.dims(), ")"));
        axis = static_cast<int>(a);
        has_axis = true;
      }
    }
    if (!has_axis) {
      OP_REQUIRES(context, input.dims() == 1,
                  errors::InvalidArgument("unique expects a 1D vector."));
    }
    for (int d = 0; d < axis; ++d) outer *= input.dim_size(d);
    mid = input.dim_size(axis);
    for (int d = axis + 1; d < input.dims(); ++d) inner *= input.dim_size(d);
    const DataType idx_type = context->expected_output_dtype(1);
    OP_REQUIRES(
        context,
        idx_type == DT_INT64 ||
            input.NumElements() <= std::numeric_limits<int32_t>::max(),
        errors::InvalidArgument(
            "unique does not support input tensors larger than ",
            std::numeric_limits<int32_t>::max(), " elements"));
    const T* x = input.NumElements() > 0 ? input.flat<T>().data() : nullptr;
    auto at = [&](int64_t o, int64_t k, int64_t i) -> const T& {
      return x[(o * mid + k) * inner + i];
    };

    // Slices by number: hash and equality look at every element.
    auto slice_hash = [&](int64_t k) {
      size_t h = 0;
      for (int64_t o = 0; o < outer; ++o) {
        for (int64_t i = 0; i < inner; ++i) {
          h = h * 1000003u ^ ValueHash<T>()(at(o, k, i));
        }
      }
      return h;
    };
    auto slice_eq = [&](int64_t a, int64_t b) {
      for (int64_t o = 0; o < outer; ++o) {
        for (int64_t i = 0; i < inner; ++i) {
          if (!(at(o, a, i) == at(o, b, i))) return false;
        }
      }
      return true;
    };
    std::unordered_map<int64_t, int64_t, decltype(slice_hash),
                       decltype(slice_eq)>
        first_position(static_cast<size_t>(mid), slice_hash, slice_eq);
    std::vector<int64_t> idx(static_cast<size_t>(mid));
    std::vector<int64_t> counts;
    std::vector<int64_t> uniques;  // slice numbers, in order of appearance
    for (int64_t k = 0; k < mid; ++k) {
      auto [it, inserted] =
          first_position.emplace(k, static_cast<int64_t>(uniques.size()));
      if (inserted) {
        uniques.push_back(k);
        counts.push_back(0);
      }
      idx[k] = it->second;
      ++counts[it->second];
    }

    TensorShape y_shape = input.shape();
    y_shape.set_dim(axis, static_cast<int64_t>(uniques.size()));
    Tensor* y = nullptr;
    OP_REQUIRES_OK(context, context->allocate_output(0, y_shape, &y));
    if (y->NumElements() > 0) {
      T* out = y->flat<T>().data();
      const int64_t n = static_cast<int64_t>(uniques.size());
      for (int64_t o = 0; o < outer; ++o) {
        for (int64_t u = 0; u < n; ++u) {
          for (int64_t i = 0; i < inner; ++i) {
            out[(o * n + u) * inner + i] = at(o, uniques[u], i);
          }
        }
      }
    }

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
// bool, with int32 and int64 out_idx; the V2 forms also take an int32 or
// int64 axis.
#define TRIB_REGISTER_UNIQUE_OP(OP, T)                      \
  REGISTER_KERNEL_BUILDER(                                  \
      Name(OP)                                              \
          .Device(DEVICE_CPU)                               \
          .TypeConstraint<T>("T")                           \
          .TypeConstraint("out_idx", {DT_INT32, DT_INT64}), \
      UniqueOp<T>)
#define TRIB_REGISTER_UNIQUE(T)                          \
  TRIB_REGISTER_UNIQUE_OP("Unique", T);                  \
  TRIB_REGISTER_UNIQUE_OP("UniqueWithCounts", T);        \
  TRIB_REGISTER_UNIQUE_OP("UniqueV2", T);                \
  TRIB_REGISTER_UNIQUE_OP("UniqueWithCountsV2", T)

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
#undef TRIB_REGISTER_UNIQUE_OP

}  // namespace
}  // namespace tributary
