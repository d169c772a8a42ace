// The GPU option decisions (gpu_options.h), which need no GPU.
#include "devices/gpu/gpu_options.h"

#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tributary {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

tensorflow::ConfigProto WithVisible(const std::string& list) {
  tensorflow::ConfigProto config;
  config.mutable_gpu_options()->set_visible_device_list(list);
  return config;
}

TEST(VisibleGpuOrdinalsTest, EveryGpuByDefault) {
  absl::StatusOr<std::vector<int>> ordinals =
      VisibleGpuOrdinals(tensorflow::ConfigProto(), 3);
  ASSERT_TRUE(ordinals.ok()) << ordinals.status();
  EXPECT_THAT(*ordinals, ElementsAre(0, 1, 2));
  EXPECT_THAT(*VisibleGpuOrdinals(tensorflow::ConfigProto(), 0), ElementsAre());
}

TEST(VisibleGpuOrdinalsTest, ListPicksAndOrders) {
  absl::StatusOr<std::vector<int>> ordinals =
      VisibleGpuOrdinals(WithVisible("2, 0"), 3);
  ASSERT_TRUE(ordinals.ok()) << ordinals.status();
  EXPECT_THAT(*ordinals, ElementsAre(2, 0));
}

TEST(VisibleGpuOrdinalsTest, DeviceCountKeepsTheFirst) {
  tensorflow::ConfigProto config = WithVisible("1,0");
  (*config.mutable_device_count())["GPU"] = 1;
  EXPECT_THAT(*VisibleGpuOrdinals(config, 2), ElementsAre(1));
  (*config.mutable_device_count())["GPU"] = 0;
  EXPECT_THAT(*VisibleGpuOrdinals(config, 2), ElementsAre());
  (*config.mutable_device_count())["GPU"] = 5;
  EXPECT_THAT(*VisibleGpuOrdinals(config, 2), ElementsAre(1, 0));
}

TEST(VisibleGpuOrdinalsTest, BadListsAreInvalidArguments) {
  for (const char* list : {"x", "0,,1", "-1", "3", "0,0", "1.5"}) {
    absl::StatusOr<std::vector<int>> ordinals =
        VisibleGpuOrdinals(WithVisible(list), 2);
    EXPECT_EQ(ordinals.status().code(), absl::StatusCode::kInvalidArgument)
        << list;
  }
  EXPECT_THAT(VisibleGpuOrdinals(WithVisible("3"), 2).status().message(),
              HasSubstr("sees 2 GPU(s)"));
  EXPECT_THAT(VisibleGpuOrdinals(WithVisible("0,0"), 2).status().message(),
              HasSubstr("twice"));
  tensorflow::ConfigProto negative;
  (*negative.mutable_device_count())["GPU"] = -1;
  EXPECT_EQ(VisibleGpuOrdinals(negative, 2).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(GpuMemoryLimitTest, FractionOfTotal) {
  tensorflow::GPUOptions options;
  options.set_per_process_gpu_memory_fraction(0.25);
  EXPECT_EQ(*GpuMemoryLimit(options, int64_t{80} << 30, int64_t{1} << 30),
            int64_t{20} << 30);
}

TEST(GpuMemoryLimitTest, DefaultIsFreeLessReserve) {
  const int64_t total = int64_t{80} << 30;
  const int64_t free = int64_t{70} << 30;
  EXPECT_EQ(*GpuMemoryLimit(tensorflow::GPUOptions(), total, free),
            free - total / 20);
  // A small GPU keeps at least 64 MiB back.
  EXPECT_EQ(*GpuMemoryLimit(tensorflow::GPUOptions(), int64_t{512} << 20,
                            int64_t{256} << 20),
            (int64_t{256} << 20) - (int64_t{64} << 20));
}

TEST(GpuMemoryLimitTest, RejectsBadFractionsAndFullGpus) {
  tensorflow::GPUOptions options;
  for (double f : {-0.1, 1.5}) {
    options.set_per_process_gpu_memory_fraction(f);
    EXPECT_EQ(GpuMemoryLimit(options, 1 << 30, 1 << 30).status().code(),
              absl::StatusCode::kInvalidArgument)
        << f;
  }
  EXPECT_EQ(GpuMemoryLimit(tensorflow::GPUOptions(), int64_t{8} << 30,
                           int64_t{100} << 20)
                .status()
                .code(),
            absl::StatusCode::kResourceExhausted);
}

TEST(GpuPhysicalDeviceDescTest, TensorFlowsWords) {
  EXPECT_EQ(
      GpuPhysicalDeviceDesc(0, "NVIDIA H100 80GB HBM3", "0000:19:00.0", 9, 0),
      "device: 0, name: NVIDIA H100 80GB HBM3, pci bus id: "
      "0000:19:00.0, compute capability: 9.0");
}

}  // namespace
}  // namespace tributary
