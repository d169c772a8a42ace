// CPU kernels of TensorFlow's V2 stateless random ops:
// StatelessRandomUniformV2, StatelessRandomNormalV2, StatelessTruncatedNormalV2
// (half, bfloat16, float, double), the integer ones, and StatelessShuffle
// (any dtype).
//
// The stream comes as inputs key (uint64[1]), counter (uint64[>=2]) and alg
// (int32 scalar): the CPU runs Philox (alg 1), auto-select (3) picks Philox,
// and any other alg (ThreeFry, 2, included) is TensorFlow's InvalidArgument.
// The fill is the stateful ops' group-wise one, so the bits are TensorFlow's.

#include <cstdint>

#include "common/framework/tensor.h"
#include "common/framework/types.h"
#include "common/kernel/kernel_registry.h"
#include "common/kernel/op_kernel.h"
#include "kernels/array/array_util.h"
#include "kernels/random/distributions.h"
#include "kernels/random/fill_philox.h"
#include "kernels/random/key_counter_alg.h"
#include "kernels/random/shuffle_rows.h"
#include "kernels/random/stateless_seed.h"

namespace tributary {
namespace {

using random::PhiloxRandom;

using random::PhiloxFromInputs;

// The shape (input 0) and stream checks every V2 kernel starts with.
absl::Status ShapeAndStream(OpKernelContext* context, TensorShape* shape,
                            PhiloxRandom* gen) {
  absl::Status s =
      array_ops::MakeShapeFromShapeTensor(context->input(0), shape);
  if (!s.ok()) return s;
  return PhiloxFromInputs(context, gen);
}

template <class Distribution>
class StatelessRandomV2Op : public OpKernel {
 public:
  using T = typename Distribution::ResultElementType;
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* context) override {
    TensorShape shape;
    PhiloxRandom gen;
    OP_REQUIRES_OK(context, ShapeAndStream(context, &shape, &gen));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(context, context->allocate_output(0, shape, &out));
    random::FillPhiloxRandom(context, gen, out->flat<T>().data(),
                             out->NumElements(), Distribution());
  }
};

// Integers in [minval, maxval) (inputs 4, 5): the bounds must be scalars
// always, but ordered only when there is something to draw.
template <typename T>
class StatelessRandomUniformIntV2Op : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* context) override {
    TensorShape shape;
    PhiloxRandom gen;
    OP_REQUIRES_OK(context, ShapeAndStream(context, &shape, &gen));
    const Tensor& minval = context->input(4);
    const Tensor& maxval = context->input(5);
    OP_REQUIRES(context, minval.shape().dims() == 0,
                errors::InvalidArgument("minval must be 0-D, got shape ",
                                        minval.shape().DebugString()));
    OP_REQUIRES(context, maxval.shape().dims() == 0,
                errors::InvalidArgument("maxval must be 0-D, got shape ",
                                        maxval.shape().DebugString()));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(context, context->allocate_output(0, shape, &out));
    if (shape.num_elements() == 0) return;
    const T lo = minval.scalar<T>()();
    const T hi = maxval.scalar<T>()();
    OP_REQUIRES(
        context, lo < hi,
        errors::InvalidArgument("Need minval < maxval: ", lo, " >= ", hi));
    random::FillPhiloxRandom(context, gen, out->flat<T>().data(),
                             out->NumElements(), random::UniformInt<T>(lo, hi));
  }
};

// StatelessShuffle: value's rows shuffled by the stream of inputs 1-3
// (shuffle_rows.h), the same permutation TensorFlow gives.
class StatelessShuffleOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* context) override {
    PhiloxRandom gen;
    OP_REQUIRES_OK(context, PhiloxFromInputs(context, &gen));
    random::ShuffleRows(context, context->input(0), gen);
  }
};

REGISTER_KERNEL_BUILDER(Name("StatelessShuffle")
                            .Device(DEVICE_CPU)
                            .HostMemory("key")
                            .HostMemory("counter")
                            .HostMemory("alg")
                            .TypeConstraint("T", array_ops::kAllTypes),
                        StatelessShuffleOp);

#define TRIB_REGISTER_STATELESS_V2_DIST(NAME, DIST, TYPE)     \
  REGISTER_KERNEL_BUILDER(Name(NAME)                          \
                              .Device(DEVICE_CPU)             \
                              .HostMemory("shape")            \
                              .HostMemory("key")              \
                              .HostMemory("counter")          \
                              .HostMemory("alg")              \
                              .TypeConstraint<TYPE>("dtype"), \
                          StatelessRandomV2Op<random::DIST<TYPE>>)
#define TRIB_REGISTER_STATELESS_V2(TYPE)                                      \
  TRIB_REGISTER_STATELESS_V2_DIST("StatelessRandomUniformV2", Uniform, TYPE); \
  TRIB_REGISTER_STATELESS_V2_DIST("StatelessRandomNormalV2", Normal, TYPE);   \
  TRIB_REGISTER_STATELESS_V2_DIST("StatelessTruncatedNormalV2",               \
                                  TruncatedNormal, TYPE)

TRIB_REGISTER_STATELESS_V2(half);
TRIB_REGISTER_STATELESS_V2(bfloat16);
TRIB_REGISTER_STATELESS_V2(float);
TRIB_REGISTER_STATELESS_V2(double);
#undef TRIB_REGISTER_STATELESS_V2

// TensorFlow's CPU has UniformIntV2 for the signed types only (the op allows
// uint32/uint64; their graphs fail for want of a kernel, as here).
#define TRIB_REGISTER_STATELESS_V2_INT(TYPE)                  \
  REGISTER_KERNEL_BUILDER(Name("StatelessRandomUniformIntV2") \
                              .Device(DEVICE_CPU)             \
                              .HostMemory("shape")            \
                              .HostMemory("key")              \
                              .HostMemory("counter")          \
                              .HostMemory("alg")              \
                              .HostMemory("minval")           \
                              .HostMemory("maxval")           \
                              .TypeConstraint<TYPE>("dtype"), \
                          StatelessRandomUniformIntV2Op<TYPE>)

TRIB_REGISTER_STATELESS_V2_INT(int32_t);
TRIB_REGISTER_STATELESS_V2_INT(int64_t);
#undef TRIB_REGISTER_STATELESS_V2_INT

#define TRIB_REGISTER_STATELESS_V2_FULL_INT(TYPE)                    \
  TRIB_REGISTER_STATELESS_V2_DIST("StatelessRandomUniformFullIntV2", \
                                  UniformFullInt, TYPE)

TRIB_REGISTER_STATELESS_V2_FULL_INT(int32_t);
TRIB_REGISTER_STATELESS_V2_FULL_INT(int64_t);
TRIB_REGISTER_STATELESS_V2_FULL_INT(uint32_t);
TRIB_REGISTER_STATELESS_V2_FULL_INT(uint64_t);
#undef TRIB_REGISTER_STATELESS_V2_FULL_INT
#undef TRIB_REGISTER_STATELESS_V2_DIST

}  // namespace
}  // namespace tributary
