// Resource-based random ops: what tf.random.Generator emits
// (TensorFlow's core/ops/stateful_random_ops.cc signatures).
//
// The generator's state lives in a resource variable (int64 vector; for
// Philox, the 128-bit counter then the 64-bit key). Every op here reads and
// advances that variable, so all are stateful: never merged, never folded.

#include "common/op/op_registry.h"

// One builder call per line reads like the op signature it defines.
// clang-format off

namespace tributary {

// Returns the state (counter and key) before advancing it by delta * 256
// samples: the Generator's ops then draw from that state statelessly.
REGISTER_OP("RngReadAndSkip")
    .Input("resource: resource")
    .Input("alg: int32")
    .Input("delta: uint64")
    .Output("value: int64")
    .SetIsStateful();

// Advances the state by delta * 256 samples.
REGISTER_OP("RngSkip")
    .Input("resource: resource")
    .Input("algorithm: int64")
    .Input("delta: int64")
    .SetIsStateful();

// Uniform in [0, 1).
REGISTER_OP("StatefulUniform")
    .Input("resource: resource")
    .Input("algorithm: int64")
    .Input("shape: shape_dtype")
    .Output("output: dtype")
    .Attr("dtype: type = DT_FLOAT")
    .Attr("shape_dtype: type = DT_INT64")
    .SetIsStateful();

// Every value of dtype equally likely.
REGISTER_OP("StatefulUniformFullInt")
    .Input("resource: resource")
    .Input("algorithm: int64")
    .Input("shape: shape_dtype")
    .Output("output: dtype")
    .Attr("dtype: type = DT_UINT64")
    .Attr("shape_dtype: type = DT_INT64")
    .SetIsStateful();

// Integers in [minval, maxval).
REGISTER_OP("StatefulUniformInt")
    .Input("resource: resource")
    .Input("algorithm: int64")
    .Input("shape: shape_dtype")
    .Input("minval: dtype")
    .Input("maxval: dtype")
    .Output("output: dtype")
    .Attr("dtype: type = DT_INT64")
    .Attr("shape_dtype: type = DT_INT64")
    .SetIsStateful();

// Standard normal (mean 0, stddev 1).
REGISTER_OP("StatefulStandardNormalV2")
    .Input("resource: resource")
    .Input("algorithm: int64")
    .Input("shape: shape_dtype")
    .Output("output: dtype")
    .Attr("dtype: type = DT_FLOAT")
    .Attr("shape_dtype: type = DT_INT64")
    .SetIsStateful();

// Standard normal, values beyond two standard deviations redrawn.
REGISTER_OP("StatefulTruncatedNormal")
    .Input("resource: resource")
    .Input("algorithm: int64")
    .Input("shape: shape_dtype")
    .Output("output: dtype")
    .Attr("dtype: type = DT_FLOAT")
    .Attr("shape_dtype: type = DT_INT64")
    .SetIsStateful();

// Integers from the operating system's entropy (Generator seeding).
REGISTER_OP("NonDeterministicInts")
    .Input("shape: shape_dtype")
    .Output("output: dtype")
    .Attr("dtype: type = DT_INT64")
    .Attr("shape_dtype: type = DT_INT64")
    .SetIsStateful();

// Binomial(counts, probs) samples from the Generator's state (Philox only).
REGISTER_OP("StatefulRandomBinomial")
    .Input("resource: resource")
    .Input("algorithm: int64")
    .Input("shape: S")
    .Input("counts: T")
    .Input("probs: T")
    .Output("output: dtype")
    .Attr("S: {int32, int64}")
    .Attr("T: {half, float, double, int32, int64} = DT_DOUBLE")
    .Attr("dtype: {half, float, double, int32, int64} = DT_INT64")
    .SetIsStateful();

}  // namespace tributary
