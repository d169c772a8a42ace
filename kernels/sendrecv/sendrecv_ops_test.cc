#include "kernels/sendrecv/sendrecv_ops.h"

#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/synchronization/notification.h"
#include "common/framework/tensor.h"
#include "common/framework/tensor_testutil.h"
#include "common/kernel/cancellation.h"
#include "common/kernel/kernel_registry.h"
#include "common/kernel/op_kernel.h"
#include "common/op/node_def_util.h"
#include "common/rendezvous/intra_process_rendezvous.h"
#include "devices/cpu/cpu_device.h"
#include "gtest/gtest.h"

namespace tributary {
namespace {

constexpr char kSendDevice[] = "/job:localhost/replica:0/task:0/device:CPU:0";
constexpr char kRecvDevice[] = "/job:localhost/replica:0/task:0/device:CPU:1";
constexpr int64_t kIncarnation = 0x1234abcd;

tensorflow::NodeDef TransferNode(const std::string& op, const std::string& name,
                                 DataType dtype,
                                 const std::string& tensor_name = "edge_1_x",
                                 int64_t incarnation = kIncarnation,
                                 const std::string& send_device = kSendDevice) {
  tensorflow::NodeDef node;
  node.set_name(name);
  node.set_op(op);
  const bool is_send = op == "_Send" || op == "_HostSend";
  if (is_send) node.add_input("x");
  AddNodeAttr(is_send ? "T" : "tensor_type", dtype, &node);
  AddNodeAttr("tensor_name", tensor_name, &node);
  AddNodeAttr("send_device", send_device, &node);
  AddNodeAttr("send_device_incarnation", incarnation, &node);
  AddNodeAttr("recv_device", kRecvDevice, &node);
  AddNodeAttr("client_terminated", false, &node);
  return node;
}

// Runs _Send/_Recv kernels on two CPU devices sharing one rendezvous, the
// way the executor would.
class SendRecvTest : public ::testing::Test {
 protected:
  SendRecvTest()
      : pool_(std::make_shared<CpuThreadPool>(1)),
        send_device_(CpuDevice::Create(kSendDevice, pool_)),
        recv_device_(CpuDevice::Create(kRecvDevice, pool_)) {}

  std::unique_ptr<OpKernel> MakeKernel(const tensorflow::NodeDef& node,
                                       Device* device) {
    absl::StatusOr<std::unique_ptr<OpKernel>> kernel =
        CreateOpKernel(DeviceType(DEVICE_CPU), device,
                       device->GetAllocator(AllocatorAttributes()), node, 1);
    EXPECT_TRUE(kernel.ok()) << kernel.status();
    return kernel.ok() ? std::move(kernel).value() : nullptr;
  }

  // Runs a send kernel on `value` and returns its status.
  absl::Status RunSend(OpKernel* kernel, const Tensor& value,
                       FrameAndIter frame_iter = FrameAndIter(),
                       bool is_dead = false) {
    Tensor input = value;
    TensorValue inputs[1] = {TensorValue(&input)};
    OpKernelContext::Params params;
    params.op_kernel = kernel;
    params.device = send_device_.get();
    params.inputs = absl::MakeSpan(inputs);
    params.rendezvous = rendezvous_;
    params.frame_iter = frame_iter;
    params.is_input_dead = is_dead;
    if (is_dead) inputs[0] = TensorValue();  // a dead input has no tensor
    OpKernelContext ctx(&params);
    send_device_->Compute(kernel, &ctx);
    return ctx.status();
  }

  // A receive in flight: its context must outlive the callback.
  struct PendingRecv {
    OpKernelContext::Params params;
    std::unique_ptr<OpKernelContext> ctx;
    absl::Notification done;
  };

