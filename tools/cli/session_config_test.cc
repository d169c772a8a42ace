#include "tools/cli/session_config.h"

#include <cstdio>
#include <fstream>
#include <string>

#include "gtest/gtest.h"

namespace tributary {
namespace {

TEST(SessionConfigTest, NothingGivenIsTheDefault) {
  auto config = BuildSessionConfig("", "");
  ASSERT_TRUE(config.ok());
  EXPECT_EQ(config->ByteSizeLong(), 0u);
}

TEST(SessionConfigTest, ParsesText) {
  auto config = BuildSessionConfig(
      "", "allow_soft_placement: true  device_filters: \"/job:worker\"");
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_TRUE(config->allow_soft_placement());
  ASSERT_EQ(config->device_filters_size(), 1);
  EXPECT_EQ(config->device_filters(0), "/job:worker");
}

TEST(SessionConfigTest, TextMergesOverTheFile) {
  const std::string path =
      std::string(getenv("TEST_TMPDIR") ? getenv("TEST_TMPDIR") : "/tmp") +
      "/session_config_test.pbtxt";
  {
    std::ofstream f(path);
    f << "device_filters: \"/job:ps\"\noperation_timeout_in_ms: 5\n";
  }
  auto config = BuildSessionConfig(
      path, "device_filters: \"/job:worker\" operation_timeout_in_ms: 7");
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->device_filters_size(), 2);
  EXPECT_EQ(config->operation_timeout_in_ms(), 7);
  std::remove(path.c_str());
}

TEST(SessionConfigTest, ErrorsNameTheFlag) {
  auto bad = BuildSessionConfig("", "allow_soft_placement: maybe");
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("--config"), std::string::npos);
  EXPECT_NE(bad.status().message().find("line 1"), std::string::npos);
  auto unknown = BuildSessionConfig("", "no_such_field: 1");
  EXPECT_EQ(unknown.status().code(), absl::StatusCode::kInvalidArgument);
  auto missing = BuildSessionConfig("/no/such/config.pbtxt", "");
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(missing.status().message().find("--config-file"),
            std::string::npos);
}

}  // namespace
}  // namespace tributary
