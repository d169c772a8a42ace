// How a readiness wait ends when the daemon does not answer: it exited, the
// deadline passed, or the caller interrupted it. (Daemons that do answer are
// waited for by cluster_command_test and every tests/distributed test.)
#include "tools/cli/daemon_readiness.h"

#include <unistd.h>

#include <cstdlib>
#include <memory>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "tools/cli/child_process.h"

namespace tributary {
namespace {

// Nothing listens on port 1 of loopback (only root could bind it).
constexpr char kNoServer[] = "127.0.0.1:1";

std::unique_ptr<ChildProcess> StartOrDie(const std::string& script,
                                         const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  auto child = ChildProcess::Start(
      {"/bin/sh", "-c", script},
      absl::StrCat(dir ? dir : "/tmp", "/", name, ".", getpid(), ".log"));
  EXPECT_TRUE(child.ok()) << child.status();
  return child.ok() ? *std::move(child) : nullptr;
}

TEST(DaemonReadinessTest, ADaemonThatExitsEndsTheWaitWithItsExitStatus) {
  auto daemon = StartOrDie("exit 3", "exits");
  ASSERT_NE(daemon, nullptr);
  auto answer = WaitForWorkerReady(*daemon, kNoServer, ReadinessWait());
  EXPECT_EQ(answer.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(answer.status().message(), "exited with status 3");
}

TEST(DaemonReadinessTest, TheDeadlineEndsTheWaitNamingTheProbeAndTimeout) {
  auto daemon = StartOrDie("exec sleep 600", "silent");
  ASSERT_NE(daemon, nullptr);
  ReadinessWait wait;
  wait.deadline = absl::Now();  // already passed
  wait.timeout = absl::Seconds(60);
  auto worker = WaitForWorkerReady(*daemon, kNoServer, wait);
  EXPECT_EQ(worker.status().code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_TRUE(absl::StrContains(worker.status().message(),
                                "did not answer GetStatus within 60 s"))
      << worker.status();
  auto master = WaitForMasterReady(*daemon, kNoServer, wait);
  EXPECT_EQ(master.status().code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_TRUE(absl::StrContains(master.status().message(),
                                "did not answer ListDevices within 60 s"))
      << master.status();
  EXPECT_TRUE(daemon->Running());
}

TEST(DaemonReadinessTest, InterruptionEndsTheWaitWithItsStatus) {
  auto daemon = StartOrDie("exec sleep 600", "interrupted");
  ASSERT_NE(daemon, nullptr);
  ReadinessWait wait;
  wait.interrupted = [] { return absl::CancelledError("stop"); };
  auto answer = WaitForMasterReady(*daemon, kNoServer, wait);
  EXPECT_EQ(answer.status(), absl::CancelledError("stop"));
  EXPECT_TRUE(daemon->Running());
}

}  // namespace
}  // namespace tributary
