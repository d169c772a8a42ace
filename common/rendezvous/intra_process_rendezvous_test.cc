#include "common/rendezvous/intra_process_rendezvous.h"

#include <atomic>
#include <memory>
#include <string>
#include <thread>

#include "absl/status/status.h"
#include "absl/synchronization/notification.h"
#include "common/framework/status.h"
#include "common/framework/tensor.h"
#include "common/framework/tensor_testutil.h"
#include "common/framework/variant.h"
#include "gtest/gtest.h"

namespace tributary {
namespace {

using Args = RendezvousInterface::Args;

constexpr char kCpu0[] = "/job:localhost/replica:0/task:0/device:CPU:0";
constexpr char kCpu1[] = "/job:localhost/replica:0/task:0/device:CPU:1";
constexpr char kGpu0[] = "/job:localhost/replica:0/task:0/device:GPU:0";

RendezvousParsedKey Key(const char* src, const char* dst,
                        const std::string& name = "t") {
  return *ParseRendezvousKey(
      CreateRendezvousKey(src, 42, dst, name, FrameAndIter(0, 0)));
}

TEST(IntraProcessRendezvousTest, CpuToCpuSharesTheBuffer) {
  IntraProcessRendezvous rendezvous;
  const Tensor sent = test::AsTensor<float>({1, 2, 3});
  ASSERT_TRUE(rendezvous.Send(Key(kCpu0, kCpu1), Args(), sent, false).ok());
  Tensor received;
  bool dead = true;
  ASSERT_TRUE(
      rendezvous.Recv(Key(kCpu0, kCpu1), Args(), &received, &dead).ok());
  EXPECT_FALSE(dead);
  test::ExpectTensorEqual<float>(received, sent);
  EXPECT_TRUE(received.SharesBufferWith(sent));
}

// A value every Variant can hold, for the test below.
struct Payload {
  std::string TypeName() const { return "Payload"; }
  std::string DebugString() const { return "payload"; }
  int value = 0;
};

// DT_VARIANT tensors (TensorLists, ...) pass between CPU devices of one
// process like any tensor: the receiver sees the very same value.
TEST(IntraProcessRendezvousTest, VariantTensorsPassBetweenCpus) {
  IntraProcessRendezvous rendezvous;
  Tensor sent(DT_VARIANT, TensorShape({}));
  sent.scalar<Variant>()() = Payload{7};
  ASSERT_TRUE(rendezvous.Send(Key(kCpu0, kCpu1), Args(), sent, false).ok());
  Tensor received;
  bool dead = true;
  ASSERT_TRUE(
      rendezvous.Recv(Key(kCpu0, kCpu1), Args(), &received, &dead).ok());
  ASSERT_EQ(received.dtype(), DT_VARIANT);
  EXPECT_TRUE(received.SharesBufferWith(sent));
  const Payload* p = received.scalar<Variant>()().get<Payload>();
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->value, 7);
}

TEST(IntraProcessRendezvousTest, BothOrdersWork) {
  IntraProcessRendezvous rendezvous;
  Tensor received;
  bool dead;
  std::thread receiver([&] {
    ASSERT_TRUE(
        rendezvous
            .Recv(Key(kCpu0, kCpu1, "late"), Args(), &received, &dead, 60000)
            .ok());
  });
  ASSERT_TRUE(rendezvous
                  .Send(Key(kCpu0, kCpu1, "late"), Args(),
                        test::AsScalar<int32_t>(4), false)
                  .ok());
  receiver.join();
  test::ExpectTensorEqual<int32_t>(received, test::AsScalar<int32_t>(4));
}

TEST(IntraProcessRendezvousTest, CopyHookMovesEveryValue) {
  std::atomic<int> copies{0};
  // A hook standing in for a device copy: produces a fresh tensor (doubled,
  // so the test can tell it ran) and completes asynchronously.
  std::unique_ptr<std::thread> copier;
  IntraProcessRendezvous rendezvous([&](const RendezvousParsedKey& key,
                                        const Args& send_args,
                                        const Args& recv_args, const Tensor& in,
                                        Tensor* out, StatusCallback done) {
    ++copies;
    EXPECT_EQ(key.src_device, kGpu0);
    EXPECT_EQ(key.dst_device, kCpu0);
    EXPECT_TRUE(send_args.alloc_attrs.gpu_compatible());
    EXPECT_TRUE(recv_args.alloc_attrs.on_host());
    Tensor copy(DT_FLOAT, in.shape());
    for (int64_t i = 0; i < in.NumElements(); ++i) {
      copy.flat<float>()(i) = 2 * in.flat<float>()(i);
    }
    copier = std::make_unique<std::thread>([out, copy, done] {
      *out = copy;
      done(absl::OkStatus());
    });
  });
  Args send_args;
  send_args.alloc_attrs.set_gpu_compatible(true);
  Args recv_args;
  recv_args.alloc_attrs.set_on_host(true);
  const Tensor sent = test::AsTensor<float>({1, 2});
  ASSERT_TRUE(rendezvous.Send(Key(kGpu0, kCpu0), send_args, sent, false).ok());
  absl::Notification got;
  Tensor received;
  rendezvous.RecvAsync(Key(kGpu0, kCpu0), recv_args,
                       [&](const absl::Status& s, const Args& sa,
                           const Args& ra, const Tensor& v, bool dead) {
                         EXPECT_TRUE(s.ok()) << s;
                         EXPECT_FALSE(dead);
                         EXPECT_TRUE(sa.alloc_attrs.gpu_compatible());
                         EXPECT_TRUE(ra.alloc_attrs.on_host());
                         received = v;
                         got.Notify();
                       });
  got.WaitForNotification();
  copier->join();
  EXPECT_EQ(copies.load(), 1);
  test::ExpectTensorEqual<float>(received, test::AsTensor<float>({2, 4}));
  EXPECT_FALSE(received.SharesBufferWith(sent));
}

TEST(IntraProcessRendezvousTest, CopyErrorsReachTheReceiver) {
  IntraProcessRendezvous rendezvous([](const RendezvousParsedKey&, const Args&,
                                       const Args&, const Tensor&, Tensor*,
                                       StatusCallback done) {
    done(errors::ResourceExhausted("no memory on the receiving device"));
  });
  ASSERT_TRUE(
      rendezvous
          .Send(Key(kCpu0, kCpu1), Args(), test::AsScalar<float>(1), false)
          .ok());
  Tensor v;
  bool dead;
  absl::Status s = rendezvous.Recv(Key(kCpu0, kCpu1), Args(), &v, &dead);
  EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted);
}

