#include "common/daemon/systemd_notify.h"

#include <systemd/sd-daemon.h>

#include <cstdint>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "spdlog/spdlog.h"

namespace tributary {
namespace {

void Notify(const std::string& state) {
  // 0: not under systemd; < 0: the socket failed, which must not stop a
  // daemon that otherwise works.
  const int rc = sd_notify(/*unset_environment=*/0, state.c_str());
  if (rc < 0) spdlog::warn("systemd notification failed: {}", rc);
}

}  // namespace

void SystemdNotifier::Ready(const std::string& status) {
  Notify(absl::StrCat("READY=1\nSTATUS=", status));
  uint64_t usec = 0;
  if (sd_watchdog_enabled(/*unset_environment=*/0, &usec) <= 0 || usec == 0 ||
      watchdog_.joinable()) {
    return;
  }
  const absl::Duration interval = absl::Microseconds(usec) / 2;
  spdlog::info("systemd watchdog: pinging every {}",
               absl::FormatDuration(interval));
  watchdog_ = std::thread([this, interval] {
    do {
      Notify("WATCHDOG=1");
    } while (!stop_.WaitForNotificationWithTimeout(interval));
  });
}

void SystemdNotifier::Stopping(const std::string& status) {
  Notify(absl::StrCat("STOPPING=1\nSTATUS=", status));
}

SystemdNotifier::~SystemdNotifier() {
  stop_.Notify();
  if (watchdog_.joinable()) watchdog_.join();
}

}  // namespace tributary
