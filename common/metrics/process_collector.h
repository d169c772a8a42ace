#ifndef TRIBUTARY_COMMON_METRICS_PROCESS_COLLECTOR_H_
#define TRIBUTARY_COMMON_METRICS_PROCESS_COLLECTOR_H_

// The process's own figures under Prometheus' standard names, read from
// /proc/self at each scrape: process_cpu_seconds_total,
// process_resident_memory_bytes, process_virtual_memory_bytes,
// process_open_fds, process_max_fds, process_start_time_seconds and
// process_threads. A figure /proc cannot give is left out.

#include "common/metrics/metrics.h"

namespace tributary {
namespace metrics {

// Adds the collector to `registry` (once per registry; later calls do
// nothing).
void AddProcessCollector(Registry* registry);

}  // namespace metrics
}  // namespace tributary

#endif  // TRIBUTARY_COMMON_METRICS_PROCESS_COLLECTOR_H_
