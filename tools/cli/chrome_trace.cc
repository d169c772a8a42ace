#include "tools/cli/chrome_trace.h"

#include <algorithm>
#include <cstdint>
#include <limits>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace tributary {
namespace {

using json = nlohmann::json;

// Start of a node execution in nanoseconds since the epoch.
int64_t StartNanos(const tensorflow::NodeExecStats& ns) {
  return ns.all_start_nanos() != 0 ? ns.all_start_nanos()
                                   : ns.all_start_micros() * 1000;
}

int64_t RelNanos(int64_t nanos, int64_t micros) {
  return nanos != 0 ? nanos : micros * 1000;
}

std::string ShapeString(const tensorflow::TensorShapeProto& shape) {
  if (shape.unknown_rank()) return "<unknown>";
  std::vector<std::string> dims;
  for (const auto& d : shape.dim()) dims.push_back(absl::StrCat(d.size()));
  return absl::StrCat("[", absl::StrJoin(dims, ","), "]");
}

// The op that ran, from the executor's label "name = Op(inputs)": the graph
// the step ran may differ from the client's (the optimizer fuses nodes under
// the name of the last one they replace); the client's op otherwise.
std::string OpOf(const tensorflow::NodeExecStats& ns,
                 const absl::flat_hash_map<std::string, std::string>& node_ops) {
  const std::string prefix = absl::StrCat(ns.node_name(), " = ");
  const std::string& label = ns.timeline_label();
  if (absl::StartsWith(label, prefix)) {
    const size_t paren = label.find('(', prefix.size());
    if (paren != std::string::npos && paren > prefix.size()) {
      return label.substr(prefix.size(), paren - prefix.size());
    }
  }
  auto it = node_ops.find(ns.node_name());
  return it != node_ops.end() ? it->second : "";
}

}  // namespace

json StepStatsToChromeTrace(
    const tensorflow::StepStats& step_stats,
    const absl::flat_hash_map<std::string, std::string>& node_ops) {
  int64_t origin = std::numeric_limits<int64_t>::max();
  for (const auto& dev : step_stats.dev_stats()) {
    for (const auto& ns : dev.node_stats()) {
      origin = std::min(origin, StartNanos(ns));
      // A node may have become ready before the first node started.
      if (ns.scheduled_nanos() != 0) {
        origin = std::min(origin, ns.scheduled_nanos());
      }
    }
  }
  if (origin == std::numeric_limits<int64_t>::max()) origin = 0;
  auto micros = [origin](int64_t abs_nanos) {
    return static_cast<double>(abs_nanos - origin) / 1000.0;
  };

  json events = json::array();
  for (int pid = 0; pid < step_stats.dev_stats_size(); ++pid) {
    const tensorflow::DeviceStepStats& dev = step_stats.dev_stats(pid);
    events.push_back({{"name", "process_name"},
                      {"ph", "M"},
                      {"pid", pid},
                      {"args", {{"name", dev.device()}}}});
    events.push_back({{"name", "process_sort_index"},
                      {"ph", "M"},
                      {"pid", pid},
                      {"args", {{"sort_index", pid}}}});
    for (const auto& [tid, name] : dev.thread_names()) {
      events.push_back({{"name", "thread_name"},
                        {"ph", "M"},
                        {"pid", pid},
                        {"tid", tid},
                        {"args", {{"name", name}}}});
    }
    for (const auto& ns : dev.node_stats()) {
      const int64_t start = StartNanos(ns);
      const int64_t end =
          start + RelNanos(ns.all_end_rel_nanos(), ns.all_end_rel_micros());
      const std::string op = OpOf(ns, node_ops);
      json args = {{"name", ns.node_name()}};
      if (!op.empty()) args["op"] = op;
      if (!ns.timeline_label().empty()) args["label"] = ns.timeline_label();
      const int64_t op_start =
          RelNanos(ns.op_start_rel_nanos(), ns.op_start_rel_micros());
      const int64_t op_end =
          RelNanos(ns.op_end_rel_nanos(), ns.op_end_rel_micros());
      args["compute_us"] = static_cast<double>(op_end - op_start) / 1000.0;
      if (ns.scheduled_nanos() != 0 || ns.scheduled_micros() != 0) {
        const int64_t scheduled = ns.scheduled_nanos() != 0
                                      ? ns.scheduled_nanos()
                                      : ns.scheduled_micros() * 1000;
        args["scheduled_us"] = micros(scheduled);
      }
      for (const auto& out : ns.output()) {
        args[absl::StrCat("output", out.slot())] = absl::StrCat(
            tensorflow::DataType_Name(out.tensor_description().dtype()), " ",
            ShapeString(out.tensor_description().shape()));
      }
      events.push_back({{"name", op.empty() ? ns.node_name() : op},
                        {"cat", "Op"},
                        {"ph", "X"},
                        {"pid", pid},
                        {"tid", ns.thread_id()},
                        {"ts", micros(start)},
                        {"dur", static_cast<double>(end - start) / 1000.0},
                        {"args", args}});
    }
  }
  return json{{"traceEvents", events}, {"displayTimeUnit", "ns"}};
}

}  // namespace tributary
