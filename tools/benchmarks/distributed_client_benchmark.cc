// The distributed benchmark's steps through Tributary's C++ client
// (NewSession("grpc://...")) against a master: the graphs of
// distributed_tf_client.py (same node names, ops and devices; see its
// docstring), the same measuring loop, the same JSON. distributed_benchmark.py
// starts the cluster, runs this and prints the table:
//   bazel run //tools/benchmarks:distributed_benchmark
//
// Alone, against a running cluster {"worker": [task 0, task 1]}:
//   distributed_client_benchmark --target grpc://127.0.0.1:PORT --out r.json
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/status/status.h"
#include "absl/strings/str_split.h"
#include "common/framework/malloc_tuning.h"
#include "common/framework/tensor.h"
#include "nlohmann/json.hpp"
#include "protos/config.pb.h"
#include "protos/graph.pb.h"
#include "tools/cli/client_credentials.h"
#include "tools/client/graph_builder.h"
#include "tools/client/session.h"

namespace tributary {
namespace {

using Clock = std::chrono::steady_clock;
using Json = nlohmann::json;

constexpr int64_t kMiB = 1 << 20;
constexpr char kTask0[] = "/job:worker/replica:0/task:0";
constexpr char kTask1[] = "/job:worker/replica:0/task:1";

// A benchmark has no one to report a failed step to: stop loudly.
void Check(const absl::Status& status, const std::string& what) {
  if (!status.ok()) {
    std::fprintf(stderr, "%s: %s\n", what.c_str(), status.ToString().c_str());
    std::exit(1);
  }
}

double Seconds(Clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

// ---- Per-process counters from /proc ----------------------------------------

struct ProcStat {
  double minflt = 0, majflt = 0, cpu_s = 0, ctxsw = 0;
};

// Voluntary + involuntary context switches of the process's live threads.
double ContextSwitches(int pid) {
  double total = 0;
  const std::string dir = "/proc/" + std::to_string(pid) + "/task";
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    std::ifstream f(entry.path() / "status");
    for (std::string line; std::getline(f, line);) {
      // "voluntary_ctxt_switches:\t12", "nonvoluntary_ctxt_switches:\t3".
      if (line.find("ctxt_switches:") != std::string::npos) {
        total += std::stod(line.substr(line.find(':') + 1));
      }
    }
  }
  return total;
}

bool ReadProcStat(int pid, ProcStat* out) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(f)),
                   std::istreambuf_iterator<char>());
  const size_t paren = text.rfind(')');
  if (paren == std::string::npos) return false;
  std::istringstream rest(text.substr(paren + 1));
  std::vector<std::string> fields;
  for (std::string s; rest >> s;) fields.push_back(s);
  if (fields.size() < 13) return false;
  const double tick = sysconf(_SC_CLK_TCK);
  out->minflt = std::stod(fields[7]);
  out->majflt = std::stod(fields[9]);
  out->cpu_s = (std::stod(fields[11]) + std::stod(fields[12])) / tick;
  out->ctxsw = ContextSwitches(pid);
  return true;
}

using Pids = std::map<std::string, int>;
using Snapshot = std::map<std::string, ProcStat>;

Snapshot Snap(const Pids& pids) {
  Snapshot snap;
  for (const auto& [name, pid] : pids) {
    ProcStat s;
    if (ReadProcStat(pid, &s)) snap[name] = s;
  }
  return snap;
}

Json Delta(const Snapshot& before, const Snapshot& after, int steps) {
  Json out = Json::object();
  for (const auto& [name, b] : before) {
    auto it = after.find(name);
    if (it == after.end()) continue;
    const ProcStat& a = it->second;
    out[name] = {{"minflt_per_step", (a.minflt - b.minflt) / steps},
                 {"majflt_per_step", (a.majflt - b.majflt) / steps},
                 {"cpu_ms_per_step", (a.cpu_s - b.cpu_s) * 1e3 / steps},
                 {"ctxsw_per_step", (a.ctxsw - b.ctxsw) / steps}};
  }
  return out;
}

// The measuring loop of distributed_tf_client.py's measure().
Json Measure(const std::function<void()>& step, const Pids& pids, int warmup,
             int min_reps, int max_reps, double min_seconds,
             double max_seconds) {
  for (int i = 0; i < warmup; ++i) step();
  const Snapshot before = Snap(pids);
  std::vector<double> times;
  const auto begin = Clock::now();
  while (static_cast<int>(times.size()) < max_reps) {
    const double elapsed = Seconds(Clock::now() - begin);
    const int n = static_cast<int>(times.size());
    if (n >= min_reps && elapsed >= min_seconds) break;
    if (n >= 2 && elapsed >= max_seconds) break;
    const auto start = Clock::now();
    step();
    times.push_back(Seconds(Clock::now() - start));
  }
  const Snapshot after = Snap(pids);
  std::sort(times.begin(), times.end());
  const size_t n = times.size();
  return {{"n", n},
          {"p50_s", times[n / 2]},
          {"p99_s", times[std::min(n - 1, static_cast<size_t>(
                                              0.99 * (n - 1) + 0.5))]},
          {"min_s", times[0]},
          {"procs", Delta(before, after, static_cast<int>(n))}};
}

