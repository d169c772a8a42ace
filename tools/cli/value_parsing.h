// `tributary run --feed NAME=VALUE`: turning the command line's JSON values
// into tensors.
//
// VALUE is a JSON scalar or (nested) array, optionally prefixed by a dtype:
//   x=3                  x=[[1,2],[3,4]]            x=float32:[[1,2],[3,4]]
//   flag=true            name="hello"               y=int64:[1,2,3]
// The shape comes from the nesting ([[1,2],[3,4]] is [2,2]; 3 is a scalar;
// [] is [0]); ragged nesting is an error. Without a prefix the dtype is the
// fed tensor's own (the caller passes it when the graph declares it), else
// it is inferred as TensorFlow's Python client would: any non-integral
// number -> float32, integers -> int32, booleans -> bool, strings -> string.
// Floating dtypes also accept "NaN", "Infinity" and "-Infinity" (the
// spellings tensor_json writes).
//
// VALUE may instead be @PATH (x=@batch.npy, x=@values.json, also after a
// dtype prefix): ParseFeedFlag only records the path; feed_file.h reads it.
//
// Dtype names: numpy's (float32, float64, int8..int64, uint8..uint64, bool,
// string, float16, bfloat16), TensorFlow's short ones (float, double, half)
// and the enum names (DT_FLOAT).
#ifndef TRIBUTARY_TOOLS_CLI_VALUE_PARSING_H_
#define TRIBUTARY_TOOLS_CLI_VALUE_PARSING_H_

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/framework/tensor.h"
#include "common/framework/types.h"

namespace tributary {

struct FeedFlag {
  std::string name;               // "node" or "node:i".
  std::optional<DataType> dtype;  // From the prefix, if any.
  nlohmann::json value;           // Null when `file` is set.
  std::string file;               // From NAME=@PATH; empty for an inline value.
};

// Splits "NAME=[DTYPE:]JSON" or "NAME=[DTYPE:]@PATH". InvalidArgument naming
// the flag for a missing '=', an empty name or path, an unknown dtype prefix
// or malformed JSON.
absl::StatusOr<FeedFlag> ParseFeedFlag(absl::string_view flag);

// "float32", "float", "DT_FLOAT", ... (see the file comment).
absl::StatusOr<DataType> ParseDtypeName(absl::string_view name);

// The tensor `value` denotes, of `dtype` when given (see the file comment).
// InvalidArgument for ragged arrays, values the dtype cannot hold (1.5 as
// int32, 300 as uint8, "a" as float) and unsupported dtypes.
absl::StatusOr<Tensor> JsonToTensor(const nlohmann::json& value,
                                    std::optional<DataType> dtype);

}  // namespace tributary

#endif  // TRIBUTARY_TOOLS_CLI_VALUE_PARSING_H_
