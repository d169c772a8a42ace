// The fixture's own promises: daemons do not outlive the TestCluster, nor the
// test process (even one killed with SIGKILL, which runs no destructor), and
// a stopped task can be restarted on its address.

#include "tests/distributed/cluster_fixture.h"

#include <signal.h>
#include <sys/types.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"

namespace tributary {
namespace test {
namespace {

// Gone: no such process, or a zombie nobody has reaped yet (it has exited;
// in a sandbox its new parent may never reap it).
bool ProcessGone(pid_t pid) {
  if (kill(pid, 0) != 0) return errno == ESRCH;
  std::ifstream stat(absl::StrCat("/proc/", pid, "/stat"));
  std::string text((std::istreambuf_iterator<char>(stat)),
                   std::istreambuf_iterator<char>());
  const size_t paren = text.rfind(')');
  return paren != std::string::npos && paren + 2 < text.size() &&
         text[paren + 2] == 'Z';
}

bool AllGoneWithin(const std::vector<pid_t>& pids, absl::Duration timeout) {
  const absl::Time deadline = absl::Now() + timeout;
  while (true) {
    bool all = true;
    for (pid_t pid : pids) all = all && ProcessGone(pid);
    if (all) return true;
    if (absl::Now() >= deadline) return false;
    absl::SleepFor(absl::Milliseconds(20));  // polling other processes' state
  }
}

TEST(ClusterFixtureTest, DestructorLeavesNoDaemonBehind) {
  std::vector<pid_t> pids;
  {
    auto cluster = TestCluster::Start();
    ASSERT_TRUE(cluster.ok()) << cluster.status();
    pids = (*cluster)->Pids();
    ASSERT_EQ(pids.size(), 4u);
    for (pid_t pid : pids) EXPECT_FALSE(ProcessGone(pid)) << pid;
  }
  for (pid_t pid : pids) EXPECT_TRUE(ProcessGone(pid)) << pid;
}

TEST(ClusterFixtureTest, KillAndRestartATask) {
  auto cluster = TestCluster::Start();
  ASSERT_TRUE(cluster.ok()) << cluster.status();
  ASSERT_TRUE((*cluster)->KillTask("worker", 0).ok());
  EXPECT_FALSE((*cluster)->TaskRunning("worker", 0));
  EXPECT_TRUE((*cluster)->TaskRunning("worker", 1));
  EXPECT_EQ((*cluster)->RestartTask("ps", 0).code(),
            absl::StatusCode::kFailedPrecondition);  // still running
  absl::Status s = (*cluster)->RestartTask("worker", 0);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_TRUE((*cluster)->TaskRunning("worker", 0));
  s = (*cluster)->TerminateAll(absl::Seconds(30));
  EXPECT_TRUE(s.ok()) << s;
}

TEST(ClusterFixtureTest, DaemonsDieWithAKilledTestProcess) {
  const std::string dir = MakeTempDir("fixture_child");
  const std::string pids_file = dir + "/pids";
  // cluster_holder starts a cluster and waits (see cluster_holder.cc).
  auto child = StartTestProcess(
      "cluster_holder",
      {RunfilePath("tests/distributed/cluster_holder"), pids_file},
      dir + "/child.log");
  ASSERT_TRUE(child.ok()) << child.status();

  // Wait (bounded) for the child's cluster to be up.
  const absl::Time deadline = absl::Now() + absl::Seconds(90);
  std::string text;
  while (text.empty()) {
    std::ifstream in(pids_file);
    std::getline(in, text);
    ASSERT_TRUE((*child)->Running()) << ReadLog(**child);
    ASSERT_LT(absl::Now(), deadline) << ReadLog(**child);
    if (text.empty()) absl::SleepFor(absl::Milliseconds(50));
  }
  std::vector<pid_t> pids;
  for (absl::string_view field : absl::StrSplit(text, ' ', absl::SkipEmpty())) {
    pids.push_back(std::atoi(std::string(field).c_str()));
  }
  ASSERT_EQ(pids.size(), 4u) << text;

  // SIGKILL: no destructor runs in the child; only PR_SET_PDEATHSIG can
  // take its daemons down.
  (*child)->Kill();
  EXPECT_TRUE(AllGoneWithin(pids, absl::Seconds(30)))
      << "daemons outlived their test process: " << text;
  for (pid_t pid : pids) {
    if (!ProcessGone(pid)) kill(pid, SIGKILL);  // do not leak them here either
  }
}

}  // namespace
}  // namespace test
}  // namespace tributary
