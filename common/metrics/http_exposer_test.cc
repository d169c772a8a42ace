#include "common/metrics/http_exposer.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"

namespace tributary {
namespace metrics {
namespace {

int Connect(const std::string& address) {
  int port = 0;
  EXPECT_TRUE(absl::SimpleAtoi(address.substr(address.rfind(':') + 1), &port));
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(port);
  inet_pton(AF_INET, "127.0.0.1", &to.sin_addr);
  EXPECT_EQ(connect(fd, reinterpret_cast<sockaddr*>(&to), sizeof(to)), 0);
  return fd;
}

// Sends `request` and reads until the exposer closes the connection.
std::string Exchange(const std::string& address, const std::string& request) {
  const int fd = Connect(address);
  EXPECT_EQ(send(fd, request.data(), request.size(), 0),
            static_cast<ssize_t>(request.size()));
  std::string answer;
  char buffer[4096];
  ssize_t n;
  while ((n = recv(fd, buffer, sizeof(buffer), 0)) > 0)
    answer.append(buffer, n);
  close(fd);
  return answer;
}

class HttpExposerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    registry_.Counter("test_total", "Help.")->With({})->Increment(5);
    auto exposer = HttpExposer::Start("127.0.0.1:0", &registry_);
    ASSERT_TRUE(exposer.ok()) << exposer.status();
    exposer_ = std::move(*exposer);
  }
  Registry registry_;
  std::unique_ptr<HttpExposer> exposer_;
};

TEST_F(HttpExposerTest, ServesTheRegistryAtMetrics) {
  EXPECT_FALSE(absl::EndsWith(exposer_->address(), ":0"));
  const std::string answer =
      Exchange(exposer_->address(), "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n");
  EXPECT_TRUE(absl::StartsWith(answer, "HTTP/1.1 200 OK\r\n")) << answer;
  EXPECT_TRUE(absl::StrContains(
      answer, "Content-Type: text/plain; version=0.0.4; charset=utf-8\r\n"));
  const std::string body = registry_.Render();
  EXPECT_TRUE(absl::StrContains(
      answer, absl::StrCat("Content-Length: ", body.size(), "\r\n")));
  EXPECT_TRUE(absl::EndsWith(answer, "\r\n\r\n" + body)) << answer;
  EXPECT_TRUE(absl::StrContains(body, "test_total 5\n"));
}

TEST_F(HttpExposerTest, AnswersOtherRequestsWithTheRightCode) {
  const std::string& at = exposer_->address();
  EXPECT_TRUE(absl::StartsWith(Exchange(at, "GET /nope HTTP/1.1\r\n\r\n"),
                               "HTTP/1.1 404"));
  EXPECT_TRUE(absl::StartsWith(Exchange(at, "POST /metrics HTTP/1.1\r\n\r\n"),
                               "HTTP/1.1 405"));
  EXPECT_TRUE(
      absl::StartsWith(Exchange(at, "hello there\r\n\r\n"), "HTTP/1.1 400"));
  EXPECT_TRUE(absl::StartsWith(
      Exchange(at,
               "GET / HTTP/1.1\r\nX: " + std::string(10000, 'a') + "\r\n\r\n"),
      "HTTP/1.1 431"));
  const std::string head = Exchange(at, "HEAD /metrics HTTP/1.0\r\n\r\n");
  EXPECT_TRUE(absl::StartsWith(head, "HTTP/1.1 200"));
  EXPECT_TRUE(absl::EndsWith(head, "\r\n\r\n"));
  EXPECT_TRUE(absl::StartsWith(
      Exchange(at, "GET /metrics?x=1 HTTP/1.1\r\n\r\n"), "HTTP/1.1 200"));
}

TEST_F(HttpExposerTest, AStalledClientIsDroppedAndOthersAreServed) {
  const int stalled = Connect(exposer_->address());
  const absl::Time began = absl::Now();
  const std::string answer =
      Exchange(exposer_->address(), "GET /metrics HTTP/1.1\r\n\r\n");
  EXPECT_TRUE(absl::StartsWith(answer, "HTTP/1.1 200")) << answer;
  EXPECT_LT(absl::Now() - began, absl::Seconds(15));
  close(stalled);
}

TEST_F(HttpExposerTest, StopsPromptlyWhileAClientStalls) {
  const int stalled = Connect(exposer_->address());
  absl::SleepFor(absl::Milliseconds(100));  // let it be accepted
  const absl::Time began = absl::Now();
  exposer_.reset();
  EXPECT_LT(absl::Now() - began, absl::Seconds(2));
  close(stalled);
}

TEST(HttpExposerStartTest, BadAddressesAreErrors) {
  Registry registry;
  EXPECT_EQ(HttpExposer::Start("nonsense", &registry).status().code(),
            absl::StatusCode::kInvalidArgument);
  auto first = HttpExposer::Start("127.0.0.1:0", &registry);
  ASSERT_TRUE(first.ok());
  auto second = HttpExposer::Start((*first)->address(), &registry);
  EXPECT_EQ(second.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_TRUE(absl::StrContains(second.status().message(), "in use"))
      << second.status();
}

}  // namespace
}  // namespace metrics
}  // namespace tributary
