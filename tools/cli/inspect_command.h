// `tributary inspect GRAPH [--optimized]`: lists a GraphDef's nodes, ops, devices and
// edges, and every validation error found, without running anything. With
// --optimized, the graph listed is the one the optimizer's passes (constant folding,
// fusion; common/runtime/optimization) make of it on one CPU with the default
// RewriterConfig; nothing is pruned, since no fetch is named. A directory is
// read as a SavedModel and its tag sets and signatures are listed instead
// (saved_model_inspect.h).
#ifndef TRIBUTARY_TOOLS_CLI_INSPECT_COMMAND_H_
#define TRIBUTARY_TOOLS_CLI_INSPECT_COMMAND_H_

#include <ostream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "protos/graph.pb.h"

namespace tributary {

// Every problem in `graph`, one status each: per node (unknown op, bad attrs, input
// count, an input naming a missing node or an output it does not have), then, when
// the nodes are sound, what importing the whole graph finds (cycles, versions, type
// mismatches). Empty when the graph is valid.
std::vector<absl::Status> ValidateGraphDef(const tensorflow::GraphDef& graph);

// Prints the report for `graph` (read from `source`) as a table or as JSON.
void PrintInspection(const std::string& source, const tensorflow::GraphDef& graph,
                     const std::vector<absl::Status>& problems, bool json,
                     std::ostream& out);

// `graph` after the optimizer's passes, every node on one CPU, and a line saying
// what each pass did. `graph` must be valid (ValidateGraphDef).
absl::StatusOr<tensorflow::GraphDef> OptimizeForInspection(
    const tensorflow::GraphDef& graph, std::string* summary);

// The command itself: 0 for a valid graph, 1 when validation found errors, 2 when
// the file cannot be read.
int RunInspect(const std::string& path, bool json, bool optimized, std::ostream& out,
               std::ostream& err);

}  // namespace tributary

#endif  // TRIBUTARY_TOOLS_CLI_INSPECT_COMMAND_H_
