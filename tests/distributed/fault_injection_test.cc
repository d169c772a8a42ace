// Faults injected into a real cluster (1 ps + 2 workers + master, processes
// on 127.0.0.1), issue 17's "fault injection":
//  * a worker stopped with SIGSTOP (hung, its sockets open): steps that need
//    it end with DeadlineExceeded at their deadline, many at once, and the
//    master's thread count stays bounded (no thread per blocked step); after
//    SIGCONT the same session runs steps again;
//  * 1000 sessions created, used across tasks and closed: the master's and
//    every worker's open file descriptors and resident memory stay flat
//    (measured after 100 and after 1000, printed).
// Killing a worker (mid-step or between steps) and restarting it is
// worker_loss_test's.

#include <signal.h>
#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <future>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "tests/distributed/cluster_fixture.h"
#include "tests/distributed/distributed_test_util.h"
#include "tools/client/graph_builder.h"
#include "tools/client/session.h"

namespace tributary {
namespace test {
namespace {

// x (fed on worker 0) * 3 on worker 1, fetched on ps: every task takes part.
tensorflow::GraphDef AcrossTasks() {
  GraphBuilder b;
  Output x = b.Placeholder(tensorflow::DT_FLOAT, {},
                           NodeOptions("x").WithDevice(Cpu(kWorker0)));
  Output y = b.Mul(
      x, b.Scalar<float>(3.0f, NodeOptions("three").WithDevice(Cpu(kWorker1))),
      NodeOptions("y").WithDevice(Cpu(kWorker1)));
  b.Identity(y, NodeOptions("out").WithDevice(Cpu(kPs)));
  return b.Build().value();
}

absl::StatusOr<float> RunOut(Session* s, float x, int timeout_ms) {
  std::vector<Tensor> out;
  absl::Status st =
      RunStep(s, {{"x", Tensor(x)}}, {"out"}, {}, &out, timeout_ms);
  if (!st.ok()) return st;
  return out[0].scalar<float>()();
}

// A "Key:   value kB"-style field of /proc/PID/status, as a number.
int64_t ProcStatusField(pid_t pid, const std::string& key) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line)) {
    if (!absl::StartsWith(line, key + ":")) continue;
    std::vector<std::string> parts = absl::StrSplit(
        line.substr(key.size() + 1), absl::ByAnyChar(" \t"), absl::SkipEmpty());
    int64_t v = -1;
    if (!parts.empty() && absl::SimpleAtoi(parts[0], &v)) return v;
  }
  return -1;
}

int64_t Threads(pid_t pid) { return ProcStatusField(pid, "Threads"); }
int64_t RssKiB(pid_t pid) { return ProcStatusField(pid, "VmRSS"); }
int64_t OpenFds(pid_t pid) {
  int64_t n = 0;
  std::error_code ec;
  for (auto it = std::filesystem::directory_iterator(
           "/proc/" + std::to_string(pid) + "/fd", ec);
       !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
    ++n;
  }
  return n;
}

class FaultInjectionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto cluster = TestCluster::Start();
    ASSERT_TRUE(cluster.ok()) << cluster.status();
    cluster_ = std::move(cluster).value();
  }
  void TearDown() override {
    if (cluster_) {
      // A stopped worker would not take SIGTERM.
      cluster_->SignalTask("worker", 1, SIGCONT).IgnoreError();
      if (HasFailure()) cluster_->DumpLogs();
    }
  }
  std::string target() const { return cluster_->master_target(); }

  std::unique_ptr<TestCluster> cluster_;
};

