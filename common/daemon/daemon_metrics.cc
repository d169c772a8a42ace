#include "common/daemon/daemon_metrics.h"

#include <cstdlib>
#include <string>

#include "common/daemon/daemon_main.h"
#include "common/framework/caching_allocator.h"
#include "common/metrics/process_collector.h"
#include "spdlog/spdlog.h"

namespace tributary {
namespace {

// The process-wide host block cache (common/framework/caching_allocator.h),
// which every CPU device's tensors come from.
void CollectHostCache(std::vector<metrics::CollectedFamily>* out) {
  const HostCacheStats stats = HostBlockCache::Global()->GetStats();
  out->push_back({"tributary_host_cache_cached_bytes",
                  "Host memory held in freed blocks for reuse.",
                  "gauge",
                  {metrics::Sample{{}, double(stats.cached_bytes)}}});
  out->push_back({"tributary_host_cache_mapped_bytes",
                  "Host memory mapped by the block cache (in use + cached).",
                  "gauge",
                  {metrics::Sample{{}, double(stats.mapped_bytes)}}});
}

}  // namespace

void AddMetricsFlag(CLI::App& app, std::string* listen) {
  app.add_option("--metrics-listen", *listen,
                 "Serve Prometheus metrics over HTTP at http://ADDR/metrics "
                 "(host:port; port 0 picks one, logged as \"metrics on "
                 "...\"). Default: not served");
}

absl::StatusOr<std::unique_ptr<metrics::HttpExposer>> StartDaemonMetrics(
    const std::string& listen) {
  const char* recording = std::getenv("TRIBUTARY_METRICS");
  if (recording == nullptr || std::string(recording) != "off") {
    metrics::EnableRecording();
  }
  metrics::Registry& registry = metrics::Default();
  metrics::AddProcessCollector(&registry);
  static const int host_cache = registry.AddCollector(CollectHostCache);
  (void)host_cache;
  if (listen.empty()) return std::unique_ptr<metrics::HttpExposer>();
  absl::StatusOr<std::unique_ptr<metrics::HttpExposer>> exposer =
      metrics::HttpExposer::Start(listen, &registry);
  if (exposer.ok()) {
    spdlog::info("metrics on http://{}/metrics", (*exposer)->address());
  }
  return exposer;
}

int MetricsExitStatus(const absl::Status& error) {
  spdlog::error("{}", std::string(error.message()));
  return absl::IsInvalidArgument(error) ? kExitUsage : kExitRuntime;
}

}  // namespace tributary
