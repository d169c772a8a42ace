// String ops: what saver and SavedModel graphs need, and the hashing of
// categorical string features.

#include "common/op/op_registry.h"

// One builder call per line reads like the op signature it defines;
// clang-format would fold short chains onto one line.
// clang-format off

namespace tributary {

// Element-wise join of N broadcastable string tensors. N may be 0 in
// TensorFlow's signature (the kernel then rejects it), so do not tighten it.
REGISTER_OP("StringJoin")
    .Input("inputs: N * string")
    .Output("output: string")
    .Attr("N: int >= 0")
    .Attr("separator: string = ''");

// Whether each string matches `pattern` (RE2 syntax) as a whole; the sharded
// saver asks it whether the checkpoint path is on S3.
REGISTER_OP("StaticRegexFullMatch")
    .Input("input: string")
    .Attr("pattern: string")
    .Output("output: bool");

// Bucket of each string: Fingerprint64 (farmhash) modulo num_buckets.
REGISTER_OP("StringToHashBucketFast")
    .Input("input: string")
    .Output("output: int64")
    .Attr("num_buckets: int >= 1");

}  // namespace tributary

// clang-format on
