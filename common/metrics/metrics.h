#ifndef TRIBUTARY_COMMON_METRICS_METRICS_H_
#define TRIBUTARY_COMMON_METRICS_METRICS_H_

// Process-wide metrics in Prometheus' data model, rendered in its text
// exposition format (version 0.0.4) for a daemon's /metrics
// (http_exposer.h). Debian ships no C++ Prometheus client; this is the
// small part of one a daemon needs:
//   Counter    a monotonic total (`_total` by convention);
//   Gauge      a value that goes up and down;
//   Histogram  cumulative buckets, `_sum` and `_count`;
// each a family with fixed label names, cells made on first use of a set of
// label values and never removed (label values must come from small sets:
// methods, status codes, task names). Collectors add families computed at
// scrape time (allocator bytes, process CPU and memory).
//
// Thread-safe. A cell pointer stays valid for the life of the registry, so
// a hot path looks its cell up once and then only adds (one atomic).

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/node_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "absl/types/span.h"

namespace tributary {
namespace metrics {

// A double updated without a lock.
class AtomicDouble {
 public:
  void Add(double delta);
  void Set(double value) {
    bits_.store(ToBits(value), std::memory_order_relaxed);
  }
  double Get() const { return FromBits(bits_.load(std::memory_order_relaxed)); }

 private:
  static uint64_t ToBits(double value);
  static double FromBits(uint64_t bits);
  std::atomic<uint64_t> bits_{0};
};

class CounterCell {
 public:
  void Increment(double by = 1) { value_.Add(by); }
  double value() const { return value_.Get(); }

 private:
  AtomicDouble value_;
};

class GaugeCell {
 public:
  void Set(double value) { value_.Set(value); }
  void Add(double delta) { value_.Add(delta); }
  double value() const { return value_.Get(); }

 private:
  AtomicDouble value_;
};

class HistogramCell {
 public:
  explicit HistogramCell(const std::vector<double>* bounds);
  void Observe(double value);
  // Non-cumulative counts per bucket, the last one +Inf's.
  std::vector<uint64_t> counts() const;
  double sum() const { return sum_.Get(); }

 private:
  const std::vector<double>* const bounds_;
  std::unique_ptr<std::atomic<uint64_t>[]> counts_;
  AtomicDouble sum_;
};

// One metric family: a name, help, type and label names, and its cells.
template <typename Cell>
class Family {
 public:
  // Made by Registry (below), which owns it.
  Family(std::string name, std::string help,
         std::vector<std::string> label_names, std::vector<double> bounds = {});
  // The cell for `values` (one per label name, in order), made on first use.
  Cell* With(absl::Span<const std::string> values);
  Cell* With(std::initializer_list<std::string> values) {
    return With(absl::MakeConstSpan(values.begin(), values.size()));
  }
  // Every cell with its label values, for rendering.
  void ForEach(const std::function<void(const std::vector<std::string>&,
                                        const Cell&)>& visit) const;

  const std::string& name() const { return name_; }
  const std::string& help() const { return help_; }
  const std::vector<std::string>& label_names() const { return label_names_; }

 private:
  friend class Registry;
  Cell* MakeCell();

  const std::string name_;
  const std::string help_;
  const std::vector<std::string> label_names_;
  const std::vector<double> bounds_;  // histograms only
  mutable absl::Mutex mu_;
  // node_hash_map: cells never move.
  absl::node_hash_map<std::vector<std::string>, std::unique_ptr<Cell>> cells_
      ABSL_GUARDED_BY(mu_);
};

using CounterFamily = Family<CounterCell>;
using GaugeFamily = Family<GaugeCell>;
using HistogramFamily = Family<HistogramCell>;

// Families computed at scrape time.
struct Sample {
  std::vector<std::pair<std::string, std::string>> labels;
  double value = 0;
};
struct CollectedFamily {
  std::string name;
  std::string help;
  std::string type;  // "gauge" or "counter"
  std::vector<Sample> samples;
};
using Collector = std::function<void(std::vector<CollectedFamily>*)>;

class Registry {
 public:
  Registry() = default;
  Registry(const Registry&) = delete;
  Registry& operator=(const Registry&) = delete;

  // The family of that name, made on the first call; later calls must give
  // the same type, help and labels (a mismatch is a programming error and
  // CHECK-fails). Names and label names must be valid Prometheus names.
  CounterFamily* Counter(const std::string& name, const std::string& help,
                         std::vector<std::string> label_names = {});
  GaugeFamily* Gauge(const std::string& name, const std::string& help,
                     std::vector<std::string> label_names = {});
  // `bounds`: the buckets' upper bounds, increasing (+Inf is added).
  HistogramFamily* Histogram(const std::string& name, const std::string& help,
                             std::vector<std::string> label_names,
                             std::vector<double> bounds);

  // Adds a collector; the returned id removes it (RemoveCollector), so a
  // collector that reads an object is removed before the object goes.
  // Collectors run at each Render under the registry's lock: they must be
  // quick and must not use the registry.
  int AddCollector(Collector collector);
  void RemoveCollector(int id);

  // Every family, collectors' included, in the text exposition format,
  // sorted by name.
  std::string Render() const;

 private:
  mutable absl::Mutex mu_;
  absl::flat_hash_map<std::string, std::unique_ptr<CounterFamily>> counters_
      ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<std::string, std::unique_ptr<GaugeFamily>> gauges_
      ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<std::string, std::unique_ptr<HistogramFamily>> histograms_
      ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<int, Collector> collectors_ ABSL_GUARDED_BY(mu_);
  int next_collector_ ABSL_GUARDED_BY(mu_) = 0;
};

// The process's registry, which the daemons serve.
Registry& Default();

// Whether the runtime records into Default(): off until a daemon turns it on
// (common/daemon/daemon_metrics.h), so libraries, tests and the local CLI
// pay nothing. One way, and meant to be turned on before serving: gauges
// of things in flight count only what began after. Registries of one's own
// (tests) record regardless.
void EnableRecording();
bool RecordingEnabled();

// Latency buckets in seconds for steps and RPCs: 100 us to 60 s.
std::vector<double> LatencyBuckets();

// A label value or HELP text escaped as the exposition format wants.
std::string EscapeLabelValue(const std::string& value);

}  // namespace metrics
}  // namespace tributary

#endif  // TRIBUTARY_COMMON_METRICS_METRICS_H_
