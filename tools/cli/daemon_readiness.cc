#include "tools/cli/daemon_readiness.h"

#include <algorithm>
#include <memory>

#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "common/framework/status.h"
#include "grpcpp/channel.h"
#include "tools/cli/cluster_probe.h"

namespace tributary {
namespace {

// One probe: short so that a daemon that died is noticed between probes,
// long enough for a loaded machine. The master's ListDevices asks every
// task in turn, hence more.
constexpr absl::Duration kWorkerProbeTimeout = absl::Seconds(1);
constexpr absl::Duration kMasterProbeTimeout = absl::Seconds(5);
// Pause after a probe that failed at once (connection refused), so the
// wait does not spin.
constexpr absl::Duration kProbeRetryPause = absl::Milliseconds(100);

// Repeats `probe` (given each attempt's deadline) as the header says.
template <typename Response, typename Probe>
absl::StatusOr<Response> WaitUntilServing(ChildProcess& process,
                                          const ReadinessWait& wait,
                                          absl::Duration probe_timeout,
                                          const char* what, Probe probe) {
  absl::Status last = errors::Unavailable("no answer yet");
  while (true) {
    if (wait.interrupted) {
      absl::Status s = wait.interrupted();
      if (!s.ok()) return s;
    }
    if (!process.Running()) {
      return errors::FailedPrecondition(process.ExitDescription());
    }
    const absl::Time now = absl::Now();
    if (now >= wait.deadline) {
      return errors::DeadlineExceeded(
          "did not answer ", what, " within ",
          absl::StrFormat("%g s", absl::ToDoubleSeconds(wait.timeout)), ": ",
          last.message());
    }
    absl::StatusOr<Response> answer =
        probe(std::min(wait.deadline, now + probe_timeout));
    if (answer.ok()) return answer;
    last = answer.status();
    if (absl::Now() - now < kProbeRetryPause) absl::SleepFor(kProbeRetryPause);
  }
}

}  // namespace

absl::StatusOr<tensorflow::GetStatusResponse> WaitForWorkerReady(
    ChildProcess& process, const std::string& address,
    const ReadinessWait& wait) {
  std::shared_ptr<grpc::Channel> channel =
      NewProbeChannel(address, wait.credentials);
  return WaitUntilServing<tensorflow::GetStatusResponse>(
      process, wait, kWorkerProbeTimeout, "GetStatus",
      [&channel](absl::Time deadline) {
        return ProbeWorker(channel, deadline);
      });
}

absl::StatusOr<tensorflow::ListDevicesResponse> WaitForMasterReady(
    ChildProcess& process, const std::string& address,
    const ReadinessWait& wait) {
  std::shared_ptr<grpc::Channel> channel =
      NewProbeChannel(address, wait.credentials);
  return WaitUntilServing<tensorflow::ListDevicesResponse>(
      process, wait, kMasterProbeTimeout, "ListDevices",
      [&channel](absl::Time deadline) {
        return ProbeMaster(channel, deadline);
      });
}

}  // namespace tributary
