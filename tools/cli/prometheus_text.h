#ifndef TRIBUTARY_TOOLS_CLI_PROMETHEUS_TEXT_H_
#define TRIBUTARY_TOOLS_CLI_PROMETHEUS_TEXT_H_

// Reading Prometheus' text format (version 0.0.4, what the daemons' metrics
// are in) for `tributary top`: the samples, sums over label values, and
// histogram quantiles over the change between two readings, computed as
// Prometheus' histogram_quantile does (linear within the bucket).

#include <map>
#include <string>
#include <vector>

namespace tributary {

struct MetricSample {
  std::string name;                           // "tributary_master_steps_total"
  std::map<std::string, std::string> labels;  // unescaped values
  double value = 0;
};

// Every sample line; comments and lines that do not parse are skipped.
std::vector<MetricSample> ParsePrometheusText(const std::string& text);

// The sum of `name`'s samples whose labels include `match` (all of them for
// an empty `match`); 0 when there is none.
double SumSamples(const std::vector<MetricSample>& samples,
                  const std::string& name,
                  const std::map<std::string, std::string>& match = {});

// The q-quantile (0 < q < 1) of the observations histogram `name` (its
// `name`_bucket samples, all label values summed) gained between `before`
// and `after`; -1 when it gained none.
double HistogramQuantileBetween(const std::vector<MetricSample>& before,
                                const std::vector<MetricSample>& after,
                                const std::string& name, double q);

}  // namespace tributary

#endif  // TRIBUTARY_TOOLS_CLI_PROMETHEUS_TEXT_H_
