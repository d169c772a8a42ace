#include "common/metrics/step_metrics.h"

#include "absl/strings/match.h"
#include "gtest/gtest.h"

namespace tributary {
namespace metrics {
namespace {

TEST(StepMetricsTest, CountsByOutcomeOnlyWhileRecording) {
  Registry registry;
  StepMetrics steps(&registry, "test_step", "test steps");
  // Not recording: nothing counted, not even in flight.
  steps.End(steps.Start(), absl::StatusCode::kOk);
  EXPECT_TRUE(absl::StrContains(registry.Render(), "test_steps_in_flight 0\n"));
  EXPECT_FALSE(absl::StrContains(registry.Render(), "test_steps_total{"));

  EnableRecording();
  const absl::Time a = steps.Start();
  const absl::Time b = steps.Start();
  EXPECT_TRUE(absl::StrContains(registry.Render(), "test_steps_in_flight 2\n"));
  steps.End(a, absl::StatusCode::kOk);
  steps.End(b, absl::StatusCode::kDeadlineExceeded);
  steps.End(steps.Start(), absl::StatusCode::kOk);
  const std::string text = registry.Render();
  EXPECT_TRUE(absl::StrContains(text, "test_steps_in_flight 0\n")) << text;
  EXPECT_TRUE(absl::StrContains(text, "test_steps_total{outcome=\"OK\"} 2\n"));
  EXPECT_TRUE(absl::StrContains(
      text, "test_steps_total{outcome=\"DEADLINE_EXCEEDED\"} 1\n"));
  EXPECT_TRUE(absl::StrContains(
      text, "test_step_seconds_count{outcome=\"OK\"} 2\n"));
  EXPECT_TRUE(absl::StrContains(text, "# TYPE test_step_seconds histogram\n"));
}

}  // namespace
}  // namespace metrics
}  // namespace tributary
