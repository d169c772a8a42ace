#include "tools/cli/devices_command.h"

#include <nlohmann/json.hpp>
#include <sstream>

#include "gtest/gtest.h"

namespace tributary {
namespace {

tensorflow::DeviceAttributes Device(const std::string& name, uint64_t inc) {
  tensorflow::DeviceAttributes d;
  d.set_name(name);
  d.set_device_type("CPU");
  d.set_memory_limit(256 << 20);
  d.set_incarnation(inc);
  return d;
}

TEST(DevicesCommandTest, TableIsSortedWithEveryColumn) {
  std::ostringstream out;
  PrintDevices(
      {Device("/job:worker/replica:0/task:0/device:CPU:0", 0xabc),
       Device("/job:ps/replica:0/task:0/device:CPU:0", 0xfedcba9876543210ull)},
      /*json=*/false, out);
  const std::string text = out.str();
  EXPECT_NE(text.find("NAME"), std::string::npos);
  EXPECT_NE(text.find("INCARNATION"), std::string::npos);
  EXPECT_LT(text.find("/job:ps/"), text.find("/job:worker/"));
  EXPECT_NE(text.find("256.0 MiB"), std::string::npos) << text;
  EXPECT_NE(text.find("0xfedcba9876543210"), std::string::npos) << text;
}

TEST(DevicesCommandTest, JsonKeepsFull64BitIncarnations) {
  std::ostringstream out;
  PrintDevices(
      {Device("/job:ps/replica:0/task:0/device:CPU:0", 0xfedcba9876543210ull)},
      /*json=*/true, out);
  auto doc = nlohmann::json::parse(out.str());
  ASSERT_EQ(doc["devices"].size(), 1u);
  EXPECT_EQ(doc["devices"][0]["name"], "/job:ps/replica:0/task:0/device:CPU:0");
  EXPECT_EQ(doc["devices"][0]["device_type"], "CPU");
  EXPECT_EQ(doc["devices"][0]["memory_limit"], 256 << 20);
  EXPECT_EQ(doc["devices"][0]["incarnation"], "0xfedcba9876543210");
}

TEST(DevicesCommandTest, LocalTargetListsItsCpu) {
  std::ostringstream out, err;
  EXPECT_EQ(RunDevicesCommand({"local", true}, out, err), 0) << err.str();
  auto doc = nlohmann::json::parse(out.str());
  ASSERT_GE(doc["devices"].size(), 1u);
  EXPECT_EQ(doc["devices"][0]["device_type"], "CPU");
}

TEST(DevicesCommandTest, ErrorsAsJsonOrOnStderr) {
  std::ostringstream out, err;
  EXPECT_EQ(RunDevicesCommand({"bogus://x", true}, out, err), 1);
  auto doc = nlohmann::json::parse(out.str());
  EXPECT_EQ(doc["error"]["code"], "INVALID_ARGUMENT");

  std::ostringstream out2, err2;
  EXPECT_EQ(RunDevicesCommand({"bogus://x", false}, out2, err2), 1);
  EXPECT_TRUE(out2.str().empty());
  EXPECT_NE(err2.str().find("bogus://x"), std::string::npos);
}

}  // namespace
}  // namespace tributary
