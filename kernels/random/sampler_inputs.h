// Reading the inputs of the random kernels, written once:
//  * AllocateSamples: the parameterised stateful samplers (RandomGamma,
//    RandomPoisson(V2)) take `shape` (input 0, an int32/int64 vector) and a
//    parameter tensor; their output is shape + parameter.shape.
//  * PrepareStateless: a V1 stateless op takes `shape` (input 0) and `seed`
//    (input 1, shape [2], int32 or int64). Checks in TensorFlow's order:
//    shape, seed shape, then, for a non-empty output only, the seed's type.

#ifndef TRIBUTARY_KERNELS_RANDOM_SAMPLER_INPUTS_H_
#define TRIBUTARY_KERNELS_RANDOM_SAMPLER_INPUTS_H_

#include <cstdint>

#include "absl/status/status.h"
#include "common/framework/tensor.h"
#include "common/kernel/op_kernel.h"
#include "kernels/random/philox.h"

namespace tributary {
namespace random {

// Allocates output 0 as shape + parameter.shape and sets *samples_per_param
// to shape's element count. InvalidArgument for a shape that is not a
// vector or has a negative dim.
absl::Status AllocateSamples(OpKernelContext* context, const Tensor& parameter,
                             Tensor** out, int64_t* samples_per_param);

// InvalidArgument unless `seed` has shape [2].
absl::Status CheckSeedShape(const Tensor& seed);

// The stream of a [2] seed; TensorFlow's kernels take int32 and int64 seeds
// only (int32 seeds sign-extend, as TensorFlow's conversion to uint64 does).
absl::Status PhiloxFromSeed(const Tensor& seed, PhiloxRandom* gen);

// Allocates output 0 of shape input 0 and derives the Philox stream from
// seed input 1. *empty is set for an empty output: nothing to draw, and the
// seed's type is not checked, like TensorFlow.
absl::Status PrepareStateless(OpKernelContext* context, Tensor** out,
                              PhiloxRandom* gen, bool* empty);

}  // namespace random
}  // namespace tributary

#endif  // TRIBUTARY_KERNELS_RANDOM_SAMPLER_INPUTS_H_
