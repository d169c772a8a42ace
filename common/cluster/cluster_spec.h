#ifndef TRIBUTARY_COMMON_CLUSTER_CLUSTER_SPEC_H_
#define TRIBUTARY_COMMON_CLUSTER_CLUSTER_SPEC_H_

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/cluster/cluster_def_json.h"  // ParseClusterSpecJson
#include "common/cluster/tf_config.h"         // ClusterSpecFromTfConfig
#include "protos/cluster.pb.h"

namespace tributary {

// The tasks of a cluster grouped by job, validated and indexed for lookup:
// TensorFlow's tf.train.ClusterSpec. Masters use it to find workers,
// workers to find each other for RecvTensor. Immutable and cheap to copy.
class ClusterSpec {
 public:
  // An empty cluster (no jobs); real ones come from the factories below.
  ClusterSpec() = default;

  // Validates `cluster` (ValidateClusterDef) and indexes it.
  static absl::StatusOr<ClusterSpec> FromClusterDef(
      const tensorflow::ClusterDef& cluster);
  // ParseClusterSpecJson + FromClusterDef.
  static absl::StatusOr<ClusterSpec> FromJson(absl::string_view json_text);
  // FromJson of a file's contents; NotFound naming the file when it cannot
  // be read.
  static absl::StatusOr<ClusterSpec> FromJsonFile(const std::string& path);

  // Job names, sorted.
  std::vector<std::string> jobs() const;
  bool HasJob(absl::string_view job) const;
  // Number of tasks in `job` (0 for an unknown job). With sparse task
  // indices this is not one past the largest index; see task_indices().
  int num_tasks(absl::string_view job) const;
  // Task indices of `job`, ascending; empty for an unknown job.
  std::vector<int> task_indices(absl::string_view job) const;

  // "host:port" of a task. NotFound naming the job (and listing the known
  // jobs) or the task (and listing the job's tasks).
  absl::StatusOr<std::string> TaskAddress(absl::string_view job,
                                          int task) const;

  // "/job:<job>/replica:0/task:<t>" for every task, in job then task
  // order: the device-name prefix of each process of the cluster.
  std::vector<std::string> TaskNames() const;

  // The cluster as a ClusterDef, jobs sorted by name.
  tensorflow::ClusterDef AsClusterDef() const;

  // TensorFlow's JSON form (see ClusterDefToJson), pretty-printed with
  // `indent` spaces (-1: one line). For logs and the CLI.
  std::string ToJson(int indent = -1) const;

  bool operator==(const ClusterSpec& other) const {
    return jobs_ == other.jobs_;
  }
  bool operator!=(const ClusterSpec& other) const { return !(*this == other); }

 private:
  // Sorted maps: deterministic listing order, and lookups by string_view
  // through std::less<>.
  using TaskMap = std::map<int, std::string>;
  std::map<std::string, TaskMap, std::less<>> jobs_;
};

}  // namespace tributary

#endif  // TRIBUTARY_COMMON_CLUSTER_CLUSTER_SPEC_H_
