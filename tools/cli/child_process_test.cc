#include "tools/cli/child_process.h"

#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <optional>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "tools/cli/process_info.h"

namespace tributary {
namespace {

std::string TempLog(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return absl::StrCat(dir ? dir : "/tmp", "/", name, ".", getpid(), ".log");
}

// Waits (bounded) until `text` shows in the log: the child reached a point.
bool WaitForLog(const std::string& path, const std::string& text) {
  const absl::Time deadline = absl::Now() + absl::Seconds(30);
  while (absl::Now() < deadline) {
    if (absl::StrContains(TailOfFile(path, 100), text)) return true;
    absl::SleepFor(absl::Milliseconds(10));
  }
  return false;
}

TEST(ChildProcessTest, RunsWithOutputInLogAndReportsExitStatus) {
  const std::string log = TempLog("exit3");
  auto child = ChildProcess::Start(
      {"/bin/sh", "-c", "echo to-stdout; echo to-stderr >&2; exit 3"}, log);
  ASSERT_TRUE(child.ok()) << child.status();
  ASSERT_TRUE((*child)->WaitUntil(absl::Now() + absl::Seconds(60)));
  EXPECT_FALSE((*child)->Running());
  EXPECT_EQ((*child)->ExitCode(), 3);
  EXPECT_EQ((*child)->ExitDescription(), "exited with status 3");
  const std::string text = TailOfFile(log, 10);
  EXPECT_TRUE(absl::StrContains(text, "to-stdout")) << text;
  EXPECT_TRUE(absl::StrContains(text, "to-stderr")) << text;
}

TEST(ChildProcessTest, ExecFailureIsAnErrorNamingTheBinary) {
  auto child =
      ChildProcess::Start({"/nonexistent/tributary-worker"}, TempLog("noexec"));
  ASSERT_FALSE(child.ok());
  EXPECT_TRUE(absl::StrContains(child.status().message(),
                                "/nonexistent/tributary-worker"))
      << child.status();
}

TEST(ChildProcessTest, OwnProcessGroupAndSignalsUnblocked) {
  // The launcher blocks SIGTERM; its children must still die of it.
  sigset_t set, old;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set, &old);
  auto child = ChildProcess::Start({"/bin/sleep", "600"}, TempLog("sleep"));
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  ASSERT_TRUE(child.ok()) << child.status();
  EXPECT_EQ(getpgid((*child)->pid()), (*child)->pid());
  EXPECT_TRUE(ProcessAlive((*child)->pid()));
  std::vector<ChildProcess*> killed =
      StopChildren({child->get()}, absl::Seconds(60));
  EXPECT_TRUE(killed.empty());
  EXPECT_EQ((*child)->ExitDescription(),
            "was killed by signal 15 (Terminated)");
}

TEST(ChildProcessTest, StopKillsAChildThatIgnoresSigterm) {
  const std::string log = TempLog("stubborn");
  auto child = ChildProcess::Start(
      {"/bin/sh", "-c", "trap '' TERM; echo ready; while :; do sleep 1; done"},
      log);
  ASSERT_TRUE(child.ok()) << child.status();
  ASSERT_TRUE(WaitForLog(log, "ready"));
  std::vector<ChildProcess*> killed =
      StopChildren({child->get()}, absl::Milliseconds(200));
  ASSERT_EQ(killed.size(), 1u);
  EXPECT_FALSE((*child)->Running());
  EXPECT_TRUE(absl::StrContains((*child)->ExitDescription(), "signal 9"));
}

TEST(ChildProcessTest, EnvironmentLosesUnsetAndGainsSetVariables) {
  setenv("CHILD_PROCESS_TEST_DROPPED", "inherited", 1);
  setenv("CHILD_PROCESS_TEST_REPLACED", "inherited", 1);
  setenv("CHILD_PROCESS_TEST_KEPT", "inherited", 1);
  const std::string log = TempLog("env");
  ChildProcessOptions options;
  options.unset_env = {"CHILD_PROCESS_TEST_DROPPED"};
  options.set_env = {"CHILD_PROCESS_TEST_REPLACED=set",
                     "CHILD_PROCESS_TEST_ADDED=added"};
  auto child = ChildProcess::Start(
      {"/bin/sh", "-c",
       "echo dropped=${CHILD_PROCESS_TEST_DROPPED-unset}"
       " replaced=$CHILD_PROCESS_TEST_REPLACED"
       " added=$CHILD_PROCESS_TEST_ADDED kept=$CHILD_PROCESS_TEST_KEPT"},
      log, options);
  ASSERT_TRUE(child.ok()) << child.status();
  ASSERT_TRUE((*child)->WaitUntil(absl::Now() + absl::Seconds(60)));
  EXPECT_EQ(TailOfFile(log, 1),
            "dropped=unset replaced=set added=added kept=inherited\n");
}

TEST(ChildProcessTest, NameAndCommandLineForMessages) {
  auto unnamed = ChildProcess::Start({"/bin/true", "a", "b"}, TempLog("true"));
  ASSERT_TRUE(unnamed.ok()) << unnamed.status();
  EXPECT_EQ((*unnamed)->name(), "/bin/true");
  EXPECT_EQ((*unnamed)->command_line(), "/bin/true a b");
  ChildProcessOptions options;
  options.name = "worker-1";
  auto named = ChildProcess::Start({"/bin/true"}, TempLog("named"), options);
  ASSERT_TRUE(named.ok()) << named.status();
  EXPECT_EQ((*named)->name(), "worker-1");
}

TEST(ChildProcessTest, ExitCodeOfASignalledChildIsAsAShellReportsIt) {
  auto child = ChildProcess::Start({"/bin/sleep", "600"}, TempLog("killed"));
  ASSERT_TRUE(child.ok()) << child.status();
  EXPECT_EQ((*child)->ExitCode(), std::nullopt);  // still running
  (*child)->Kill();
  EXPECT_FALSE((*child)->Running());
  EXPECT_EQ((*child)->ExitCode(), 128 + SIGKILL);
  EXPECT_FALSE(ProcessAlive((*child)->pid()));
}

TEST(ChildProcessTest, DestructorLeavesNoProcess) {
  pid_t pid;
  {
    auto child = ChildProcess::Start({"/bin/sleep", "600"}, TempLog("dtor"));
    ASSERT_TRUE(child.ok());
    pid = (*child)->pid();
  }
  EXPECT_FALSE(ProcessAlive(pid));
}

TEST(ChildProcessTest, TailOfFileKeepsTheLastLines) {
  const std::string log = TempLog("tail");
  auto child = ChildProcess::Start(
      {"/bin/sh", "-c", "for i in 1 2 3 4 5; do echo line$i; done"}, log);
  ASSERT_TRUE(child.ok());
  ASSERT_TRUE((*child)->WaitUntil(absl::Now() + absl::Seconds(60)));
  EXPECT_EQ(TailOfFile(log, 2), "line4\nline5\n");
  EXPECT_EQ(TailOfFile("/nonexistent/log", 2), "");
}

}  // namespace
}  // namespace tributary
