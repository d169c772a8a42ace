// Fuzz target: a TF_CONFIG value (common/cluster/tf_config.h), as the daemons
// and the training example read it from the environment. A refusal is
// INVALID_ARGUMENT with a message; an accepted value's cluster must pass
// ValidateClusterDef and its task, when it names a job of the cluster, must
// be one of that job's tasks.

#include <cstddef>
#include <cstdint>

#include "absl/strings/string_view.h"
#include "common/cluster/cluster_def_json.h"
#include "common/cluster/tf_config.h"
#include "tests/fuzz/fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tributary;  // NOLINT(build/namespaces): one function.
  const absl::string_view text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<TfConfig> config = ParseTfConfig(text);
  if (!config.ok()) {
    fuzz::CheckErrorCode(config.status(), {absl::StatusCode::kInvalidArgument},
                         "ParseTfConfig");
    return 0;
  }
  fuzz::Check(ValidateClusterDef(config->cluster).ok(),
              "TF_CONFIG's cluster fails ValidateClusterDef");
  if (!config->task_type.has_value() || !config->task_index.has_value()) {
    return 0;
  }
  for (const tensorflow::JobDef& job : config->cluster.job()) {
    if (job.name() != *config->task_type) continue;
    fuzz::Check(job.tasks().count(*config->task_index) == 1,
                "TF_CONFIG's task is not a task of its job");
  }
  return 0;
}
