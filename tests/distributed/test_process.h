// What a multi-process test needs around its processes, built on the CLI's
// ChildProcess (tools/cli/child_process.h): where the daemons' binaries are,
// a fresh temporary directory, free loopback ports, and starting a process
// the way every test does:
//
//   - it dies with the test (parent-death signal SIGKILL: even a test binary
//     that crashes, or is killed, takes its daemons with it; the signal
//     follows the thread that started the child, so start processes from
//     the test's main thread, as gtest runs tests);
//   - without TF_CONFIG (the daemons read it; a test's flags must decide),
//     plus the "NAME=value" entries the test gives.
#ifndef TRIBUTARY_TESTS_DISTRIBUTED_TEST_PROCESS_H_
#define TRIBUTARY_TESTS_DISTRIBUTED_TEST_PROCESS_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "tools/cli/child_process.h"

namespace tributary {
namespace test {

// The absolute path of a file in the test's runfiles
// ("worker/tributary-worker").
std::string RunfilePath(const std::string& workspace_relative);
std::string WorkerBinary();
std::string MasterBinary();

// `count` distinct TCP ports on 127.0.0.1 that were free a moment ago (all
// bound at once, then released for the daemons to bind).
absl::StatusOr<std::vector<int>> PickFreePorts(int count);

// A directory for this test's files ($TEST_TMPDIR based), created fresh.
std::string MakeTempDir(const std::string& prefix);

// The options every test process gets (see the header comment).
ChildProcessOptions TestProcessOptions(
    const std::string& name, const std::vector<std::string>& env = {});

// Starts `argv` (argv[0] a path) as `name` with TestProcessOptions, its
// output appended to `log_path` after a "==== started: <argv> ====" line
// (a restarted daemon appends to the same log).
absl::StatusOr<std::unique_ptr<ChildProcess>> StartTestProcess(
    const std::string& name, const std::vector<std::string>& argv,
    const std::string& log_path, const std::vector<std::string>& env = {});

// The whole of a process's log, for failure messages.
std::string ReadLog(const ChildProcess& process);

// Runs `binary args...` to completion (for flag and bad-spec checks), as a
// test process; kills it and fails with DeadlineExceeded (and its output)
// when it runs longer than `timeout`.
struct ExitResult {
  int exit_code;       // 128 + signal when killed by a signal
  std::string output;  // stdout and stderr together
};
absl::StatusOr<ExitResult> RunToExit(const std::string& binary,
                                     const std::vector<std::string>& args,
                                     absl::Duration timeout,
                                     const std::vector<std::string>& env = {});

}  // namespace test
}  // namespace tributary

#endif  // TRIBUTARY_TESTS_DISTRIBUTED_TEST_PROCESS_H_
