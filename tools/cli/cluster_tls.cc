#include "tools/cli/cluster_tls.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "common/framework/status.h"
#include "common/rpc/throwaway_pki.h"

namespace tributary {
namespace {

// "10.0.0.5:2222" -> "10.0.0.5"; "[::1]:2222" -> "::1".
std::string HostOf(const std::string& address) {
  std::string host = address.substr(0, address.rfind(':'));
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  return host;
}

// The hosts a certificate for a daemon on `host` names: that host and the
// loopback names, so the daemon is reachable as any of them.
std::vector<std::string> HostsFor(const std::string& host) {
  std::vector<std::string> hosts = {"127.0.0.1", "localhost"};
  if (!host.empty() && host != "127.0.0.1" && host != "localhost" &&
      host != "0.0.0.0" && host != "::" && host != "[::]") {
    hosts.push_back(host);
  }
  return hosts;
}

absl::StatusOr<TlsFiles> IssueInto(const ThrowawayCa& ca,
                                   const std::string& dir,
                                   const std::string& file_stem,
                                   const std::string& common_name,
                                   const std::vector<std::string>& hosts) {
  TRIB_ASSIGN_OR_RETURN(PemPair pair, ca.Issue(common_name, hosts));
  TlsFiles files;
  files.cert_file = absl::StrCat(dir, "/", file_stem, ".crt");
  files.key_file = absl::StrCat(dir, "/", file_stem, ".key");
  files.ca_file = absl::StrCat(dir, "/ca.crt");
  TRIB_RETURN_IF_ERROR(WritePrivateFile(files.cert_file, pair.certificate));
  TRIB_RETURN_IF_ERROR(WritePrivateFile(files.key_file, pair.private_key));
  return files;
}

}  // namespace

absl::StatusOr<ClusterTls> MakeThrowawayClusterPki(
    const ClusterSpec& cluster, const std::string& master_host,
    const std::string& dir) {
  if (mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
    return errors::Internal("Cannot create ", dir, ": ", std::strerror(errno));
  }
  TRIB_ASSIGN_OR_RETURN(ThrowawayCa ca,
                        ThrowawayCa::Create("tributary cluster up CA"));
  TRIB_RETURN_IF_ERROR(
      WritePrivateFile(absl::StrCat(dir, "/ca.crt"), ca.ca().certificate));
  ClusterTls tls;
  for (const std::string& job : cluster.jobs()) {
    for (int task : cluster.task_indices(job)) {
      const std::string name =
          absl::StrCat("/job:", job, "/replica:0/task:", task);
      TRIB_ASSIGN_OR_RETURN(std::string address,
                            cluster.TaskAddress(job, task));
      TRIB_ASSIGN_OR_RETURN(tls.tasks[name],
                            IssueInto(ca, dir, absl::StrCat(job, "-", task),
                                      name, HostsFor(HostOf(address))));
    }
  }
  TRIB_ASSIGN_OR_RETURN(tls.master, IssueInto(ca, dir, "master", "master",
                                              HostsFor(master_host)));
  TRIB_ASSIGN_OR_RETURN(tls.client, IssueInto(ca, dir, "client", "client", {}));
  return tls;
}

ClusterTls SameFilesEverywhere(const ClusterSpec& cluster,
                               const TlsFiles& files) {
  ClusterTls tls;
  tls.master = files;
  tls.client = files;
  for (const std::string& name : cluster.TaskNames()) tls.tasks[name] = files;
  return tls;
}

std::vector<std::string> TlsFlags(const TlsFiles& files) {
  return {"--tls-cert",   files.cert_file, "--tls-key",
          files.key_file, "--tls-ca",      files.ca_file};
}

}  // namespace tributary
