#ifndef TRIBUTARY_KERNELS_MATH_REDUCTION_OPS_H_
#define TRIBUTARY_KERNELS_MATH_REDUCTION_OPS_H_

// ReductionOp<Spec>: Sum, Mean, Max, Min, Prod over the axes given by input
// 1 (int32 or int64, negative = from the end), keep_dims. The input is
// collapsed by ReductionHelper to at most a few alternating dimensions and
// reduced with Eigen on the device's thread pool; rarer layouts are first
// transposed to [kept, reduced].

#include <cmath>
#include <limits>
#include <type_traits>

#include "common/framework/tensor.h"
#include "common/framework/types.h"
#include "common/kernel/kernel_registry.h"
#include "common/kernel/op_kernel.h"
#include "kernels/math/reduction_helper.h"
#include "unsupported/Eigen/CXX11/Tensor"

namespace tributary {
namespace functor {

// Spec: the Eigen reducer, the value of an empty reduction (TensorFlow's),
// and whether the result is divided by the count (Mean).
template <typename T>
struct SumReduction {
  using Reducer = Eigen::internal::SumReducer<T>;
  static constexpr bool kMean = false;
  static T Identity() { return T(0); }
};
template <typename T>
struct MeanReduction {
  using Reducer = Eigen::internal::SumReducer<T>;
  static constexpr bool kMean = true;
  // 0/0: NaN for floating point; integers have no NaN and give 0.
  static T Identity() {
    return std::numeric_limits<T>::has_quiet_NaN
               ? std::numeric_limits<T>::quiet_NaN()
               : T(0);
  }
};
template <typename T>
struct ProdReduction {
  using Reducer = Eigen::internal::ProdReducer<T>;
  static constexpr bool kMean = false;
  static T Identity() { return T(1); }
};
template <typename T>
struct MaxReduction {
  using Reducer = Eigen::internal::MaxReducer<T, Eigen::PropagateNaN>;
  static constexpr bool kMean = false;
  static T Identity() {
    return std::numeric_limits<T>::has_infinity
               ? -std::numeric_limits<T>::infinity()
               : std::numeric_limits<T>::lowest();
  }
};
template <typename T>
struct MinReduction {
  using Reducer = Eigen::internal::MinReducer<T, Eigen::PropagateNaN>;
  static constexpr bool kMean = false;
  static T Identity() {
    return std::numeric_limits<T>::has_infinity
               ? std::numeric_limits<T>::infinity()
               : std::numeric_limits<T>::max();
  }
};

}  // namespace functor

template <typename T, typename Spec>
class ReductionOp : public OpKernel {
 public:
  explicit ReductionOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("keep_dims", &keep_dims_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& data = ctx->input(0);
    const Tensor& axes = ctx->input(1);
    ReductionHelper helper;
    OP_REQUIRES_OK(ctx, helper.Simplify(data, axes, keep_dims_));

    if (helper.nothing_reduced()) {
      // Only size-1 axes: the input, reshaped.
      Tensor out;
      OP_REQUIRES(ctx, out.CopyFrom(data, helper.out_shape()),
                  errors::Internal("Error during reduction copy."));
      ctx->set_output(0, out);
      return;
    }
    const int n = helper.ndims();
    const bool first = helper.reduce_first_axis();
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, helper.out_shape(), &out));
    if (out->NumElements() == 0) return;
    auto o = out->flat<T>();
    if (data.NumElements() == 0) {
      o.setConstant(Spec::Identity());
      return;
    }

    const Eigen::ThreadPoolDevice& d =
        ctx->eigen_device<Eigen::ThreadPoolDevice>();
    const typename Spec::Reducer reducer;
    const auto& r = helper.data_reshape();
    Eigen::array<Eigen::DenseIndex, 1> dim0{{0}};
    Eigen::array<Eigen::DenseIndex, 1> dim1{{1}};
    if (n == 1) {
      // [R] -> scalar.
      out->shaped<T, 0>({}).device(d) =
          data.shaped<T, 1>(r).reduce(dim0, reducer);
    } else if (n == 2 && first) {
      // [R, K] -> [K].
      o.device(d) = data.shaped<T, 2>(r).reduce(dim0, reducer);
    } else if (n == 2) {
      // [K, R] -> [K].
      o.device(d) = data.shaped<T, 2>(r).reduce(dim1, reducer);
    } else if (n == 3 && first) {
      // [R, K, R] -> [K].
      Eigen::array<Eigen::DenseIndex, 2> dims02{{0, 2}};
      o.device(d) = data.shaped<T, 3>(r).reduce(dims02, reducer);
    } else if (n == 3) {
      // [K, R, K] -> [K, K].
      out->shaped<T, 2>(helper.out_reshape()).device(d) =
          data.shaped<T, 3>(r).reduce(dim1, reducer);
    } else {
      Tensor shuffled;
      OP_REQUIRES_OK(ctx,
                     ctx->allocate_temp(data.dtype(), data.shape(), &shuffled));
      helper.TransposeReducedLast(data, &shuffled);
      const int64_t kept = out->NumElements();
      const Tensor& cshuffled = shuffled;
      o.device(d) = cshuffled.shaped<T, 2>({kept, data.NumElements() / kept})
                        .reduce(dim1, reducer);
    }
    if (Spec::kMean) {
      const T count = static_cast<T>(data.NumElements() / out->NumElements());
      o.device(d) = o / count;
    }
  }

 private:
  bool keep_dims_ = false;
};

}  // namespace tributary

// One registration per value type; the axis type (Tidx) is read at run time.
#define TRIB_REGISTER_REDUCTION(OP, SPEC, T)                                \
  REGISTER_KERNEL_BUILDER(                                                  \
      Name(OP)                                                              \
          .Device(::tributary::DEVICE_CPU)                                  \
          .TypeConstraint<T>("T")                                           \
          .TypeConstraint("Tidx",                                           \
                          {::tensorflow::DT_INT32, ::tensorflow::DT_INT64}) \
          .HostMemory("reduction_indices"),                                 \
      ::tributary::ReductionOp<T, ::tributary::functor::SPEC<T>>)

#endif  // TRIBUTARY_KERNELS_MATH_REDUCTION_OPS_H_
