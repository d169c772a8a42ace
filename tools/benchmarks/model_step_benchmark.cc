// Times repeated LocalSession::Run steps of one model, for the model
// benchmark (model_benchmark.py, docs/benchmarks.md "Models vs TensorFlow").
//
//   model_step_benchmark --graph G.pb --threads N --warmup W --steps K
//       [--feed NAME=PATH.npy]... [--fetch T]... [--target NODE]...
//       [--init NODE]... [--profile] [--no-optimize]
//       [--rewrite-options 'remapping: OFF']
//
// Loads the GraphDef (binary or text), creates a local session with
// intra_op_parallelism_threads = N and inter_op_parallelism_threads = 1,
// runs each --init once, then W untimed and K timed steps (feeds, fetches,
// targets as given). Prints one JSON object on stdout: the step times in
// milliseconds, the peak resident set (VmHWM, KiB) at the end, the resident
// set after Create (before the first step), and which
// MatMul/convolution backends ran. With --profile one more traced step runs
// and the JSON gets each op type's summed kernel time in that step (each
// convolution shape class apart), for finding where the time goes. Errors go to
// stderr, exit status 1.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/framework/tensor.h"
#include "google/protobuf/text_format.h"
#include "common/runtime/session/local_session.h"
#include "kernels/math/matmul_backend.h"
#include "kernels/nn/onednn_conv.h"
#include "nlohmann/json.hpp"
#include "protos/step_stats.pb.h"
#include "tools/cli/feed_file.h"
#include "tools/cli/graph_file.h"

namespace tributary {
namespace {

using json = nlohmann::json;

struct Args {
  std::string graph;
  int threads = 1;
  int warmup = 3;
  int steps = 10;
  bool profile = false;
  bool optimize = true;  // --no-optimize: rewrite_options.disable_meta_optimizer
  std::string rewrite_options;  // RewriterConfig in text format
  std::vector<std::pair<std::string, std::string>> feeds;
  std::vector<std::string> fetches, targets, inits;
};

[[noreturn]] void Fail(const std::string& message) {
  std::fprintf(stderr, "model_step_benchmark: %s\n", message.c_str());
  std::exit(1);
}

void Check(const absl::Status& status, const std::string& what) {
  if (!status.ok()) Fail(what + ": " + status.ToString());
}

Args ParseArgs(int argc, char** argv) {
  Args args;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (flag == "--profile") {
      args.profile = true;
      continue;
    }
    if (flag == "--no-optimize") {
      args.optimize = false;
      continue;
    }
    if (i + 1 >= argc) Fail("missing value after " + flag);
    const std::string value = argv[++i];
    if (flag == "--rewrite-options") {
      args.rewrite_options = value;
    } else if (flag == "--graph") {
      args.graph = value;
    } else if (flag == "--threads") {
      args.threads = std::atoi(value.c_str());
    } else if (flag == "--warmup") {
      args.warmup = std::atoi(value.c_str());
    } else if (flag == "--steps") {
      args.steps = std::atoi(value.c_str());
    } else if (flag == "--feed") {
      const size_t eq = value.find('=');
      if (eq == std::string::npos) Fail("--feed wants NAME=PATH: " + value);
      args.feeds.emplace_back(value.substr(0, eq), value.substr(eq + 1));
    } else if (flag == "--fetch") {
      args.fetches.push_back(value);
    } else if (flag == "--target") {
      args.targets.push_back(value);
    } else if (flag == "--init") {
      args.inits.push_back(value);
    } else {
      Fail("unknown flag " + flag);
    }
  }
  if (args.graph.empty()) Fail("--graph is required");
  if (args.steps < 1) Fail("--steps must be at least 1");
  return args;
}

// A size from /proc/self/status in KiB: VmHWM (peak resident set), VmRSS.
int64_t VmKib(const std::string& field) {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind(field + ":", 0) == 0) {
      return std::atoll(line.c_str() + field.size() + 1);
    }
  }
  return -1;
}

