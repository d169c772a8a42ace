#include "common/distributed/resource_limits.h"

#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "protos/graph.pb.h"

namespace tributary {
namespace {

TEST(CheckGraphBytesTest, UnderTheLimitIsOk) {
  tensorflow::GraphDef g;
  g.add_node()->set_name("a");
  EXPECT_TRUE(CheckGraphBytes(g, 1 << 20, "--max-graph-bytes", "x").ok());
  EXPECT_TRUE(CheckGraphBytes(g, 0, "--max-graph-bytes", "x").ok());
  EXPECT_TRUE(CheckGraphBytes(g, -1, "--max-graph-bytes", "x").ok());
}

TEST(CheckGraphBytesTest, OverTheLimitNamesLimitAndSize) {
  tensorflow::GraphDef g;
  g.add_node()->set_name(std::string(1000, 'n'));
  const int64_t size = static_cast<int64_t>(g.ByteSizeLong());
  absl::Status s = CheckGraphBytes(g, 100, "--max-graph-bytes", "CreateSession");
  EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(s.message().find("--max-graph-bytes"), std::string::npos) << s;
  EXPECT_NE(s.message().find("limit of 100 bytes"), std::string::npos) << s;
  EXPECT_NE(s.message().find(std::to_string(size) + " bytes"),
            std::string::npos)
      << s;
  EXPECT_NE(s.message().find("CreateSession"), std::string::npos) << s;
}

TEST(InFlightLimiterTest, RefusesOverTheLimitPerKeyAndFreesOnRelease) {
  InFlightLimiter limiter(2, "--max-steps-per-client", "steps");
  auto a = limiter.Acquire("k", "Client k");
  auto b = limiter.Acquire("k", "Client k");
  ASSERT_TRUE(a.ok());
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(limiter.InFlight("k"), 2);
  auto c = limiter.Acquire("k", "Client k");
  ASSERT_EQ(c.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(c.status().message().find("--max-steps-per-client=2"),
            std::string::npos)
      << c.status();
  EXPECT_NE(c.status().message().find("Client k already has 2 steps"),
            std::string::npos)
      << c.status();
  // Another key has its own count.
  EXPECT_TRUE(limiter.Acquire("other", "Client other").ok());
  // Releasing one (destroying the slot) makes room again.
  { InFlightLimiter::Slot gone = *std::move(a); }
  EXPECT_EQ(limiter.InFlight("k"), 1);
  auto d = limiter.Acquire("k", "Client k");
  EXPECT_TRUE(d.ok());
  EXPECT_EQ(limiter.InFlight("k"), 2);
}

TEST(InFlightLimiterTest, MovedSlotsReleaseOnce) {
  InFlightLimiter limiter(1, "--f", "steps");
  {
    auto a = limiter.Acquire("k", "K");
    ASSERT_TRUE(a.ok());
    InFlightLimiter::Slot s1 = *std::move(a);
    InFlightLimiter::Slot s2 = std::move(s1);
    InFlightLimiter::Slot s3;
    s3 = std::move(s2);
    EXPECT_EQ(limiter.InFlight("k"), 1);
  }
  EXPECT_EQ(limiter.InFlight("k"), 0);
}

TEST(InFlightLimiterTest, ZeroIsUnlimited) {
  InFlightLimiter limiter(0, "--f", "steps");
  std::vector<InFlightLimiter::Slot> slots;
  for (int i = 0; i < 1000; ++i) {
    auto s = limiter.Acquire("k", "K");
    ASSERT_TRUE(s.ok());
    slots.push_back(*std::move(s));
  }
}

}  // namespace
}  // namespace tributary
