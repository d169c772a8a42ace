#include "common/framework/file_access_policy.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <string>

#include "gtest/gtest.h"

namespace tributary {
namespace {

class FileAccessPolicyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* tmp = getenv("TEST_TMPDIR");
    std::string base = absl_tmp(tmp);
    char templ[4096];
    snprintf(templ, sizeof(templ), "%s/fapXXXXXX", base.c_str());
    ASSERT_NE(mkdtemp(templ), nullptr);
    root_ = templ;
    allowed_ = root_ + "/allowed";
    outside_ = root_ + "/outside";
    ASSERT_EQ(mkdir(allowed_.c_str(), 0755), 0);
    ASSERT_EQ(mkdir(outside_.c_str(), 0755), 0);
    ASSERT_EQ(mkdir((allowed_ + "/sub").c_str(), 0755), 0);
    std::ofstream(outside_ + "/secret") << "x";
    ASSERT_EQ(symlink(outside_.c_str(), (allowed_ + "/link").c_str()), 0);
    ASSERT_EQ(symlink((outside_ + "/secret").c_str(),
                      (allowed_ + "/ckpt.index").c_str()),
              0);
    auto policy = FileAccessPolicy::Create({allowed_});
    ASSERT_TRUE(policy.ok()) << policy.status();
    policy_ = *policy;
  }
  static std::string absl_tmp(const char* tmp) {
    return tmp != nullptr ? tmp : "/tmp";
  }

  std::string root_, allowed_, outside_;
  FileAccessPolicy policy_;
};

TEST_F(FileAccessPolicyTest, UnrestrictedAllowsEverything) {
  FileAccessPolicy open;
  EXPECT_FALSE(open.restricted());
  EXPECT_TRUE(open.Check("/etc/passwd", "SaveV2").ok());
  EXPECT_TRUE(open.CheckCheckpointPrefix("/etc/x", "SaveV2").ok());
}

TEST_F(FileAccessPolicyTest, PathsUnderTheDirectoryAreAllowed) {
  EXPECT_TRUE(policy_.Check(allowed_ + "/model.ckpt", "SaveV2").ok());
  EXPECT_TRUE(policy_.Check(allowed_ + "/sub/model.ckpt", "SaveV2").ok());
  // Directories that do not exist yet (SaveV2 creates them).
  EXPECT_TRUE(policy_.Check(allowed_ + "/new/deeper/model", "SaveV2").ok());
  EXPECT_TRUE(policy_.Check(allowed_ + "/sub/../model", "SaveV2").ok());
  EXPECT_TRUE(policy_.Check(allowed_, "SaveV2").ok());
}

TEST_F(FileAccessPolicyTest, PathsOutsideAreDenied) {
  for (const std::string& p :
       {outside_ + "/model", std::string("/etc/passwd"),
        allowed_ + "/../outside/model", allowed_ + "/link/model",
        allowed_ + "/link/secret", allowed_ + "/new/../../outside/x",
        allowed_ + "x/model"}) {
    absl::Status s = policy_.Check(p, "SaveV2 (node save/SaveV2)");
    EXPECT_EQ(s.code(), absl::StatusCode::kPermissionDenied) << p << ": " << s;
    EXPECT_NE(s.message().find(p), std::string::npos) << s;
    EXPECT_NE(s.message().find("SaveV2 (node save/SaveV2)"), std::string::npos)
        << s;
  }
  absl::Status s = policy_.Check(outside_ + "/model", "SaveV2");
  EXPECT_NE(s.message().find("--allowed-path"), std::string::npos) << s;
}

TEST_F(FileAccessPolicyTest, CheckpointFilesThatLinkOutAreDenied) {
  // ckpt.index under the allowed directory is a symlink to a file outside.
  absl::Status s = policy_.CheckCheckpointPrefix(allowed_ + "/ckpt", "RestoreV2");
  EXPECT_EQ(s.code(), absl::StatusCode::kPermissionDenied) << s;
  EXPECT_TRUE(policy_.CheckCheckpointPrefix(allowed_ + "/other", "RestoreV2").ok());
}

TEST(FileAccessPolicyCreateTest, DirectoriesMustExist) {
  auto p = FileAccessPolicy::Create({"/no/such/dir/anywhere"});
  EXPECT_EQ(p.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(p.status().message().find("/no/such/dir/anywhere"),
            std::string::npos);
  auto file = FileAccessPolicy::Create({"/etc/passwd"});
  EXPECT_EQ(file.status().code(), absl::StatusCode::kInvalidArgument);
  auto empty = FileAccessPolicy::Create({});
  ASSERT_TRUE(empty.ok());
  EXPECT_FALSE(empty->restricted());
}

}  // namespace
}  // namespace tributary
