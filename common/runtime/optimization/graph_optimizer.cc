#include "common/runtime/optimization/graph_optimizer.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "common/framework/status.h"
#include "common/runtime/optimization/arithmetic_optimizer.h"
#include "common/runtime/optimization/common_subgraph_elimination.h"
#include "common/runtime/optimization/constant_folding.h"
#include "common/runtime/optimization/dead_branch_removal.h"
#include "common/runtime/optimization/dependency_optimizer.h"
#include "common/runtime/optimization/remapper.h"

namespace tributary {
namespace {

using Toggle = tensorflow::RewriterConfig::Toggle;

// TensorFlow's meaning of a toggle for a pass that is on by default.
bool Enabled(Toggle toggle) { return toggle != tensorflow::RewriterConfig::OFF; }

}  // namespace

std::string OptimizationReport::Summary() const {
  std::vector<std::string> parts;
  for (const PassRun& run : passes) {
    parts.push_back(absl::StrFormat("%s %d rewrites %.2f ms (%d nodes)",
                                    run.pass, run.rewrites,
                                    absl::ToDoubleMilliseconds(run.time),
                                    run.nodes_after));
  }
  return absl::StrCat(
      absl::StrFormat("%d nodes in %.2f ms; ", nodes_before,
                      absl::ToDoubleMilliseconds(total)),
      absl::StrJoin(parts, "; "));
}

GraphOptimizer::GraphOptimizer(const tensorflow::RewriterConfig& config) {
  if (config.disable_meta_optimizer()) return;
  if (config.min_graph_nodes() != 0) min_graph_nodes_ = config.min_graph_nodes();
  if (Enabled(config.common_subgraph_elimination())) {
    passes_.push_back(std::make_unique<CommonSubgraphElimination>());
  }
  if (Enabled(config.constant_folding())) {
    passes_.push_back(std::make_unique<ConstantFolding>());
  }
  if (Enabled(config.loop_optimization())) {
    passes_.push_back(std::make_unique<DeadBranchRemoval>());
  }
  if (Enabled(config.arithmetic_optimization())) {
    passes_.push_back(std::make_unique<ArithmeticOptimizer>());
  }
  if (Enabled(config.dependency_optimization())) {
    passes_.push_back(std::make_unique<DependencyOptimizer>());
  }
  if (Enabled(config.remapping())) {
    passes_.push_back(std::make_unique<Remapper>());
  }
}

std::vector<std::string> GraphOptimizer::EnabledPasses() const {
  std::vector<std::string> names;
  for (const auto& pass : passes_) names.emplace_back(pass->name());
  return names;
}

absl::Status GraphOptimizer::Optimize(Graph* g,
                                      OptimizationReport* report) const {
  OptimizationReport local;
  OptimizationReport* r = report != nullptr ? report : &local;
  const absl::Time begin = absl::Now();
  r->nodes_before = g->num_op_nodes();
  r->passes.clear();
  if (min_graph_nodes_ >= 0 && g->num_op_nodes() < min_graph_nodes_) {
    return absl::OkStatus();
  }
  for (const auto& pass : passes_) {
    const absl::Time start = absl::Now();
    absl::StatusOr<int> rewrites = pass->Run(g);
    if (!rewrites.ok()) {
      return errors::Internal(
          "graph optimizer pass '", pass->name(), "' failed: ",
          rewrites.status().message(),
          " (switch it off with ConfigProto.graph_options.rewrite_options.",
          pass->name(), ": OFF)");
    }
    r->passes.push_back(OptimizationReport::PassRun{
        std::string(pass->name()), *rewrites, g->num_op_nodes(),
        absl::Now() - start});
  }
  r->total = absl::Now() - begin;
  return absl::OkStatus();
}

}  // namespace tributary
