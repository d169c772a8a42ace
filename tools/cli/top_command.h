// `tributary top --target grpc://HOST:PORT [--interval S] [--once] [--json]`:
// a live view of a cluster through its master. Every interval it asks the
// master for every task's metrics (/tributary.ClusterStatus/
// GetClusterStatus: the master's own and each task's, gathered by the
// master) and for the devices (ListDevices), and shows, from the change
// since the last reading:
//   the cluster: sessions, steps/s, failed steps/s, step p50/p99 latency,
//     steps in flight (the master's metrics);
//   each task: up or why not, its devices, CPU (cores busy), resident
//     memory, RecvTensor bytes/s received, graph runs/s, RPCs/s served.
// A table redrawn in place until Ctrl-C; --once prints one view after two
// readings --interval apart and exits; --json prints the view as JSON
// ({"cluster": {...}, "tasks": [{...}]}; a figure with no data is null).
// TLS and token as the other commands (client_credentials.h). Exit 1 when
// the master cannot be asked (the reason on stderr), 2 for bad flags.
#ifndef TRIBUTARY_TOOLS_CLI_TOP_COMMAND_H_
#define TRIBUTARY_TOOLS_CLI_TOP_COMMAND_H_

#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "nlohmann/json.hpp"
#include "tools/cli/client_credentials.h"
#include "tools/cli/prometheus_text.h"

namespace tributary {

struct TopCommandOptions {
  std::string target;
  double interval_s = 2;
  bool once = false;
  bool json = false;
  ClientCredentialFlags credentials;
};

// One reading of the cluster.
struct TopReading {
  absl::Time at;
  struct Task {
    std::string name;  // "master", "/job:ps/replica:0/task:0"
    std::string address;
    std::string error;  // "" when its metrics were read
    std::vector<MetricSample> metrics;
    std::vector<std::string> devices;  // "CPU:0", ...
  };
  std::vector<Task> tasks;  // the master first
};

// The view of the change from `before` to `after` (same tasks, in order).
nlohmann::ordered_json TopView(const TopReading& before,
                               const TopReading& after);
// The view as the table `top` draws.
void PrintTopTable(const nlohmann::ordered_json& view, std::ostream& out);

int RunTopCommand(const TopCommandOptions& options, std::ostream& out,
                  std::ostream& err);

}  // namespace tributary

#endif  // TRIBUTARY_TOOLS_CLI_TOP_COMMAND_H_
