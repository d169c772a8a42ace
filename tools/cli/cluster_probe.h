// Single readiness probes of a daemon (daemon_readiness.h repeats them until
// one succeeds): a worker is up when it answers GetStatus, the master when
// it answers ListDevices (which makes it reach every worker in turn).
//
// Each probe is one RPC with wait_for_ready, so a daemon still starting (its
// port not yet open) is waited for rather than failed at once; the caller
// repeats short probes so it can notice a daemon that died meanwhile. The
// channel retries connecting quickly (100 ms .. 1 s backoff instead of
// gRPC's 1 s .. 120 s), which matters only while daemons start, and shares
// no connection with other channels.
#ifndef TRIBUTARY_TOOLS_CLI_CLUSTER_PROBE_H_
#define TRIBUTARY_TOOLS_CLI_CLUSTER_PROBE_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "grpcpp/channel.h"
#include "grpcpp/security/credentials.h"
#include "protos/master.pb.h"
#include "protos/worker.pb.h"

namespace tributary {

// A channel for probing `address` (fast reconnects, no size limits, its own
// subchannels); also what tests talk to their daemons through.
// `credentials`: TLS for a cluster that serves it (null: plaintext).
std::shared_ptr<grpc::Channel> NewProbeChannel(
    const std::string& address,
    std::shared_ptr<grpc::ChannelCredentials> credentials = nullptr);

absl::StatusOr<tensorflow::GetStatusResponse> ProbeWorker(
    const std::shared_ptr<grpc::Channel>& channel, absl::Time deadline);

absl::StatusOr<tensorflow::ListDevicesResponse> ProbeMaster(
    const std::shared_ptr<grpc::Channel>& channel, absl::Time deadline);

// The address in the daemons' "listening on ADDR" log line (the bound
// port, when the daemon was told port 0); "" when the log has none yet.
std::string ListeningAddressFromLog(const std::string& log_path);

}  // namespace tributary

#endif  // TRIBUTARY_TOOLS_CLI_CLUSTER_PROBE_H_
