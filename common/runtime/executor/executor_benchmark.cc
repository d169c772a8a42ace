// Executor overhead, as a table: microseconds per node for
//   * a chain of scalar ops (every node waits for the previous one),
//   * a fan-out/fan-in (one source, W parallel nodes, one W-input sum),
//   * a fan-out of expensive (spinning) kernels, where threads pay off,
// each single-threaded (no inter-op pool: everything on the caller) and
// with an inter-op pool. Our budget is 0.5 us per inexpensive node
// single-threaded on the 10k chain (docs/benchmarks.md).
//
//   bazel run -c opt //common/runtime/executor:executor_benchmark -- \
//       --threads 4 --steps 200

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "unsupported/Eigen/CXX11/ThreadPool"
#include "CLI/CLI.hpp"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "common/device/device.h"
#include "common/graph/graph.h"
#include "common/graph/graph_def_import.h"
#include "common/op/node_def_util.h"
#include "common/runtime/executor/executor.h"
#include "protos/graph.pb.h"

namespace tributary {
namespace {

class BenchDevice : public Device {
 public:
  BenchDevice()
      : Device(Device::BuildDeviceAttributes(
            "/job:localhost/replica:0/task:0/device:CPU:0", "CPU", 0, "")) {}
};

tensorflow::NodeDef* AddNode(tensorflow::GraphDef* g, const std::string& name,
                             const std::string& op,
                             const std::vector<std::string>& inputs) {
  tensorflow::NodeDef* n = g->add_node();
  n->set_name(name);
  n->set_op(op);
  for (const std::string& in : inputs) n->add_input(in);
  return n;
}

// source -> n1 -> ... -> n{len-1}: `len` nodes in all.
tensorflow::GraphDef Chain(int len, const std::string& op) {
  tensorflow::GraphDef g;
  AddNode(&g, "n0", "BenchConst", {});
  for (int i = 1; i < len; ++i) {
    AddNode(&g, absl::StrCat("n", i), op, {absl::StrCat("n", i - 1)});
  }
  return g;
}

// source -> width x op -> sum: width + 2 nodes.
tensorflow::GraphDef FanOutFanIn(int width, const std::string& op,
                                 int spin_micros) {
  tensorflow::GraphDef g;
  AddNode(&g, "src", "BenchConst", {});
  std::vector<std::string> mids;
  for (int i = 0; i < width; ++i) {
    const std::string name = absl::StrCat("m", i);
    tensorflow::NodeDef* n = AddNode(&g, name, op, {"src"});
    if (spin_micros > 0) AddNodeAttr("micros", int64_t{spin_micros}, n);
    mids.push_back(name);
  }
  tensorflow::NodeDef* sum = AddNode(&g, "sum", "BenchSum", mids);
  AddNodeAttr("N", int64_t{width}, sum);
  return g;
}

struct Result {
  double us_per_node;
  double us_per_step;
};

Result Time(Executor* exec, int num_nodes, int steps,
            const Executor::Runner& runner) {
  Executor::Args args;
  args.runner = runner;
  auto run = [&](int n) {
    for (int i = 0; i < n; ++i) {
      args.step_id = i;
      absl::Status s = exec->Run(args);
      if (!s.ok()) {
        std::fprintf(stderr, "step failed: %s\n", s.ToString().c_str());
        std::exit(1);
      }
    }
  };
  run(std::max(steps / 10, 5));  // warm up (and let cost estimates settle)
  const auto start = std::chrono::steady_clock::now();
  run(steps);
  const double us = std::chrono::duration<double, std::micro>(
                        std::chrono::steady_clock::now() - start)
                        .count();
  return {us / (static_cast<double>(steps) * num_nodes), us / steps};
}

std::unique_ptr<Executor> Build(const tensorflow::GraphDef& gdef,
                                Device* device) {
  absl::StatusOr<std::unique_ptr<Graph>> graph = GraphFromGraphDef(gdef);
  if (!graph.ok()) {
    std::fprintf(stderr, "import: %s\n", graph.status().ToString().c_str());
    std::exit(1);
  }
  LocalExecutorParams params;
  params.device = device;
  absl::StatusOr<std::unique_ptr<Executor>> exec =
      NewLocalExecutor(params, **graph);
  if (!exec.ok()) {
    std::fprintf(stderr, "executor: %s\n", exec.status().ToString().c_str());
    std::exit(1);
  }
  return std::move(*exec);
}

}  // namespace
}  // namespace tributary

int main(int argc, char** argv) {
  using namespace tributary;  // NOLINT: a short main
  int threads = 4;
  int steps = 200;
  int chain = 10000;
  int width = 1000;
  int spin_width = 64;
  int spin_micros = 20;
  std::string filter;
  CLI::App app{"Executor overhead per node (prints a table)"};
  app.add_option("--threads", threads, "inter-op threads for the pooled runs");
  app.add_option("--steps", steps, "timed steps per row");
  app.add_option("--chain", chain, "nodes in the chain");
  app.add_option("--width", width, "width of the fan-out/fan-in");
  app.add_option("--spin_width", spin_width, "width of the expensive fan-out");
  app.add_option("--spin_micros", spin_micros, "busy time per expensive node");
  app.add_option("--filter", filter,
                 "only rows whose name contains this text");
  CLI11_PARSE(app, argc, argv);
  // absl::Mutex's deadlock detector (on in this absl build) costs more than
  // a whole inexpensive node per lock; daemons turn it off the same way.
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);

  BenchDevice device;
  Eigen::ThreadPool pool(threads);
  const Executor::Runner pooled = [&pool](std::function<void()> fn) {
    pool.Schedule(std::move(fn));
  };

  struct Case {
    std::string name;
    tensorflow::GraphDef graph;
    int steps;
  };
  std::vector<Case> cases;
  cases.push_back({absl::StrCat("chain ", chain, " x AddOne"),
                   Chain(chain, "BenchAddOne"), steps});
  cases.push_back({absl::StrCat("chain ", chain, " x Forward"),
                   Chain(chain, "BenchForward"), steps});
  cases.push_back({absl::StrCat("fan-out/in ", width, " x AddOne"),
                   FanOutFanIn(width, "BenchAddOne", 0), steps * 5});
  cases.push_back({absl::StrCat("fan-out/in ", spin_width, " x Spin(",
                                spin_micros, "us)"),
                   FanOutFanIn(spin_width, "BenchSpin", spin_micros),
                   std::max(steps / 4, 10)});

  std::printf("%-34s %8s %14s %14s %14s %14s\n", "graph", "nodes",
              "1 thread", "", absl::StrCat(threads, " threads").c_str(), "");
  std::printf("%-34s %8s %14s %14s %14s %14s\n", "", "", "us/node",
              "us/step", "us/node", "us/step");
  for (const Case& c : cases) {
    if (!filter.empty() && c.name.find(filter) == std::string::npos) continue;
    std::unique_ptr<Executor> exec = Build(c.graph, &device);
    const int nodes = c.graph.node_size();
    const Result single = Time(exec.get(), nodes, c.steps, nullptr);
    const Result multi = Time(exec.get(), nodes, c.steps, pooled);
    std::printf("%-34s %8d %14.3f %14.1f %14.3f %14.1f\n", c.name.c_str(),
                nodes, single.us_per_node, single.us_per_step,
                multi.us_per_node, multi.us_per_step);
  }
  return 0;
}
