// One task at a time, without a master: what a worker answers to calls a
// master or a peer makes directly (RecvTensor's incarnation and deadline
// checks, worker sessions, RegisterGraph's device check, GetStatus,
// Logging/Tracing), on in-process workers (worker_test_util.h). Steps over
// partitions the master cuts are tested with the real master code in
// tests/distributed/in_process_cluster_test.cc.

#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "common/framework/status.h"
#include "common/framework/tensor.h"
#include "common/framework/tensor_testutil.h"
#include "common/rendezvous/rendezvous_key.h"
#include "gtest/gtest.h"
#include "worker/worker_test_util.h"

namespace tributary {
namespace {

using worker_test::CreateSession;
using worker_test::InProcessWorkers;
using worker_test::ParseGraph;
using worker_test::ScalarConst;

const char kPs[] = "/job:ps/replica:0/task:0";
const char kWorker[] = "/job:worker/replica:0/task:0";

std::string Dev(const std::string& task, int cpu) {
  return absl::StrCat(task, "/device:CPU:", cpu);
}

class WorkerTest : public ::testing::Test {
 protected:
  WorkerTest() : cluster_({kPs, kWorker}, /*num_cpus=*/2) {}

  InProcessWorkers cluster_;
};

TEST_F(WorkerTest, RecvTensorChecksTheIncarnation) {
  Worker* ps = cluster_.worker(kPs);
  Device* cpu0 = cluster_.server(kPs).device_mgr()->ListDevices()[0];
  tensorflow::RecvTensorRequest req;
  req.set_step_id(7);
  req.set_rendezvous_key(
      CreateRendezvousKey(cpu0->name(), cpu0->incarnation() + 1,
                          Dev(kWorker, 0), "edge_1_x", FrameAndIter(0, 0)));
  TensorResponse resp;
  absl::Status s = ps->RecvTensor(req, &resp, absl::Seconds(5));
  EXPECT_TRUE(absl::IsAborted(s)) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), cpu0->name())) << s;
  // A device the task does not have.
  req.set_rendezvous_key(CreateRendezvousKey(Dev(kWorker, 0), 1, Dev(kPs, 0),
                                             "edge_1_x", FrameAndIter(0, 0)));
  s = ps->RecvTensor(req, &resp, absl::Seconds(5));
  EXPECT_TRUE(absl::IsInvalidArgument(s)) << s;
}

TEST_F(WorkerTest, RecvTensorWaitsForTheSendAndHonoursItsDeadline) {
  Worker* ps = cluster_.worker(kPs);
  Device* cpu0 = cluster_.server(kPs).device_mgr()->ListDevices()[0];
  const std::string key =
      CreateRendezvousKey(cpu0->name(), cpu0->incarnation(), Dev(kWorker, 0),
                          "t", FrameAndIter(0, 0));
  tensorflow::RecvTensorRequest req;
  req.set_step_id(77);
  req.set_rendezvous_key(key);
  TensorResponse resp;
  // Nothing is sent: the deadline ends the wait.
  absl::Status s = ps->RecvTensor(req, &resp, absl::Milliseconds(100));
  EXPECT_TRUE(absl::IsDeadlineExceeded(s)) << s;

  // Recv first, send later: the answer comes when the tensor is there.
  CallOptions opts;
  absl::Notification done;
  ps->RecvTensorAsync(&opts, &req, &resp, [&](const absl::Status& st) {
    s = st;
    done.Notify();
  });
  EXPECT_FALSE(done.HasBeenNotified());
  auto rendezvous = ps->rendezvous_mgr()->Find(77);
  ASSERT_TRUE(rendezvous
                  ->Send(*ParseRendezvousKey(key), RendezvousInterface::Args(),
                         test::AsTensor<float>({3.5f}, {}), false)
                  .ok());
  ASSERT_TRUE(done.WaitForNotificationWithTimeout(absl::Seconds(30)));
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(resp.tensor.scalar<float>()(), 3.5f);
  EXPECT_FALSE(resp.is_dead);

  // After CleanupGraph a RecvTensor for the step fails at once.
  tensorflow::CleanupGraphRequest creq;
  creq.set_step_id(77);
  tensorflow::CleanupGraphResponse cresp;
  ASSERT_TRUE(ps->CleanupGraph(creq, &cresp, absl::Seconds(5)).ok());
  s = ps->RecvTensor(req, &resp, absl::Seconds(30));
  EXPECT_TRUE(absl::IsAborted(s)) << s;
}


TEST_F(WorkerTest, TracingIsUnimplemented) {
  tensorflow::TracingRequest req;
  tensorflow::TracingResponse resp;
  absl::Status s = cluster_.worker(kPs)->Tracing(req, &resp, absl::Seconds(5));
  EXPECT_TRUE(absl::IsUnimplemented(s)) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), "no profiler")) << s;
}

