#ifndef TRIBUTARY_COMMON_DAEMON_DAEMON_CLUSTER_H_
#define TRIBUTARY_COMMON_DAEMON_DAEMON_CLUSTER_H_

// Where a daemon's cluster comes from, the same rule for tributary-master
// and tributary-worker: the JSON file of --cluster when one is given, else
// the "cluster" of the TF_CONFIG environment variable. TF_CONFIG is read in
// both cases because its "task" may still say which task a worker is; a
// TF_CONFIG that does not parse matters only when it is the cluster's
// source.

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "common/cluster/cluster_spec.h"
#include "common/cluster/tf_config.h"

namespace tributary {

struct DaemonCluster {
  ClusterSpec cluster;
  // TF_CONFIG when it was set and parsed, whatever the cluster's source.
  std::optional<TfConfig> tf_config;
  // The file name or "TF_CONFIG", for messages.
  std::string source;
};

// InvalidArgument "no cluster: pass --cluster FILE or set TF_CONFIG" when
// there is neither; the file's or TF_CONFIG's error otherwise (`source` is
// filled in either way, so a caller can name it).
absl::StatusOr<DaemonCluster> LoadDaemonCluster(const std::string& cluster_file,
                                                std::string* source);

// The task a worker is, from its host name, as a Kubernetes StatefulSet names
// its pods ("<statefulset>-<ordinal>", deploy/kubernetes): the task index is
// the number after the last '-', the job is `job` when given, else the part
// before it, which must be a job of `cluster`. InvalidArgument naming the
// host name when it has no "-N" ending, names no job of the cluster, or N is
// not a task of that job.
struct TaskName {
  std::string job;
  int task = -1;
};
absl::StatusOr<TaskName> TaskFromHostname(const std::string& hostname,
                                          const ClusterSpec& cluster,
                                          const std::string& job);

}  // namespace tributary

#endif  // TRIBUTARY_COMMON_DAEMON_DAEMON_CLUSTER_H_
