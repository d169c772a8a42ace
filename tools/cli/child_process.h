// A daemon started by `tributary cluster up`: a child process with its
// stdout and stderr in a log file.
//
// Each child gets its own process group (the terminal's Ctrl-C reaches only
// the launcher, which then stops the children in order) and the parent-death
// signal SIGTERM (if the launcher is killed outright, its children still stop
// gracefully instead of lingering). Signals the launcher blocks are unblocked
// in the child before exec.
#ifndef TRIBUTARY_TOOLS_CLI_CHILD_PROCESS_H_
#define TRIBUTARY_TOOLS_CLI_CHILD_PROCESS_H_

#include <sys/types.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace tributary {

class ChildProcess {
 public:
  // Starts argv[0] (a path; PATH is not searched) with `argv`, stdin from
  // /dev/null, stdout and stderr appended to `log_path`. Fails (and leaves
  // no process behind) when the log cannot be opened or exec fails, with
  // the reason ("cannot execute /x/tributary-worker: No such file or
  // directory").
  static absl::StatusOr<std::unique_ptr<ChildProcess>> Start(
      const std::vector<std::string>& argv, const std::string& log_path);

  // Kills (SIGKILL) and reaps the child if it is still running.
  ~ChildProcess();

  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  pid_t pid() const { return pid_; }
  const std::string& log_path() const { return log_path_; }

  // Reaps the child if it has exited, without blocking. True while it runs.
  bool Running();
  // After it exited: "exited with status 2", "killed by signal 9".
  std::string ExitDescription() const;
  // Exit status if it exited normally, -1 otherwise (or still running).
  int ExitCode() const;

  // Sends `signal` if it is still running.
  void Signal(int signal);
  // Waits until it exits or `deadline` passes; true when it exited.
  bool WaitUntil(absl::Time deadline);

 private:
  ChildProcess(pid_t pid, std::string log_path)
      : pid_(pid), log_path_(std::move(log_path)) {}

  const pid_t pid_;
  const std::string log_path_;
  std::optional<int> wait_status_;  // Set once reaped.
};

// SIGTERM to every running child, then up to `grace` for them all to exit,
// then SIGKILL to those left (and reaps them). Returns the children that
// had to be killed.
std::vector<ChildProcess*> StopChildren(
    const std::vector<ChildProcess*>& children, absl::Duration grace);

// The last `max_lines` lines of a text file (all of it if shorter; "" when
// it cannot be read), for error reports.
std::string TailOfFile(const std::string& path, int max_lines);

}  // namespace tributary

#endif  // TRIBUTARY_TOOLS_CLI_CHILD_PROCESS_H_
