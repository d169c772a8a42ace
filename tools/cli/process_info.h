// What `tributary cluster down` may learn about a process it did not start
// (the `cluster up` process and its children, by the pids in the state
// file), from /proc.
#ifndef TRIBUTARY_TOOLS_CLI_PROCESS_INFO_H_
#define TRIBUTARY_TOOLS_CLI_PROCESS_INFO_H_

#include <sys/types.h>

#include <string>
#include <vector>

#include "absl/time/time.h"

namespace tributary {

// Exists and is not a zombie.
bool ProcessAlive(pid_t pid);

// Its executable, symlinks resolved ("" when unknown or gone).
std::string ProcessExecutable(pid_t pid);

// Its argv ("" elements dropped; empty when unknown or gone).
std::vector<std::string> ProcessCommandLine(pid_t pid);

// Polls until the process is gone or `deadline`; true when gone.
bool WaitForProcessExit(pid_t pid, absl::Time deadline);

// `path` with symlinks resolved, or `path` itself when that fails.
std::string RealPathOr(const std::string& path);

}  // namespace tributary

#endif  // TRIBUTARY_TOOLS_CLI_PROCESS_INFO_H_