// The median duration of the step's RecvTensor call as the receiving worker
// timed it (FULL_TRACE steps: from sending the request to holding the
// decoded tensor), i.e. the transfer without the step's fixed cost; and the
// median of its part after the sender had the value (the transfer without
// the wait for the producer). The traced steps are extra; the timed steps
// above run untraced.
constexpr int kTracedSteps = 21;

struct RecvTensorTimes {
  double call_s = -1;      // No RecvTensor in the trace.
  double transfer_s = -1;  // Or the sender did not say when it sent.
};

RecvTensorTimes RecvTensorCallSeconds(Session* session,
                                      const std::string& fetch) {
  tensorflow::RunOptions options;
  options.set_trace_level(tensorflow::RunOptions::FULL_TRACE);
  std::vector<double> calls, transfers;
  for (int i = 0; i < kTracedSteps; ++i) {
    std::vector<Tensor> out;
    tensorflow::RunMetadata metadata;
    Check(session->Run(options, {}, {fetch}, {}, &out, &metadata),
          "tracing " + fetch);
    for (const auto& dev : metadata.step_stats().dev_stats()) {
      for (const auto& node : dev.node_stats()) {
        if (node.node_name() == "RecvTensor") {
          calls.push_back(node.op_end_rel_micros() * 1e-6);
          if (node.op_start_rel_micros() > 0) {
            transfers.push_back(
                (node.op_end_rel_micros() - node.op_start_rel_micros()) * 1e-6);
          }
        }
      }
    }
  }
  auto median = [](std::vector<double>& v) {
    if (v.empty()) return -1.0;
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  RecvTensorTimes times;
  times.call_s = median(calls);
  times.transfer_s = median(transfers);
  return times;
}

// ---- The graph ----------------------------------------------------------------

// VariableV2 `name` of `n` floats on `device`, initialised (by `name`/Assign)
// to `value` through Fill, as tf.compat.v1.Variable(tf.ones([n])) does.
Output FilledVariable(GraphBuilder* b, const std::string& name, int64_t n,
                      float value, const std::string& device,
                      std::vector<Output>* inits) {
  GraphBuilder::DeviceScope scope(b, device);
  Output var = b->Variable(PartialTensorShape({n}), DT_FLOAT, name);
  Output dims = b->Const<int32_t>({static_cast<int32_t>(n)}, {1},
                                  name + "/Initializer/shape");
  Output fill = b->Fill(dims, b->Scalar<float>(value, name + "/Initializer/value"),
                        name + "/Initializer/fill");
  inits->push_back(b->Assign(var, fill, name + "/Assign"));
  return var;
}

struct BenchmarkGraph {
  tensorflow::GraphDef def;
  std::vector<std::string> recv_tags;  // "4B", "1MiB", ...
  std::string fetch;                   // "fetch_128MiB/read:0"
};

BenchmarkGraph BuildGraph(const std::vector<int>& sizes_mib, int fetch_mib,
                          int aa_mib) {
  GraphBuilder b;
  std::vector<Output> inits;
  b.Scalar<float>(1.0f, NodeOptions("trivial").WithDevice(kTask0));

  BenchmarkGraph g;
  std::vector<std::pair<std::string, int64_t>> recv = {{"4B", 1}};
  for (int mib : sizes_mib) {
    recv.push_back({std::to_string(mib) + "MiB", mib * kMiB / 4});
  }
  for (const auto& [tag, n] : recv) {
    const std::string name = "recv_" + tag;
    Output var = FilledVariable(&b, name, n, 1.0f, kTask1, &inits);
    Output read =
        b.Identity(var, NodeOptions(name + "/read").WithDevice(kTask1));
    GraphBuilder::DeviceScope scope(&b, kTask0);
    b.AddSingleOutputNode(
        "Slice",
        {read, b.Const<int32_t>({0}, {1}, name + "/slice/begin"),
         b.Const<int32_t>({1}, {1}, name + "/slice/size")},
        {}, name + "/slice");
    g.recv_tags.push_back(tag);
  }

  const std::string fetch_name = "fetch_" + std::to_string(fetch_mib) + "MiB";
  Output fetch_var = FilledVariable(&b, fetch_name, fetch_mib * kMiB / 4, 1.0f,
                                    kTask0, &inits);
  b.Identity(fetch_var, NodeOptions(fetch_name + "/read").WithDevice(kTask0));
  g.fetch = fetch_name + "/read:0";

  Output params =
      FilledVariable(&b, "aa_params", aa_mib * kMiB / 4, 0.0f, kTask0, &inits);
  Output update =
      FilledVariable(&b, "aa_update", aa_mib * kMiB / 4, 1.0f, kTask1, &inits);
  Output update_read =
      b.Identity(update, NodeOptions("aa_update/read").WithDevice(kTask1));
  b.AssignAdd(params, update_read, NodeOptions("aa_add").WithDevice(kTask0));
  b.Group(inits, "init");

  absl::StatusOr<tensorflow::GraphDef> def = b.Build();
  Check(def.status(), "building the graph");
  g.def = std::move(*def);
  return g;
}

int Main(int argc, char** argv) {
  CLI::App app{"Tributary's C++ client side of the distributed benchmark."};
  std::string target, out_path, pids_arg, sizes = "1,16,64,256";
  std::string tests = "latency,recv,fetch,assign_add";
  int fetch_mib = 128, aa_mib = 10, latency_steps = 3000;
  app.add_option("--target", target, "grpc://host:port of the master")
      ->required();
  app.add_option("--out", out_path, "Where to write the JSON results")
      ->required();
  app.add_option("--pids", pids_arg,
                 "name=pid,... processes to count faults and CPU of");
  app.add_option("--sizes-mib", sizes, "RecvTensor sizes in MiB");
  app.add_option("--fetch-mib", fetch_mib, "Size of the fetched variable");
  app.add_option("--aa-mib", aa_mib, "Size of the assign_add vector");
  app.add_option("--latency-steps", latency_steps, "Measured trivial steps");
  app.add_option("--tests", tests, "Which measurements to run");
  ClientCredentialFlags credentials;
  AddClientCredentialFlags(&app, &credentials);
  CLI11_PARSE(app, argc, argv);

  Pids pids = {{"client", static_cast<int>(getpid())}};
  for (absl::string_view item : absl::StrSplit(pids_arg, ',', absl::SkipEmpty())) {
    std::vector<std::string> kv = absl::StrSplit(item, '=');
    if (kv.size() == 2) pids[kv[0]] = std::stoi(kv[1]);
  }
  std::vector<int> sizes_mib;
  for (absl::string_view s : absl::StrSplit(sizes, ',', absl::SkipEmpty())) {
    sizes_mib.push_back(std::stoi(std::string(s)));
  }

  BenchmarkGraph g = BuildGraph(sizes_mib, fetch_mib, aa_mib);
  if (target.empty() || target == "local") {
    // A smoke test of the steps in process: no cluster devices there.
    for (tensorflow::NodeDef& node : *g.def.mutable_node()) node.clear_device();
  }
  tensorflow::ConfigProto config;
  config.set_operation_timeout_in_ms(300000);
  absl::StatusOr<ClientCredentials> resolved =
      ResolveClientCredentials(credentials, target);
  Check(resolved.status(), "the TLS/token flags");
  absl::StatusOr<std::unique_ptr<Session>> session =
      NewSession(target, config, *std::move(resolved));
  Check(session.status(), "NewSession(" + target + ")");
  Session& s = **session;
  Check(s.Create(g.def), "Create");
  std::vector<Tensor> outputs;
  Check(s.Run({}, {}, {"init"}, &outputs), "running init");

  auto fetch_step = [&](const std::string& name) {
    return [&s, name] {
      std::vector<Tensor> out;
      Check(s.Run({}, {name}, {}, &out), "fetching " + name);
    };
  };
  auto wanted = [&tests](const std::string& name) {
    for (absl::string_view t : absl::StrSplit(tests, ',')) {
      if (t == name) return true;
    }
    return false;
  };
  Json out = Json::object();
  if (wanted("latency")) {
    out["latency"] = Measure(fetch_step("trivial:0"), pids, 100,
                             latency_steps, latency_steps, 0, 5);
  }
  if (wanted("recv")) {
    for (const std::string& tag : g.recv_tags) {
      const std::string fetch = "recv_" + tag + "/slice:0";
      out["recv"][tag] = Measure(fetch_step(fetch), pids, 2, 5, 500, 1.0, 20);
      const RecvTensorTimes times = RecvTensorCallSeconds(&s, fetch);
      out["recv"][tag]["call_p50_s"] = times.call_s;
      out["recv"][tag]["transfer_p50_s"] = times.transfer_s;
    }
  }
  if (wanted("fetch")) {
    out["fetch"] = Measure(fetch_step(g.fetch), pids, 2, 5, 200, 1.0, 20);
  }
  if (wanted("assign_add")) {
    out["assign_add"] = Measure(
        [&s] {
          std::vector<Tensor> none;
          Check(s.Run({}, {}, {"aa_add"}, &none), "running aa_add");
        },
        pids, 2, 10, 500, 1.0, 20);
  }
  Check(s.Close(), "Close");

  std::ofstream f(out_path);
  f << out.dump(1) << "\n";
  return f.good() ? 0 : 1;
}

}  // namespace
}  // namespace tributary

int main(int argc, char** argv) {
  // As a client application moving big tensors should
  // (common/framework/malloc_tuning.h).
  tributary::TuneMallocForLargeTensors();
  return tributary::Main(argc, argv);
}
