#include "tools/cli/top_command.h"

#include <sstream>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "tools/cli/prometheus_text.h"

namespace tributary {
namespace {

TEST(PrometheusTextTest, ParsesSamplesLabelsAndEscapes) {
  const std::vector<MetricSample> samples = ParsePrometheusText(
      "# HELP x_total Help.\n"
      "# TYPE x_total counter\n"
      "x_total{method=\"/a.S/M\",code=\"OK\"} 3\n"
      "x_total{method=\"q\\\"uote\\\\d\\n\",code=\"OK\"} 1.5e3\n"
      "up 1\n"
      "bad line\n"
      "h_bucket{le=\"+Inf\"} 4\n");
  ASSERT_EQ(samples.size(), 4u);
  EXPECT_EQ(samples[0].labels.at("method"), "/a.S/M");
  EXPECT_EQ(samples[1].labels.at("method"), "q\"uote\\d\n");
  EXPECT_EQ(samples[1].value, 1500);
  EXPECT_EQ(samples[2].name, "up");
  EXPECT_EQ(SumSamples(samples, "x_total"), 1503);
  EXPECT_EQ(SumSamples(samples, "x_total", {{"method", "/a.S/M"}}), 3);
  EXPECT_EQ(SumSamples(samples, "nothing"), 0);
}

std::string Histogram(double le_1ms, double le_10ms, double inf) {
  return "s_bucket{outcome=\"OK\",le=\"0.001\"} " + std::to_string(le_1ms) +
         "\ns_bucket{outcome=\"OK\",le=\"0.01\"} " + std::to_string(le_10ms) +
         "\ns_bucket{outcome=\"OK\",le=\"+Inf\"} " + std::to_string(inf) + "\n";
}

TEST(PrometheusTextTest, QuantilesOfWhatAHistogramGainedInterpolate) {
  const auto before = ParsePrometheusText(Histogram(10, 10, 10));
  // Gained: 0 under 1 ms, 100 between 1 and 10 ms, 0 above.
  const auto after = ParsePrometheusText(Histogram(10, 110, 110));
  EXPECT_NEAR(HistogramQuantileBetween(before, after, "s", 0.5), 0.0055, 1e-9);
  EXPECT_NEAR(HistogramQuantileBetween(before, after, "s", 0.99), 0.00991,
              1e-9);
  // Nothing gained: no quantile.
  EXPECT_EQ(HistogramQuantileBetween(after, after, "s", 0.5), -1);
  // Past the last finite bound: that bound.
  const auto slow = ParsePrometheusText(Histogram(10, 110, 210));
  EXPECT_EQ(HistogramQuantileBetween(after, slow, "s", 0.5), 0.01);
}

TopReading::Task Task(const std::string& name, const std::string& metrics,
                      const std::string& error = "") {
  TopReading::Task t;
  t.name = name;
  t.address = name == "master" ? "" : "127.0.0.1:2222";
  t.error = error;
  t.metrics = ParsePrometheusText(metrics);
  if (name != "master") t.devices = {"CPU:0"};
  return t;
}

TEST(TopViewTest, RatesAndLatencyFromTheChangeBetweenReadings) {
  TopReading before, after;
  before.at = absl::UnixEpoch();
  after.at = before.at + absl::Seconds(2);
  before.tasks = {
      Task(
          "master",
          "tributary_master_sessions 1\n"
          "tributary_master_steps_total{outcome=\"OK\"} 100\n"
          "tributary_master_steps_total{outcome=\"CANCELLED\"} 1\n" +
              [] {
                std::string h;
                for (const char* le : {"0.001", "0.01", "+Inf"}) {
                  h += std::string(
                           "tributary_master_step_seconds_bucket{"
                           "outcome=\"OK\",le=\"") +
                       le + "\"} 0\n";
                }
                return h;
              }()),
      Task("/job:worker/replica:0/task:0",
           "process_cpu_seconds_total 10\n"
           "process_resident_memory_bytes 1000\n"
           "tributary_recv_tensor_bytes_total{peer=\"/job:ps/replica:0/"
           "task:0\"} "
           "0\n")};
  after.tasks = {
      Task("master",
           "tributary_master_sessions 2\n"
           "tributary_master_steps_in_flight 1\n"
           "tributary_master_steps_total{outcome=\"OK\"} 300\n"
           "tributary_master_steps_total{outcome=\"CANCELLED\"} 5\n"
           "tributary_master_step_seconds_bucket{outcome=\"OK\",le=\"0.001\"} "
           "0\n"
           "tributary_master_step_seconds_bucket{outcome=\"OK\",le=\"0.01\"} "
           "200\n"
           "tributary_master_step_seconds_bucket{outcome=\"OK\",le=\"+Inf\"} "
           "200\n"),
      Task("/job:worker/replica:0/task:0",
           "process_cpu_seconds_total 11\n"
           "process_resident_memory_bytes 2048\n"
           "tributary_recv_tensor_bytes_total{peer=\"/job:ps/replica:0/"
           "task:0\"} "
           "4096\n"),
      Task("/job:ps/replica:0/task:0", "", "Deadline Exceeded")};
  const nlohmann::ordered_json view = TopView(before, after);
  EXPECT_EQ(view["interval_s"], 2);
  EXPECT_EQ(view["cluster"]["sessions"], 2);
  EXPECT_EQ(view["cluster"]["steps_in_flight"], 1);
  EXPECT_EQ(view["cluster"]["steps_per_s"], 102);  // (305 - 101) / 2
  EXPECT_EQ(view["cluster"]["failed_steps_per_s"], 2);
  EXPECT_NEAR(view["cluster"]["step_p50_s"].get<double>(), 0.0055, 1e-9);
  EXPECT_TRUE(view["tasks"][0]["recv_bytes_per_s"].is_null());
  const auto& worker = view["tasks"][1];
  EXPECT_EQ(worker["up"], true);
  EXPECT_EQ(worker["cpu_cores"], 0.5);
  EXPECT_EQ(worker["rss_bytes"], 2048);
  EXPECT_EQ(worker["recv_bytes_per_s"], 2048);
  EXPECT_EQ(worker["devices"], nlohmann::ordered_json({"CPU:0"}));
  // A task that did not answer: down, its error, no figures.
  const auto& ps = view["tasks"][2];
  EXPECT_EQ(ps["up"], false);
  EXPECT_EQ(ps["error"], "Deadline Exceeded");
  EXPECT_TRUE(ps["rss_bytes"].is_null());
  EXPECT_TRUE(ps["cpu_cores"].is_null());

  std::ostringstream table;
  PrintTopTable(view, table);
  const std::string text = table.str();
  EXPECT_TRUE(absl::StrContains(text, "steps/s 102.0")) << text;
  EXPECT_TRUE(absl::StrContains(text, "step p50 5.50 ms")) << text;
  EXPECT_TRUE(absl::StrContains(text, "2.0 KiB")) << text;
  EXPECT_TRUE(absl::StrContains(text, "DOWN")) << text;
  EXPECT_TRUE(
      absl::StrContains(text, "/job:ps/replica:0/task:0: Deadline Exceeded"))
      << text;
}

}  // namespace
}  // namespace tributary
