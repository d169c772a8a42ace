#include "common/metrics/step_metrics.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"

namespace tributary {
namespace metrics {

StepMetrics::StepMetrics(Registry* registry, const std::string& name,
                         const std::string& what)
    : total_(registry->Counter(
          absl::StrCat(name, "s_total"),
          absl::StrCat("Count of ", what, ", by outcome (status code)."),
          {"outcome"})),
      seconds_(registry->Histogram(
          absl::StrCat(name, "_seconds"),
          absl::StrCat("Latency of ", what, " in seconds, by outcome."),
          {"outcome"}, LatencyBuckets())),
      in_flight_(registry
                     ->Gauge(absl::StrCat(name, "s_in_flight"),
                             absl::StrCat("Count of ", what,
                                          " started and not yet ended."))
                     ->With({})) {}

absl::Time StepMetrics::Start() {
  if (!RecordingEnabled()) return absl::InfinitePast();
  in_flight_->Add(1);
  return absl::Now();
}

void StepMetrics::End(absl::Time start, absl::StatusCode outcome) {
  if (start == absl::InfinitePast()) return;
  in_flight_->Add(-1);
  const int index = std::clamp(static_cast<int>(outcome), 0, kCodes - 1);
  CounterCell* total = total_by_code_[index].load();
  HistogramCell* seconds = seconds_by_code_[index].load();
  if (total == nullptr || seconds == nullptr) {
    // Racing first Ends of a code store the same cells: With is idempotent.
    const std::string code = absl::StatusCodeToString(outcome);
    total = total_->With({code});
    seconds = seconds_->With({code});
    total_by_code_[index].store(total);
    seconds_by_code_[index].store(seconds);
  }
  total->Increment();
  seconds->Observe(absl::ToDoubleSeconds(absl::Now() - start));
}

}  // namespace metrics
}  // namespace tributary
