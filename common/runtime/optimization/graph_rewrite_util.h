#ifndef TRIBUTARY_COMMON_RUNTIME_OPTIMIZATION_GRAPH_REWRITE_UTIL_H_
#define TRIBUTARY_COMMON_RUNTIME_OPTIMIZATION_GRAPH_REWRITE_UTIL_H_

// Small graph surgery shared by the optimization passes.

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/framework/tensor.h"
#include "common/graph/graph.h"
#include "protos/node_def.pb.h"

namespace tributary {

// The value of a Const node (its "value" attr).
absl::StatusOr<Tensor> ConstValue(const Node& n);

// Whether any node but SINK reads `n` (a data or control successor).
bool HasReaders(const Node& n);

// A Const NodeDef of `dtype` (value left to the caller), requesting `device`.
tensorflow::NodeDef ConstNodeDef(const std::string& name, DataType dtype,
                                 const std::string& device);

// Adds Const `name` holding `value`, assigned to `device` (and requesting
// it, so a re-placement keeps it there).
absl::StatusOr<Node*> AddConst(Graph* g, const std::string& name,
                               const Tensor& value, const std::string& device);

// The data edges leaving output `index` of `n`.
std::vector<const Edge*> OutEdgesOf(const Node& n, int index);

// Moves every consumer of `from`:`from_index` onto `to`:`to_index`.
absl::Status RedirectOutput(Graph* g, Node* from, int from_index, Node* to,
                            int to_index);

// Makes every control successor of `from` a control successor of `to`.
void RedirectControlOutputs(Graph* g, Node* from, Node* to);

// The sources of `n`'s control in-edges (SOURCE excluded).
std::vector<Node*> ControlInputs(const Node& n);

// The single data consumer of output 0 of `n`, or null when it has another
// number of consumers or any control successor (other than SINK). Readers
// of `n`'s other outputs make it null too, unless `other_outputs_may_be_read`
// (a batch norm whose statistics someone else reads).
Node* SoleConsumer(const Node& n, bool other_outputs_may_be_read = false);

// "CPU" for "/job:w/replica:0/task:0/device:CPU:0"; empty if unparsable.
std::string DeviceTypeOf(const Node& n);

}  // namespace tributary

#endif  // TRIBUTARY_COMMON_RUNTIME_OPTIMIZATION_GRAPH_REWRITE_UTIL_H_
