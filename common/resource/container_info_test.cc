#include "common/resource/container_info.h"

#include "common/op/node_def_util.h"
#include "common/resource/resource_mgr.h"
#include "gtest/gtest.h"

namespace tributary {
namespace {

tensorflow::NodeDef Node(const std::string& name, const std::string& container,
                         const std::string& shared_name) {
  tensorflow::NodeDef def;
  def.set_name(name);
  def.set_op("VariableV2");
  AddNodeAttr("container", container, &def);
  AddNodeAttr("shared_name", shared_name, &def);
  return def;
}

TEST(ContainerInfoTest, DefaultsToManagerContainerAndNodeName) {
  ContainerInfo info;
  ASSERT_TRUE(info.Init(Node("w", "", ""), true).ok());
  ResourceMgr rm;
  EXPECT_EQ(info.container(rm), "localhost");
  EXPECT_EQ(info.name(), "w");
  EXPECT_FALSE(info.resource_is_private_to_kernel());
  ResourceMgr other("job_ps");
  EXPECT_EQ(info.container(other), "job_ps");
}

TEST(ContainerInfoTest, AttrsWin) {
  ContainerInfo info;
  ASSERT_TRUE(info.Init(Node("w", "exp.1/a-b", "shared"), true).ok());
  ResourceMgr rm;
  EXPECT_EQ(info.container(rm), "exp.1/a-b");
  EXPECT_EQ(info.name(), "shared");
}

TEST(ContainerInfoTest, PrivateNameWhenNodeNameIsNotTheDefault) {
  ContainerInfo a, b;
  ASSERT_TRUE(a.Init(Node("q", "", ""), false).ok());
  ASSERT_TRUE(b.Init(Node("q", "", ""), false).ok());
  EXPECT_TRUE(a.resource_is_private_to_kernel());
  EXPECT_EQ(a.name()[0], '_');
  EXPECT_NE(a.name(), b.name());
}

TEST(ContainerInfoTest, RejectsBadNames) {
  ContainerInfo info;
  absl::Status s = info.Init(Node("w", "-bad", ""), true);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(std::string(s.message()).find("invalid characters"),
            std::string::npos);
  s = info.Init(Node("w", "", "_private"), true);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_FALSE(IsValidContainerName("a b"));
  EXPECT_TRUE(IsValidContainerName("localhost"));
}

}  // namespace
}  // namespace tributary
