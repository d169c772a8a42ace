#include "tools/client/session.h"

#include <vector>

#include "common/framework/tensor_testutil.h"
#include "gtest/gtest.h"
#include "tools/client/graph_builder.h"

namespace tributary {
namespace {

TEST(NewSessionTest, LocalTargetsRunGraphs) {
  GraphBuilder b;
  b.Add(b.Scalar<int32_t>(1), b.Scalar<int32_t>(2), "sum");
  auto graph = b.Build();
  ASSERT_TRUE(graph.ok()) << graph.status();
  for (const char* target : {"", "local"}) {
    tensorflow::ConfigProto config;
    (*config.mutable_device_count())["CPU"] = 2;
    auto session = NewSession(target, config);
    ASSERT_TRUE(session.ok()) << session.status();
    auto devices = (*session)->ListDevices();
    ASSERT_TRUE(devices.ok());
    EXPECT_EQ(devices->size(), 2u);
    ASSERT_TRUE((*session)->Create(*graph).ok());
    std::vector<Tensor> out;
    ASSERT_TRUE((*session)->Run({}, {"sum"}, {}, &out).ok());
    test::ExpectTensorEqual<int32_t>(out[0], test::AsScalar<int32_t>(3));
    EXPECT_TRUE((*session)->Close().ok());
  }
}

// grpc:// gives a session talking to a master (grpc_session_test covers it
// against a fake one); with nothing listening, calls are Unavailable
// naming the address. Port 1 on loopback: nothing listens there.
TEST(NewSessionTest, GrpcTargetReachesForAMaster) {
  auto session = NewSession("grpc://127.0.0.1:1");
  ASSERT_TRUE(session.ok()) << session.status();
  auto devices = (*session)->ListDevices();
  EXPECT_EQ(devices.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_NE(devices.status().message().find("127.0.0.1:1"),
            absl::string_view::npos)
      << devices.status();
}

TEST(NewSessionTest, UnknownTargetIsInvalidArgument) {
  EXPECT_EQ(NewSession("tcp://x").status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace tributary
