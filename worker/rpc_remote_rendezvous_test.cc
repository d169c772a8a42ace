// RpcRemoteRendezvous against a fake peer: local keys stay local, remote
// keys become RecvTensor calls carrying the step's deadline, and an abort or
// the receiver's cancellation cancels the calls in flight.

#include "worker/rpc_remote_rendezvous.h"

#include <memory>
#include <optional>
#include <vector>

#include "absl/strings/match.h"
#include "absl/synchronization/mutex.h"
#include "common/distributed/worker_cache.h"
#include "common/framework/status.h"
#include "common/framework/tensor.h"
#include "common/framework/tensor_testutil.h"
#include "common/kernel/cancellation.h"
#include "common/rendezvous/recv_testutil.h"
#include "common/rendezvous/rendezvous_key.h"
#include "gtest/gtest.h"

namespace tributary {
namespace {

const char kSelf[] = "/job:worker/replica:0/task:0";
const char kPeer[] = "/job:ps/replica:0/task:0";
const char kSelfCpu[] = "/job:worker/replica:0/task:0/device:CPU:0";
const char kPeerCpu[] = "/job:ps/replica:0/task:0/device:CPU:0";

// Keeps every RecvTensor call pending until the test answers it; a
// cancelled call completes with Cancelled, as a transport's would.
class FakePeer : public WorkerInterface {
 public:
  struct Call {
    CallOptions* opts;
    const tensorflow::RecvTensorRequest* request;
    TensorResponse* response;
    StatusCallback done;
  };

  void RecvTensorAsync(CallOptions* opts,
                       const tensorflow::RecvTensorRequest* request,
                       TensorResponse* response, StatusCallback done) override {
    int index;
    {
      absl::MutexLock l(&mu_);
      index = static_cast<int>(calls_.size());
      calls_.push_back(Call{opts, request, response, std::move(done)});
      deadlines_.push_back(opts->deadline());
    }
    opts->SetCancelCallback([this, index] {
      Complete(index, errors::Cancelled("call cancelled"));
    });
  }

  // Answers call `index` (once; later answers are ignored).
  void Complete(int index, const absl::Status& s,
                std::optional<Tensor> value = std::nullopt) {
    StatusCallback done;
    {
      absl::MutexLock l(&mu_);
      Call& call = calls_[index];
      if (!call.done) return;
      if (value.has_value()) call.response->tensor = *value;
      done = std::move(call.done);
      call.done = nullptr;
    }
    done(s);
  }

