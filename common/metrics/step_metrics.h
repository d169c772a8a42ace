#ifndef TRIBUTARY_COMMON_METRICS_STEP_METRICS_H_
#define TRIBUTARY_COMMON_METRICS_STEP_METRICS_H_

// Counts and times one kind of work item (the master's steps, a worker's
// RunGraphs) in a Registry as three families:
//   <name>s_total{outcome}        items ended, by status code name
//                                 ("OK", "DEADLINE_EXCEEDED", ...);
//   <name>_seconds{outcome}       their latency (metrics::LatencyBuckets);
//   <name>s_in_flight             items started and not yet ended.
// Thread-safe; each outcome's cells are looked up once and kept, so an End
// allocates nothing.
// Records only while RecordingEnabled() (metrics.h): a Start made before
// recording was on is not counted at its End either.

#include <atomic>
#include <string>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "common/metrics/metrics.h"

namespace tributary {
namespace metrics {

class StepMetrics {
 public:
  // `name`: "tributary_master_step"; `what`: "steps the master ran" (help).
  StepMetrics(Registry* registry, const std::string& name,
              const std::string& what);

  // One item began; pass the returned time to End (InfinitePast when not
  // recording).
  absl::Time Start();
  void End(absl::Time start, absl::StatusCode outcome);

 private:
  static constexpr int kCodes = 17;  // absl::StatusCode kOk .. kUnauthenticated

  CounterFamily* const total_;
  HistogramFamily* const seconds_;
  GaugeCell* const in_flight_;
  std::atomic<CounterCell*> total_by_code_[kCodes] = {};
  std::atomic<HistogramCell*> seconds_by_code_[kCodes] = {};
};

}  // namespace metrics
}  // namespace tributary

#endif  // TRIBUTARY_COMMON_METRICS_STEP_METRICS_H_
