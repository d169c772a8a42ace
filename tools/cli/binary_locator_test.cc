#include "tools/cli/binary_locator.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace tributary {
namespace {

class BinaryLocatorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* tmp = std::getenv("TEST_TMPDIR");
    root_ = absl::StrCat(
        tmp ? tmp : "/tmp", "/locator.", getpid(), ".",
        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    mkdir(root_.c_str(), 0755);
  }

  std::string Dir(const std::string& rel) {
    std::string path = root_;
    for (const auto& part : {rel}) {
      size_t start = 0;
      while (start <= part.size()) {
        size_t slash = part.find('/', start);
        if (slash == std::string::npos) slash = part.size();
        path += "/" + part.substr(start, slash - start);
        mkdir(path.c_str(), 0755);
        start = slash + 1;
      }
    }
    return path;
  }

  std::string File(const std::string& dir_rel, const std::string& name,
                   bool executable) {
    const std::string path = Dir(dir_rel) + "/" + name;
    std::ofstream(path) << "#!/bin/sh\n";
    chmod(path.c_str(), executable ? 0755 : 0644);
    return path;
  }

  std::string root_;
};

TEST_F(BinaryLocatorTest, ExplicitPathWinsAndMustExist) {
  const std::string worker = File("custom", "w", true);
  File("bin", "tributary-worker", true);
  auto found =
      LocateDaemonBinary(kWorkerBinary, worker, root_ + "/bin/tributary", "");
  ASSERT_TRUE(found.ok()) << found.status();
  EXPECT_EQ(*found, worker);

  auto missing = LocateDaemonBinary(kWorkerBinary, root_ + "/nope",
                                    root_ + "/bin/tributary", "");
  ASSERT_FALSE(missing.ok());
  EXPECT_TRUE(absl::StrContains(missing.status().message(), "--worker-binary"));
}

TEST_F(BinaryLocatorTest, NextToTheCliFirst) {
  const std::string beside = File("bin", "tributary-master", true);
  File("master", "tributary-master", true);
  auto found =
      LocateDaemonBinary(kMasterBinary, "", root_ + "/bin/tributary", "");
  ASSERT_TRUE(found.ok()) << found.status();
  EXPECT_EQ(*found, beside);
}

TEST_F(BinaryLocatorTest, BazelOutputLayout) {
  // bazel-bin/tools/tributary and bazel-bin/worker/tributary-worker.
  const std::string worker = File("bazel-bin/worker", "tributary-worker", true);
  auto found = LocateDaemonBinary(kWorkerBinary, "",
                                  root_ + "/bazel-bin/tools/tributary", "");
  ASSERT_TRUE(found.ok()) << found.status();
  EXPECT_EQ(*found, worker);
  // Two levels down (bazel-bin/tools/cli/tributary) as well.
  found = LocateDaemonBinary(kWorkerBinary, "",
                             root_ + "/bazel-bin/tools/cli/tributary", "");
  ASSERT_TRUE(found.ok()) << found.status();
  EXPECT_EQ(*found, worker);
}

TEST_F(BinaryLocatorTest, RunfilesTree) {
  const std::string worker =
      File("out/tributary.runfiles/ws/worker", "tributary-worker", true);
  auto found =
      LocateDaemonBinary(kWorkerBinary, "", root_ + "/out/tributary", "");
  ASSERT_TRUE(found.ok()) << found.status();
  EXPECT_EQ(*found, worker);
}

TEST_F(BinaryLocatorTest, PathLastAndNonExecutablesSkipped) {
  File("bin", "tributary-worker", false);  // Not executable: ignored.
  const std::string on_path = File("usr/bin", "tributary-worker", true);
  auto found = LocateDaemonBinary(kWorkerBinary, "", root_ + "/bin/tributary",
                                  root_ + "/empty:" + root_ + "/usr/bin");
  ASSERT_TRUE(found.ok()) << found.status();
  EXPECT_EQ(*found, on_path);
}

TEST_F(BinaryLocatorTest, NotFoundSaysWhereItLookedAndHowToFix) {
  auto found =
      LocateDaemonBinary(kMasterBinary, "", root_ + "/bin/tributary", "");
  ASSERT_FALSE(found.ok());
  EXPECT_TRUE(absl::IsNotFound(found.status()));
  EXPECT_TRUE(absl::StrContains(found.status().message(), root_ + "/bin/"));
  EXPECT_TRUE(
      absl::StrContains(found.status().message(), "//master:tributary-master"));
  EXPECT_TRUE(absl::StrContains(found.status().message(), "--master-binary"));
}

}  // namespace
}  // namespace tributary
