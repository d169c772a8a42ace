#include "common/metrics/metrics.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "common/framework/logging.h"

namespace tributary {
namespace metrics {
namespace {

// Backslash and newline escaped, and double quotes when `quotes` (label
// values are quoted, HELP text is not).
std::string Escape(const std::string& text, bool quotes) {
  std::string out;
  for (char c : text) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '"' && quotes) {
      out += "\\\"";
    } else {
      out += c;
    }
  }
  return out;
}

std::string FormatValue(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  // The shortest of %.15g/%.16g/%.17g that reads back as the same double:
  // 0.05, not 0.050000000000000003.
  for (const int digits : {15, 16}) {
    std::string text = absl::StrFormat("%.*g", digits, value);
    if (std::strtod(text.c_str(), nullptr) == value) return text;
  }
  return absl::StrFormat("%.17g", value);
}

// `{a="x",b="y"}`, or "" without labels.
std::string LabelSet(
    const std::vector<std::pair<std::string, std::string>>& labels) {
  if (labels.empty()) return "";
  std::vector<std::string> parts;
  for (const auto& [name, value] : labels) {
    parts.push_back(absl::StrCat(name, "=\"", EscapeLabelValue(value), "\""));
  }
  return absl::StrCat("{", absl::StrJoin(parts, ","), "}");
}

std::vector<std::pair<std::string, std::string>> Zip(
    const std::vector<std::string>& names,
    const std::vector<std::string>& values) {
  std::vector<std::pair<std::string, std::string>> labels;
  for (size_t i = 0; i < names.size(); ++i) {
    labels.emplace_back(names[i], values[i]);
  }
  return labels;
}

bool IsValidName(const std::string& name) {
  if (name.empty() || (name[0] >= '0' && name[0] <= '9')) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c >= '0' && c <= '9') || c == '_' || c == ':';
  });
}

void Header(const std::string& name, const std::string& help,
            const std::string& type, std::string* out) {
  absl::StrAppend(out, "# HELP ", name, " ", Escape(help, /*quotes=*/false),
                  "\n", "# TYPE ", name, " ", type, "\n");
}

template <typename Cell>
void RenderSimple(const Family<Cell>& family, const std::string& type,
                  std::string* out) {
  Header(family.name(), family.help(), type, out);
  family.ForEach([&](const std::vector<std::string>& values, const Cell& cell) {
    absl::StrAppend(out, family.name(),
                    LabelSet(Zip(family.label_names(), values)), " ",
                    FormatValue(cell.value()), "\n");
  });
}

}  // namespace

std::string EscapeLabelValue(const std::string& value) {
  return Escape(value, /*quotes=*/true);
}

uint64_t AtomicDouble::ToBits(double value) {
  uint64_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return bits;
}

double AtomicDouble::FromBits(uint64_t bits) {
  double value;
  std::memcpy(&value, &bits, sizeof(value));
  return value;
}

void AtomicDouble::Add(double delta) {
  uint64_t old_bits = bits_.load(std::memory_order_relaxed);
  while (!bits_.compare_exchange_weak(old_bits,
                                      ToBits(FromBits(old_bits) + delta),
                                      std::memory_order_relaxed)) {
  }
}

HistogramCell::HistogramCell(const std::vector<double>* bounds)
    : bounds_(bounds), counts_(new std::atomic<uint64_t>[bounds->size() + 1]) {
  for (size_t i = 0; i <= bounds->size(); ++i) counts_[i] = 0;
}

void HistogramCell::Observe(double value) {
  const size_t bucket =
      std::lower_bound(bounds_->begin(), bounds_->end(), value) -
      bounds_->begin();
  counts_[bucket].fetch_add(1, std::memory_order_relaxed);
  sum_.Add(value);
}

std::vector<uint64_t> HistogramCell::counts() const {
  std::vector<uint64_t> out(bounds_->size() + 1);
  for (size_t i = 0; i < out.size(); ++i) {
    out[i] = counts_[i].load(std::memory_order_relaxed);
  }
  return out;
}

template <typename Cell>
Family<Cell>::Family(std::string name, std::string help,
                     std::vector<std::string> label_names,
                     std::vector<double> bounds)
    : name_(std::move(name)),
      help_(std::move(help)),
      label_names_(std::move(label_names)),
      bounds_(std::move(bounds)) {}

template <>
CounterCell* Family<CounterCell>::MakeCell() {
  return new CounterCell;
}
template <>
GaugeCell* Family<GaugeCell>::MakeCell() {
  return new GaugeCell;
}
template <>
HistogramCell* Family<HistogramCell>::MakeCell() {
  return new HistogramCell(&bounds_);
}

template <typename Cell>
Cell* Family<Cell>::With(absl::Span<const std::string> values) {
  CHECK_EQ(values.size(), label_names_.size());
  std::vector<std::string> key(values.begin(), values.end());
  absl::MutexLock l(&mu_);
  std::unique_ptr<Cell>& cell = cells_[key];
  if (cell == nullptr) cell.reset(MakeCell());
  return cell.get();
}

template <typename Cell>
void Family<Cell>::ForEach(
    const std::function<void(const std::vector<std::string>&, const Cell&)>&
        visit) const {
  // Sorted, so a scrape is stable and readable.
  std::map<std::vector<std::string>, const Cell*> sorted;
  {
    absl::MutexLock l(&mu_);
    for (const auto& [values, cell] : cells_) sorted[values] = cell.get();
  }
  for (const auto& [values, cell] : sorted) visit(values, *cell);
}

