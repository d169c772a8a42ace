#ifndef TRIBUTARY_COMMON_RPC_HEALTH_SERVICE_H_
#define TRIBUTARY_COMMON_RPC_HEALTH_SERVICE_H_

// The standard gRPC health service (grpc.health.v1.Health), as Kubernetes'
// gRPC probes, grpc_health_probe and load balancers ask it:
//   Check(service)  SERVING or NOT_SERVING for "" (the whole server) and
//                   each registered name; NOT_FOUND for any other name;
//   Watch(service)  the status at once, then each change (within the
//                   polling period, 100 ms); SERVICE_UNKNOWN for a name not
//                   registered (it may be later). Once the server shuts down
//                   the watcher is sent NOT_SERVING and its call ends with
//                   OK, so an open Watch never holds a shutdown up.
// Our own rather than gRPC's default service: that one, on our generic
// server, keeps Watch calls open through Shutdown until the grace deadline.

#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "common/rpc/rpc_service.h"

namespace tributary {

// What the health service answers. Thread-safe.
class HealthStatus {
 public:
  // "" and each of `names`, all NOT_SERVING until SetServing(true).
  explicit HealthStatus(const std::vector<std::string>& names);

  // Every registered name at once; ignored after Shutdown.
  void SetServing(bool serving);
  // NOT_SERVING for good; watchers are told and their calls end.
  void Shutdown();

  enum class Answer { kServing, kNotServing, kUnknown };
  Answer Get(const std::string& name) const;
  bool shut_down() const;

 private:
  mutable absl::Mutex mu_;
  absl::flat_hash_map<std::string, bool> serving_ ABSL_GUARDED_BY(mu_);
  bool shut_down_ ABSL_GUARDED_BY(mu_) = false;
};

inline constexpr char kHealthServiceName[] = "grpc.health.v1.Health";

// Check and Watch over `status` (which must outlive the service).
RpcService NewHealthService(const HealthStatus* status);

}  // namespace tributary

#endif  // TRIBUTARY_COMMON_RPC_HEALTH_SERVICE_H_
