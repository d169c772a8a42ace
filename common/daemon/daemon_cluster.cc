#include "common/daemon/daemon_cluster.h"

#include <utility>

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

}  // namespace tributary
