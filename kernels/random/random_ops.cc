// CPU kernels of TensorFlow's stateful random ops: RandomUniform,
// RandomStandardNormal, TruncatedNormal (half, bfloat16, float, double) and
// RandomUniformInt (int32, int64), each with a shape input of int32 or int64.
//
// Every kernel owns a GuardedPhiloxRandom seeded from its seed/seed2 attrs and
// reserves 256 samples per output each step, exactly as TensorFlow's kernels
// do, so step k of a seeded node gives TensorFlow's step-k values bit for bit.

#include <cstdint>

#include "absl/strings/str_cat.h"
#include "common/framework/tensor.h"
#include "common/framework/types.h"
#include "common/kernel/kernel_registry.h"
#include "common/kernel/op_kernel.h"
#include "kernels/array/array_util.h"
#include "kernels/random/distributions.h"
#include "kernels/random/fill_philox.h"
#include "kernels/random/guarded_philox.h"

namespace tributary {
namespace {

using random::FillPhiloxRandom;
using random::kReservedSamplesPerOutput;

// The output whose shape the int32/int64 vector `shape` gives.
absl::Status AllocateShapedOutput(OpKernelContext* context, const Tensor& shape,
                                  Tensor** out) {
  TensorShape out_shape;
  absl::Status s = array_ops::MakeShapeFromShapeTensor(shape, &out_shape);
  if (!s.ok()) return s;
  return context->allocate_output(0, out_shape, out);
}

// RandomUniform, RandomStandardNormal, TruncatedNormal: the distribution is
// the only difference.
template <class Distribution>
class PhiloxRandomOp : public OpKernel {
 public:
  using T = typename Distribution::ResultElementType;

  explicit PhiloxRandomOp(OpKernelConstruction* context) : OpKernel(context) {
    OP_REQUIRES_OK(context, generator_.Init(context));
  }

  void Compute(OpKernelContext* context) override {
    Tensor* out = nullptr;
    OP_REQUIRES_OK(context,
                   AllocateShapedOutput(context, context->input(0), &out));
    const int64_t n = out->NumElements();
    // Reserved even when n is 0 (a no-op then), like TensorFlow.
    FillPhiloxRandom(
        context, generator_.ReserveRandomOutputs(n, kReservedSamplesPerOutput),
        out->flat<T>().data(), n, Distribution());
  }

 private:
  random::GuardedPhiloxRandom generator_;
};

template <typename T>
class RandomUniformIntOp : public OpKernel {
 public:
  explicit RandomUniformIntOp(OpKernelConstruction* context)
      : OpKernel(context) {
    OP_REQUIRES_OK(context, generator_.Init(context));
  }

  void Compute(OpKernelContext* context) override {
    const Tensor& minval = context->input(1);
    const Tensor& maxval = context->input(2);
    OP_REQUIRES(context, minval.shape().dims() == 0,
                errors::InvalidArgument("minval must be 0-D, got shape ",
                                        minval.shape().DebugString()));
    OP_REQUIRES(context, maxval.shape().dims() == 0,
                errors::InvalidArgument("maxval must be 0-D, got shape ",
                                        maxval.shape().DebugString()));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(context,
                   AllocateShapedOutput(context, context->input(0), &out));
    const int64_t n = out->NumElements();
    // An empty output needs no valid range (TensorFlow checks it only now).
    if (n == 0) return;
    const T lo = minval.scalar<T>()();
    const T hi = maxval.scalar<T>()();
    OP_REQUIRES(
        context, lo < hi,
        errors::InvalidArgument("Need minval < maxval: ", lo, " >= ", hi));
    FillPhiloxRandom(
        context, generator_.ReserveRandomOutputs(n, kReservedSamplesPerOutput),
        out->flat<T>().data(), n, random::UniformInt<T>(lo, hi));
  }

 private:
  random::GuardedPhiloxRandom generator_;
};

// The shape input is read on the host.
#define TRIB_REGISTER_FLOAT_RANDOM(TYPE)                          \
  REGISTER_KERNEL_BUILDER(Name("RandomUniform")                   \
                              .Device(DEVICE_CPU)                 \
                              .HostMemory("shape")                \
                              .TypeConstraint<TYPE>("dtype"),     \
                          PhiloxRandomOp<random::Uniform<TYPE>>); \
  REGISTER_KERNEL_BUILDER(Name("RandomStandardNormal")            \
                              .Device(DEVICE_CPU)                 \
                              .HostMemory("shape")                \
                              .TypeConstraint<TYPE>("dtype"),     \
                          PhiloxRandomOp<random::Normal<TYPE>>);  \
  REGISTER_KERNEL_BUILDER(Name("TruncatedNormal")                 \
                              .Device(DEVICE_CPU)                 \
                              .HostMemory("shape")                \
                              .TypeConstraint<TYPE>("dtype"),     \
                          PhiloxRandomOp<random::TruncatedNormal<TYPE>>)

TRIB_REGISTER_FLOAT_RANDOM(half);
TRIB_REGISTER_FLOAT_RANDOM(bfloat16);
TRIB_REGISTER_FLOAT_RANDOM(float);
TRIB_REGISTER_FLOAT_RANDOM(double);
#undef TRIB_REGISTER_FLOAT_RANDOM

#define TRIB_REGISTER_INT_RANDOM(TYPE)                       \
  REGISTER_KERNEL_BUILDER(Name("RandomUniformInt")           \
                              .Device(DEVICE_CPU)            \
                              .HostMemory("shape")           \
                              .HostMemory("minval")          \
                              .HostMemory("maxval")          \
                              .TypeConstraint<TYPE>("Tout"), \
                          RandomUniformIntOp<TYPE>)

TRIB_REGISTER_INT_RANDOM(int32_t);
TRIB_REGISTER_INT_RANDOM(int64_t);
#undef TRIB_REGISTER_INT_RANDOM

}  // namespace
}  // namespace tributary
