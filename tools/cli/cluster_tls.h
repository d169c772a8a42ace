// TLS for `tributary cluster up`: either the files given with --tls-cert,
// --tls-key and --tls-ca (every daemon uses them, and so does the CLI's
// own probing: the certificate must allow client use, as a task's does),
// or, with `--tls auto`, a throwaway PKI made in DIR/tls (DIR: the log
// directory): a CA, one certificate per task naming the task's host,
// 127.0.0.1 and localhost, one for the master, one for clients. The
// client's files are recorded in the cluster's state file, so `tributary
// run/devices --target <its master>` find them (client_credentials.h).
#ifndef TRIBUTARY_TOOLS_CLI_CLUSTER_TLS_H_
#define TRIBUTARY_TOOLS_CLI_CLUSTER_TLS_H_

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/cluster/cluster_spec.h"
#include "common/rpc/transport_security.h"

namespace tributary {

struct ClusterTls {
  TlsFiles master;
  std::map<std::string, TlsFiles> tasks;  // By task name.
  TlsFiles client;
};

// The throwaway PKI of `--tls auto`, written into `dir` (created, 0700).
// `master_host`: the host the master listens on.
absl::StatusOr<ClusterTls> MakeThrowawayClusterPki(
    const ClusterSpec& cluster, const std::string& master_host,
    const std::string& dir);

// Every daemon and the client use `files`.
ClusterTls SameFilesEverywhere(const ClusterSpec& cluster,
                               const TlsFiles& files);

// "--tls-cert", F, "--tls-key", F, "--tls-ca", F.
std::vector<std::string> TlsFlags(const TlsFiles& files);

}  // namespace tributary

#endif  // TRIBUTARY_TOOLS_CLI_CLUSTER_TLS_H_