TEST_F(FaultInjectionTest,
       StoppedWorkerGivesDeadlineExceededWithBoundedThreads) {
  auto session = OpenSession(target(), AcrossTasks());
  ASSERT_TRUE(session.ok()) << session.status();
  Session* s = session->get();
  ASSERT_EQ(RunOut(s, 2.0f, 30000).value_or(-1), 6.0f);
  const pid_t master = cluster_->MasterPid();
  const int64_t threads_before = Threads(master);

  ASSERT_TRUE(cluster_->SignalTask("worker", 1, SIGSTOP).ok());
  constexpr int kSteps = 32;
  constexpr int kTimeoutMs = 2000;
  std::vector<int64_t> threads_after_round;
  for (int round = 0; round < 2; ++round) {
    std::vector<std::future<absl::Status>> steps;
    for (int i = 0; i < kSteps; ++i) {
      steps.push_back(std::async(std::launch::async, [s] {
        return RunOut(s, 1.0f, kTimeoutMs).status();
      }));
    }
    int64_t peak = 0;
    for (auto& step : steps) {
      // Each ends by itself at its deadline (plus the master's cancel grace
      // and scheduling); this bound only catches a hang.
      ASSERT_EQ(step.wait_for(std::chrono::seconds(60)),
                std::future_status::ready);
      peak = std::max(peak, Threads(master));
      const absl::Status st = step.get();
      EXPECT_EQ(st.code(), absl::StatusCode::kDeadlineExceeded) << st;
    }
    threads_after_round.push_back(std::max(peak, Threads(master)));
  }
  std::cout << "master threads: " << threads_before << " before, at most "
            << threads_after_round[0] << " during " << kSteps
            << " blocked steps, " << threads_after_round[1]
            << " during 32 more\n";
  // No thread per blocked step, and no growth from one round to the next.
  EXPECT_LT(threads_after_round[0], threads_before + kSteps / 2);
  EXPECT_LE(threads_after_round[1], threads_after_round[0] + 2);

  ASSERT_TRUE(cluster_->SignalTask("worker", 1, SIGCONT).ok());
  absl::StatusOr<float> again = RunOut(s, 4.0f, 30000);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(*again, 12.0f);
}

TEST_F(FaultInjectionTest, SessionChurnKeepsFdsAndMemoryFlat) {
  const tensorflow::GraphDef graph = AcrossTasks();
  struct Reading {
    std::vector<int64_t> fds, rss_kib;
  };
  auto read = [&] {
    Reading r;
    for (pid_t pid : cluster_->Pids()) {
      r.fds.push_back(OpenFds(pid));
      r.rss_kib.push_back(RssKiB(pid));
    }
    return r;
  };
  auto cycle = [&](int i) {
    auto session = OpenSession(target(), graph);
    ASSERT_TRUE(session.ok()) << "cycle " << i << ": " << session.status();
    absl::StatusOr<float> out = RunOut(session->get(), 1.0f * (i % 7), 30000);
    ASSERT_TRUE(out.ok()) << "cycle " << i << ": " << out.status();
    EXPECT_EQ(*out, 3.0f * (i % 7));
    ASSERT_TRUE((*session)->Close().ok());
  };
  constexpr int kWarmUp = 100;
  constexpr int kCycles = 1000;
  for (int i = 0; i < kWarmUp; ++i) {
    cycle(i);
    if (HasFatalFailure()) return;
  }
  const Reading warm = read();
  for (int i = kWarmUp; i < kCycles; ++i) {
    cycle(i);
    if (HasFatalFailure()) return;
  }
  const Reading end = read();
  const std::vector<pid_t> pids = cluster_->Pids();
  for (size_t p = 0; p < pids.size(); ++p) {
    const std::string who =
        p + 1 == pids.size() ? std::string("master") : cluster_->TaskNames()[p];
    std::cout << who << ": fds " << warm.fds[p] << " -> " << end.fds[p]
              << ", RSS " << warm.rss_kib[p] << " -> " << end.rss_kib[p]
              << " KiB after " << kCycles - kWarmUp << " more sessions\n";
    // Flat: a leaked descriptor or session per cycle would add 900.
    EXPECT_LE(end.fds[p], warm.fds[p] + 4) << who;
    // A leak of even 16 KiB per session would add 14 MiB.
    EXPECT_LE(end.rss_kib[p], warm.rss_kib[p] + 8 * 1024) << who;
  }
}

}  // namespace
}  // namespace test
}  // namespace tributary
