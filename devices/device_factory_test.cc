#include "common/device/device_factory.h"

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/device/test_device.h"
#include "common/framework/allocator.h"
#include "common/framework/tensor.h"
#include "devices/cpu/cpu_device.h"
#include "gtest/gtest.h"
#include "protos/config.pb.h"

namespace tributary {
namespace {

constexpr char kPrefix[] = "/job:localhost/replica:0/task:0";

std::vector<std::unique_ptr<Device>> MakeDevices(
    const tensorflow::ConfigProto& config, const std::string& prefix = kPrefix) {
  std::vector<std::unique_ptr<Device>> devices;
  absl::Status s = DeviceFactory::AddDevices(config, prefix, &devices);
  EXPECT_TRUE(s.ok()) << s;
  return devices;
}

TEST(DeviceFactoryTest, CpuFactoryIsRegistered) {
  EXPECT_NE(DeviceFactory::GetFactory("CPU"), nullptr);
  EXPECT_EQ(DeviceFactory::GetFactory("NO_SUCH_TYPE"), nullptr);
  std::vector<std::string> types = DeviceFactory::GetDeviceTypes();
  ASSERT_FALSE(types.empty());
  EXPECT_EQ(types[0], "CPU");
}

TEST(DeviceFactoryTest, DefaultIsOneCpu) {
  std::vector<std::unique_ptr<Device>> devices =
      MakeDevices(tensorflow::ConfigProto());
  ASSERT_EQ(devices.size(), 1u);
  EXPECT_EQ(devices[0]->name(), "/job:localhost/replica:0/task:0/device:CPU:0");
  EXPECT_EQ(devices[0]->device_type(), "CPU");
  EXPECT_NE(devices[0]->eigen_cpu_device(), nullptr);
}

TEST(DeviceFactoryTest, DeviceCountCpuN) {
  tensorflow::ConfigProto config;
  (*config.mutable_device_count())["CPU"] = 4;
  config.set_intra_op_parallelism_threads(2);
  std::vector<std::unique_ptr<Device>> devices =
      MakeDevices(config, "/job:worker/replica:0/task:3");
  ASSERT_EQ(devices.size(), 4u);
  std::set<uint64_t> incarnations;
  std::set<Allocator*> allocators;
  for (int i = 0; i < 4; ++i) {
    Device* d = devices[i].get();
    EXPECT_EQ(d->name(),
              absl::StrCat("/job:worker/replica:0/task:3/device:CPU:", i));
    EXPECT_EQ(d->device_type(), "CPU");
    EXPECT_EQ(d->parsed_name().id, i);
    EXPECT_EQ(d->attributes().memory_limit(), CpuDevice::kDefaultMemoryLimit);
    incarnations.insert(d->incarnation());
    allocators.insert(d->GetAllocator(AllocatorAttributes()));
    // One intra-op pool, sized by intra_op_parallelism_threads, shared by
    // all of them.
    auto* cpu = dynamic_cast<CpuDevice*>(d);
    ASSERT_NE(cpu, nullptr);
    EXPECT_EQ(cpu->thread_pool(),
              static_cast<CpuDevice*>(devices[0].get())->thread_pool());
    EXPECT_EQ(cpu->thread_pool()->num_threads(), 2);
  }
  EXPECT_EQ(incarnations.size(), 4u);
  EXPECT_EQ(allocators.size(), 4u);  // each device accounts its own memory
}

TEST(DeviceFactoryTest, AllocatorsAccountPerDevice) {
  tensorflow::ConfigProto config;
  (*config.mutable_device_count())["CPU"] = 2;
  std::vector<std::unique_ptr<Device>> devices =
      MakeDevices(config, "/job:acct/replica:0/task:0");
  ASSERT_EQ(devices.size(), 2u);
  Allocator* a0 = devices[0]->GetAllocator(AllocatorAttributes());
  Allocator* a1 = devices[1]->GetAllocator(AllocatorAttributes());
  const AllocatorStats s0 = a0->GetStats();
  const AllocatorStats s1 = a1->GetStats();
  {
    Tensor big(a0, DT_DOUBLE, TensorShape({1000}));
    Tensor small(a1, DT_INT32, TensorShape({3}));
    EXPECT_EQ(a0->GetStats().bytes_in_use - s0.bytes_in_use, 8000);
    EXPECT_EQ(a1->GetStats().bytes_in_use - s1.bytes_in_use, 12);
    EXPECT_EQ(a0->GetStats().num_allocs - s0.num_allocs, 1);
    EXPECT_EQ(a1->GetStats().num_allocs - s1.num_allocs, 1);
  }
  EXPECT_EQ(a0->GetStats().bytes_in_use, s0.bytes_in_use);
  EXPECT_EQ(a1->GetStats().bytes_in_use, s1.bytes_in_use);
}

TEST(DeviceFactoryTest, AppendsToExistingDevices) {
  std::vector<std::unique_ptr<Device>> devices;
  ASSERT_TRUE(
      DeviceFactory::AddDevices(tensorflow::ConfigProto(), kPrefix, &devices)
          .ok());
  ASSERT_TRUE(DeviceFactory::AddDevices(tensorflow::ConfigProto(),
                                        "/job:other/replica:0/task:1", &devices)
                  .ok());
  ASSERT_EQ(devices.size(), 2u);
  EXPECT_EQ(devices[1]->name(), "/job:other/replica:0/task:1/device:CPU:0");
}

TEST(DeviceFactoryTest, ZeroCpusIsNotFound) {
  tensorflow::ConfigProto config;
  (*config.mutable_device_count())["CPU"] = 0;
  std::vector<std::unique_ptr<Device>> devices;
  absl::Status s = DeviceFactory::AddDevices(config, kPrefix, &devices);
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound) << s;
  EXPECT_TRUE(devices.empty());
}

TEST(DeviceFactoryTest, BadConfigIsInvalidArgument) {
  tensorflow::ConfigProto config;
  (*config.mutable_device_count())["CPU"] = -1;
  std::vector<std::unique_ptr<Device>> devices;
  absl::Status s = DeviceFactory::AddDevices(config, kPrefix, &devices);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_NE(s.message().find("device_count"), std::string::npos) << s;
  EXPECT_TRUE(devices.empty());
}

TEST(DeviceFactoryTest, BadNamePrefixIsInvalidArgument) {
  for (const char* prefix :
       {"", "localhost", "/job:localhost", "/job:a/replica:0",
        "/job:a/replica:0/task:0/device:CPU:0", "/job:1bad/replica:0/task:0"}) {
    std::vector<std::unique_ptr<Device>> devices;
    absl::Status s =
        DeviceFactory::AddDevices(tensorflow::ConfigProto(), prefix, &devices);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << prefix;
    EXPECT_TRUE(devices.empty());
  }
}

TEST(DeviceFactoryTest, NewDevice) {
  tensorflow::ConfigProto config;
  (*config.mutable_device_count())["CPU"] = 8;  // ignored: exactly one
  absl::StatusOr<std::unique_ptr<Device>> device =
      DeviceFactory::NewDevice("CPU", config, kPrefix);
  ASSERT_TRUE(device.ok()) << device.status();
  EXPECT_EQ((*device)->name(), "/job:localhost/replica:0/task:0/device:CPU:0");
  EXPECT_EQ(DeviceFactory::NewDevice("NO_SUCH_TYPE", config, kPrefix)
                .status()
                .code(),
            absl::StatusCode::kNotFound);
}

// A second device type ("FAKE"), to show AddDevices picks up new factories
// and orders them after the CPU.
template <int kCount>
class FakeFactory : public DeviceFactory {
 public:
  absl::Status CreateDevices(
      const tensorflow::ConfigProto& config, const std::string& name_prefix,
      std::vector<std::unique_ptr<Device>>* devices) override {
    int n = kCount;
    auto it = config.device_count().find("FAKE");
    if (it != config.device_count().end()) n = it->second;
    for (int i = 0; i < n; ++i) {
      devices->push_back(std::make_unique<test::TestDevice>(
          absl::StrCat(name_prefix, "/device:FAKE:", i), "FAKE", "fake chip"));
    }
    return absl::OkStatus();
  }
};

TEST(DeviceFactoryTest, OtherTypesComeAfterCpuAndPriorityWins) {
  DeviceFactory::Register("FAKE", std::make_unique<FakeFactory<1>>(), 0);
  // Higher priority replaces, lower is ignored.
  DeviceFactory::Register("FAKE", std::make_unique<FakeFactory<2>>(), 10);
  DeviceFactory::Register("FAKE", std::make_unique<FakeFactory<3>>(), 5);
  tensorflow::ConfigProto config;
  (*config.mutable_device_count())["CPU"] = 2;
  std::vector<std::unique_ptr<Device>> devices = MakeDevices(config);
  ASSERT_EQ(devices.size(), 4u);
  EXPECT_EQ(devices[0]->device_type(), "CPU");
  EXPECT_EQ(devices[1]->device_type(), "CPU");
  EXPECT_EQ(devices[2]->name(), "/job:localhost/replica:0/task:0/device:FAKE:0");
  EXPECT_EQ(devices[3]->name(), "/job:localhost/replica:0/task:0/device:FAKE:1");
  // device_count applies to other types too.
  (*config.mutable_device_count())["FAKE"] = 0;
  EXPECT_EQ(MakeDevices(config).size(), 2u);
}

}  // namespace
}  // namespace tributary
