// Waiting for a daemon just started (a ChildProcess) to serve: `tributary
// cluster up` and the multi-process tests' TestCluster both wait this way.
//
// The wait repeats short probes (cluster_probe.h) until one succeeds, so
// that a daemon that exits meanwhile is noticed at once instead of at the
// deadline. It ends with
//   - OK (and the probe's answer) once the daemon answers;
//   - FailedPrecondition(process.ExitDescription()), "exited with status 2",
//     when the daemon exited first;
//   - DeadlineExceeded("did not answer GetStatus within 60 s: <last probe's
//     error>") at the deadline;
//   - the status ReadinessWait::interrupted returned, when that is not OK.
#ifndef TRIBUTARY_TOOLS_CLI_DAEMON_READINESS_H_
#define TRIBUTARY_TOOLS_CLI_DAEMON_READINESS_H_

#include <functional>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "grpcpp/security/credentials.h"
#include "protos/master.pb.h"
#include "protos/worker.pb.h"
#include "tools/cli/child_process.h"

namespace tributary {

struct ReadinessWait {
  absl::Time deadline = absl::InfiniteFuture();
  // What `deadline` stands for, for the message ("within 60 s"): several
  // daemons may share one deadline.
  absl::Duration timeout = absl::InfiniteDuration();
  // Asked before each probe; a status other than OK ends the wait with it
  // (the CLI stops waiting when a termination signal arrives). Optional.
  std::function<absl::Status()> interrupted;
  // TLS for a cluster that serves it (null: plaintext).
  std::shared_ptr<grpc::ChannelCredentials> credentials;
};

// Until the worker `process` answers GetStatus at `address` ("host:port").
absl::StatusOr<tensorflow::GetStatusResponse> WaitForWorkerReady(
    ChildProcess& process, const std::string& address,
    const ReadinessWait& wait);

// Until the master `process` answers ListDevices at `address`: then it has
// reached every worker of its cluster.
absl::StatusOr<tensorflow::ListDevicesResponse> WaitForMasterReady(
    ChildProcess& process, const std::string& address,
    const ReadinessWait& wait);

}  // namespace tributary

#endif  // TRIBUTARY_TOOLS_CLI_DAEMON_READINESS_H_
