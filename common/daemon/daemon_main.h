#ifndef TRIBUTARY_COMMON_DAEMON_DAEMON_MAIN_H_
#define TRIBUTARY_COMMON_DAEMON_DAEMON_MAIN_H_

// The parts of main() every daemon shares around its server object:
// parsing the flags (exit codes: 0 after --help, 2 for bad flags) and the
// life after the server started (wait for SIGTERM/SIGINT, log the stop,
// stop within the grace period, log "stopped", exit 0). The mains keep
// their flags, messages and server; this keeps them the same for both.

#include <functional>
#include <optional>

#include "CLI/CLI.hpp"
#include "absl/functional/function_ref.h"
#include "absl/time/time.h"

namespace tributary {

// Exit status of a daemon given bad flags, a bad cluster spec or a task
// that is not in it.
inline constexpr int kExitUsage = 2;
// Exit status when the server cannot be built or bound.
inline constexpr int kExitRuntime = 1;

// Parses argv into `app`. nullopt: go on; otherwise the exit status (0
// after --help, kExitUsage for a bad flag; CLI11 printed why).
std::optional<int> ParseDaemonFlags(CLI::App& app, int argc, char** argv);

// Tells systemd the daemon is ready (systemd_notify.h: READY=1, and the
// watchdog pings when the unit has WatchdogSec), blocks until SIGTERM or
// SIGINT (PrepareDaemonProcess must have run), logs "signal N: stopping
// (grace period G)", tells systemd STOPPING=1, calls stop(now + grace) and
// logs "stopped". Returns the daemon's exit status, 0.
// SIGHUP before that runs `reload` (null: ignored, logged).
int ServeUntilTerminated(absl::Duration grace,
                         absl::FunctionRef<void(absl::Time deadline)> stop,
                         const std::function<void()>& reload = nullptr);

}  // namespace tributary

#endif  // TRIBUTARY_COMMON_DAEMON_DAEMON_MAIN_H_
