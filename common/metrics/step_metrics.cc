#include "common/metrics/step_metrics.h"

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
  const std::string code = absl::StatusCodeToString(outcome);
  in_flight_->Add(-1);
  total_->With({code})->Increment();
  seconds_->With({code})->Observe(absl::ToDoubleSeconds(absl::Now() - start));
}

}  // namespace metrics
}  // namespace tributary
