// Two partitions of one step, joined by the real _Send/_Recv kernels over an
// IntraProcessRendezvous and by an ExecutorBarrier: both completion orders
// of the asynchronous _Recv, dead tensors crossing partitions, and a
// failure in one partition releasing the other.

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "unsupported/Eigen/CXX11/ThreadPool"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "common/device/device.h"
#include "common/device/test_device.h"
#include "common/framework/tensor.h"
#include "common/graph/graph.h"
#include "common/graph/graph_def_import.h"
#include "common/runtime/executor/call_frame.h"
#include "common/runtime/executor/executor.h"
#include "common/runtime/executor/executor_barrier.h"
#include "common/runtime/executor/executor_test_kernels.h"
#include "common/rendezvous/intra_process_rendezvous.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "protos/graph.pb.h"

namespace tributary {
namespace {

constexpr char kDev0[] = "/job:localhost/replica:0/task:0/device:CPU:0";
constexpr char kDev1[] = "/job:localhost/replica:0/task:0/device:CPU:1";

using test::TestDevice;

std::string TransferAttrs(const std::string& tensor_name) {
  return absl::StrCat(
      "attr { key: 'tensor_name' value { s: '", tensor_name, "' } } ",
      "attr { key: 'send_device' value { s: '", kDev0, "' } } ",
      "attr { key: 'recv_device' value { s: '", kDev1, "' } } ",
      "attr { key: 'send_device_incarnation' value { i: 1 } } ");
}

// Partition 0: data -> (maybe fail / switch) -> _Send("x").
// Partition 1: _Recv("x") -> +1 -> _Retval 0.
std::string SendPartition(const std::string& body, const std::string& sent) {
  return body + "node { name: 'send' op: '_Send' input: '" + sent +
         "' attr { key: 'T' value { type: DT_INT32 } } " +
         TransferAttrs("x") + "}";
}
std::string RecvPartition() {
  return "node { name: 'recv' op: '_Recv' "
         "attr { key: 'tensor_type' value { type: DT_INT32 } } " +
         TransferAttrs("x") +
         "} node { name: 'plus' op: 'XAddOne' input: 'recv' } "
         "node { name: 'ret' op: '_Retval' input: 'plus' "
         "attr { key: 'T' value { type: DT_INT32 } } "
         "attr { key: 'index' value { i: 0 } } }";
}

class PartitionTest : public ::testing::Test {
 protected:
  PartitionTest() : dev0_(kDev0), dev1_(kDev1), pool_(3) {}

  std::unique_ptr<Executor> Build(const std::string& text, Device* device) {
    tensorflow::GraphDef gdef;
    EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &gdef));
    GraphConstructorOptions opts;
    opts.allow_internal_ops = true;
    absl::StatusOr<std::unique_ptr<Graph>> graph =
        GraphFromGraphDef(gdef, OpRegistry::Global(), opts);
    EXPECT_TRUE(graph.ok()) << graph.status();
    if (!graph.ok()) return nullptr;
    LocalExecutorParams params;
    params.device = device;
    absl::StatusOr<std::unique_ptr<Executor>> exec =
        NewLocalExecutor(params, **graph);
    EXPECT_TRUE(exec.ok()) << exec.status();
    return exec.ok() ? std::move(*exec) : nullptr;
  }

  // Runs both partitions as one step; `recv_first` starts the receiving
  // partition first (its _Recv waits), otherwise the sender goes first.
  absl::Status RunStep(Executor* sender, Executor* receiver, bool recv_first,
                       bool pooled, std::vector<Tensor>* rets) {
    IntraProcessRendezvous rendezvous;
    FunctionCallFrame frame({}, {DT_INT32});
    absl::Notification done;
    absl::Status status;
    ExecutorBarrier barrier(2, &rendezvous, [&](const absl::Status& s) {
      status = s;
      done.Notify();
    });
    auto report = [&barrier](const absl::Status& s) { barrier.Report(s); };
    Executor::Args send_args;
    send_args.step_id = 7;
    send_args.rendezvous = &rendezvous;
    Executor::Args recv_args = send_args;
    recv_args.call_frame = &frame;
    if (pooled) {
      send_args.runner = recv_args.runner = [this](std::function<void()> fn) {
        pool_.Schedule(std::move(fn));
      };
    }
    if (recv_first) {
      receiver->RunAsync(recv_args, report);
      sender->RunAsync(send_args, report);
    } else {
      sender->RunAsync(send_args, report);
      receiver->RunAsync(recv_args, report);
    }
    EXPECT_TRUE(done.WaitForNotificationWithTimeout(absl::Seconds(30)));
    if (!status.ok()) return status;
    return frame.ConsumeRetvals(rets, /*allow_dead_tensors=*/true);
  }

  TestDevice dev0_;
  TestDevice dev1_;
  Eigen::ThreadPool pool_;
};

