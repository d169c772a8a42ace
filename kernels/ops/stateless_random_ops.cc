// Stateless random ops, V1 (TensorFlow's core/ops/stateless_random_ops.cc
// signatures).
//
// Unlike the stateful ops these are pure functions of (shape, seed): the
// `seed` input (shape [2]) picks the Philox stream, so equal inputs give equal
// outputs and two such nodes may be merged.

#include "common/op/op_registry.h"

// One builder call per line reads like the op signature it defines.
// clang-format off

namespace tributary {

// Uniform in [0, 1).
REGISTER_OP("StatelessRandomUniform")
    .Input("shape: T")
    .Input("seed: Tseed")
    .Output("output: dtype")
    .Attr("dtype: {half,bfloat16,float,double} = DT_FLOAT")
    .Attr("T: {int32, int64} = DT_INT32")
    .Attr("Tseed: {int32, int64} = DT_INT64");

// Standard normal (mean 0, stddev 1).
REGISTER_OP("StatelessRandomNormal")
    .Input("shape: T")
    .Input("seed: Tseed")
    .Output("output: dtype")
    .Attr("dtype: {half,bfloat16,float,double} = DT_FLOAT")
    .Attr("T: {int32, int64} = DT_INT32")
    .Attr("Tseed: {int32, int64} = DT_INT64");

// Standard normal, values beyond two standard deviations redrawn.
REGISTER_OP("StatelessTruncatedNormal")
    .Input("shape: T")
    .Input("seed: Tseed")
    .Output("output: dtype")
    .Attr("dtype: {half,bfloat16,float,double} = DT_FLOAT")
    .Attr("T: {int32, int64} = DT_INT32")
    .Attr("Tseed: {int32, int64} = DT_INT64");

// Integers in [minval, maxval).
REGISTER_OP("StatelessRandomUniformInt")
    .Input("shape: T")
    .Input("seed: Tseed")
    .Input("minval: dtype")
    .Input("maxval: dtype")
    .Output("output: dtype")
    .Attr("dtype: {int32, int64}")
    .Attr("T: {int32, int64}")
    .Attr("Tseed: {int32, int64} = DT_INT64");

// Every value of dtype equally likely.
REGISTER_OP("StatelessRandomUniformFullInt")
    .Input("shape: T")
    .Input("seed: Tseed")
    .Output("output: dtype")
    .Attr("dtype: {int32, int64, uint32, uint64} = DT_UINT64")
    .Attr("T: {int32, int64} = DT_INT32")
    .Attr("Tseed: {int32, int64, uint32, uint64} = DT_INT64");

// Gamma(alpha, 1) samples of the given shape, which ends with alpha's shape.
REGISTER_OP("StatelessRandomGammaV2")
    .Input("shape: T")
    .Input("seed: Tseed")
    .Input("alpha: dtype")
    .Output("output: dtype")
    .Attr("dtype: {half, float, double}")
    .Attr("T: {int32, int64}")
    .Attr("Tseed: {int32, int64} = DT_INT64");

// Poisson(lam) samples; `shape` must end with lam's shape.
REGISTER_OP("StatelessRandomPoisson")
    .Input("shape: T")
    .Input("seed: Tseed")
    .Input("lam: Rtype")
    .Output("output: dtype")
    .Attr("Rtype: {half, float, double, int32, int64}")
    .Attr("dtype: {half, float, double, int32, int64}")
    .Attr("T: {int32, int64}")
    .Attr("Tseed: {int32, int64} = DT_INT64");

// ---- V2: the stream as key/counter/alg inputs ---------------------------

// The V1 seed's stream as V2 key and counter (Philox's, on every device we
// have).
REGISTER_OP("StatelessRandomGetKeyCounter")
    .Input("seed: Tseed")
    .Output("key: uint64")
    .Output("counter: uint64")
    .Attr("Tseed: {int32, int64} = DT_INT64");

// The V1 seed's stream and the algorithm that draws it (Philox on CPU), as
// the V2 ops' key, counter and alg inputs.
REGISTER_OP("StatelessRandomGetKeyCounterAlg")
    .Input("seed: Tseed")
    .Output("key: uint64")
    .Output("counter: uint64")
    .Output("alg: int32")
    .Attr("Tseed: {int32, int64} = DT_INT64");

// The algorithm the device picks for auto-select (Philox on CPU). Stateful
// in TensorFlow's registry, so it is never folded into a constant.
REGISTER_OP("StatelessRandomGetAlg")
    .Output("alg: int32")
    .SetIsStateful();

REGISTER_OP("StatelessRandomUniformV2")
    .Input("shape: Tshape")
    .Input("key: uint64")
    .Input("counter: uint64")
    .Input("alg: int32")
    .Output("output: dtype")
    .Attr("dtype: {half,bfloat16,float,double} = DT_FLOAT")
    .Attr("Tshape: {int32, int64} = DT_INT32");

REGISTER_OP("StatelessRandomNormalV2")
    .Input("shape: Tshape")
    .Input("key: uint64")
    .Input("counter: uint64")
    .Input("alg: int32")
    .Output("output: dtype")
    .Attr("dtype: {half,bfloat16,float,double} = DT_FLOAT")
    .Attr("Tshape: {int32, int64} = DT_INT32");

REGISTER_OP("StatelessTruncatedNormalV2")
    .Input("shape: Tshape")
    .Input("key: uint64")
    .Input("counter: uint64")
    .Input("alg: int32")
    .Output("output: dtype")
    .Attr("dtype: {half,bfloat16,float,double} = DT_FLOAT")
    .Attr("Tshape: {int32, int64} = DT_INT32");

// Integers in [minval, maxval).
REGISTER_OP("StatelessRandomUniformIntV2")
    .Input("shape: Tshape")
    .Input("key: uint64")
    .Input("counter: uint64")
    .Input("alg: int32")
    .Input("minval: dtype")
    .Input("maxval: dtype")
    .Output("output: dtype")
    .Attr("dtype: {int32, int64, uint32, uint64}")
    .Attr("Tshape: {int32, int64} = DT_INT32");

// Every value of dtype equally likely.
REGISTER_OP("StatelessRandomUniformFullIntV2")
    .Input("shape: Tshape")
    .Input("key: uint64")
    .Input("counter: uint64")
    .Input("alg: int32")
    .Output("output: dtype")
    .Attr("dtype: {int32, int64, uint32, uint64} = DT_UINT64")
    .Attr("Tshape: {int32, int64} = DT_INT32");

// The rows (dimension 0) of value in an order that is a function of
// (key, counter, alg) alone.
REGISTER_OP("StatelessShuffle")
    .Input("value: T")
    .Input("key: uint64")
    .Input("counter: uint64")
    .Input("alg: int32")
    .Output("output: T")
    .Attr("T: type");

// StatelessRandomGammaV2 with the stream as key/counter/alg.
REGISTER_OP("StatelessRandomGammaV3")
    .Input("shape: shape_dtype")
    .Input("key: uint64")
    .Input("counter: uint64")
    .Input("alg: int32")
    .Input("alpha: dtype")
    .Output("output: dtype")
    .Attr("dtype: {half, float, double}")
    .Attr("shape_dtype: {int32, int64} = DT_INT32");

// Binomial(counts, probs) samples; `shape` must end with the broadcast shape
// of counts and probs.
REGISTER_OP("StatelessRandomBinomial")
    .Input("shape: S")
    .Input("seed: Tseed")
    .Input("counts: T")
    .Input("probs: T")
    .Output("output: dtype")
    .Attr("S: {int32, int64}")
    .Attr("Tseed: {int32, int64} = DT_INT64")
    .Attr("T: {half, float, double, int32, int64} = DT_DOUBLE")
    .Attr("dtype: {half, float, double, int32, int64} = DT_INT64");

// Truncated normal samples; `shape` must end with the broadcast shape of the
// four parameters.
REGISTER_OP("StatelessParameterizedTruncatedNormal")
    .Input("shape: S")
    .Input("seed: Tseed")
    .Input("means: dtype")
    .Input("stddevs: dtype")
    .Input("minvals: dtype")
    .Input("maxvals: dtype")
    .Output("output: dtype")
    .Attr("S: {int32, int64}")
    .Attr("Tseed: {int32, int64} = DT_INT64")
    .Attr("dtype: {half, float, double}");

// num_samples class indices per row of logits [batch, classes], from a seed.
REGISTER_OP("StatelessMultinomial")
    .Input("logits: T")
    .Input("num_samples: int32")
    .Input("seed: Tseed")
    .Output("output: output_dtype")
    .Attr("T: realnumbertype")
    .Attr("Tseed: {int32, int64} = DT_INT64")
    .Attr("output_dtype: {int32, int64} = DT_INT64");

}  // namespace tributary
