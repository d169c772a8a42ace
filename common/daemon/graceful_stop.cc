#include "common/daemon/graceful_stop.h"

#include <thread>

namespace tributary {

void ShutdownWhileDraining(GrpcServer& server, absl::Time deadline,
                           absl::FunctionRef<void()> drain) {
  std::thread stop_server([&server, deadline] { server.Shutdown(deadline); });
  drain();
  stop_server.join();
}

}  // namespace tributary
