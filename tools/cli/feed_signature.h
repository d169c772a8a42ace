// What the graph declares about a fed tensor, and checking a feed against
// it before the session sees it, so a mismatch names the --feed flag.
//
// The dtype is the fed output's type from the node's op definition (any
// node; an unknown op or missing node declares nothing). The shape comes
// only from a Placeholder's or PlaceholderWithDefault's `shape` attr: -1
// dims and an unknown rank match anything, and, as TensorFlow reads graphs
// older than producer version 21, a rank-0 shape there means unknown.
#ifndef TRIBUTARY_TOOLS_CLI_FEED_SIGNATURE_H_
#define TRIBUTARY_TOOLS_CLI_FEED_SIGNATURE_H_

#include <optional>
#include <string>

#include "absl/status/status.h"
#include "common/framework/tensor.h"
#include "common/framework/tensor_shape.h"
#include "common/framework/types.h"
#include "protos/graph.pb.h"

namespace tributary {

struct FeedSignature {
  std::optional<DataType> dtype;
  std::optional<PartialTensorShape> shape;
};

// `name` is "node" or "node:i".
FeedSignature DeclaredFeedSignature(const tensorflow::GraphDef& graph,
                                    const std::string& name);

// InvalidArgument saying which of dtype and shape differs (the caller names
// the feed).
absl::Status CheckFeedSignature(const Tensor& value,
                                const FeedSignature& signature);

}  // namespace tributary

#endif  // TRIBUTARY_TOOLS_CLI_FEED_SIGNATURE_H_
