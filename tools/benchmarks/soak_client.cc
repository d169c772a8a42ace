// soak_client: the C++ side of the soak test (soak.py). Runs THREADS clients
// against a master for SECONDS, each repeating one workload of
// soak_graphs.py's (the GraphDefs it wrote), and writes what happened as
// JSON: per workload, steps, errors by status code and a uniform sample of
// step latencies.
//
//   soak_client --target grpc://HOST:PORT --workloads DIR/workloads.json \
//       --threads 16 --first-client 0 --mix trivial:4,cross_task:2,... \
//       --seconds 600 --out result.json
//
// Client number c (first-client + thread index) runs the workload at c of
// the mix expanded by weight, so clients spread over the workloads the same
// way whichever process runs them (the Python client does the same).

#include <atomic>
#include <chrono>
#include <cstdint>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "common/framework/tensor.h"
#include "nlohmann/json.hpp"
#include "protos/config.pb.h"
#include "protos/graph.pb.h"
#include "tools/client/session.h"

namespace tributary {
namespace {

using Clock = std::chrono::steady_clock;

struct Workload {
  std::string name;
  tensorflow::GraphDef graph;
  std::vector<std::string> fetch, target, init;
  int64_t timeout_ms = 0;
  bool new_session_each_step = false;
};

// Steps, errors and a reservoir of latencies of one workload, shared by the
// threads running it.
class Record {
 public:
  void Add(double latency_ms, const absl::Status& status) {
    std::lock_guard<std::mutex> lock(mu_);
    ++steps_;
    if (!status.ok()) {
      ++errors_[std::string(absl::StatusCodeToString(status.code()))];
      if (first_error_.empty()) first_error_ = status.ToString();
    }
    // Reservoir sampling: every step equally likely to be kept.
    if (sample_.size() < kSample) {
      sample_.push_back(latency_ms);
    } else {
      const uint64_t at =
          std::uniform_int_distribution<uint64_t>(0, steps_ - 1)(rng_);
      if (at < kSample) sample_[at] = latency_ms;
    }
  }

  nlohmann::json ToJson() const {
    std::lock_guard<std::mutex> lock(mu_);
    return {{"steps", steps_},
            {"errors", errors_},
            {"first_error", first_error_},
            {"latency_ms_sample", sample_}};
  }

 private:
  static constexpr size_t kSample = 20000;
  mutable std::mutex mu_;
  uint64_t steps_ = 0;
  std::map<std::string, uint64_t> errors_;
  std::string first_error_;
  std::vector<double> sample_;
  std::mt19937_64 rng_{42};
};

std::vector<Workload> ReadWorkloads(const std::string& path) {
  std::ifstream file(path);
  nlohmann::json spec = nlohmann::json::parse(file);
  std::vector<Workload> out;
  for (auto& [name, w] : spec.items()) {
    Workload workload;
    workload.name = name;
    std::ifstream graph_file(w.at("graph").get<std::string>(),
                             std::ios::binary);
    if (!workload.graph.ParseFromIstream(&graph_file)) {
      throw std::runtime_error("cannot read the graph of " + name);
    }
    workload.fetch = w.value("fetch", std::vector<std::string>());
    workload.target = w.value("target", std::vector<std::string>());
    workload.init = w.value("init", std::vector<std::string>());
    workload.timeout_ms = w.value("timeout_ms", int64_t{0});
    workload.new_session_each_step = w.value("new_session_each_step", false);
    out.push_back(std::move(workload));
  }
  return out;
}

absl::StatusOr<std::unique_ptr<Session>> OpenSession(const std::string& target,
                                                     const Workload& w) {
  tensorflow::ConfigProto config;
  config.set_operation_timeout_in_ms(30000);
  absl::StatusOr<std::unique_ptr<Session>> session = NewSession(target, config);
  if (!session.ok()) return session.status();
  absl::Status created = (*session)->Create(w.graph);
  if (!created.ok()) return created;
  if (!w.init.empty()) {
    std::vector<Tensor> none;
    absl::Status init = (*session)->Run({}, {}, w.init, &none);
    if (!init.ok()) return init;
  }
  return session;
}

absl::Status Step(Session* session, const Workload& w) {
  tensorflow::RunOptions options;
  if (w.timeout_ms > 0) options.set_timeout_in_ms(w.timeout_ms);
  std::vector<Tensor> outputs;
  return session->Run(options, {}, w.fetch, w.target, &outputs, nullptr);
}

void RunClient(const std::string& target, const Workload& w,
               Clock::time_point end, Record* record) {
  std::unique_ptr<Session> session;
  while (Clock::now() < end) {
    const Clock::time_point start = Clock::now();
    absl::Status status;
    if (session == nullptr || w.new_session_each_step) {
      absl::StatusOr<std::unique_ptr<Session>> opened = OpenSession(target, w);
      status = opened.status();
      if (opened.ok()) session = *std::move(opened);
    }
    if (status.ok()) status = Step(session.get(), w);
    if (w.new_session_each_step && session != nullptr) {
      const absl::Status closed = session->Close();
      if (status.ok()) status = closed;
      session.reset();
    }
    record->Add(
        std::chrono::duration<double, std::milli>(Clock::now() - start).count(),
        status);
    // A session whose step failed unexpectedly is replaced, as a client
    // would (the expected DEADLINE_EXCEEDED keeps it).
    if (!status.ok() && w.timeout_ms == 0) session.reset();
  }
}

}  // namespace
}  // namespace tributary