template class Family<CounterCell>;
template class Family<GaugeCell>;
template class Family<HistogramCell>;

namespace {

template <typename F>
F* FindOrMake(absl::flat_hash_map<std::string, std::unique_ptr<F>>* families,
              const std::string& name, const std::string& help,
              std::vector<std::string> label_names,
              std::vector<double> bounds = {}) {
  CHECK(IsValidName(name)) << "bad metric name " << name;
  for (const std::string& label : label_names) {
    CHECK(IsValidName(label) && label != "le") << "bad label name " << label;
  }
  auto& family = (*families)[name];
  if (family == nullptr) {
    family.reset(new F(name, help, std::move(label_names), std::move(bounds)));
  } else {
    CHECK(family->help() == help && family->label_names() == label_names)
        << "metric " << name << " registered twice differently";
  }
  return family.get();
}

}  // namespace

CounterFamily* Registry::Counter(const std::string& name,
                                 const std::string& help,
                                 std::vector<std::string> label_names) {
  absl::MutexLock l(&mu_);
  CHECK(!gauges_.contains(name) && !histograms_.contains(name)) << name;
  return FindOrMake(&counters_, name, help, std::move(label_names));
}

GaugeFamily* Registry::Gauge(const std::string& name, const std::string& help,
                             std::vector<std::string> label_names) {
  absl::MutexLock l(&mu_);
  CHECK(!counters_.contains(name) && !histograms_.contains(name)) << name;
  return FindOrMake(&gauges_, name, help, std::move(label_names));
}

HistogramFamily* Registry::Histogram(const std::string& name,
                                     const std::string& help,
                                     std::vector<std::string> label_names,
                                     std::vector<double> bounds) {
  CHECK(std::is_sorted(bounds.begin(), bounds.end()) && !bounds.empty());
  absl::MutexLock l(&mu_);
  CHECK(!counters_.contains(name) && !gauges_.contains(name)) << name;
  return FindOrMake(&histograms_, name, help, std::move(label_names),
                    std::move(bounds));
}

int Registry::AddCollector(Collector collector) {
  absl::MutexLock l(&mu_);
  const int id = next_collector_++;
  collectors_[id] = std::move(collector);
  return id;
}

void Registry::RemoveCollector(int id) {
  absl::MutexLock l(&mu_);
  collectors_.erase(id);
}

std::string Registry::Render() const {
  // name -> its text; families are sorted by name.
  std::map<std::string, std::string> parts;
  absl::MutexLock l(&mu_);
  for (const auto& [name, family] : counters_) {
    RenderSimple(*family, "counter", &parts[name]);
  }
  for (const auto& [name, family] : gauges_) {
    RenderSimple(*family, "gauge", &parts[name]);
  }
  // Named references, not a structured binding: a C++17 lambda may not
  // capture one (clang refuses; the fuzz build uses clang).
  for (const auto& entry : histograms_) {
    const std::string& name = entry.first;
    const auto& family = entry.second;
    std::string& out = parts[name];
    Header(name, family->help(), "histogram", &out);
    const std::vector<double>& bounds = family->bounds_;
    family->ForEach(
        [&](const std::vector<std::string>& values, const HistogramCell& cell) {
          auto labels = Zip(family->label_names(), values);
          const std::vector<uint64_t> counts = cell.counts();
          uint64_t cumulative = 0;
          for (size_t i = 0; i < counts.size(); ++i) {
            cumulative += counts[i];
            auto with_le = labels;
            with_le.emplace_back(
                "le", i < bounds.size() ? FormatValue(bounds[i]) : "+Inf");
            absl::StrAppend(&out, name, "_bucket", LabelSet(with_le), " ",
                            cumulative, "\n");
          }
          absl::StrAppend(&out, name, "_sum", LabelSet(labels), " ",
                          FormatValue(cell.sum()), "\n", name, "_count",
                          LabelSet(labels), " ", cumulative, "\n");
        });
  }
  std::vector<CollectedFamily> collected;
  for (const auto& [id, collector] : collectors_) collector(&collected);
  // Collectors may each give samples of one family (one per device): one
  // header, every sample. A name a registered family has is left out.
  std::map<std::string, std::string> collected_parts;
  for (const CollectedFamily& family : collected) {
    if (parts.count(family.name) != 0) continue;
    std::string& out = collected_parts[family.name];
    if (out.empty()) Header(family.name, family.help, family.type, &out);
    for (const Sample& sample : family.samples) {
      absl::StrAppend(&out, family.name, LabelSet(sample.labels), " ",
                      FormatValue(sample.value), "\n");
    }
  }
  parts.merge(collected_parts);
  std::string text;
  for (const auto& [name, part] : parts) text += part;
  return text;
}

namespace {
std::atomic<bool> recording{false};
}  // namespace

void EnableRecording() { recording.store(true, std::memory_order_relaxed); }
bool RecordingEnabled() { return recording.load(std::memory_order_relaxed); }

Registry& Default() {
  static Registry* registry = new Registry;
  return *registry;
}

std::vector<double> LatencyBuckets() {
  return {0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05,
          0.1,    0.25,    0.5,    1,     2.5,    5,     10,   30,    60};
}

}  // namespace metrics
}  // namespace tributary
