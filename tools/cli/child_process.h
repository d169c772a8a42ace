// A child process with its stdout and stderr in a log file: the daemons that
// `tributary cluster up` starts, and the daemons of the multi-process tests
// (tests/distributed/cluster_fixture), which must behave the same way.
//
// Each child gets its own process group (the terminal's Ctrl-C reaches only
// the launcher, which then stops the children in order) and a parent-death
// signal (ChildProcessOptions::parent_death_signal: SIGTERM by default, so
// that if the launcher is killed outright its children still stop gracefully
// instead of lingering). Linux delivers that signal when the *thread* that
// started the child exits, so start children from a thread that lives as
// long as they should (the main thread). Signals the launcher blocks are
// unblocked in the child before exec, and SIGPIPE is reset to its default.
//
// A ChildProcess is not thread-safe: one thread starts, watches and stops it.
#ifndef TRIBUTARY_TOOLS_CLI_CHILD_PROCESS_H_
#define TRIBUTARY_TOOLS_CLI_CHILD_PROCESS_H_

#include <signal.h>
#include <sys/types.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace tributary {

struct ChildProcessOptions {
  // What messages call the child ("worker-1"); argv[0] when empty.
  std::string name;
  // Sent to the child when the thread that started it exits. SIGTERM lets a
  // daemon stop gracefully; tests use SIGKILL so that nothing of a crashed
  // test outlives it, whatever the daemon does with SIGTERM.
  int parent_death_signal = SIGTERM;
  // Names of variables of this process's environment the child does not get
  // ("TF_CONFIG": the daemons read it, and a test's flags must decide).
  std::vector<std::string> unset_env;
  // "NAME=value" entries the child gets in addition (replacing a variable of
  // the same name).
  std::vector<std::string> set_env;
};

class ChildProcess {
 public:
  // Starts argv[0] (a path; PATH is not searched) with `argv`, stdin from
  // /dev/null, stdout and stderr appended to `log_path`. Fails (and leaves
  // no process behind) when the log cannot be opened or exec fails, with
  // the reason ("cannot execute /x/tributary-worker: No such file or
  // directory").
  static absl::StatusOr<std::unique_ptr<ChildProcess>> Start(
      const std::vector<std::string>& argv, const std::string& log_path,
      const ChildProcessOptions& options = ChildProcessOptions());

  // Kill().
  ~ChildProcess();

  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  pid_t pid() const { return pid_; }
  const std::string& name() const { return name_; }
  const std::string& log_path() const { return log_path_; }
  // argv joined with spaces, for messages.
  const std::string& command_line() const { return command_line_; }

  // Reaps the child if it has exited, without blocking. True while it runs.
  bool Running();
  // After it exited: "exited with status 2", "was killed by signal 9
  // (Killed)"; "is running" before.
  std::string ExitDescription() const;
  // After it exited: its exit status, or 128 + the signal number when a
  // signal ended it (as a shell reports it). nullopt while it runs, or when
  // the status is unknown (someone else reaped it).
  std::optional<int> ExitCode() const;

  // Sends `signal` if it is still running.
  void Signal(int signal);
  // Waits until it exits or `deadline` passes; true when it exited.
  bool WaitUntil(absl::Time deadline);
  // SIGKILL and reap, if it is still running; returns once it is gone.
  void Kill();

 private:
  ChildProcess(pid_t pid, std::string name, std::string log_path,
               std::string command_line)
      : pid_(pid),
        name_(std::move(name)),
        log_path_(std::move(log_path)),
        command_line_(std::move(command_line)) {}

  const pid_t pid_;
  const std::string name_;
  const std::string log_path_;
  const std::string command_line_;
  std::optional<int> wait_status_;  // Set once reaped; -1 when unknown.
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
