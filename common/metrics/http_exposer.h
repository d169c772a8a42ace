#ifndef TRIBUTARY_COMMON_METRICS_HTTP_EXPOSER_H_
#define TRIBUTARY_COMMON_METRICS_HTTP_EXPOSER_H_

// Serves a Registry over plain HTTP/1.1 for Prometheus to scrape (a daemon's
// --metrics-listen):
//   GET /metrics   200, text/plain; version=0.0.4, Registry::Render();
//   GET /          200, a line pointing to /metrics;
//   other paths    404; other methods 405; a request that is not HTTP 400.
// One thread, one connection at a time (Prometheus scrapes a target one
// request at a time), each closed after its answer. A client gets 5 s to
// send its request and take the answer, so a stalled one cannot hold the
// exposer; a request head over 8 KiB is refused (431).

#include <memory>
#include <string>
#include <thread>

#include "absl/status/statusor.h"
#include "common/metrics/metrics.h"

namespace tributary {
namespace metrics {

class HttpExposer {
 public:
  // Listens on `listen` ("host:port"; port 0 picks one). Unavailable when
  // it cannot be bound, InvalidArgument when it is not host:port.
  static absl::StatusOr<std::unique_ptr<HttpExposer>> Start(
      const std::string& listen, const Registry* registry);
  // Stops serving: the thread ends within a moment, even mid-connection.
  ~HttpExposer();

  // "host:port" with the port actually bound.
  const std::string& address() const { return address_; }

 private:
  HttpExposer(int listen_fd, int wake_read, int wake_write, std::string address,
              const Registry* registry);
  void Serve();
  void Answer(int fd);

  const int listen_fd_;
  const int wake_read_, wake_write_;  // a pipe that ends Serve's waits
  const std::string address_;
  const Registry* const registry_;
  std::thread thread_;
};

}  // namespace metrics
}  // namespace tributary

#endif  // TRIBUTARY_COMMON_METRICS_HTTP_EXPOSER_H_
