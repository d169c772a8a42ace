// A step's StepStats (RunMetadata.step_stats) as a Chrome trace, the JSON
// chrome://tracing and Perfetto (ui.perfetto.dev) open, laid out as
// TensorFlow's timeline.py lays it out: one process per device, one thread
// row per executor thread, one complete ("X") event per node execution
// spanning the executor's start to end, with the op type (the one that ran,
// read from the executor's timeline label, e.g. _FusedConv2D for a node
// the optimizer fused; else the client graph's), the compute
// (kernel) interval and output shapes as arguments. Times are microseconds
// relative to the step's first node, kept fractional when nanoseconds are
// known.
#ifndef TRIBUTARY_TOOLS_CLI_CHROME_TRACE_H_
#define TRIBUTARY_TOOLS_CLI_CHROME_TRACE_H_

#include <nlohmann/json.hpp>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "protos/step_stats.pb.h"

namespace tributary {

// `node_ops` maps node names to op types (may be empty: names only).
nlohmann::json StepStatsToChromeTrace(
    const tensorflow::StepStats& step_stats,
    const absl::flat_hash_map<std::string, std::string>& node_ops);

}  // namespace tributary

#endif  // TRIBUTARY_TOOLS_CLI_CHROME_TRACE_H_
