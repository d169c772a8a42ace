#include "tools/cli/prometheus_text.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <sstream>

namespace tributary {
namespace {

bool IsNameChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9') || c == '_' || c == ':';
}

double ParseValue(const std::string& text, bool* ok) {
  if (text == "+Inf") return INFINITY;
  if (text == "-Inf") return -INFINITY;
  if (text == "NaN") return NAN;
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  *ok = end != text.c_str() && *end == '\0';
  return value;
}

// One sample line, or false.
bool ParseLine(const std::string& line, MetricSample* sample) {
  size_t i = 0;
  while (i < line.size() && IsNameChar(line[i])) ++i;
  if (i == 0) return false;
  sample->name = line.substr(0, i);
  sample->labels.clear();
  if (i < line.size() && line[i] == '{') {
    ++i;
    while (i < line.size() && line[i] != '}') {
      const size_t name_start = i;
      while (i < line.size() && IsNameChar(line[i])) ++i;
      const std::string label = line.substr(name_start, i - name_start);
      if (i + 1 >= line.size() || line[i] != '=' || line[i + 1] != '"') {
        return false;
      }
      i += 2;
      std::string value;
      while (i < line.size() && line[i] != '"') {
        if (line[i] == '\\' && i + 1 < line.size()) {
          ++i;
          value += line[i] == 'n' ? '\n' : line[i];
        } else {
          value += line[i];
        }
        ++i;
      }
      if (i >= line.size()) return false;
      ++i;  // the closing quote
      sample->labels[label] = value;
      if (i < line.size() && line[i] == ',') ++i;
    }
    if (i >= line.size()) return false;
    ++i;  // '}'
  }
  if (i >= line.size() || line[i] != ' ') return false;
  std::string value_text = line.substr(i + 1);
  value_text = value_text.substr(0, value_text.find(' '));  // a timestamp
  bool ok = true;
  sample->value = ParseValue(value_text, &ok);
  return ok;
}

// le -> cumulative count of `name`_bucket, summed over other labels.
std::map<double, double> Buckets(const std::vector<MetricSample>& samples,
                                 const std::string& name) {
  std::map<double, double> buckets;
  const std::string bucket = name + "_bucket";
  for (const MetricSample& s : samples) {
    if (s.name != bucket) continue;
    auto le = s.labels.find("le");
    if (le == s.labels.end()) continue;
    bool ok = true;
    const double bound = ParseValue(le->second, &ok);
    if (ok) buckets[bound] += s.value;
  }
  return buckets;
}

}  // namespace

std::vector<MetricSample> ParsePrometheusText(const std::string& text) {
  std::vector<MetricSample> samples;
  std::istringstream lines(text);
  std::string line;
  MetricSample sample;
  while (std::getline(lines, line)) {
    if (line.empty() || line[0] == '#') continue;
    if (ParseLine(line, &sample)) samples.push_back(sample);
  }
  return samples;
}

double SumSamples(const std::vector<MetricSample>& samples,
                  const std::string& name,
                  const std::map<std::string, std::string>& match) {
  double sum = 0;
  for (const MetricSample& s : samples) {
    if (s.name != name) continue;
    const bool matches =
        std::all_of(match.begin(), match.end(), [&](const auto& m) {
          auto it = s.labels.find(m.first);
          return it != s.labels.end() && it->second == m.second;
        });
    if (matches) sum += s.value;
  }
  return sum;
}

double HistogramQuantileBetween(const std::vector<MetricSample>& before,
                                const std::vector<MetricSample>& after,
                                const std::string& name, double q) {
  const std::map<double, double> old_buckets = Buckets(before, name);
  std::map<double, double> gained = Buckets(after, name);
  for (auto& [bound, count] : gained) {
    auto it = old_buckets.find(bound);
    if (it != old_buckets.end()) count -= it->second;
  }
  if (gained.empty()) return -1;
  const double total = gained.rbegin()->second;  // the +Inf bucket
  if (total <= 0) return -1;
  const double rank = q * total;
  double lower = 0, below = 0;
  for (const auto& [bound, count] : gained) {
    if (count >= rank) {
      if (std::isinf(bound)) return lower;  // past the last finite bound
      if (count == below) return bound;
      return lower + (bound - lower) * (rank - below) / (count - below);
    }
    lower = bound;
    below = count;
  }
  return lower;
}

}  // namespace tributary
