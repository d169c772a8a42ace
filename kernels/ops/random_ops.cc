// Stateful random ops (TensorFlow's core/ops/random_ops.cc signatures).
//
// All are stateful: each node owns a generator that advances every step, so
// two nodes must never be merged and a node's outputs are not constants. The
// `seed`/`seed2` attrs pick the stream; both 0 means non-deterministic.

#include "common/op/op_registry.h"

// One builder call per line reads like the op signature it defines;
// clang-format would fold short chains onto one line.
// clang-format off

namespace tributary {

// Uniform in [0, 1).
REGISTER_OP("RandomUniform")
    .Input("shape: T")
    .SetIsStateful()
    .Output("output: dtype")
    .Attr("seed: int = 0")
    .Attr("seed2: int = 0")
    .Attr("dtype: {half,bfloat16,float,double}")
    .Attr("T: {int32,int64}");

// Standard normal (mean 0, stddev 1).
REGISTER_OP("RandomStandardNormal")
    .Input("shape: T")
    .SetIsStateful()
    .Output("output: dtype")
    .Attr("seed: int = 0")
    .Attr("seed2: int = 0")
    .Attr("dtype: {half,bfloat16,float,double}")
    .Attr("T: {int32,int64}");

// Standard normal, values beyond two standard deviations redrawn.
REGISTER_OP("TruncatedNormal")
    .Input("shape: T")
    .SetIsStateful()
    .Output("output: dtype")
    .Attr("seed: int = 0")
    .Attr("seed2: int = 0")
    .Attr("dtype: {half,bfloat16,float,double}")
    .Attr("T: {int32,int64}");

// Integers in [minval, maxval).
REGISTER_OP("RandomUniformInt")
    .Input("shape: T")
    .Input("minval: Tout")
    .Input("maxval: Tout")
    .SetIsStateful()
    .Output("output: Tout")
    .Attr("seed: int = 0")
    .Attr("seed2: int = 0")
    .Attr("Tout: {int32, int64}")
    .Attr("T: {int32, int64}");

// The rows (dimension 0) of `value` in a random order.
REGISTER_OP("RandomShuffle")
    .Input("value: T")
    .SetIsStateful()
    .Output("output: T")
    .Attr("seed: int = 0")
    .Attr("seed2: int = 0")
    .Attr("T: type");

// num_samples class indices per row of logits [batch, classes].
REGISTER_OP("Multinomial")
    .SetIsStateful()
    .Input("logits: T")
    .Input("num_samples: int32")
    .Output("output: output_dtype")
    .Attr("seed: int = 0")
    .Attr("seed2: int = 0")
    .Attr(
        "T: {float, double, int32, uint8, int16, int8, int64, bfloat16, "
        "uint16, half, uint32, uint64}")
    .Attr("output_dtype: {int32, int64} = DT_INT64");

// Gamma(alpha, 1) samples: output shape is shape + alpha.shape.
REGISTER_OP("RandomGamma")
    .SetIsStateful()
    .Input("shape: S")
    .Input("alpha: T")
    .Output("output: T")
    .Attr("seed: int = 0")
    .Attr("seed2: int = 0")
    .Attr("S: {int32, int64}")
    .Attr("T: {half, float, double}");

// Poisson(rate) samples: output shape is shape + rate.shape. V1 samples in
// the rate's type (GraphDefs before version 25 only, as in TensorFlow); V2
// has separate rate (R) and output (dtype) types.
REGISTER_OP("RandomPoisson")
    .SetIsStateful()
    .Deprecated(25, "Replaced by RandomPoissonV2")
    .Input("shape: S")
    .Input("rate: dtype")
    .Output("output: dtype")
    .Attr("seed: int = 0")
    .Attr("seed2: int = 0")
    .Attr("S: {int32, int64}")
    .Attr("dtype: {half, float, double}");

REGISTER_OP("RandomPoissonV2")
    .SetIsStateful()
    .Input("shape: S")
    .Input("rate: R")
    .Output("output: dtype")
    .Attr("seed: int = 0")
    .Attr("seed2: int = 0")
    .Attr("S: {int32, int64}")
    .Attr("R: {half, float, double, int32, int64} = DT_DOUBLE")
    .Attr("dtype: {half, float, double, int32, int64} = DT_INT64");

// Truncated normal samples with per-row parameters: row b of the output
// (dimension 0) uses means[b], stdevs[b], minvals[b], maxvals[b], each a
// scalar or a vector of length 1 or shape[0].
REGISTER_OP("ParameterizedTruncatedNormal")
    .Input("shape: T")
    .Input("means: dtype")
    .Input("stdevs: dtype")
    .Input("minvals: dtype")
    .Input("maxvals: dtype")
    .Output("output: dtype")
    .Attr("seed: int = 0")
    .Attr("seed2: int = 0")
    .Attr("dtype: {half,bfloat16,float,double}")
    .Attr("T: {int32,int64}")
    .SetIsStateful();

}  // namespace tributary
