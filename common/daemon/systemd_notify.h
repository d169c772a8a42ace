#ifndef TRIBUTARY_COMMON_DAEMON_SYSTEMD_NOTIFY_H_
#define TRIBUTARY_COMMON_DAEMON_SYSTEMD_NOTIFY_H_

// The daemons' side of systemd's notify protocol (sd_notify(3), through
// Debian's libsystemd), for Type=notify units (deploy/systemd):
//   Ready()     READY=1 once the daemon serves, and, when the unit has
//               WatchdogSec (WATCHDOG_USEC in the environment), WATCHDOG=1
//               every half of that period from a thread of its own, until
//               destruction (through the drain too: a daemon that hangs
//               while serving or draining is restarted);
//   Stopping()  STOPPING=1 when SIGTERM begins the drain.
// Each also sends a STATUS= line (shown by `systemctl status`). Without
// NOTIFY_SOCKET (not started by systemd, or another Type) nothing is sent.
// Used once per process, from the main thread.

#include <string>
#include <thread>

#include "absl/synchronization/notification.h"

namespace tributary {

class SystemdNotifier {
 public:
  SystemdNotifier() = default;
  ~SystemdNotifier();
  SystemdNotifier(const SystemdNotifier&) = delete;
  SystemdNotifier& operator=(const SystemdNotifier&) = delete;

  void Ready(const std::string& status);
  void Stopping(const std::string& status);

 private:
  absl::Notification stop_;
  std::thread watchdog_;
};

}  // namespace tributary

#endif  // TRIBUTARY_COMMON_DAEMON_SYSTEMD_NOTIFY_H_
