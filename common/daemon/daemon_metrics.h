#ifndef TRIBUTARY_COMMON_DAEMON_DAEMON_METRICS_H_
#define TRIBUTARY_COMMON_DAEMON_DAEMON_METRICS_H_

// The --metrics-listen flag both daemons take and what it starts: an HTTP
// exposer (common/metrics/http_exposer.h) serving metrics::Default() at
// /metrics, with the process's figures (process_*) and the host block
// cache's (tributary_host_cache_*) added, written once for both mains:
//
//   std::string metrics_listen;
//   AddMetricsFlag(app, &metrics_listen);
//   ... after the server started ...
//   auto exposer = StartDaemonMetrics(metrics_listen);  // logs the address
//
// Without the flag nothing listens and nothing is recorded
// (metrics::EnableRecording).

#include <memory>
#include <string>

#include "CLI/CLI.hpp"
#include "absl/status/statusor.h"
#include "common/metrics/http_exposer.h"

namespace tributary {

void AddMetricsFlag(CLI::App& app, std::string* listen);

// Null when `listen` is empty; otherwise the exposer, its address logged as
// "metrics on http://ADDR/metrics". Unavailable or InvalidArgument as
// HttpExposer::Start says.
absl::StatusOr<std::unique_ptr<metrics::HttpExposer>> StartDaemonMetrics(
    const std::string& listen);

// The daemon's exit status for StartDaemonMetrics' error, which it logs:
// kExitUsage for a malformed address, kExitRuntime otherwise.
int MetricsExitStatus(const absl::Status& error);

}  // namespace tributary

#endif  // TRIBUTARY_COMMON_DAEMON_DAEMON_METRICS_H_
