#include "tools/cli/top_command.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "common/rpc/grpc_channel.h"
#include "common/rpc/unary_call.h"
#include "grpcpp/client_context.h"
#include "grpcpp/generic/generic_stub.h"
#include "protos/cluster_status.pb.h"
#include "tools/client/grpc_session.h"
#include "tools/client/session.h"

namespace tributary {
namespace {

using json = nlohmann::ordered_json;

constexpr absl::Duration kCallTimeout = absl::Seconds(15);

// Asks the master for every task's metrics and for the devices.
absl::StatusOr<TopReading> Read(const std::string& target,
                                const ClientCredentials& credentials) {
  TopReading reading;
  absl::StatusOr<std::string> address = GrpcTargetAddress(target);
  if (!address.ok()) return address.status();
  grpc::GenericStub stub(
      NewGrpcChannel(*address, kDefaultMaxMessageBytes,
                     credentials.transport != nullptr
                         ? credentials.transport->ChannelCredentials()
                         : nullptr));
  grpc::ClientContext context;
  context.set_deadline(absl::ToChronoTime(absl::Now() + kCallTimeout));
  if (!credentials.token.empty()) {
    context.AddMetadata("authorization", "Bearer " + credentials.token);
  }
  GetClusterStatusResponse status;
  const grpc::Status called = ProtoCallOnThisThread(
      &stub, &context, "/tributary.ClusterStatus/GetClusterStatus",
      GetClusterStatusRequest(), &status);
  if (!called.ok()) {
    return absl::Status(static_cast<absl::StatusCode>(called.error_code()),
                        called.error_message());
  }
  reading.at = absl::Now();
  for (const TaskStatus& task : status.task()) {
    TopReading::Task t;
    t.name = task.task();
    t.address = task.address();
    t.error = task.error();
    t.metrics = ParsePrometheusText(task.metrics());
    reading.tasks.push_back(std::move(t));
  }
  // The devices, by task; a failure here leaves them out, not the view.
  absl::StatusOr<std::unique_ptr<Session>> session =
      NewSession(target, tensorflow::ConfigProto(), credentials);
  if (session.ok()) {
    absl::StatusOr<std::vector<tensorflow::DeviceAttributes>> devices =
        (*session)->ListDevices();
    if (devices.ok()) {
      for (TopReading::Task& t : reading.tasks) {
        const std::string prefix = t.name + "/device:";
        for (const auto& d : *devices) {
          if (absl::StartsWith(d.name(), prefix)) {
            t.devices.push_back(d.name().substr(prefix.size()));
          }
        }
      }
    }
  }
  return reading;
}

// A per-second rate of a counter, or null without both readings.
json Rate(double before, double after, double seconds) {
  if (seconds <= 0) return nullptr;
  return std::max(0.0, after - before) / seconds;
}

json QuantileOrNull(const TopReading::Task& before,
                    const TopReading::Task& after, double q) {
  const double v = HistogramQuantileBetween(before.metrics, after.metrics,
                                            "tributary_master_step_seconds", q);
  return v < 0 ? json(nullptr) : json(v);
}

std::string Bytes(double bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (bytes >= 1024 && u < 4) {
    bytes /= 1024;
    ++u;
  }
  return u == 0 ? absl::StrFormat("%.0f B", bytes)
                : absl::StrFormat("%.1f %s", bytes, units[u]);
}

std::string Fixed(const json& value, int digits, double scale = 1,
                  const std::string& unit = "") {
  if (value.is_null()) return "-";
  return absl::StrFormat("%.*f%s", digits, value.get<double>() * scale, unit);
}

}  // namespace

json TopView(const TopReading& before, const TopReading& after) {
  const double seconds = absl::ToDoubleSeconds(after.at - before.at);
  json view;
  view["interval_s"] = seconds;
  json cluster = json::object();
  json tasks = json::array();
  for (size_t i = 0; i < after.tasks.size(); ++i) {
    const TopReading::Task& now = after.tasks[i];
    const TopReading::Task* was =
        i < before.tasks.size() && before.tasks[i].name == now.name
            ? &before.tasks[i]
            : nullptr;
    const bool rates =
        was != nullptr && was->error.empty() && now.error.empty();
    auto sum = [](const TopReading::Task& t, const std::string& name,
                  const std::map<std::string, std::string>& match = {}) {
      return SumSamples(t.metrics, name, match);
    };
    auto rate = [&](const std::string& name,
                    const std::map<std::string, std::string>& match = {}) {
      return rates
                 ? Rate(sum(*was, name, match), sum(now, name, match), seconds)
                 : json(nullptr);
    };
    json task;
    task["task"] = now.name;
    task["address"] = now.address;
    task["up"] = now.error.empty();
    task["error"] = now.error;
    task["devices"] = now.devices;
    task["cpu_cores"] = rate("process_cpu_seconds_total");
    task["rss_bytes"] = now.error.empty()
                            ? json(sum(now, "process_resident_memory_bytes"))
                            : json(nullptr);
    // Worker figures: a master receives no tensors and runs no graphs.
    const bool worker = now.name != "master";
    task["recv_bytes_per_s"] =
        worker ? rate("tributary_recv_tensor_bytes_total") : json(nullptr);
    task["run_graphs_per_s"] =
        worker ? rate("tributary_worker_run_graphs_total") : json(nullptr);
    task["rpcs_per_s"] = rate("tributary_rpc_server_handled_total");
    tasks.push_back(std::move(task));
    if (now.name == "master" && now.error.empty()) {
      cluster["sessions"] = sum(now, "tributary_master_sessions");
      cluster["steps_in_flight"] = sum(now, "tributary_master_steps_in_flight");
      const json steps = rate("tributary_master_steps_total");
      const json ok = rate("tributary_master_steps_total", {{"outcome", "OK"}});
      cluster["steps_per_s"] = steps;
      cluster["failed_steps_per_s"] =
          steps.is_null() ? json(nullptr)
                          : json(steps.get<double>() - ok.get<double>());
      cluster["step_p50_s"] =
          rates ? QuantileOrNull(*was, now, 0.5) : json(nullptr);
      cluster["step_p99_s"] =
          rates ? QuantileOrNull(*was, now, 0.99) : json(nullptr);
    }
  }
  view["cluster"] = std::move(cluster);
  view["tasks"] = std::move(tasks);
  return view;
}

void PrintTopTable(const json& view, std::ostream& out) {
  const json& c = view["cluster"];
  auto field = [&](const char* name) {
    return c.contains(name) ? c[name] : json(nullptr);
  };
  out << absl::StrFormat(
      "sessions %s   steps/s %s   failed/s %s   step p50 %s   p99 %s   in "
      "flight %s   (over %.1f s)\n\n",
      Fixed(field("sessions"), 0), Fixed(field("steps_per_s"), 1),
      Fixed(field("failed_steps_per_s"), 1),
      Fixed(field("step_p50_s"), 2, 1000, " ms"),
      Fixed(field("step_p99_s"), 2, 1000, " ms"),
      Fixed(field("steps_in_flight"), 0), view["interval_s"].get<double>());
  out << absl::StrFormat("%-32s %-22s %-5s %-14s %6s %10s %11s %9s %8s\n",
                         "TASK", "ADDRESS", "UP", "DEVICES", "CPU", "RSS",
                         "RECV/s", "GRAPHS/s", "RPC/s");
  for (const json& t : view["tasks"]) {
    std::string devices;
    for (const json& d : t["devices"]) {
      absl::StrAppend(&devices, devices.empty() ? "" : ",",
                      d.get<std::string>());
    }
    out << absl::StrFormat(
        "%-32s %-22s %-5s %-14s %6s %10s %11s %9s %8s\n",
        t["task"].get<std::string>(), t["address"].get<std::string>(),
        t["up"].get<bool>() ? "up" : "DOWN", devices.empty() ? "-" : devices,
        Fixed(t["cpu_cores"], 2),
        t["rss_bytes"].is_null() ? "-" : Bytes(t["rss_bytes"].get<double>()),
        t["recv_bytes_per_s"].is_null()
            ? "-"
            : Bytes(t["recv_bytes_per_s"].get<double>()),
        Fixed(t["run_graphs_per_s"], 1), Fixed(t["rpcs_per_s"], 1));
  }
  for (const json& t : view["tasks"]) {
    if (!t["up"].get<bool>()) {
      out << "\n"
          << t["task"].get<std::string>() << ": "
          << t["error"].get<std::string>();
    }
  }
  out << "\n";
}

int RunTopCommand(const TopCommandOptions& options, std::ostream& out,
                  std::ostream& err) {
  absl::StatusOr<ClientCredentials> credentials =
      ResolveClientCredentials(options.credentials, options.target);
  if (!credentials.ok()) {
    err << "tributary top: " << credentials.status().message() << "\n";
    return 2;
  }
  const absl::Duration interval = absl::Seconds(options.interval_s);
  absl::StatusOr<TopReading> before = Read(options.target, *credentials);
  for (;;) {
    if (!before.ok()) {
      err << "tributary top: " << options.target << ": "
          << before.status().message() << "\n";
      return 1;
    }
    absl::SleepFor(interval);
    absl::StatusOr<TopReading> after = Read(options.target, *credentials);
    if (!after.ok()) {
      before = std::move(after);
      continue;
    }
    const json view = TopView(*before, *after);
    if (options.json) {
      out << view.dump(-1, ' ', false, json::error_handler_t::replace)
          << std::endl;
    } else {
      // Home and clear: the view is redrawn in place.
      if (!options.once) out << "\x1b[H\x1b[2J";
      out << "tributary top: " << options.target << "\n";
      PrintTopTable(view, out);
      out.flush();
    }
    if (options.once) return 0;
    before = std::move(after);
  }
}

}  // namespace tributary