  std::unique_ptr<PendingRecv> StartRecv(OpKernel* kernel,
                                         FrameAndIter frame_iter = FrameAndIter(),
                                         CancellationManager* cm = nullptr) {
    auto pending = std::make_unique<PendingRecv>();
    pending->params.op_kernel = kernel;
    pending->params.device = recv_device_.get();
    pending->params.rendezvous = rendezvous_;
    pending->params.frame_iter = frame_iter;
    pending->params.cancellation_manager = cm;
    pending->ctx = std::make_unique<OpKernelContext>(&pending->params);
    PendingRecv* raw = pending.get();
    recv_device_->ComputeAsync(kernel->AsAsync(), raw->ctx.get(),
                               [raw] { raw->done.Notify(); });
    return pending;
  }

  std::shared_ptr<CpuThreadPool> pool_;
  std::unique_ptr<CpuDevice> send_device_;
  std::unique_ptr<CpuDevice> recv_device_;
  IntraProcessRendezvous owned_rendezvous_;
  RendezvousInterface* rendezvous_ = &owned_rendezvous_;
};

TEST_F(SendRecvTest, SendThenRecv) {
  auto send = MakeKernel(TransferNode("_Send", "send", DT_FLOAT), send_device_.get());
  auto recv = MakeKernel(TransferNode("_Recv", "recv", DT_FLOAT), recv_device_.get());
  ASSERT_NE(send, nullptr);
  ASSERT_NE(recv, nullptr);
  EXPECT_FALSE(send->IsExpensive());
  EXPECT_FALSE(recv->IsExpensive());
  ASSERT_NE(recv->AsAsync(), nullptr);

  const Tensor value = test::AsTensor<float>({1, 2, 3}, TensorShape({3}));
  ASSERT_TRUE(RunSend(send.get(), value).ok());
  auto pending = StartRecv(recv.get());
  // The value was waiting: the receive completed inline.
  ASSERT_TRUE(pending->done.HasBeenNotified());
  ASSERT_TRUE(pending->ctx->status().ok()) << pending->ctx->status();
  ASSERT_TRUE(pending->ctx->has_output(0));
  test::ExpectTensorEqual<float>(*pending->ctx->mutable_output(0), value);
  // CPU to CPU in one process: no copy.
  EXPECT_TRUE(pending->ctx->mutable_output(0)->SharesBufferWith(value));
}

TEST_F(SendRecvTest, RecvThenSend) {
  auto send = MakeKernel(TransferNode("_Send", "send", DT_INT32), send_device_.get());
  auto recv = MakeKernel(TransferNode("_Recv", "recv", DT_INT32), recv_device_.get());
  auto pending = StartRecv(recv.get());
  EXPECT_FALSE(pending->done.HasBeenNotified());
  // The send comes from another thread, as from another partition.
  std::thread sender([&] {
    EXPECT_TRUE(RunSend(send.get(), test::AsScalar<int32_t>(42)).ok());
  });
  pending->done.WaitForNotification();
  sender.join();
  ASSERT_TRUE(pending->ctx->status().ok()) << pending->ctx->status();
  test::ExpectTensorEqual<int32_t>(*pending->ctx->mutable_output(0),
                                   test::AsScalar<int32_t>(42));
}

TEST_F(SendRecvTest, KeyIsTensorFlowsFormat) {
  // Another party (a session feeding or fetching, a remote worker) builds
  // the same key from the same attributes.
  auto send = MakeKernel(TransferNode("_Send", "send", DT_FLOAT, "x:0"),
                         send_device_.get());
  ASSERT_TRUE(RunSend(send.get(), test::AsScalar<float>(5)).ok());
  const std::string key = CreateRendezvousKey(
      kSendDevice, kIncarnation, kRecvDevice, "x:0", FrameAndIter(0, 0));
  EXPECT_EQ(key, absl::StrCat(kSendDevice, ";000000001234abcd;", kRecvDevice,
                              ";x:0;0:0"));
  Tensor v;
  bool dead;
  ASSERT_TRUE(rendezvous_->Recv(*ParseRendezvousKey(key), {}, &v, &dead).ok());
  test::ExpectTensorEqual<float>(v, test::AsScalar<float>(5));

  // And a value put there by key is what a _Recv gets.
  auto recv = MakeKernel(TransferNode("_Recv", "recv", DT_FLOAT, "fetch"),
                         recv_device_.get());
  ASSERT_TRUE(rendezvous_
                  ->Send(*ParseRendezvousKey(CreateRendezvousKey(
                             kSendDevice, kIncarnation, kRecvDevice, "fetch",
                             FrameAndIter(0, 0))),
                         {}, test::AsScalar<float>(6), false)
                  .ok());
  auto pending = StartRecv(recv.get());
  ASSERT_TRUE(pending->done.HasBeenNotified());
  test::ExpectTensorEqual<float>(*pending->ctx->mutable_output(0),
                                 test::AsScalar<float>(6));
}

TEST_F(SendRecvTest, IncarnationHighBitSurvives) {
  // The attr is an int64 holding a uint64's bits.
  const int64_t negative = static_cast<int64_t>(0xfedcba9876543210ull);
  auto send = MakeKernel(
      TransferNode("_Send", "send", DT_FLOAT, "t", negative), send_device_.get());
  ASSERT_TRUE(RunSend(send.get(), test::AsScalar<float>(1)).ok());
  Tensor v;
  bool dead;
  ASSERT_TRUE(rendezvous_
                  ->Recv(*ParseRendezvousKey(absl::StrCat(
                             kSendDevice, ";fedcba9876543210;", kRecvDevice,
                             ";t;0:0")),
                         {}, &v, &dead, 1000)
                  .ok());
}

TEST_F(SendRecvTest, FramesAndIterationsAreSeparateChannels) {
  auto send = MakeKernel(TransferNode("_Send", "send", DT_FLOAT), send_device_.get());
  auto recv = MakeKernel(TransferNode("_Recv", "recv", DT_FLOAT), recv_device_.get());
  auto iter0 = StartRecv(recv.get(), FrameAndIter(7, 0));
  auto iter1 = StartRecv(recv.get(), FrameAndIter(7, 1));
  ASSERT_TRUE(RunSend(send.get(), test::AsScalar<float>(10), FrameAndIter(7, 1)).ok());
  ASSERT_TRUE(iter1->done.HasBeenNotified());
  EXPECT_FALSE(iter0->done.HasBeenNotified());
  test::ExpectTensorEqual<float>(*iter1->ctx->mutable_output(0),
                                 test::AsScalar<float>(10));
  ASSERT_TRUE(RunSend(send.get(), test::AsScalar<float>(20), FrameAndIter(7, 0)).ok());
  ASSERT_TRUE(iter0->done.HasBeenNotified());
  test::ExpectTensorEqual<float>(*iter0->ctx->mutable_output(0),
                                 test::AsScalar<float>(20));
}

TEST_F(SendRecvTest, DeadInputArrivesAsNoOutput) {
  auto send = MakeKernel(TransferNode("_Send", "send", DT_FLOAT), send_device_.get());
  auto recv = MakeKernel(TransferNode("_Recv", "recv", DT_FLOAT), recv_device_.get());
  ASSERT_TRUE(RunSend(send.get(), Tensor(), FrameAndIter(), /*is_dead=*/true).ok());
  auto pending = StartRecv(recv.get());
  ASSERT_TRUE(pending->done.HasBeenNotified());
  EXPECT_TRUE(pending->ctx->status().ok());
  // The executor reads a _Recv without output as dead.
  EXPECT_FALSE(pending->ctx->has_output(0));
}

TEST_F(SendRecvTest, DuplicateSendFailsTheKernel) {
  auto send = MakeKernel(TransferNode("_Send", "send", DT_FLOAT), send_device_.get());
  ASSERT_TRUE(RunSend(send.get(), test::AsScalar<float>(1)).ok());
  EXPECT_EQ(RunSend(send.get(), test::AsScalar<float>(1)).code(),
            absl::StatusCode::kAborted);
}

TEST_F(SendRecvTest, WrongDtypeIsAnError) {
  auto send = MakeKernel(TransferNode("_Send", "send", DT_INT32), send_device_.get());
  auto recv = MakeKernel(TransferNode("_Recv", "recv", DT_FLOAT), recv_device_.get());
  ASSERT_TRUE(RunSend(send.get(), test::AsScalar<int32_t>(1)).ok());
  auto pending = StartRecv(recv.get());
  ASSERT_TRUE(pending->done.HasBeenNotified());
  EXPECT_FALSE(pending->ctx->status().ok());
  EXPECT_FALSE(pending->ctx->has_output(0));
}

TEST_F(SendRecvTest, AbortReachesAWaitingRecv) {
  auto recv = MakeKernel(TransferNode("_Recv", "recv", DT_FLOAT), recv_device_.get());
  auto pending = StartRecv(recv.get());
  rendezvous_->StartAbort(errors::Aborted("step failed elsewhere"));
  ASSERT_TRUE(pending->done.HasBeenNotified());
  EXPECT_EQ(pending->ctx->status().code(), absl::StatusCode::kAborted);
  EXPECT_EQ(pending->ctx->status().message(), "step failed elsewhere");
}

TEST_F(SendRecvTest, StepCancellationReachesAWaitingRecv) {
  auto recv = MakeKernel(TransferNode("_Recv", "recv", DT_FLOAT), recv_device_.get());
  CancellationManager cm;
  auto pending = StartRecv(recv.get(), FrameAndIter(), &cm);
  EXPECT_FALSE(pending->done.HasBeenNotified());
  cm.StartCancel();
  ASSERT_TRUE(pending->done.HasBeenNotified());
  EXPECT_EQ(pending->ctx->status().code(), absl::StatusCode::kCancelled);
}

TEST_F(SendRecvTest, HostVariants) {
  auto send = MakeKernel(TransferNode("_HostSend", "send", DT_INT64),
                         send_device_.get());
  auto recv = MakeKernel(TransferNode("_HostRecv", "recv", DT_INT64),
                         recv_device_.get());
  auto pending = StartRecv(recv.get());
  ASSERT_TRUE(RunSend(send.get(), test::AsTensor<int64_t>({4, 5})).ok());
  ASSERT_TRUE(pending->done.HasBeenNotified());
  test::ExpectTensorEqual<int64_t>(*pending->ctx->mutable_output(0),
                                   test::AsTensor<int64_t>({4, 5}));
}

TEST_F(SendRecvTest, NoRendezvousIsInternal) {
  rendezvous_ = nullptr;
  auto send = MakeKernel(TransferNode("_Send", "send", DT_FLOAT), send_device_.get());
  auto recv = MakeKernel(TransferNode("_Recv", "recv", DT_FLOAT), recv_device_.get());
  EXPECT_EQ(RunSend(send.get(), test::AsScalar<float>(1)).code(),
            absl::StatusCode::kInternal);
  auto pending = StartRecv(recv.get());
  ASSERT_TRUE(pending->done.HasBeenNotified());
  EXPECT_EQ(pending->ctx->status().code(), absl::StatusCode::kInternal);
}

TEST_F(SendRecvTest, BadDeviceAttrFailsConstruction) {
  absl::StatusOr<std::unique_ptr<OpKernel>> kernel = CreateOpKernel(
      DeviceType(DEVICE_CPU), send_device_.get(), nullptr,
      TransferNode("_Send", "send", DT_FLOAT, "t", 1, "not-a-device"), 1);
  ASSERT_FALSE(kernel.ok());
  EXPECT_EQ(kernel.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(kernel.status().message().find("not-a-device"), std::string::npos)
      << kernel.status();
}

}  // namespace
}  // namespace tributary
