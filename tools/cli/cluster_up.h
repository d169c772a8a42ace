// `tributary cluster up`: runs a whole cluster on this machine.
//
//   tributary cluster up --cluster FILE [--master ADDR] [--log-dir DIR]
//       [--state-dir DIR] [--worker-binary PATH] [--master-binary PATH]
//       [--startup-timeout S] [--grace-period S]
//       [--worker-flag ARG]... [--master-flag ARG]...
//       [--tls auto | --tls-cert F --tls-key F --tls-ca F]
//
// Starts one `tributary-worker --cluster FILE --job J --task T` per task of
// the spec and one `tributary-master --cluster FILE --listen ADDR` (default
// 127.0.0.1:0: a free port, read back from the master's "listening on"
// line), each a separate child process logging to DIR/<job>-<task>.log and
// DIR/master.log (DIR defaults to a new temporary directory). Then waits,
// up to --startup-timeout, until every task answers GetStatus and the master
// answers ListDevices; if one does not (or exits), it prints which, with the
// last lines of its log, stops the others and exits 1.
//
// Once up, the FIRST line on stdout is the master's target
// ("grpc://127.0.0.1:40123", flushed), so scripts can read it; everything
// else goes to stderr. It stays in the foreground: SIGINT (Ctrl-C), SIGTERM
// or SIGHUP stops the master, then the workers, each with SIGTERM and
// SIGKILL after --grace-period, and it exits 0. If the master dies it stops
// the rest and exits 1; a worker that dies is reported and the rest keep
// running (the master reports the task Unavailable to clients).
//
// TLS (cluster_tls.h): with --tls auto or the three TLS files, every
// daemon serves mutual TLS; the client's credentials go into the state
// file for the other `tributary` commands.
//
// A state file (cluster_state.h) records this process and its children so
// `tributary cluster down` can stop the cluster from another shell; a
// second `cluster up` of the same spec file is refused while one runs.
//
// Exit status: 0 stopped by a signal, 1 failed to start or master died,
// 2 bad input (spec file, binaries, flags).
#ifndef TRIBUTARY_TOOLS_CLI_CLUSTER_UP_H_
#define TRIBUTARY_TOOLS_CLI_CLUSTER_UP_H_

#include <ostream>
#include <string>
#include <vector>

#include "common/rpc/transport_security.h"

namespace tributary {

struct ClusterUpOptions {
  std::string cluster_file;
  std::string master_address = "127.0.0.1:0";
  std::string log_dir;        // Empty: a new temporary directory.
  std::string state_dir;      // Empty: StateDirectory("").
  std::string worker_binary;  // Empty: LocateDaemonBinary's search.
  std::string master_binary;
  double startup_timeout_seconds = 60;
  double grace_period_seconds = 15;
  std::vector<std::string> worker_flags;  // Appended to every worker's argv.
  std::vector<std::string> master_flags;
  // TLS (cluster_tls.h): "auto" makes a throwaway PKI; otherwise the files
  // below, when given, are every daemon's.
  std::string tls_mode = "off";
  TlsFiles tls_files;
};

// Runs until the cluster is stopped; returns the exit status. `out` gets
// only the target line.
int RunClusterUp(const ClusterUpOptions& options, std::ostream& out,
                 std::ostream& err);

}  // namespace tributary

#endif  // TRIBUTARY_TOOLS_CLI_CLUSTER_UP_H_
