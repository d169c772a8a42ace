// What recording a metric costs (Google Benchmark; docs/benchmarks.md,
// "Metrics"): the per-call work the daemons add to an RPC and a step when
// --metrics-listen is on, and a scrape of a registry the size of a worker's.
//   bazel run -c opt //common/metrics:metrics_benchmark
#include <string>
#include <thread>

#include "benchmark/benchmark.h"
#include "common/metrics/metrics.h"
#include "common/metrics/step_metrics.h"

namespace tributary {
namespace metrics {
namespace {

void BM_CounterIncrement(benchmark::State& state) {
  Registry registry;
  CounterCell* cell = registry.Counter("c_total", "c", {"m"})->With({"x"});
  for (auto _ : state) cell->Increment();
}
BENCHMARK(BM_CounterIncrement)->Threads(1)->Threads(2);

void BM_HistogramObserve(benchmark::State& state) {
  Registry registry;
  HistogramCell* cell =
      registry.Histogram("h_seconds", "h", {}, LatencyBuckets())->With({});
  double v = 0.0003;
  for (auto _ : state) cell->Observe(v);
}
BENCHMARK(BM_HistogramObserve)->Threads(1)->Threads(2);

// A family lookup by label values (what a first use of a method or peer costs).
void BM_FamilyWith(benchmark::State& state) {
  Registry registry;
  CounterFamily* family = registry.Counter("c_total", "c", {"method", "code"});
  const std::string method = "/tensorflow.WorkerService/RunGraph";
  for (auto _ : state) benchmark::DoNotOptimize(family->With({method, "OK"}));
}
BENCHMARK(BM_FamilyWith);

// One step's Start and End (the master's RunStep, a worker's RunGraph).
void BM_StepStartEnd(benchmark::State& state) {
  EnableRecording();
  static Registry* registry = new Registry;
  static StepMetrics* steps = new StepMetrics(registry, "s_step", "steps");
  for (auto _ : state) steps->End(steps->Start(), absl::StatusCode::kOk);
}
BENCHMARK(BM_StepStartEnd)->Threads(1)->Threads(2);

// A scrape of a registry shaped like a worker's: 12 methods x 2 codes,
// 12 latency histograms, a few gauges.
void BM_Render(benchmark::State& state) {
  Registry registry;
  CounterFamily* handled = registry.Counter("rpc_total", "r", {"method", "code"});
  HistogramFamily* seconds =
      registry.Histogram("rpc_seconds", "s", {"method"}, LatencyBuckets());
  for (int i = 0; i < 12; ++i) {
    const std::string method = "/tensorflow.WorkerService/M" + std::to_string(i);
    handled->With({method, "OK"})->Increment(i);
    handled->With({method, "CANCELLED"})->Increment();
    seconds->With({method})->Observe(0.001 * i);
  }
  for (int i = 0; i < 6; ++i) {
    registry.Gauge("g" + std::to_string(i), "g")->With({})->Set(i);
  }
  size_t bytes = 0;
  for (auto _ : state) bytes = registry.Render().size();
  state.counters["bytes"] = static_cast<double>(bytes);
}
BENCHMARK(BM_Render);

}  // namespace
}  // namespace metrics
}  // namespace tributary

BENCHMARK_MAIN();
