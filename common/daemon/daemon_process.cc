#include "common/daemon/daemon_process.h"

#include <malloc.h>
#include <pthread.h>
#include <signal.h>

#include <unistd.h>

#include <cerrno>
#include <memory>

#include "absl/synchronization/mutex.h"
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
  return set;
}

}  // namespace

void PrepareDaemonProcess() {
  sigset_t set = TerminationSignals();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  signal(SIGPIPE, SIG_IGN);
  // Keep freed memory in the heap for reuse: without this, glibc returns
  // large blocks to the kernel and the next tensor of the same size faults
  // in every page again (~10 us per 4 KiB page on these machines).
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  mallopt(M_MMAP_THRESHOLD, 32 << 20);  // glibc's largest allowed value
  // One arena: glibc's extra per-thread arenas live in heaps of at most
  // 64 MiB that are unmapped as soon as they are empty, whatever the trim
  // threshold says, so gRPC's receive buffers for big messages were faulted
  // in afresh every time (docs/benchmarks.md, page faults per step). Tensor
  // buffers come from the caching allocator, so contention on the one arena
  // is limited to small protocol objects.
  mallopt(M_ARENA_MAX, 1);
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
}

int WaitForTerminationSignal() {
  sigset_t set = TerminationSignals();
  int sig = 0;
  while (sigwait(&set, &sig) != 0) {
  }
  return sig;
}

void RequestTermination() {
  // Delivered to the process: whichever thread is in sigwait takes it.
  kill(getpid(), SIGTERM);
}

absl::Status InitDaemonLogging(const std::string& name,
                               const std::string& level) {
  const spdlog::level::level_enum parsed = spdlog::level::from_str(level);
  // from_str answers "off" for anything it does not know.
  if (parsed == spdlog::level::off && level != "off") {
    return errors::InvalidArgument("Unknown log level '", level, "' (",
                                   kLogLevelHelp, ")");
  }
  auto logger = spdlog::stderr_logger_mt(name);
  logger->set_pattern("[%Y-%m-%d %H:%M:%S.%e] [%n] [%l] %v");
  logger->set_level(parsed);
  logger->flush_on(spdlog::level::info);
  spdlog::set_default_logger(logger);
  return absl::OkStatus();
}

}  // namespace tributary
