#include "common/device/device.h"

#include <string>

#include "common/device/test_device.h"
#include "common/framework/allocator.h"
#include "common/framework/tensor.h"
#include "gtest/gtest.h"
#include "protos/tensor.pb.h"

namespace tributary {
namespace {

constexpr char kName[] = "/job:worker/replica:0/task:2/device:CPU:0";

using test::TestDevice;

// An allocator that is not cpu_allocator(), to see GetAllocator overridden.
class CountingDevice : public TestDevice {
 public:
  using TestDevice::TestDevice;
  using TestDevice::GetAllocator;
  Allocator* GetAllocator(AllocatorAttributes attr) override {
    last_attr = attr;
    return cpu_allocator();
  }
  AllocatorAttributes last_attr;
};

TEST(DeviceTest, BuildDeviceAttributes) {
  tensorflow::DeviceAttributes attrs =
      Device::BuildDeviceAttributes(kName, "CPU", 1 << 20, "host cpu");
  EXPECT_EQ(attrs.name(), kName);
  EXPECT_EQ(attrs.device_type(), "CPU");
  EXPECT_EQ(attrs.memory_limit(), 1 << 20);
  EXPECT_EQ(attrs.physical_device_desc(), "host cpu");
  EXPECT_NE(attrs.incarnation(), 0u);
  EXPECT_EQ(attrs.xla_global_id(), -1);
  // Each device gets its own incarnation.
  EXPECT_NE(Device::BuildDeviceAttributes(kName, "CPU", 0, "").incarnation(),
            attrs.incarnation());
}

TEST(DeviceTest, Accessors) {
  tensorflow::DeviceAttributes attrs =
      Device::BuildDeviceAttributes(kName, "CPU", 0, "");
  TestDevice device(attrs);
  EXPECT_EQ(device.name(), kName);
  EXPECT_EQ(device.device_type(), "CPU");
  EXPECT_EQ(device.incarnation(), attrs.incarnation());
  EXPECT_EQ(device.attributes().SerializeAsString(), attrs.SerializeAsString());
  const DeviceNameUtils::ParsedName& parsed = device.parsed_name();
  EXPECT_TRUE(parsed.IsFullySpecified());
  EXPECT_EQ(parsed.job, "worker");
  EXPECT_EQ(parsed.task, 2);
  EXPECT_EQ(parsed.type, "CPU");
  EXPECT_EQ(parsed.id, 0);
  // Through the base class too: kernels only see DeviceBase.
  const DeviceBase& base = device;
  EXPECT_EQ(base.name(), kName);
  EXPECT_TRUE(device.Sync().ok());
}

TEST(DeviceTest, ZeroIncarnationIsReplaced) {
  tensorflow::DeviceAttributes attrs;
  attrs.set_name(kName);
  attrs.set_device_type("CPU");
  TestDevice a(attrs);
  TestDevice b(attrs);
  EXPECT_NE(a.incarnation(), 0u);
  EXPECT_NE(a.incarnation(), b.incarnation());
}

TEST(DeviceTest, LegacyNameIsParsed) {
  tensorflow::DeviceAttributes attrs = Device::BuildDeviceAttributes(
      "/job:a/replica:0/task:0/gpu:1", "GPU", 0, "");
  TestDevice device(attrs);
  EXPECT_EQ(device.parsed_name().type, "GPU");
  EXPECT_EQ(device.parsed_name().id, 1);
}

TEST(DeviceDeathTest, PartialNameIsAProgrammingError) {
  tensorflow::DeviceAttributes attrs =
      Device::BuildDeviceAttributes("/job:a/device:CPU:0", "CPU", 0, "");
  EXPECT_DEATH(TestDevice device(attrs), "invalid full name");
}

TEST(DeviceTest, DebugStringHasNameTypeAndIncarnation) {
  tensorflow::DeviceAttributes attrs =
      Device::BuildDeviceAttributes(kName, "CPU", 0, "");
  attrs.set_incarnation(0xabcdef);
  TestDevice device(attrs);
  EXPECT_EQ(device.DebugString(),
            std::string(kName) + " (CPU, incarnation 0xabcdef)");
}

TEST(DeviceBaseTest, DefaultsForABareDeviceBase) {
  DeviceBase base;
  EXPECT_EQ(base.name(), "");
  EXPECT_EQ(base.GetAllocator(), cpu_allocator());
  AllocatorAttributes on_host;
  on_host.set_on_host(true);
  EXPECT_EQ(base.GetAllocator(on_host), cpu_allocator());
  EXPECT_EQ(base.eigen_cpu_device(), nullptr);
}

TEST(DeviceBaseTest, EigenDeviceIsSettable) {
  DeviceBase base;
  // Only the pointer is stored; it is never dereferenced here.
  const auto* fake = reinterpret_cast<const Eigen::ThreadPoolDevice*>(&base);
  base.set_eigen_cpu_device(fake);
  EXPECT_EQ(base.eigen_cpu_device(), fake);
}

TEST(DeviceBaseTest, GetAllocatorWithoutAttributesUsesDefaults) {
  CountingDevice device(Device::BuildDeviceAttributes(kName, "CPU", 0, ""));
  AllocatorAttributes attr;
  attr.set_gpu_compatible(true);
  device.GetAllocator(attr);
  EXPECT_TRUE(device.last_attr.gpu_compatible());
  device.GetAllocator();
  EXPECT_EQ(device.last_attr, AllocatorAttributes());
}

TEST(DeviceBaseTest, MakeTensorFromProto) {
  TestDevice device(Device::BuildDeviceAttributes(kName, "CPU", 0, ""));
  tensorflow::TensorProto proto;
  proto.set_dtype(tensorflow::DT_FLOAT);
  proto.mutable_tensor_shape()->add_dim()->set_size(3);
  proto.add_float_val(1.5f);
  proto.add_float_val(2.5f);
  proto.add_float_val(3.5f);
  Tensor tensor;
  ASSERT_TRUE(
      device.MakeTensorFromProto(proto, AllocatorAttributes(), &tensor).ok());
  ASSERT_EQ(tensor.NumElements(), 3);
  EXPECT_EQ(tensor.flat<float>()(2), 3.5f);

  proto.mutable_tensor_shape()->mutable_dim(0)->set_size(-5);
  absl::Status bad =
      device.MakeTensorFromProto(proto, AllocatorAttributes(), &tensor);
  EXPECT_EQ(bad.code(), absl::StatusCode::kInvalidArgument);
}

TEST(AllocatorAttributesTest, BitsAndMerge) {
  AllocatorAttributes a;
  EXPECT_FALSE(a.on_host());
  a.set_on_host(true);
  a.set_nic_compatible(true);
  EXPECT_TRUE(a.on_host());
  EXPECT_TRUE(a.nic_compatible());
  EXPECT_FALSE(a.gpu_compatible());
  a.set_on_host(false);
  EXPECT_FALSE(a.on_host());
  EXPECT_EQ(a.value, AllocatorAttributes::kNicCompatible);
  AllocatorAttributes b;
  b.set_gpu_compatible(true);
  a.Merge(b);
  EXPECT_TRUE(a.gpu_compatible());
  EXPECT_TRUE(a.nic_compatible());
  EXPECT_NE(a, b);
}

}  // namespace
}  // namespace tributary