TEST_F(WorkerTest, GetStatusListsDevicesWithIncarnations) {
  tensorflow::GetStatusRequest req;
  tensorflow::GetStatusResponse resp;
  ASSERT_TRUE(
      cluster_.worker(kPs)->GetStatus(req, &resp, absl::Seconds(5)).ok());
  ASSERT_EQ(resp.device_attributes_size(), 2);
  for (const auto& d : resp.device_attributes()) {
    EXPECT_TRUE(absl::StartsWith(d.name(), kPs)) << d.name();
    EXPECT_NE(d.incarnation(), 0u);
  }
}

TEST_F(WorkerTest, DeleteWorkerSessionDropsItsGraphs) {
  Worker* w = cluster_.worker(kWorker);
  ASSERT_TRUE(CreateSession(w, "s1", false).ok());
  EXPECT_TRUE(absl::IsAlreadyExists(CreateSession(w, "s1", false)));
  EXPECT_TRUE(absl::IsInvalidArgument(CreateSession(w, "", false)));
  tensorflow::RegisterGraphRequest rreq;
  rreq.set_session_handle("s1");
  rreq.set_create_worker_session_called(true);
  *rreq.mutable_graph_def() = ParseGraph(ScalarConst("c", Dev(kWorker, 0), 1));
  tensorflow::RegisterGraphResponse rresp;
  ASSERT_TRUE(w->RegisterGraph(rreq, &rresp, absl::Seconds(5)).ok());
  auto session = w->session_mgr()->Find("s1");
  ASSERT_TRUE(session.ok());
  EXPECT_EQ((*session)->graph_mgr()->NumGraphs(), 1);

  tensorflow::DeleteWorkerSessionRequest dreq;
  dreq.set_session_handle("s1");
  tensorflow::DeleteWorkerSessionResponse dresp;
  ASSERT_TRUE(w->DeleteWorkerSession(dreq, &dresp, absl::Seconds(5)).ok());
  EXPECT_EQ((*session)->graph_mgr()->NumGraphs(), 0);
  EXPECT_EQ(w->session_mgr()->NumSessions(), 0);

  RunGraphRequestMsg req;
  req.proto.set_session_handle("s1");
  req.proto.set_create_worker_session_called(true);
  req.proto.set_graph_handle(rresp.graph_handle());
  req.proto.set_step_id(5);
  RunGraphResponseMsg resp;
  absl::Status s = w->RunGraph(req, &resp, absl::Seconds(5));
  EXPECT_TRUE(absl::IsAborted(s)) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), "Session handle is not found: s1"))
      << s;
}

TEST_F(WorkerTest, RegisterGraphRejectsForeignDevices) {
  tensorflow::RegisterGraphRequest rreq;
  *rreq.mutable_graph_def() = ParseGraph(ScalarConst("c", Dev(kPs, 0), 1));
  tensorflow::RegisterGraphResponse rresp;
  absl::Status s =
      cluster_.worker(kWorker)->RegisterGraph(rreq, &rresp, absl::Seconds(5));
  EXPECT_TRUE(absl::IsInvalidArgument(s)) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), "Node c")) << s;
  // Unknown graph handle.
  tensorflow::DeregisterGraphRequest dreq;
  dreq.set_graph_handle("nope");
  tensorflow::DeregisterGraphResponse dresp;
  s = cluster_.worker(kWorker)->DeregisterGraph(dreq, &dresp, absl::Seconds(5));
  EXPECT_TRUE(absl::IsAborted(s)) << s;
}

TEST_F(WorkerTest, MasterRestartDropsItsOldSessions) {
  Worker* w = cluster_.worker(kWorker);
  tensorflow::CreateWorkerSessionRequest req;
  req.set_session_handle("old");
  req.set_master_task("/job:master/replica:0/task:0");
  req.set_master_incarnation(1);
  tensorflow::CreateWorkerSessionResponse resp;
  ASSERT_TRUE(w->CreateWorkerSession(req, &resp, absl::Seconds(5)).ok());
  req.set_session_handle("new");
  req.set_master_incarnation(2);
  ASSERT_TRUE(w->CreateWorkerSession(req, &resp, absl::Seconds(5)).ok());
  EXPECT_FALSE(w->session_mgr()->Find("old").ok());
  EXPECT_TRUE(w->session_mgr()->Find("new").ok());
}

// A master's own view of the cluster (CreateWorkerSession's
// server_def.cluster) is what its session's RecvTensor calls use: here the

}  // namespace
}  // namespace tributary
