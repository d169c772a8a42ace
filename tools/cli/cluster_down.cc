#include "tools/cli/cluster_down.h"

#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "tools/cli/binary_locator.h"
#include "tools/cli/cluster_state.h"
#include "tools/cli/process_info.h"

namespace tributary {
namespace {

constexpr int kExitStopped = 0;
constexpr int kExitNotStopped = 1;
constexpr int kExitAmbiguous = 2;
// On top of the launcher's own stop (master, then workers, each up to the
// grace period): time for it to notice the signal and clean up.
constexpr absl::Duration kLauncherSlack = absl::Seconds(5);

// The `cluster up` process of the state: alive and still a tributary
// `cluster up` (not a new process that reused the pid).
bool IsLauncher(const ClusterState& state) {
  if (state.pid <= 0 || state.pid == getpid() || !ProcessAlive(state.pid)) {
    return false;
  }
  const std::vector<std::string> args = ProcessCommandLine(state.pid);
  bool cluster = false, up = false;
  for (const std::string& a : args) {
    cluster |= a == "cluster";
    up |= a == "up";
  }
  return cluster && up;
}

// A daemon of the state that still runs its recorded binary.
bool IsDaemon(const ClusterState::Child& child) {
  if (child.pid <= 0 || !ProcessAlive(child.pid)) return false;
  const std::string exe = ProcessExecutable(child.pid);
  // /proc/PID/exe of a deleted binary ends in " (deleted)" (a rebuild).
  return !exe.empty() && (exe == RealPathOr(child.binary) ||
                          exe == RealPathOr(child.binary) + " (deleted)");
}

}  // namespace

int RunClusterDown(const ClusterDownOptions& options, std::ostream& out,
                   std::ostream& err) {
  const std::string state_dir = StateDirectory(options.state_dir);
  std::string state_path;
  if (!options.cluster_file.empty()) {
    state_path = StateFilePath(state_dir,
                               RealPathOr(AbsolutePath(options.cluster_file)));
  } else {
    const std::vector<std::string> files = ListStateFiles(state_dir);
    if (files.empty()) {
      err << "tributary cluster down: no running cluster (no state file in "
          << state_dir << ")\n";
      return kExitNotStopped;
    }
    if (files.size() > 1) {
      err << "tributary cluster down: several clusters run; name one with "
             "--cluster FILE:\n";
      for (const std::string& f : files) {
        absl::StatusOr<ClusterState> s = ReadClusterState(f);
        err << "  " << (s.ok() ? s->cluster_file : f) << "\n";
      }
      return kExitAmbiguous;
    }
    state_path = files[0];
  }

  absl::StatusOr<ClusterState> state = ReadClusterState(state_path);
  if (!state.ok()) {
    err << "tributary cluster down: no running cluster"
        << (options.cluster_file.empty()
                ? std::string()
                : absl::StrCat(" of ", options.cluster_file))
        << " (" << state.status().message() << ")\n";
    return kExitNotStopped;
  }

  const absl::Duration grace = absl::Seconds(options.grace_period_seconds);
  if (IsLauncher(*state)) {
    kill(state->pid, SIGTERM);
    // Master then workers, each up to the launcher's own grace period.
    const absl::Time deadline = absl::Now() + 2 * grace + kLauncherSlack;
    if (!WaitForProcessExit(state->pid, deadline)) {
      err << "tributary cluster down: `cluster up` (pid " << state->pid
          << ") did not finish; stopping its daemons directly\n";
    }
  }

  // Daemons left behind: the launcher was killed, or did not finish.
  std::vector<const ClusterState::Child*> left;
  for (const ClusterState::Child& child : state->children) {
    if (IsDaemon(child)) {
      kill(child.pid, SIGTERM);
      left.push_back(&child);
    }
  }
  const absl::Time deadline = absl::Now() + grace;
  bool all_stopped = true;
  for (const ClusterState::Child* child : left) {
    if (!WaitForProcessExit(child->pid, deadline)) {
      kill(child->pid, SIGKILL);
      err << "tributary cluster down: " << child->name << " (pid " << child->pid
          << ") ignored SIGTERM; killed it\n";
      if (!WaitForProcessExit(child->pid, absl::Now() + grace)) {
        all_stopped = false;
      }
    }
  }
  std::remove(state_path.c_str());
  out << "stopped cluster " << state->cluster_file;
  if (!state->master_target.empty())
    out << " (master " << state->master_target << ")";
  out << std::endl;
  return all_stopped ? kExitStopped : kExitNotStopped;
}

}  // namespace tributary
