#ifndef TRIBUTARY_COMMON_DAEMON_DAEMON_PROCESS_H_
#define TRIBUTARY_COMMON_DAEMON_DAEMON_PROCESS_H_

// What every Tributary daemon (tributary-master, tributary-worker) does to
// its process, in one place:
//
//   int main(int argc, char** argv) {
//     tributary::PrepareDaemonProcess();   // first, before any thread exists
//     ... parse flags, InitDaemonLogging("worker", level) ...
//     ... start the gRPC server ...
//     int sig = tributary::WaitForTerminationSignal();
//     ... graceful stop ...
//     return 0;
//   }
//
// Signals: SIGTERM, SIGINT and SIGHUP are blocked in every thread (threads
// inherit the mask from the thread that creates them, hence "first") and taken
// synchronously by WaitForTerminationSignal, so the stop sequence runs as
// ordinary code instead of inside a signal handler. SIGPIPE is ignored (a
// peer that vanished mid-write is an RPC error, not a reason to die).
//
// Memory: the tensor path must not fault in fresh pages for every transfer
// (docs/operations.md, "Memory"): glibc is told to keep freed memory for
// reuse, in one arena, instead of trimming it back to the kernel. Abseil's
// mutex deadlock detection (on in Debian's build) is switched off: it costs
// a graph update per lock acquisition on the step path.

#include <functional>
#include <string>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "spdlog/logger.h"

namespace tributary {

// Signal mask, malloc tuning, mutex deadlock detection. Call first in main.
void PrepareDaemonProcess();

// Blocks until SIGTERM or SIGINT arrives (or RequestTermination() is
// called) and returns the signal number. Each SIGHUP meanwhile runs
// `on_hangup` on this thread (reload; null: logged and ignored).
int WaitForTerminationSignal(const std::function<void()>& on_hangup = nullptr);

// Sends this process SIGTERM, waking WaitForTerminationSignal (a daemon
// stopping itself).
void RequestTermination();

// Creates the daemon's spdlog logger named `name` on stderr in `format`
// (log_format.h: "text", "[time] [name] [level] message", or "json") and
// makes it the default logger. `level` is one of trace, debug, info, warn,
// error, critical, off; InvalidArgument for another level or format.
absl::Status InitDaemonLogging(const std::string& name,
                               const std::string& level,
                               const std::string& format = "text");

// The accepted --log-level values, for --help texts.
inline constexpr char kLogLevelHelp[] =
    "log level: trace, debug, info, warn, error, critical or off";

}  // namespace tributary

#endif  // TRIBUTARY_COMMON_DAEMON_DAEMON_PROCESS_H_