int main(int argc, char** argv) {
  using namespace tributary;  // NOLINT(build/namespaces): main only.
  CLI::App app{"The C++ client of the soak test (tools/benchmarks/soak.py)"};
  std::string target, workloads_path, mix, out;
  int threads = 16, first_client = 0;
  double seconds = 60;
  app.add_option("--target", target)->required();
  app.add_option("--workloads", workloads_path)->required();
  app.add_option("--mix", mix)->required();
  app.add_option("--threads", threads);
  app.add_option("--first-client", first_client);
  app.add_option("--seconds", seconds);
  app.add_option("--out", out)->required();
  CLI11_PARSE(app, argc, argv);

  const std::vector<Workload> workloads = ReadWorkloads(workloads_path);
  std::vector<const Workload*> roles;  // the mix expanded by weight
  for (absl::string_view part : absl::StrSplit(mix, ',')) {
    std::vector<std::string> kv = absl::StrSplit(part, ':');
    int weight = 0;
    if (kv.size() != 2 || !absl::SimpleAtoi(kv[1], &weight)) {
      std::fprintf(stderr, "bad --mix entry %s\n", std::string(part).c_str());
      return 2;
    }
    const Workload* found = nullptr;
    for (const Workload& w : workloads) {
      if (w.name == kv[0]) found = &w;
    }
    if (found == nullptr) {
      std::fprintf(stderr, "no workload %s\n", kv[0].c_str());
      return 2;
    }
    for (int i = 0; i < weight; ++i) roles.push_back(found);
  }
  std::map<std::string, Record> records;
  for (const Workload& w : workloads) records[w.name];
  const auto start = Clock::now();
  const auto end = start + std::chrono::duration_cast<Clock::duration>(
                               std::chrono::duration<double>(seconds));
  std::vector<std::thread> clients;
  for (int t = 0; t < threads; ++t) {
    const Workload* w = roles[(first_client + t) % roles.size()];
    Record* record = &records[w->name];
    clients.emplace_back(
        [&target, w, end, record] { RunClient(target, *w, end, record); });
  }
  for (std::thread& t : clients) t.join();
  nlohmann::json result;
  result["client"] = "cpp";
  result["seconds"] =
      std::chrono::duration<double>(Clock::now() - start).count();
  for (const auto& [name, record] : records) {
    result["workloads"][name] = record.ToJson();
  }
  std::ofstream(out) << result.dump();
  return 0;
}
