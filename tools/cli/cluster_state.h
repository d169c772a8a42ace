// The state file of a running `tributary cluster up`, which lets
// `tributary cluster down` (from another shell) find and stop it.
//
// One file per cluster spec file, in the state directory:
//   <dir>/cluster-<16 hex digits of a hash of the spec's absolute path>.json
//   {"pid": 1234, "cluster_file": "/abs/spec.json",
//    "master_target": "grpc://127.0.0.1:40123", "log_dir": "/tmp/...",
//    "children": [{"name": "/job:ps/replica:0/task:0", "pid": 1235,
//                  "binary": "/abs/tributary-worker", "log":
//                  "/tmp/.../ps-0.log"},
//                 ...],
//    "tls_ca": "/tmp/.../tls/ca.crt", "tls_cert": ..., "tls_key": ...}
// The state directory is --state-dir, else $TRIBUTARY_STATE_DIR, else
// $XDG_RUNTIME_DIR/tributary, else /tmp/tributary-<uid>.
#ifndef TRIBUTARY_TOOLS_CLI_CLUSTER_STATE_H_
#define TRIBUTARY_TOOLS_CLI_CLUSTER_STATE_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace tributary {

struct ClusterState {
  struct Child {
    std::string name;  // Task name, or "master".
    int pid = 0;
    std::string binary;
    std::string log;
  };
  int pid = 0;  // The `cluster up` process.
  std::string cluster_file;
  std::string master_target;  // Empty until the master is up.
  std::string log_dir;
  std::vector<Child> children;
  // A client's TLS files for this cluster (cluster_tls.h); empty: plaintext.
  std::string tls_ca;
  std::string tls_cert;
  std::string tls_key;
};

// `flag` if given, else the environment's choice (see above).
std::string StateDirectory(const std::string& flag);

// Where the state of the cluster described by `cluster_file` (absolute) is
// kept in `state_dir`.
std::string StateFilePath(const std::string& state_dir,
                          const std::string& cluster_file);

// Writes atomically (temporary file + rename), creating `path`'s directory.
absl::Status WriteClusterState(const std::string& path,
                               const ClusterState& state);
absl::StatusOr<ClusterState> ReadClusterState(const std::string& path);

// The state files in `state_dir` (none if it does not exist), sorted.
std::vector<std::string> ListStateFiles(const std::string& state_dir);

}  // namespace tributary

#endif  // TRIBUTARY_TOOLS_CLI_CLUSTER_STATE_H_
