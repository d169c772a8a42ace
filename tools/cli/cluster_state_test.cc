#include "tools/cli/cluster_state.h"

#include <unistd.h>

#include <cstdlib>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace tributary {
namespace {

std::string TestDir(const std::string& name) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  return absl::StrCat(tmp ? tmp : "/tmp", "/state.", getpid(), ".", name);
}

TEST(ClusterStateTest, RoundTripsThroughTheFile) {
  const std::string dir = TestDir("roundtrip") + "/nested/dir";
  const std::string path = StateFilePath(dir, "/etc/cluster.json");
  ClusterState state;
  state.pid = 42;
  state.cluster_file = "/etc/cluster.json";
  state.master_target = "grpc://127.0.0.1:4000";
  state.log_dir = "/tmp/logs";
  state.children = {
      {"/job:ps/replica:0/task:0", 43, "/bin/w", "/tmp/logs/ps-0.log"},
      {"master", 44, "/bin/m", "/tmp/logs/master.log"}};
  ASSERT_TRUE(WriteClusterState(path, state).ok());
  auto read = ReadClusterState(path);
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(read->pid, 42);
  EXPECT_EQ(read->cluster_file, state.cluster_file);
  EXPECT_EQ(read->master_target, state.master_target);
  EXPECT_EQ(read->log_dir, state.log_dir);
  ASSERT_EQ(read->children.size(), 2u);
  EXPECT_EQ(read->children[1].name, "master");
  EXPECT_EQ(read->children[1].pid, 44);
  EXPECT_EQ(read->children[0].binary, "/bin/w");
  EXPECT_EQ(read->children[0].log, "/tmp/logs/ps-0.log");
  EXPECT_EQ(ListStateFiles(dir), std::vector<std::string>{path});
}

TEST(ClusterStateTest, OneFilePerClusterSpec) {
  EXPECT_EQ(StateFilePath("/d", "/a.json"), StateFilePath("/d", "/a.json"));
  EXPECT_NE(StateFilePath("/d", "/a.json"), StateFilePath("/d", "/b.json"));
  EXPECT_EQ(StateFilePath("/d", "/a.json").rfind("/d/cluster-", 0), 0u);
}

TEST(ClusterStateTest, MissingAndCorruptFiles) {
  const std::string dir = TestDir("corrupt");
  EXPECT_TRUE(ListStateFiles(dir).empty());
  EXPECT_TRUE(absl::IsNotFound(ReadClusterState(dir + "/none.json").status()));
  ClusterState ok;
  ok.pid = 1;
  const std::string path = StateFilePath(dir, "/x.json");
  ASSERT_TRUE(WriteClusterState(path, ok).ok());
  std::ofstream(path) << "{\"pid\": \"nope\"}";
  EXPECT_TRUE(absl::IsDataLoss(ReadClusterState(path).status()));
  std::ofstream(path) << "not json";
  EXPECT_TRUE(absl::IsDataLoss(ReadClusterState(path).status()));
}

TEST(ClusterStateTest, StateDirectoryPrefersTheFlag) {
  EXPECT_EQ(StateDirectory("/flag"), "/flag");
  setenv("TRIBUTARY_STATE_DIR", "/env", 1);
  EXPECT_EQ(StateDirectory(""), "/env");
  unsetenv("TRIBUTARY_STATE_DIR");
  setenv("XDG_RUNTIME_DIR", "/run/user/7", 1);
  EXPECT_EQ(StateDirectory(""), "/run/user/7/tributary");
  unsetenv("XDG_RUNTIME_DIR");
  EXPECT_EQ(StateDirectory(""), absl::StrCat("/tmp/tributary-", getuid()));
}

}  // namespace
}  // namespace tributary
