#include "common/daemon/daemon_process.h"

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <memory>

#include "absl/synchronization/mutex.h"
#include "common/daemon/log_format.h"
#include "common/framework/malloc_tuning.h"
#include "common/framework/status.h"
#include "spdlog/sinks/stdout_sinks.h"
#include "spdlog/spdlog.h"

namespace tributary {
namespace {

sigset_t TerminationSignals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  // Taken synchronously too, as "reload" (its default action would end
  // the process).
  sigaddset(&set, SIGHUP);
  return set;
}

}  // namespace

void PrepareDaemonProcess() {
  sigset_t set = TerminationSignals();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  signal(SIGPIPE, SIG_IGN);
  // Keep freed memory for reuse: without this, the next tensor of the same
  // size faults in every page again (~10 us per 4 KiB page here).
  TuneMallocForLargeTensors();
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
}

int WaitForTerminationSignal(const std::function<void()>& on_hangup) {
  sigset_t set = TerminationSignals();
  while (true) {
    int sig = 0;
    if (sigwait(&set, &sig) != 0) continue;
    if (sig != SIGHUP) return sig;
    if (on_hangup) {
      on_hangup();
    } else {
      spdlog::info("SIGHUP: nothing to reload");
    }
  }
}

void RequestTermination() {
  // Delivered to the process: whichever thread is in sigwait takes it.
  kill(getpid(), SIGTERM);
}

absl::Status InitDaemonLogging(const std::string& name,
                               const std::string& level,
                               const std::string& format) {
  const spdlog::level::level_enum parsed = spdlog::level::from_str(level);
  // from_str answers "off" for anything it does not know.
  if (parsed == spdlog::level::off && level != "off") {
    return errors::InvalidArgument("Unknown log level '", level, "' (",
                                   kLogLevelHelp, ")");
  }
  TRIB_ASSIGN_OR_RETURN(std::unique_ptr<spdlog::formatter> formatter,
                        NewLogFormatter(format));
  auto logger = spdlog::stderr_logger_mt(name);
  logger->set_formatter(std::move(formatter));
  logger->set_level(parsed);
  logger->flush_on(spdlog::level::info);
  spdlog::set_default_logger(logger);
  return absl::OkStatus();
}

}  // namespace tributary
