#include "common/device/device_mgr.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "devices/cpu/cpu_device.h"
#include "common/device/device_factory.h"
#include "gtest/gtest.h"
#include "protos/config.pb.h"

namespace tributary {
namespace {

constexpr char kCpu0[] = "/job:localhost/replica:0/task:0/device:CPU:0";
constexpr char kCpu1[] = "/job:localhost/replica:0/task:0/device:CPU:1";

std::unique_ptr<DeviceMgr> MakeMgr(int num_cpus) {
  tensorflow::ConfigProto config;
  (*config.mutable_device_count())["CPU"] = num_cpus;
  config.set_intra_op_parallelism_threads(1);
  std::vector<std::unique_ptr<Device>> devices;
  absl::Status s = DeviceFactory::AddDevices(
      config, "/job:localhost/replica:0/task:0", &devices);
  EXPECT_TRUE(s.ok()) << s;
  absl::StatusOr<std::unique_ptr<DeviceMgr>> mgr =
      DeviceMgr::Create(std::move(devices));
  EXPECT_TRUE(mgr.ok()) << mgr.status();
  return std::move(mgr).value();
}

Device* Lookup(const DeviceMgr& mgr, const std::string& name) {
  Device* device = nullptr;
  absl::Status s = mgr.LookupDevice(name, &device);
  EXPECT_TRUE(s.ok()) << name << ": " << s;
  return device;
}

TEST(DeviceMgrTest, ListsDevicesInOrder) {
  std::unique_ptr<DeviceMgr> mgr = MakeMgr(3);
  ASSERT_EQ(mgr->NumDevices(), 3);
  EXPECT_EQ(mgr->ListDevices()[0]->name(), kCpu0);
  EXPECT_EQ(mgr->ListDevices()[1]->name(), kCpu1);
  std::vector<tensorflow::DeviceAttributes> attrs = mgr->ListDeviceAttributes();
  ASSERT_EQ(attrs.size(), 3u);
  EXPECT_EQ(attrs[2].name(), "/job:localhost/replica:0/task:0/device:CPU:2");
  EXPECT_EQ(attrs[2].device_type(), "CPU");
  EXPECT_EQ(mgr->NumDeviceType("CPU"), 3);
  EXPECT_EQ(mgr->NumDeviceType("GPU"), 0);
  EXPECT_EQ(mgr->HostCPU(), mgr->ListDevices()[0]);
  EXPECT_NE(mgr->DebugString().find(kCpu1), std::string::npos);
  EXPECT_EQ(mgr->DeviceMappingString(), "");  // CPUs have no physical desc
}

TEST(DeviceMgrTest, LookupByFullName) {
  std::unique_ptr<DeviceMgr> mgr = MakeMgr(2);
  EXPECT_EQ(Lookup(*mgr, kCpu1), mgr->ListDevices()[1]);
  absl::StatusOr<Device*> d = mgr->LookupDevice(kCpu0);
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(*d, mgr->ListDevices()[0]);
}

TEST(DeviceMgrTest, LookupByLegacyAndLocalNames) {
  std::unique_ptr<DeviceMgr> mgr = MakeMgr(2);
  Device* cpu1 = mgr->ListDevices()[1];
  for (const char* name :
       {"/job:localhost/replica:0/task:0/cpu:1",  // legacy full
        "/device:CPU:1",                          // local
        "CPU:1",                                  // legacy local
        "/cpu:1", "/CPU:1"}) {                    // legacy forms
    EXPECT_EQ(Lookup(*mgr, name), cpu1) << name;
  }
}

TEST(DeviceMgrTest, LookupByPartialName) {
  std::unique_ptr<DeviceMgr> mgr = MakeMgr(2);
  Device* cpu1 = mgr->ListDevices()[1];
  EXPECT_EQ(Lookup(*mgr, "/job:localhost/device:CPU:1"), cpu1);
  EXPECT_EQ(Lookup(*mgr, "/job:localhost/replica:0/device:CPU:1"), cpu1);
  EXPECT_EQ(Lookup(*mgr, "/task:0/device:CPU:1"), cpu1);
  // With one CPU, a spec without an id is unambiguous.
  std::unique_ptr<DeviceMgr> single = MakeMgr(1);
  EXPECT_EQ(Lookup(*single, "/device:CPU:*"), single->ListDevices()[0]);
  EXPECT_EQ(Lookup(*single, "/job:localhost"), single->ListDevices()[0]);
}

TEST(DeviceMgrTest, AmbiguousPartialNameIsInvalidArgument) {
  std::unique_ptr<DeviceMgr> mgr = MakeMgr(2);
  Device* d = nullptr;
  absl::Status s = mgr->LookupDevice("/device:CPU:*", &d);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_NE(s.message().find("matches 2 devices"), std::string::npos) << s;
}

TEST(DeviceMgrTest, UnknownDeviceIsNotFound) {
  std::unique_ptr<DeviceMgr> mgr = MakeMgr(2);
  for (const char* name :
       {"/job:localhost/replica:0/task:0/device:CPU:2",
        "/job:worker/replica:0/task:0/device:CPU:0", "/device:GPU:0", "GPU:0",
        "/job:localhost/replica:0/task:1/device:CPU:0"}) {
    Device* d = nullptr;
    absl::Status s = mgr->LookupDevice(name, &d);
    EXPECT_EQ(s.code(), absl::StatusCode::kNotFound) << name << ": " << s;
    EXPECT_NE(s.message().find(name), std::string::npos) << s;
    EXPECT_NE(s.message().find(kCpu0), std::string::npos) << s;  // known list
    EXPECT_EQ(d, nullptr);
  }
}

TEST(DeviceMgrTest, NonDeviceNameIsInvalidArgument) {
  std::unique_ptr<DeviceMgr> mgr = MakeMgr(1);
  for (const char* name : {"", "not a device", "/job:", "/device:CPU:x"}) {
    EXPECT_EQ(mgr->LookupDevice(name).status().code(),
              absl::StatusCode::kInvalidArgument)
        << name;
  }
}

TEST(DeviceMgrTest, ContainsDeviceByIncarnation) {
  std::unique_ptr<DeviceMgr> mgr = MakeMgr(2);
  EXPECT_TRUE(mgr->ContainsDevice(mgr->ListDevices()[1]->incarnation()));
  uint64_t other = mgr->ListDevices()[0]->incarnation() ^
                   mgr->ListDevices()[1]->incarnation() ^ 1;
  EXPECT_FALSE(mgr->ContainsDevice(other));
}

TEST(DeviceMgrTest, DuplicateNamesAreRejected) {
  std::vector<std::unique_ptr<Device>> devices;
  auto pool = std::make_shared<CpuThreadPool>(1);
  devices.push_back(CpuDevice::Create(kCpu0, pool));
  devices.push_back(CpuDevice::Create(kCpu0, pool));
  absl::StatusOr<std::unique_ptr<DeviceMgr>> mgr =
      DeviceMgr::Create(std::move(devices));
  EXPECT_EQ(mgr.status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(DeviceMgrTest, CreateWithDevice) {
  std::unique_ptr<DeviceMgr> mgr = DeviceMgr::CreateWithDevice(
      CpuDevice::Create(kCpu0, std::make_shared<CpuThreadPool>(1)));
  EXPECT_EQ(mgr->NumDevices(), 1);
  EXPECT_EQ(Lookup(*mgr, "CPU:0"), mgr->HostCPU());
}

}  // namespace
}  // namespace tributary
