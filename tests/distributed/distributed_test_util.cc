#include "tests/distributed/distributed_test_util.h"

#include <cmath>
#include <utility>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "protos/tensor.pb.h"
#include "tools/client/session.h"

namespace tributary {
namespace test {

tensorflow::ConfigProto DefaultConfig() {
  tensorflow::ConfigProto config;
  // Bounds CreateSession's worker discovery and every step of the session.
  config.set_operation_timeout_in_ms(kSafetyTimeoutMs);
  return config;
}

tensorflow::RunOptions DefaultRunOptions(int timeout_ms) {
  tensorflow::RunOptions options;
  options.set_timeout_in_ms(timeout_ms);
  return options;
}

absl::StatusOr<std::unique_ptr<Session>> OpenSession(
    const std::string& target, const tensorflow::GraphDef& graph,
    const tensorflow::ConfigProto& config) {
  auto session = NewSession(target, config);
  if (!session.ok()) return session.status();
  absl::Status s = (*session)->Create(graph);
  if (!s.ok()) return s;
  return std::move(session).value();
}

tensorflow::GraphDef StripDevices(tensorflow::GraphDef graph) {
  for (auto& node : *graph.mutable_node()) node.clear_device();
  return graph;
}

absl::Status RunStep(Session* session, const NamedTensorList& feeds,
                     const std::vector<std::string>& fetches,
                     const std::vector<std::string>& targets,
                     std::vector<Tensor>* outputs, int timeout_ms) {
  tensorflow::RunMetadata metadata;
  return session->Run(DefaultRunOptions(timeout_ms), feeds, fetches, targets,
                      outputs, &metadata);
}

namespace {

template <typename T>
void ExpectClose(const Tensor& got, const Tensor& want, const std::string& what,
                 double rtol, double atol) {
  auto g = got.flat<T>();
  auto w = want.flat<T>();
  int reported = 0;
  for (int64_t i = 0; i < want.NumElements(); ++i) {
    const double gv = static_cast<double>(g(i));
    const double wv = static_cast<double>(w(i));
    const bool same = (std::isnan(gv) && std::isnan(wv)) || gv == wv ||
                      std::abs(gv - wv) <= atol + rtol * std::abs(wv);
    if (!same && reported++ < 5) {
      ADD_FAILURE() << what << ": element " << i << " is " << gv << ", want "
                    << wv;
    }
  }
}

}  // namespace

void ExpectSameTensor(const Tensor& got, const Tensor& want,
                      const std::string& what, double rtol, double atol) {
  ASSERT_EQ(DataTypeString(got.dtype()), DataTypeString(want.dtype())) << what;
  ASSERT_EQ(got.shape().DebugString(), want.shape().DebugString()) << what;
  if (want.dtype() == tensorflow::DT_FLOAT) {
    ExpectClose<float>(got, want, what, rtol, atol);
  } else if (want.dtype() == tensorflow::DT_DOUBLE) {
    ExpectClose<double>(got, want, what, rtol, atol);
  } else {
    tensorflow::TensorProto g, w;
    got.AsProtoField(&g);
    want.AsProtoField(&w);
    EXPECT_EQ(g.SerializeAsString(), w.SerializeAsString())
        << what << ": got " << got.DebugString(10) << ", want "
        << want.DebugString(10);
  }
}

void ExpectSameAsLocal(const std::string& target,
                       const tensorflow::GraphDef& graph,
                       const std::vector<Step>& steps, double rtol,
                       double atol) {
  auto remote = OpenSession(target, graph);
  ASSERT_TRUE(remote.ok()) << remote.status();
  tensorflow::ConfigProto local_config;
  auto local = OpenSession("", StripDevices(graph), local_config);
  ASSERT_TRUE(local.ok()) << local.status();
  for (size_t i = 0; i < steps.size(); ++i) {
    const Step& step = steps[i];
    std::vector<Tensor> got, want;
    absl::Status got_status =
        RunStep(remote->get(), step.feeds, step.fetches, step.targets, &got);
    absl::Status want_status =
        RunStep(local->get(), step.feeds, step.fetches, step.targets, &want);
    ASSERT_EQ(got_status.code(), want_status.code())
        << "step " << i << ": distributed: " << got_status
        << "; local: " << want_status;
    if (!want_status.ok()) continue;
    ASSERT_EQ(got.size(), want.size()) << "step " << i;
    for (size_t j = 0; j < want.size(); ++j) {
      ExpectSameTensor(got[j], want[j],
                       absl::StrCat("step ", i, " fetch ", step.fetches[j]),
                       rtol, atol);
    }
  }
  EXPECT_TRUE((*remote)->Close().ok());
  EXPECT_TRUE((*local)->Close().ok());
}

void AddTimesThreeAcrossTasks(GraphBuilder* b) {
  Output x = b->Placeholder(tensorflow::DT_FLOAT, {},
                            NodeOptions("x").WithDevice(Cpu(kWorker0)));
  Output y = b->Mul(
      x, b->Scalar<float>(3.0f, NodeOptions("three").WithDevice(Cpu(kWorker1))),
      NodeOptions("y").WithDevice(Cpu(kWorker1)));
  b->Identity(y, NodeOptions("out").WithDevice(Cpu(kPs)));
}

Output NeverArrivingRecv(GraphBuilder* b, const std::string& device,
                         const std::string& name) {
  tensorflow::AttrValue type, tensor_name, send_device, incarnation,
      recv_device, client_terminated;
  type.set_type(tensorflow::DT_FLOAT);
  tensor_name.set_s(name + "/never_sent");
  // Sender and receiver on the same device: the _Recv waits in that
  // worker's own step rendezvous, where nothing will ever be sent.
  send_device.set_s(device);
  recv_device.set_s(device);
  incarnation.set_i(1);
  client_terminated.set_b(false);
  return b->AddSingleOutputNode("_Recv", {},
                                {{"tensor_type", type},
                                 {"tensor_name", tensor_name},
                                 {"send_device", send_device},
                                 {"send_device_incarnation", incarnation},
                                 {"recv_device", recv_device},
                                 {"client_terminated", client_terminated}},
                                NodeOptions(name).WithDevice(device));
}

}  // namespace test
}  // namespace tributary
