#include "tools/cli/termination_signals.h"

#include <errno.h>
#include <signal.h>
#include <time.h>

namespace tributary {
namespace {

sigset_t TerminationSet() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGHUP);
  return set;
}

}  // namespace

void BlockTerminationSignals() {
  const sigset_t set = TerminationSet();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
}

int WaitForTerminationSignalFor(absl::Duration timeout) {
  const sigset_t set = TerminationSet();
  if (timeout < absl::ZeroDuration()) timeout = absl::ZeroDuration();
  const timespec ts = absl::ToTimespec(timeout);
  int sig;
  do {
    sig = sigtimedwait(&set, nullptr, &ts);
  } while (sig < 0 && errno == EINTR);
  return sig < 0 ? 0 : sig;
}

}  // namespace tributary
