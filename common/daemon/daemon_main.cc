#include "common/daemon/daemon_main.h"

#include "absl/strings/str_cat.h"
#include "common/daemon/daemon_process.h"
#include "common/daemon/systemd_notify.h"
#include "spdlog/spdlog.h"

namespace tributary {

std::optional<int> ParseDaemonFlags(CLI::App& app, int argc, char** argv) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {  // --help, --version
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return kExitUsage;
  }
  return std::nullopt;
}

int ServeUntilTerminated(absl::Duration grace,
                         absl::FunctionRef<void(absl::Time deadline)> stop,
                         const std::function<void()>& reload) {
  SystemdNotifier systemd;
  systemd.Ready("serving");
  const int sig = WaitForTerminationSignal(reload);
  const absl::Time deadline = absl::Now() + grace;
  spdlog::info("signal {}: stopping (grace period {})", sig,
               absl::FormatDuration(grace));
  systemd.Stopping(absl::StrCat("draining (grace period ",
                                absl::FormatDuration(grace), ")"));
  stop(deadline);
  spdlog::info("stopped");
  return 0;
}

}  // namespace tributary