TEST(IntraProcessRendezvousTest, DeadValuesAndErrorsSkipTheCopy) {
  std::atomic<int> copies{0};
  IntraProcessRendezvous rendezvous([&](const RendezvousParsedKey&, const Args&,
                                        const Args&, const Tensor& in,
                                        Tensor* out, StatusCallback done) {
    ++copies;
    *out = in;
    done(absl::OkStatus());
  });
  ASSERT_TRUE(rendezvous.Send(Key(kCpu0, kCpu1), Args(), Tensor(), true).ok());
  Tensor v;
  bool dead = false;
  ASSERT_TRUE(rendezvous.Recv(Key(kCpu0, kCpu1), Args(), &v, &dead).ok());
  EXPECT_TRUE(dead);
  EXPECT_EQ(copies.load(), 0);

  rendezvous.StartAbort(errors::Cancelled("step cancelled"));
  absl::Status s = rendezvous.Recv(Key(kCpu0, kCpu1, "x"), Args(), &v, &dead);
  EXPECT_EQ(s.code(), absl::StatusCode::kCancelled);
  EXPECT_EQ(copies.load(), 0);
}

TEST(IntraProcessRendezvousTest, DefaultHookRefusesDeviceMemory) {
  IntraProcessRendezvous rendezvous;
  ASSERT_TRUE(
      rendezvous
          .Send(Key(kGpu0, kCpu0), Args(), test::AsScalar<float>(1), false)
          .ok());
  Tensor v;
  bool dead;
  absl::Status s = rendezvous.Recv(Key(kGpu0, kCpu0), Args(), &v, &dead);
  EXPECT_EQ(s.code(), absl::StatusCode::kUnimplemented) << s;
  EXPECT_NE(s.message().find(kGpu0), std::string::npos) << s;

  // A GPU sender that says its value is in host memory needs no copy.
  Args host_send;
  host_send.alloc_attrs.set_on_host(true);
  const Tensor sent = test::AsScalar<float>(2);
  ASSERT_TRUE(
      rendezvous.Send(Key(kGpu0, kCpu0, "h"), host_send, sent, false).ok());
  ASSERT_TRUE(rendezvous.Recv(Key(kGpu0, kCpu0, "h"), Args(), &v, &dead).ok());
  EXPECT_TRUE(v.SharesBufferWith(sent));
}

TEST(IntraProcessRendezvousTest, StartAbortWakesWaiters) {
  IntraProcessRendezvous rendezvous;
  absl::Status status;
  std::thread receiver([&] {
    Tensor v;
    bool dead;
    status = rendezvous.Recv(Key(kCpu0, kCpu1), Args(), &v, &dead, 60000);
  });
  rendezvous.StartAbort(errors::Aborted("stop"));
  receiver.join();
  EXPECT_EQ(status.code(), absl::StatusCode::kAborted);
  EXPECT_EQ(rendezvous.status().code(), absl::StatusCode::kAborted);
}

}  // namespace
}  // namespace tributary
