#include "common/metrics/http_exposer.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "common/framework/status.h"

namespace tributary {
namespace metrics {
namespace {

constexpr size_t kMaxHead = 8192;
constexpr absl::Duration kClientTime = absl::Seconds(5);

// Waits until `fd` is ready for `events`, `wake` becomes readable (false)
// or `deadline` passes (false).
bool WaitFor(int fd, short events, int wake, absl::Time deadline) {
  for (;;) {
    const int64_t ms = absl::ToInt64Milliseconds(deadline - absl::Now());
    if (ms <= 0) return false;
    pollfd fds[2] = {{fd, events, 0}, {wake, POLLIN, 0}};
    const int n = poll(fds, 2, static_cast<int>(ms));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    if (fds[1].revents != 0) return false;
    return true;
  }
}

std::string Response(int code, const char* reason, const char* type,
                     const std::string& body) {
  return absl::StrCat("HTTP/1.1 ", code, " ", reason,
                      "\r\nContent-Type: ", type,
                      "\r\nContent-Length: ", body.size(),
                      "\r\nConnection: close\r\n\r\n", body);
}

}  // namespace

absl::StatusOr<std::unique_ptr<HttpExposer>> HttpExposer::Start(
    const std::string& listen, const Registry* registry) {
  const size_t colon = listen.rfind(':');
  int port = -1;
  if (colon == std::string::npos ||
      !absl::SimpleAtoi(listen.substr(colon + 1), &port) || port < 0 ||
      port > 65535) {
    return errors::InvalidArgument("--metrics-listen '", listen,
                                   "': want host:port");
  }
  std::string host = listen.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE;
  addrinfo* found = nullptr;
  const std::string port_text = std::to_string(port);
  const int rc = getaddrinfo(host.empty() ? nullptr : host.c_str(),
                             port_text.c_str(), &hints, &found);
  if (rc != 0) {
    return errors::Unavailable("Cannot serve metrics on ", listen,
                               ": cannot resolve '", host,
                               "': ", gai_strerror(rc));
  }
  int fd = -1;
  std::string why = "no address";
  for (addrinfo* ai = found; ai != nullptr && fd < 0; ai = ai->ai_next) {
    fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
    if (fd < 0) continue;
    const int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (bind(fd, ai->ai_addr, ai->ai_addrlen) != 0 || ::listen(fd, 16) != 0) {
      why = std::strerror(errno);
      close(fd);
      fd = -1;
    }
  }
  freeaddrinfo(found);
  if (fd < 0) {
    return errors::Unavailable("Cannot serve metrics on ", listen, ": ", why);
  }
  sockaddr_storage bound{};
  socklen_t length = sizeof(bound);
  getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &length);
  const int bound_port =
      ntohs(bound.ss_family == AF_INET6
                ? reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port
                : reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
  int wake[2];
  if (pipe2(wake, O_CLOEXEC) != 0) {
    close(fd);
    return errors::Internal("pipe: ", std::strerror(errno));
  }
  return std::unique_ptr<HttpExposer>(new HttpExposer(
      fd, wake[0], wake[1],
      absl::StrCat(listen.substr(0, colon + 1), bound_port), registry));
}

HttpExposer::HttpExposer(int listen_fd, int wake_read, int wake_write,
                         std::string address, const Registry* registry)
    : listen_fd_(listen_fd),
      wake_read_(wake_read),
      wake_write_(wake_write),
      address_(std::move(address)),
      registry_(registry),
      thread_([this] { Serve(); }) {}

HttpExposer::~HttpExposer() {
  const char byte = 0;
  (void)!write(wake_write_, &byte, 1);
  thread_.join();
  close(listen_fd_);
  close(wake_read_);
  close(wake_write_);
}

void HttpExposer::Serve() {
  for (;;) {
    pollfd fds[2] = {{listen_fd_, POLLIN, 0}, {wake_read_, POLLIN, 0}};
    const int n = poll(fds, 2, -1);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 || fds[1].revents != 0) return;
    const int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) continue;
    Answer(fd);
    close(fd);
  }
}

void HttpExposer::Answer(int fd) {
  const absl::Time deadline = absl::Now() + kClientTime;
  std::string head;
  size_t end = std::string::npos;  // where the head ends
  while ((end = head.find("\r\n\r\n")) == std::string::npos &&
         (end = head.find("\n\n")) == std::string::npos &&
         head.size() <= kMaxHead) {
    if (!WaitFor(fd, POLLIN, wake_read_, deadline)) return;
    char buffer[2048];
    const ssize_t got = recv(fd, buffer, sizeof(buffer), 0);
    if (got <= 0) return;
    head.append(buffer, got);
  }
  if (end == std::string::npos || end > kMaxHead) head.clear();
  std::string response;
  if (head.empty()) {
    response = Response(431, "Request Header Fields Too Large", "text/plain",
                        "request head over 8 KiB\n");
  } else {
    const std::string line = head.substr(0, head.find_first_of("\r\n"));
    const std::vector<std::string> parts = absl::StrSplit(line, ' ');
    if (parts.size() != 3 || parts[2].rfind("HTTP/1.", 0) != 0) {
      response = Response(400, "Bad Request", "text/plain", "not HTTP\n");
    } else if (parts[0] != "GET" && parts[0] != "HEAD") {
      response =
          Response(405, "Method Not Allowed", "text/plain", "only GET\n");
    } else {
      const std::string path = parts[1].substr(0, parts[1].find('?'));
      if (path == "/metrics") {
        response =
            Response(200, "OK", "text/plain; version=0.0.4; charset=utf-8",
                     registry_->Render());
      } else if (path == "/") {
        response = Response(200, "OK", "text/plain",
                            "Tributary: metrics are at /metrics\n");
      } else {
        response = Response(404, "Not Found", "text/plain", "not found\n");
      }
      if (parts[0] == "HEAD") response.resize(response.find("\r\n\r\n") + 4);
    }
  }
  size_t sent = 0;
  while (sent < response.size()) {
    if (!WaitFor(fd, POLLOUT, wake_read_, deadline)) return;
    const ssize_t n =
        send(fd, response.data() + sent, response.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) return;
    sent += n;
  }
  // Closing with unread bytes would reset the connection, and the client
  // could lose the answer: end our side, then take what it still sends.
  shutdown(fd, SHUT_WR);
  const absl::Time drain_until =
      std::min(deadline, absl::Now() + absl::Seconds(1));
  size_t drained = 0;
  while (drained < (1 << 20) && WaitFor(fd, POLLIN, wake_read_, drain_until)) {
    char buffer[4096];
    const ssize_t got = recv(fd, buffer, sizeof(buffer), 0);
    if (got <= 0) break;
    drained += got;
  }
}

}  // namespace metrics
}  // namespace tributary
