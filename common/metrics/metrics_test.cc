#include "common/metrics/metrics.h"

#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "common/metrics/process_collector.h"
#include "gtest/gtest.h"

namespace tributary {
namespace metrics {
namespace {

TEST(MetricsTest, CountersAndGaugesRenderInTheTextFormatSortedByName) {
  Registry registry;
  CounterFamily* rpcs =
      registry.Counter("test_rpcs_total", "RPCs handled.", {"method", "code"});
  rpcs->With({"/a.S/Run", "OK"})->Increment();
  rpcs->With({"/a.S/Run", "OK"})->Increment(2);
  rpcs->With({"/a.S/Get", "NOT_FOUND"})->Increment();
  GaugeFamily* sessions = registry.Gauge("test_sessions", "Open sessions.");
  sessions->With({})->Set(3);
  sessions->With({})->Add(-1);
  EXPECT_EQ(registry.Render(),
            "# HELP test_rpcs_total RPCs handled.\n"
            "# TYPE test_rpcs_total counter\n"
            "test_rpcs_total{method=\"/a.S/Get\",code=\"NOT_FOUND\"} 1\n"
            "test_rpcs_total{method=\"/a.S/Run\",code=\"OK\"} 3\n"
            "# HELP test_sessions Open sessions.\n"
            "# TYPE test_sessions gauge\n"
            "test_sessions 2\n");
}

TEST(MetricsTest, HistogramBucketsAreCumulativeWithSumAndCount) {
  Registry registry;
  HistogramFamily* latency =
      registry.Histogram("test_seconds", "Latency.", {"outcome"}, {0.1, 1});
  HistogramCell* ok = latency->With({"ok"});
  ok->Observe(0.05);
  ok->Observe(0.1);  // on a bound: in that bucket (le is <=)
  ok->Observe(0.5);
  ok->Observe(7);
  EXPECT_EQ(registry.Render(),
            "# HELP test_seconds Latency.\n"
            "# TYPE test_seconds histogram\n"
            "test_seconds_bucket{outcome=\"ok\",le=\"0.1\"} 2\n"
            "test_seconds_bucket{outcome=\"ok\",le=\"1\"} 3\n"
            "test_seconds_bucket{outcome=\"ok\",le=\"+Inf\"} 4\n"
            "test_seconds_sum{outcome=\"ok\"} 7.65\n"
            "test_seconds_count{outcome=\"ok\"} 4\n");
}

TEST(MetricsTest, LabelValuesAndHelpAreEscaped) {
  Registry registry;
  registry.Counter("test_total", "Two\nlines \\ here", {"peer"})
      ->With({"a\"b\\c\nd"})
      ->Increment();
  EXPECT_EQ(registry.Render(),
            "# HELP test_total Two\\nlines \\\\ here\n"
            "# TYPE test_total counter\n"
            "test_total{peer=\"a\\\"b\\\\c\\nd\"} 1\n");
}

TEST(MetricsTest, TheSameFamilyTwiceIsOneFamily) {
  Registry registry;
  CounterFamily* a = registry.Counter("test_total", "Help.", {"x"});
  CounterFamily* b = registry.Counter("test_total", "Help.", {"x"});
  EXPECT_EQ(a, b);
  EXPECT_EQ(a->With({"1"}), b->With({"1"}));
}

TEST(MetricsDeathTest, AMismatchedOrBadFamilyIsAProgrammingError) {
  Registry registry;
  registry.Counter("test_total", "Help.", {"x"});
  EXPECT_DEATH(registry.Counter("test_total", "Help.", {"y"}), "twice");
  EXPECT_DEATH(registry.Gauge("test_total", "Help."), "test_total");
  EXPECT_DEATH(registry.Counter("bad-name", "Help."), "bad metric name");
  EXPECT_DEATH(registry.Counter("test2", "Help.", {"le"}), "bad label name");
}

TEST(MetricsTest, CollectorsOfOneFamilyShareItsHeaderAndCanBeRemoved) {
  Registry registry;
  auto device = [](const char* name, double bytes) {
    return [name, bytes](std::vector<CollectedFamily>* out) {
      out->push_back({"test_bytes",
                      "Bytes.",
                      "gauge",
                      {Sample{{{"device", name}}, bytes}}});
    };
  };
  registry.AddCollector(device("CPU:0", 10));
  const int gpu = registry.AddCollector(device("GPU:0", 20));
  std::string text = registry.Render();
  EXPECT_EQ(text.find("# TYPE test_bytes gauge"),
            text.rfind("# TYPE test_bytes gauge"));
  EXPECT_TRUE(absl::StrContains(text, "test_bytes{device=\"CPU:0\"} 10\n"));
  EXPECT_TRUE(absl::StrContains(text, "test_bytes{device=\"GPU:0\"} 20\n"));
  registry.RemoveCollector(gpu);
  EXPECT_FALSE(absl::StrContains(registry.Render(), "GPU:0"));
}

TEST(MetricsTest, ConcurrentUpdatesAreAllCounted) {
  Registry registry;
  CounterFamily* family = registry.Counter("test_total", "Help.", {"t"});
  HistogramFamily* histogram =
      registry.Histogram("test_seconds", "Help.", {}, {1});
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 10000; ++i) {
        family->With({"same"})->Increment();
        histogram->With({})->Observe(0.5);
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(family->With({"same"})->value(), 40000);
  EXPECT_EQ(histogram->With({})->counts()[0], 40000u);
  EXPECT_EQ(histogram->With({})->sum(), 20000);
}

TEST(MetricsTest, TheProcessCollectorReportsThisProcess) {
  Registry registry;
  AddProcessCollector(&registry);
  AddProcessCollector(&registry);  // once only
  const std::string text = registry.Render();
  for (const char* name :
       {"process_cpu_seconds_total", "process_resident_memory_bytes",
        "process_virtual_memory_bytes", "process_open_fds",
        "process_start_time_seconds", "process_threads"}) {
    EXPECT_EQ(text.find(absl::StrCat("# TYPE ", name)),
              text.rfind(absl::StrCat("# TYPE ", name)))
        << name;
    EXPECT_TRUE(absl::StrContains(text, absl::StrCat("\n", name, " ")))
        << name << "\n"
        << text;
  }
  // This process has a resident size of more than a megabyte.
  const size_t at = text.find("\nprocess_resident_memory_bytes ");
  EXPECT_GT(std::stod(text.substr(at + 31)), 1e6);
}

}  // namespace
}  // namespace metrics
}  // namespace tributary