TEST_F(PartitionTest, RecvCompletesInEitherOrder) {
  std::unique_ptr<Executor> sender = Build(
      SendPartition("node { name: 'c' op: 'XConst' "
                    "attr { key: 'value' value { i: 41 } } }",
                    "c"),
      &dev0_);
  std::unique_ptr<Executor> receiver = Build(RecvPartition(), &dev1_);
  ASSERT_NE(sender, nullptr);
  ASSERT_NE(receiver, nullptr);
  for (bool recv_first : {false, true}) {
    for (bool pooled : {false, true}) {
      std::vector<Tensor> rets;
      absl::Status s =
          RunStep(sender.get(), receiver.get(), recv_first, pooled, &rets);
      ASSERT_TRUE(s.ok()) << s;
      ASSERT_EQ(rets.size(), 1u);
      EXPECT_EQ(rets[0].scalar<int32_t>()(), 42)
          << "recv_first=" << recv_first << " pooled=" << pooled;
    }
  }
}

TEST_F(PartitionTest, DeadTensorCrossesPartitions) {
  // The sent value is the untaken (true) side of a Switch: dead. The
  // receiver's consumers must not run and its fetch stays empty.
  std::unique_ptr<Executor> sender = Build(
      SendPartition(
          "node { name: 'c' op: 'XConst' attr { key: 'value' value { i: 1 } } }"
          "node { name: 'z' op: 'XConst' }"
          "node { name: 'p' op: 'XLess' input: 'c' input: 'z' }"
          "node { name: 'sw' op: 'Switch' input: 'c' input: 'p' "
          "attr { key: 'T' value { type: DT_INT32 } } }",
          "sw:1"),
      &dev0_);
  std::unique_ptr<Executor> receiver = Build(RecvPartition(), &dev1_);
  ASSERT_NE(sender, nullptr);
  ASSERT_NE(receiver, nullptr);
  for (bool recv_first : {false, true}) {
    std::vector<Tensor> rets;
    absl::Status s =
        RunStep(sender.get(), receiver.get(), recv_first, true, &rets);
    ASSERT_TRUE(s.ok()) << s;
    ASSERT_EQ(rets.size(), 1u);
    EXPECT_EQ(rets[0].NumElements(), 0);  // dead: never set
  }
}

TEST_F(PartitionTest, FailureReleasesTheWaitingPartition) {
  std::unique_ptr<Executor> sender = Build(
      SendPartition("node { name: 'c' op: 'XConst' }"
                    "node { name: 'bad' op: 'XFail' input: 'c' }",
                    "bad"),
      &dev0_);
  std::unique_ptr<Executor> receiver = Build(RecvPartition(), &dev1_);
  ASSERT_NE(sender, nullptr);
  ASSERT_NE(receiver, nullptr);
  for (bool recv_first : {false, true}) {
    std::vector<Tensor> rets;
    absl::Status s =
        RunStep(sender.get(), receiver.get(), recv_first, true, &rets);
    // The root cause, not the receiver's consequential abort.
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
    EXPECT_NE(s.message().find("{{node bad}}"), std::string::npos) << s;
  }
}

TEST_F(PartitionTest, SendingAnUninitializedRefIsFailedPrecondition) {
  // A VariableV2 never assigned, sent to another partition: the _Send
  // fails naming the variable, and the waiting _Recv is released.
  std::unique_ptr<Executor> sender = Build(
      SendPartition("node { name: 'w' op: 'XUninitRef' }", "w"), &dev0_);
  std::unique_ptr<Executor> receiver = Build(RecvPartition(), &dev1_);
  ASSERT_NE(sender, nullptr);
  ASSERT_NE(receiver, nullptr);
  for (bool recv_first : {false, true}) {
    std::vector<Tensor> rets;
    absl::Status s =
        RunStep(sender.get(), receiver.get(), recv_first, true, &rets);
    EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition) << s;
    EXPECT_NE(s.message().find("Attempting to use uninitialized value w"),
              std::string::npos)
        << s;
  }
}

TEST_F(PartitionTest, ClientTerminatedSendOfAnUninitializedRefFails) {
  // A fetch through the rendezvous (send and recv device both the client's):
  // the client would Recv an empty tensor; the step fails instead.
  const std::string attrs = absl::StrCat(
      "attr { key: 'T' value { type: DT_INT32 } } "
      "attr { key: 'tensor_name' value { s: 'w:0' } } "
      "attr { key: 'send_device' value { s: '", kDev0, "' } } "
      "attr { key: 'recv_device' value { s: '", kDev0, "' } } "
      "attr { key: 'send_device_incarnation' value { i: 1 } } "
      "attr { key: 'client_terminated' value { b: true } } ");
  std::unique_ptr<Executor> exec = Build(
      "node { name: 'w' op: 'XUninitRef' } "
      "node { name: 'send_w' op: '_Send' input: 'w' " + attrs + "}",
      &dev0_);
  ASSERT_NE(exec, nullptr);
  IntraProcessRendezvous rendezvous;
  Executor::Args args;
  args.rendezvous = &rendezvous;
  absl::Status s = exec->Run(args);
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition) << s;
  EXPECT_NE(s.message().find("Attempting to use uninitialized value w"),
            std::string::npos)
      << s;
  EXPECT_NE(s.message().find("{{node send_w}}"), std::string::npos) << s;
}

}  // namespace
}  // namespace tributary