  int num_calls() {
    absl::MutexLock l(&mu_);
    return static_cast<int>(calls_.size());
  }
  std::string key(int index) {
    absl::MutexLock l(&mu_);
    return calls_[index].request->rendezvous_key();
  }
  int64_t step_id(int index) {
    absl::MutexLock l(&mu_);
    return calls_[index].request->step_id();
  }
  absl::Time deadline(int index) {
    absl::MutexLock l(&mu_);
    return deadlines_[index];
  }

#define TRIB_UNUSED_METHOD(Method, Req, Resp)                              \
  void Method##Async(CallOptions*, const Req*, Resp*, StatusCallback done) \
      override {                                                           \
    done(errors::Unimplemented(#Method));                                  \
  }
  TRIB_UNUSED_METHOD(GetStatus, tensorflow::GetStatusRequest,
                     tensorflow::GetStatusResponse)
  TRIB_UNUSED_METHOD(CreateWorkerSession,
                     tensorflow::CreateWorkerSessionRequest,
                     tensorflow::CreateWorkerSessionResponse)
  TRIB_UNUSED_METHOD(DeleteWorkerSession,
                     tensorflow::DeleteWorkerSessionRequest,
                     tensorflow::DeleteWorkerSessionResponse)
  TRIB_UNUSED_METHOD(RegisterGraph, tensorflow::RegisterGraphRequest,
                     tensorflow::RegisterGraphResponse)
  TRIB_UNUSED_METHOD(DeregisterGraph, tensorflow::DeregisterGraphRequest,
                     tensorflow::DeregisterGraphResponse)
  TRIB_UNUSED_METHOD(RunGraph, RunGraphRequestMsg, RunGraphResponseMsg)
  TRIB_UNUSED_METHOD(CleanupGraph, tensorflow::CleanupGraphRequest,
                     tensorflow::CleanupGraphResponse)
  TRIB_UNUSED_METHOD(CleanupAll, tensorflow::CleanupAllRequest,
                     tensorflow::CleanupAllResponse)
  TRIB_UNUSED_METHOD(Logging, tensorflow::LoggingRequest,
                     tensorflow::LoggingResponse)
  TRIB_UNUSED_METHOD(Tracing, tensorflow::TracingRequest,
                     tensorflow::TracingResponse)
#undef TRIB_UNUSED_METHOD

 private:
  absl::Mutex mu_;
  std::vector<Call> calls_;
  std::vector<absl::Time> deadlines_;
};

using test::Received;

RendezvousParsedKey Key(const std::string& src, const std::string& dst,
                        const std::string& name) {
  return *ParseRendezvousKey(
      CreateRendezvousKey(src, 0x1234, dst, name, FrameAndIter(0, 0)));
}

class RpcRemoteRendezvousTest : public ::testing::Test {
 protected:
  RpcRemoteRendezvousTest() : peer_(std::make_shared<FakePeer>()) {
    cache_.AddWorker(kPeer, peer_);
    env_.task_name = kSelf;
    env_.worker_cache = &cache_;
    rendezvous_ = std::make_unique<RpcRemoteRendezvous>(&env_, 17);
  }

  std::shared_ptr<FakePeer> peer_;
  InProcessWorkerCache cache_;
  WorkerEnv env_;
  std::unique_ptr<RpcRemoteRendezvous> rendezvous_;
};

TEST_F(RpcRemoteRendezvousTest, KeysFromThisTaskAreReceivedLocally) {
  const auto key = Key(kSelfCpu, kSelfCpu, "a");
  ASSERT_TRUE(rendezvous_
                  ->Send(key, RendezvousInterface::Args(),
                         test::AsTensor<float>({1.5f}, {}), false)
                  .ok());
  Received r;
  rendezvous_->RecvAsync(key, RendezvousInterface::Args(), r.Callback());
  ASSERT_TRUE(r.called());
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_EQ(r.value.scalar<float>()(), 1.5f);
  EXPECT_EQ(peer_->num_calls(), 0);
}

TEST_F(RpcRemoteRendezvousTest, SendOfAnotherTasksKeyIsRefused) {
  absl::Status s = rendezvous_->Send(Key(kPeerCpu, kSelfCpu, "a"),
                                     RendezvousInterface::Args(),
                                     test::AsTensor<float>({1.f}, {}), false);
  EXPECT_TRUE(absl::IsInvalidArgument(s)) << s;
}

TEST_F(RpcRemoteRendezvousTest, RemoteKeysAskTheSendingTask) {
  const absl::Time deadline = absl::Now() + absl::Hours(1);
  rendezvous_->SetDeadline(deadline);
  const auto key = Key(kPeerCpu, kSelfCpu, "edge_3_w");
  Received r;
  rendezvous_->RecvAsync(key, RendezvousInterface::Args(), r.Callback());
  ASSERT_EQ(peer_->num_calls(), 1);
  EXPECT_FALSE(r.called());
  EXPECT_EQ(peer_->key(0), key.FullKey());
  EXPECT_EQ(peer_->step_id(0), 17);
  EXPECT_EQ(peer_->deadline(0), deadline);
  EXPECT_EQ(rendezvous_->NumRemoteCallsInFlight(), 1);
  peer_->Complete(0, absl::OkStatus(), test::AsTensor<float>({4.f, 5.f}, {2}));
  ASSERT_TRUE(r.called());
  ASSERT_TRUE(r.status.ok()) << r.status;
  test::ExpectTensorEqual<float>(r.value,
                                 test::AsTensor<float>({4.f, 5.f}, {2}));
  EXPECT_EQ(rendezvous_->NumRemoteCallsInFlight(), 0);
}

TEST_F(RpcRemoteRendezvousTest, PeerErrorsReachTheReceiver) {
  Received r;
  rendezvous_->RecvAsync(Key(kPeerCpu, kSelfCpu, "t"),
                         RendezvousInterface::Args(), r.Callback());
  peer_->Complete(0, errors::InvalidArgument("boom at node bad"));
  ASSERT_TRUE(r.called());
  EXPECT_TRUE(absl::IsInvalidArgument(r.status)) << r.status;
  EXPECT_TRUE(absl::StrContains(r.status.message(), "bad"));
}

TEST_F(RpcRemoteRendezvousTest, AbortCancelsCallsInFlightAndFailsLaterOnes) {
  Received r1, r2;
  rendezvous_->RecvAsync(Key(kPeerCpu, kSelfCpu, "t1"),
                         RendezvousInterface::Args(), r1.Callback());
  rendezvous_->RecvAsync(Key(kPeerCpu, kSelfCpu, "t2"),
                         RendezvousInterface::Args(), r2.Callback());
  ASSERT_EQ(peer_->num_calls(), 2);
  rendezvous_->StartAbort(errors::Aborted("step 17 failed elsewhere"));
  // The calls were cancelled; the receivers hear the abort's cause.
  ASSERT_TRUE(r1.called());
  ASSERT_TRUE(r2.called());
  EXPECT_TRUE(absl::IsAborted(r1.status)) << r1.status;
  EXPECT_TRUE(absl::StrContains(r2.status.message(), "failed elsewhere"));
  EXPECT_EQ(rendezvous_->NumRemoteCallsInFlight(), 0);
  // Later receives, remote or local, fail at once without a call.
  Received r3, r4;
  rendezvous_->RecvAsync(Key(kPeerCpu, kSelfCpu, "t3"),
                         RendezvousInterface::Args(), r3.Callback());
  rendezvous_->RecvAsync(Key(kSelfCpu, kSelfCpu, "t4"),
                         RendezvousInterface::Args(), r4.Callback());
  EXPECT_TRUE(r3.called() && absl::IsAborted(r3.status)) << r3.status;
  EXPECT_TRUE(r4.called() && absl::IsAborted(r4.status)) << r4.status;
  EXPECT_EQ(peer_->num_calls(), 2);
}

TEST_F(RpcRemoteRendezvousTest, ReceiverCancellationCancelsItsCall) {
  CancellationManager cm;
  RendezvousInterface::Args args;
  args.cancellation_manager = &cm;
  Received r;
  rendezvous_->RecvAsync(Key(kPeerCpu, kSelfCpu, "t"), args, r.Callback());
  ASSERT_EQ(peer_->num_calls(), 1);
  cm.StartCancel();
  ASSERT_TRUE(r.called());
  EXPECT_TRUE(absl::IsCancelled(r.status)) << r.status;
  EXPECT_EQ(rendezvous_->NumRemoteCallsInFlight(), 0);
  // Already cancelled: no call at all.
  Received r2;
  rendezvous_->RecvAsync(Key(kPeerCpu, kSelfCpu, "u"), args, r2.Callback());
  EXPECT_TRUE(r2.called() && absl::IsCancelled(r2.status));
  EXPECT_EQ(peer_->num_calls(), 1);
}

TEST_F(RpcRemoteRendezvousTest, UnknownSenderTaskIsReported) {
  Received r;
  rendezvous_->RecvAsync(
      Key("/job:chief/replica:0/task:0/device:CPU:0", kSelfCpu, "t"),
      RendezvousInterface::Args(), r.Callback());
  ASSERT_TRUE(r.called());
  EXPECT_TRUE(absl::IsNotFound(r.status)) << r.status;
  EXPECT_TRUE(absl::StrContains(r.status.message(), "/job:chief")) << r.status;
}

TEST_F(RpcRemoteRendezvousTest, TransfersAreRecordedWhenAsked) {
  rendezvous_->set_record_transfers(true);
  Received r;
  rendezvous_->RecvAsync(Key(kPeerCpu, kSelfCpu, "t"),
                         RendezvousInterface::Args(), r.Callback());
  peer_->Complete(0, absl::OkStatus(), test::AsTensor<float>({1, 2, 3}, {3}));
  tensorflow::StepStats stats = rendezvous_->TakeTransferStats();
  ASSERT_EQ(stats.dev_stats_size(), 1);
  EXPECT_EQ(stats.dev_stats(0).device(), kSelfCpu);
  ASSERT_EQ(stats.dev_stats(0).node_stats_size(), 1);
  EXPECT_EQ(stats.dev_stats(0).node_stats(0).node_name(), "RecvTensor");
  EXPECT_TRUE(absl::StrContains(
      stats.dev_stats(0).node_stats(0).timeline_label(), "12 bytes"));
  EXPECT_EQ(rendezvous_->TakeTransferStats().dev_stats_size(), 0);
}

TEST_F(RpcRemoteRendezvousTest, DestroyingCancelsWhatIsLeft) {
  Received r;
  rendezvous_->RecvAsync(Key(kPeerCpu, kSelfCpu, "t"),
                         RendezvousInterface::Args(), r.Callback());
  rendezvous_.reset();
  ASSERT_TRUE(r.called());
  EXPECT_TRUE(absl::IsCancelled(r.status)) << r.status;
}

}  // namespace
}  // namespace tributary