int Main(int argc, char** argv) {
  const Args args = ParseArgs(argc, argv);
  absl::StatusOr<tensorflow::GraphDef> graph = ReadGraphDefFile(args.graph);
  Check(graph.status(), "reading " + args.graph);
  std::map<std::string, std::string> op_of;
  for (const auto& node : graph->node()) op_of[node.name()] = node.op();
  // Convolutions are profiled by shape class: "Conv2D 3x3/2" (filter size,
  // stride) when the filter is a Const, as in frozen graphs.
  std::map<std::string, const tensorflow::NodeDef*> by_name;
  for (const auto& node : graph->node()) by_name[node.name()] = &node;
  for (const auto& node : graph->node()) {
    if (node.op() != "Conv2D" && node.op() != "DepthwiseConv2dNative") continue;
    if (node.input_size() < 2) continue;
    const std::string filter = node.input(1).substr(0, node.input(1).find(':'));
    const auto it = by_name.find(filter);
    if (it == by_name.end() || it->second->op() != "Const") continue;
    const auto& shape = it->second->attr().at("value").tensor().tensor_shape();
    if (shape.dim_size() != 4) continue;
    const auto& strides = node.attr().at("strides").list();
    op_of[node.name()] =
        node.op() + " " + std::to_string(shape.dim(0).size()) + "x" +
        std::to_string(shape.dim(1).size()) + "/" +
        std::to_string(strides.i_size() > 1 ? strides.i(1) : 1);
  }

  NamedTensorList feeds;
  for (const auto& [name, path] : args.feeds) {
    absl::StatusOr<Tensor> tensor = ReadFeedFile(path, std::nullopt);
    Check(tensor.status(), "feed " + name);
    feeds.emplace_back(name, std::move(*tensor));
  }

  tensorflow::ConfigProto config;
  config.set_intra_op_parallelism_threads(args.threads);
  config.set_inter_op_parallelism_threads(1);
  if (!google::protobuf::TextFormat::ParseFromString(
          args.rewrite_options,
          config.mutable_graph_options()->mutable_rewrite_options())) {
    Fail("--rewrite-options is not a RewriterConfig in text format");
  }
  if (!args.optimize) {
    config.mutable_graph_options()->mutable_rewrite_options()->set_disable_meta_optimizer(
        true);
  }
  auto session = LocalSession::New(config);
  Check(session.status(), "creating the session");
  LocalSession& s = **session;
  Check(s.Create(*graph), "Create");
  const int64_t rss_ready = VmKib("VmRSS");
  for (const std::string& init : args.inits) {
    Check(s.Run({}, {}, {init}, nullptr), "--init " + init);
  }

  std::vector<Tensor> outputs;
  auto step = [&] {
    Check(s.Run(feeds, args.fetches, args.targets, &outputs), "step");
  };
  for (int i = 0; i < args.warmup; ++i) step();
  std::vector<double> ms;
  for (int i = 0; i < args.steps; ++i) {
    const auto start = std::chrono::steady_clock::now();
    step();
    ms.push_back(std::chrono::duration<double, std::milli>(
                     std::chrono::steady_clock::now() - start)
                     .count());
  }

  json result;
  result["step_ms"] = ms;
  result["vmhwm_kib"] = VmKib("VmHWM");
  result["rss_ready_kib"] = rss_ready;
  result["conv_backend"] = nn::ConvBackendDescription();
  result["matmul_backend"] = ActiveMatMulBackend().description;

  if (args.profile) {
    tensorflow::RunOptions options;
    options.set_trace_level(tensorflow::RunOptions::FULL_TRACE);
    tensorflow::RunMetadata metadata;
    Check(
        s.Run(options, feeds, args.fetches, args.targets, &outputs, &metadata),
        "traced step");
    std::map<std::string, double> by_op;
    for (const auto& device : metadata.step_stats().dev_stats()) {
      for (const auto& node : device.node_stats()) {
        // The op as it ran (the optimizer may have fused the node): the
        // timeline label reads "name = Op(inputs)".
        const std::string& label = node.timeline_label();
        const size_t eq = label.find(" = ");
        const size_t paren = label.find('(', eq);
        std::string op = eq == std::string::npos || paren == std::string::npos
                             ? "?"
                             : label.substr(eq + 3, paren - eq - 3);
        const auto it = op_of.find(node.node_name());
        if (it != op_of.end() && op.find("Conv") != std::string::npos &&
            it->second.find(' ') != std::string::npos) {
          op = op + it->second.substr(it->second.find(' '));
        }
        by_op[op] +=
            (node.op_end_rel_micros() - node.op_start_rel_micros()) / 1000.0;
      }
    }
    result["profile_ms_by_op"] = by_op;
  }
  Check(s.Close(), "Close");
  std::printf("%s\n", result.dump().c_str());
  return 0;
}

}  // namespace
}  // namespace tributary

int main(int argc, char** argv) { return tributary::Main(argc, argv); }
