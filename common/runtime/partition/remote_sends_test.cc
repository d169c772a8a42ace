#include "common/runtime/partition/remote_sends.h"

#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"

namespace tributary {
namespace {

tensorflow::GraphDef Parse(const char* text) {
  tensorflow::GraphDef g;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &g));
  return g;
}

TEST(RemoteSendsTest, CrossTaskSendCounts) {
  EXPECT_TRUE(HasRemoteSends(Parse(R"pb(
    node { name: "c" op: "Const" }
    node {
      name: "c/_0"
      op: "_Send"
      input: "c"
      attr { key: "client_terminated" value { b: false } }
    })pb")));
  EXPECT_TRUE(HasRemoteSends(Parse(R"pb(
    node { name: "c/_0" op: "_HostSend" })pb")));
}

TEST(RemoteSendsTest, ClientTerminatedSendsAndRecvsDoNot) {
  EXPECT_FALSE(HasRemoteSends(Parse(R"pb(
    node {
      name: "_recv_x_0"
      op: "_Recv"
      attr { key: "client_terminated" value { b: false } }
    }
    node {
      name: "_send_y_0"
      op: "_Send"
      attr { key: "client_terminated" value { b: true } }
    })pb")));
  EXPECT_FALSE(HasRemoteSends(tensorflow::GraphDef()));
}

}  // namespace
}  // namespace tributary
