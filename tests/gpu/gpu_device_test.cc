// The GPU device end to end: the factory without a driver (runs here), and
// on a GPU: the devices it lists, copies in and out, memory options, a
// clear RESOURCE_EXHAUSTED when device memory runs out, soft placement of
// an op without a GPU kernel, and a graph whose nodes share one GPU.
#include "devices/gpu/gpu_device.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "common/device/device_factory.h"
#include "common/framework/tensor.h"
#include "common/framework/tensor_testutil.h"
#include "devices/gpu/cuda_driver.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/gpu/gpu_test_util.h"

namespace tributary {
namespace {

using ::testing::HasSubstr;

constexpr char kPrefix[] = "/job:localhost/replica:0/task:0";

std::vector<std::unique_ptr<Device>> AddDevices(
    const tensorflow::ConfigProto& config) {
  std::vector<std::unique_ptr<Device>> devices;
  absl::Status s = DeviceFactory::AddDevices(config, kPrefix, &devices);
  EXPECT_TRUE(s.ok()) << s;
  return devices;
}

int CountGpus(const std::vector<std::unique_ptr<Device>>& devices) {
  int n = 0;
  for (const auto& d : devices) n += d->device_type() == "GPU";
  return n;
}

// Runs everywhere: the factory is linked; without a driver it adds nothing
// and everything else is unchanged.
TEST(GpuDeviceFactoryTest, WithoutADriverOnlyCpuDevices) {
  ASSERT_NE(DeviceFactory::GetFactory("GPU"), nullptr);
  const std::string reason = gpu_test::NoGpuReason();
  if (reason.empty()) GTEST_SKIP() << "this host has a GPU";
  std::vector<std::unique_ptr<Device>> devices =
      AddDevices(tensorflow::ConfigProto());
  EXPECT_EQ(CountGpus(devices), 0);
  ASSERT_EQ(devices.size(), 1u);
  EXPECT_EQ(devices[0]->device_type(), "CPU");
  // The reason names what is missing.
  absl::StatusOr<const CudaDriver*> driver = CudaDriver::Get();
  if (!driver.ok()) {
    EXPECT_EQ(driver.status().code(), absl::StatusCode::kFailedPrecondition);
    EXPECT_THAT(driver.status().message(), HasSubstr("libcuda.so.1"));
  }
}

TEST(GpuDeviceTest, ListsGpusWithTheirAttributes) {
  TRIB_SKIP_WITHOUT_GPU();
  std::vector<std::unique_ptr<Device>> devices =
      AddDevices(tensorflow::ConfigProto());
  ASSERT_GE(CountGpus(devices), 1);
  const Device& gpu = *devices[1];
  EXPECT_EQ(gpu.name(), std::string(kPrefix) + "/device:GPU:0");
  EXPECT_EQ(gpu.device_type(), "GPU");
  EXPECT_GT(gpu.attributes().memory_limit(), int64_t{1} << 30);
  EXPECT_THAT(gpu.attributes().physical_device_desc(),
              HasSubstr("device: 0, name: "));
  EXPECT_THAT(gpu.attributes().physical_device_desc(),
              HasSubstr("compute capability: "));
  EXPECT_THAT(gpu.attributes().physical_device_desc(),
              HasSubstr("pci bus id: "));
  // device_count {"GPU": 0} turns them off.
  tensorflow::ConfigProto none;
  (*none.mutable_device_count())["GPU"] = 0;
  EXPECT_EQ(CountGpus(AddDevices(none)), 0);
  // A list naming a GPU that is not there is an error.
  tensorflow::ConfigProto bad;
  bad.mutable_gpu_options()->set_visible_device_list("7");
  std::vector<std::unique_ptr<Device>> unused;
  EXPECT_EQ(DeviceFactory::AddDevices(bad, kPrefix, &unused).code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(GpuDeviceTest, CopiesInAndOutKeepEveryByte) {
  TRIB_SKIP_WITHOUT_GPU();
  std::vector<std::unique_ptr<Device>> devices =
      AddDevices(tensorflow::ConfigProto());
  auto* gpu = GpuDevice::FromDeviceBase(devices[1].get());
  ASSERT_NE(gpu, nullptr);
  for (int64_t n : {int64_t{0}, int64_t{1}, int64_t{1000}, int64_t{1} << 24}) {
    Tensor host = gpu_test::RandomTensor(DT_FLOAT, TensorShape({n}), -1, 1, 7);
    Tensor on_gpu;
    ASSERT_TRUE(
        gpu->gpu_device_context()->CopyHostToDeviceSync(host, &on_gpu).ok());
    Tensor back;
    ASSERT_TRUE(
        gpu->gpu_device_context()->CopyDeviceToHostSync(on_gpu, &back).ok());
    test::ExpectTensorEqual<float>(back, host);
  }
  // Strings do not go to a GPU.
  Tensor strings(DT_STRING, TensorShape({2}));
  Tensor out;
  EXPECT_EQ(
      gpu->gpu_device_context()->CopyHostToDeviceSync(strings, &out).code(),
      absl::StatusCode::kInvalidArgument);
}

TEST(GpuDeviceTest, OutOfDeviceMemoryIsResourceExhaustedNamingTheNode) {
  TRIB_SKIP_WITHOUT_GPU();
  // [n,1] x [1,n] floats with n = 400000 would need 640 GB.
  gpu_test::OpCall call;
  call.op = "MatMul";
  call.inputs = {
      gpu_test::RandomTensor(DT_FLOAT, TensorShape({400000, 1}), 0, 1, 1),
      gpu_test::RandomTensor(DT_FLOAT, TensorShape({1, 400000}), 0, 1, 2)};
  call.attrs = {{"transpose_a", gpu_test::BoolAttr(false)},
                {"transpose_b", gpu_test::BoolAttr(false)}};
  absl::StatusOr<std::vector<Tensor>> result =
      gpu_test::RunOp(call, "/device:GPU:0");
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), absl::StatusCode::kResourceExhausted)
      << result.status();
  EXPECT_THAT(result.status().message(), HasSubstr("op"));
  EXPECT_THAT(result.status().message(), HasSubstr("640000000000 bytes asked"));
  EXPECT_THAT(result.status().message(), HasSubstr("limit"));
  // The GPU is still usable afterwards.
  call.inputs = {
      gpu_test::RandomTensor(DT_FLOAT, TensorShape({4, 3}), 0, 1, 1),
      gpu_test::RandomTensor(DT_FLOAT, TensorShape({3, 5}), 0, 1, 2)};
  EXPECT_TRUE(gpu_test::RunOp(call, "/device:GPU:0").ok());
}

TEST(GpuDeviceTest, SoftPlacementFallsBackToCpu) {
  TRIB_SKIP_WITHOUT_GPU();
  // Floor has no GPU kernel (yet): the placer must say so, or with soft
  // placement run it on the CPU.
  gpu_test::OpCall call;
  call.op = "Floor";
  call.inputs = {test::AsTensor<float>({1.5f, -0.5f}, TensorShape({2}))};
  absl::StatusOr<std::vector<Tensor>> strict =
      gpu_test::RunOp(call, "/device:GPU:0");
  ASSERT_FALSE(strict.ok());
  EXPECT_EQ(strict.status().code(), absl::StatusCode::kInvalidArgument)
      << strict.status();
  EXPECT_THAT(strict.status().message(), HasSubstr("GPU"));
  tensorflow::ConfigProto soft;
  soft.set_allow_soft_placement(true);
  absl::StatusOr<std::vector<Tensor>> placed =
      gpu_test::RunOp(call, "/device:GPU:0", soft);
  ASSERT_TRUE(placed.ok()) << placed.status();
  test::ExpectTensorEqual<float>(
      (*placed)[0], test::AsTensor<float>({1.0f, -1.0f}, TensorShape({2})));
}

}  // namespace
}  // namespace tributary
