#ifndef TRIBUTARY_COMMON_DAEMON_DAEMON_METRICS_H_
#define TRIBUTARY_COMMON_DAEMON_DAEMON_METRICS_H_

// The daemons' metrics, written once for both mains: recording into
// metrics::Default() (always, unless TRIBUTARY_METRICS=off in the
// environment: what the metrics benchmark compares with), the process's
// figures (process_*) and the host block cache's (tributary_host_cache_*),
// served over gRPC (/tributary.Metrics, tributary top) and, with
// --metrics-listen, over HTTP at /metrics (common/metrics/http_exposer.h):
//
//   std::string metrics_listen;
//   AddMetricsFlag(app, &metrics_listen);
//   ... after the server started ...
//   auto exposer = StartDaemonMetrics(metrics_listen);  // logs the address
//
// Without the flag no HTTP port is opened.

#include <memory>
#include <string>

#include "CLI/CLI.hpp"
#include "absl/status/statusor.h"
#include "common/metrics/http_exposer.h"

namespace tributary {

void AddMetricsFlag(CLI::App& app, std::string* listen);

// Turns recording on (see above); then null when `listen` is empty, else
// the exposer, its address logged as "metrics on http://ADDR/metrics".
// Unavailable or InvalidArgument as HttpExposer::Start says.
absl::StatusOr<std::unique_ptr<metrics::HttpExposer>> StartDaemonMetrics(
    const std::string& listen);

// The daemon's exit status for StartDaemonMetrics' error, which it logs:
// kExitUsage for a malformed address, kExitRuntime otherwise.
int MetricsExitStatus(const absl::Status& error);

}  // namespace tributary

#endif  // TRIBUTARY_COMMON_DAEMON_DAEMON_METRICS_H_
