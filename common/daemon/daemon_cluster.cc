#include "common/daemon/daemon_cluster.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_join.h"
#include "common/framework/status.h"

namespace tributary {

absl::StatusOr<DaemonCluster> LoadDaemonCluster(const std::string& cluster_file,
                                                std::string* source) {
  *source = cluster_file.empty() ? "TF_CONFIG" : cluster_file;
  DaemonCluster out;
  out.source = *source;
  absl::StatusOr<TfConfig> env = TfConfigFromEnvironment();
  if (env.ok()) {
    out.tf_config = *std::move(env);
  } else if (!cluster_file.empty()) {
    // The file is the cluster; a broken TF_CONFIG is not this daemon's
    // business then.
  } else if (absl::IsNotFound(env.status())) {
    return errors::InvalidArgument(
        "no cluster: pass --cluster FILE or set TF_CONFIG");
  } else {
    return env.status();
  }
  if (!cluster_file.empty()) {
    TRIB_ASSIGN_OR_RETURN(out.cluster, ClusterSpec::FromJsonFile(cluster_file));
  } else {
    TRIB_ASSIGN_OR_RETURN(out.cluster,
                          ClusterSpec::FromClusterDef(out.tf_config->cluster));
  }
  return out;
}

absl::StatusOr<TaskName> TaskFromHostname(const std::string& hostname,
                                          const ClusterSpec& cluster,
                                          const std::string& job) {
  // A pod's host name is its name; a FQDN's first label is.
  const std::string host = hostname.substr(0, hostname.find('.'));
  const size_t dash = host.rfind('-');
  TaskName name;
  if (dash == std::string::npos || dash == 0 ||
      !absl::SimpleAtoi(host.substr(dash + 1), &name.task) || name.task < 0 ||
      host.find_first_not_of("0123456789", dash + 1) != std::string::npos) {
    return errors::InvalidArgument(
        "--task-from-hostname: host name '", hostname,
        "' does not end in -N (a StatefulSet pod's ordinal)");
  }
  name.job = job.empty() ? host.substr(0, dash) : job;
  if (!cluster.HasJob(name.job)) {
    return errors::InvalidArgument(
        "--task-from-hostname: host name '", hostname, "' names job '",
        name.job, "', which the cluster spec does not have (its jobs: ",
        absl::StrJoin(cluster.jobs(), ", "),
        "); name the StatefulSet after the job or pass --job");
  }
  const std::vector<int> tasks = cluster.task_indices(name.job);
  if (std::find(tasks.begin(), tasks.end(), name.task) == tasks.end()) {
    return errors::InvalidArgument(
        "--task-from-hostname: host name '", hostname, "' is task ", name.task,
        " of job '", name.job, "', which the cluster spec does not have");
  }
  return name;
}

}  // namespace tributary
