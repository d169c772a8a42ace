// See sampler_inputs.h.

#include "kernels/random/sampler_inputs.h"

#include <cstdint>

#include "common/framework/status.h"
#include "common/framework/tensor_shape.h"
#include "common/framework/types.h"
#include "kernels/array/array_util.h"
#include "kernels/random/stateless_seed.h"

namespace tributary {
namespace random {
namespace {

template <typename S>
PhiloxRandom PhiloxFromSeedTensor(const Tensor& seed) {
  const auto v = seed.flat<S>();
  // int32 seeds sign-extend, as TensorFlow's conversion to uint64 does.
  return StatelessPhiloxFromSeed(static_cast<uint64_t>(v(0)),
                                 static_cast<uint64_t>(v(1)));
}

}  // namespace

absl::Status PhiloxFromSeed(const Tensor& seed, PhiloxRandom* gen) {
  switch (seed.dtype()) {
    case DT_INT32:
      *gen = PhiloxFromSeedTensor<int32_t>(seed);
      return absl::OkStatus();
    case DT_INT64:
      *gen = PhiloxFromSeedTensor<int64_t>(seed);
      return absl::OkStatus();
    default:
      return errors::InvalidArgument("Invalid seed type: ",
                                     DataTypeString(seed.dtype()));
  }
}

absl::Status CheckSeedShape(const Tensor& seed) {
  if (seed.dims() != 1 || seed.dim_size(0) != 2) {
    return errors::InvalidArgument("seed must have shape [2], not ",
                                   seed.shape().DebugString());
  }
  return absl::OkStatus();
}

absl::Status PrepareStateless(OpKernelContext* context, Tensor** out,
                              PhiloxRandom* gen, bool* empty) {
  TensorShape shape;
  absl::Status s =
      array_ops::MakeShapeFromShapeTensor(context->input(0), &shape);
  if (!s.ok()) return s;
  const Tensor& seed = context->input(1);
  s = CheckSeedShape(seed);
  if (!s.ok()) return s;
  s = context->allocate_output(0, shape, out);
  if (!s.ok()) return s;
  *empty = shape.num_elements() == 0;
  if (*empty) return absl::OkStatus();
  return PhiloxFromSeed(seed, gen);
}

absl::Status AllocateSamples(OpKernelContext* context, const Tensor& parameter,
                             Tensor** out, int64_t* samples_per_param) {
  const Tensor& shape_t = context->input(0);
  if (shape_t.dims() != 1) {
    return errors::InvalidArgument(
        "shape must be a vector of {int32,int64}, got shape: ",
        shape_t.shape().DebugString());
  }
  TensorShape shape;
  TRIB_RETURN_IF_ERROR(array_ops::MakeShapeFromShapeTensor(shape_t, &shape));
  *samples_per_param = shape.num_elements();
  shape.AppendShape(parameter.shape());
  return context->allocate_output(0, shape, out);
}

}  // namespace random
}  // namespace tributary
