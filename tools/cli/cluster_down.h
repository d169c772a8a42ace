// `tributary cluster down`: stops a cluster that `tributary cluster up`
// runs, from another shell.
//
//   tributary cluster down [--cluster FILE] [--state-dir DIR]
//       [--grace-period S]
//
// Finds the cluster's state file (cluster_state.h): the one for FILE, or
// without --cluster the only one in the state directory (several: it lists
// them and asks for --cluster). Sends SIGTERM to the `cluster up` process,
// which stops its daemons in order, and waits for it. If that process is
// gone (killed) or does not finish in time, it stops the daemons listed in
// the state file itself (SIGTERM, SIGKILL after --grace-period), touching
// only processes that still run the recorded binary. Prints what it
// stopped on stdout.
//
// Exit status: 0 stopped (or found only leftovers, now cleaned up), 1 no
// running cluster found or something would not stop, 2 ambiguous or bad
// input.
#ifndef TRIBUTARY_TOOLS_CLI_CLUSTER_DOWN_H_
#define TRIBUTARY_TOOLS_CLI_CLUSTER_DOWN_H_

#include <ostream>
#include <string>

namespace tributary {

struct ClusterDownOptions {
  std::string cluster_file;  // Empty: the only running cluster.
  std::string state_dir;     // Empty: StateDirectory("").
  double grace_period_seconds = 15;
};

int RunClusterDown(const ClusterDownOptions& options, std::ostream& out,
                   std::ostream& err);

}  // namespace tributary

#endif  // TRIBUTARY_TOOLS_CLI_CLUSTER_DOWN_H_
