// The master's service logic against fake workers: discovery, sessions,
// steps (routing, caching, errors, timeouts, cancellation), callables,
// partial runs, idle-session collection, Reset and shutdown.

#include "master/master.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/synchronization/notification.h"
#include "common/framework/derived_status.h"
#include "common/framework/status.h"
#include "common/framework/tensor_testutil.h"
#include "common/kernel/frame_and_iter.h"
#include "common/rendezvous/rendezvous_key.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "master/testing/master_test_util.h"

namespace tributary {
namespace test {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::UnorderedElementsAre;

std::set<std::string> DeviceNames(const tensorflow::ListDevicesResponse& r) {
  std::set<std::string> out;
  for (const auto& d : r.local_device()) out.insert(d.name());
  for (const auto& d : r.remote_device()) out.insert(d.name());
  return out;
}

// The key under which the master hands feed/fetch `name` to the client
// device's task.
std::string ClientKey(const FakeWorker& w0, const std::string& name) {
  const std::string dev = std::string(kWorker0) + "/device:CPU:0";
  return CreateRendezvousKey(dev, w0.incarnation(dev), dev, name,
                             FrameAndIter(0, 0));
}

// ---------------------------------------------------------------- discovery

TEST_F(MasterTest, ListDevicesWithoutSessionListsEveryTask) {
  tensorflow::ListDevicesRequest req;
  tensorflow::ListDevicesResponse resp;
  ASSERT_TRUE(master_->ListDevices(nullptr, req, &resp).ok());
  EXPECT_EQ(
      DeviceNames(resp),
      (std::set<std::string>{"/job:ps/replica:0/task:0/device:CPU:0",
                             "/job:worker/replica:0/task:0/device:CPU:0",
                             "/job:worker/replica:0/task:0/device:CPU:1",
                             "/job:worker/replica:0/task:1/device:CPU:0"}));
}

TEST_F(MasterTest, CreateSessionDiscoversAndCreatesWorkerSessions) {
  absl::StatusOr<std::string> h = CreateSession(PsWorkerGraph());
  ASSERT_TRUE(h.ok()) << h.status();
  EXPECT_EQ(h->size(), 16u);
  for (const auto& w : all_workers()) {
    EXPECT_EQ(w->num_get_status(), 1);
    EXPECT_THAT(w->live_sessions(), ElementsAre(*h));
    const auto reqs = w->create_session_requests();
    ASSERT_EQ(reqs.size(), 1u);
    EXPECT_EQ(reqs[0].server_def().cluster().job_size(), 2);
    EXPECT_EQ(reqs[0].server_def().protocol(), "grpc");
  }
  EXPECT_EQ(w1_->create_session_requests()[0].server_def().job_name(),
            "worker");
  EXPECT_EQ(w1_->create_session_requests()[0].server_def().task_index(), 1);

  tensorflow::ListDevicesRequest req;
  req.set_session_handle(*h);
  tensorflow::ListDevicesResponse resp;
  ASSERT_TRUE(master_->ListDevices(nullptr, req, &resp).ok());
  EXPECT_EQ(DeviceNames(resp).size(), 4u);
}

TEST_F(MasterTest, DeviceFiltersRestrictTheSessionsTasks) {
  tensorflow::ConfigProto config;
  config.add_device_filters("/job:worker");
  tensorflow::GraphDef g = ParseGraph(R"pb(
    node {
      name: "c"
      op: "Const"
      attr {
        key: "dtype"
        value { type: DT_FLOAT }
      }
      attr {
        key: "value"
        value {
          tensor {
            dtype: DT_FLOAT
            tensor_shape {}
            float_val: 1
          }
        }
      }
    }
  )pb");
  absl::StatusOr<std::string> h = CreateSession(g, config);
  ASSERT_TRUE(h.ok()) << h.status();
  EXPECT_EQ(ps_->num_get_status(), 0);
  EXPECT_TRUE(ps_->live_sessions().empty());
  tensorflow::ListDevicesRequest req;
  req.set_session_handle(*h);
  tensorflow::ListDevicesResponse resp;
  ASSERT_TRUE(master_->ListDevices(nullptr, req, &resp).ok());
  for (const std::string& name : DeviceNames(resp)) {
    EXPECT_TRUE(absl::StartsWith(name, "/job:worker/")) << name;
  }

  // A node asking for the filtered-out job cannot be placed.
  absl::StatusOr<std::string> bad = CreateSession(PsWorkerGraph(), config);
  EXPECT_TRUE(absl::IsInvalidArgument(bad.status())) << bad.status();
}

TEST_F(MasterTest, UnreachableTaskIsUnavailableNamingIt) {
  w1_->SetGetStatusMode(FakeWorker::Mode::kHang);
  tensorflow::ConfigProto config;
  config.set_operation_timeout_in_ms(100);
  absl::StatusOr<std::string> h = CreateSession(PsWorkerGraph(), config);
  ASSERT_TRUE(absl::IsUnavailable(h.status())) << h.status();
  EXPECT_THAT(std::string(h.status().message()),
              HasSubstr("Task /job:worker/replica:0/task:1 (127.0.0.1:2003) "
                        "did not answer GetStatus within 100 ms"));
  // Nothing was created anywhere.
  for (const auto& w : all_workers()) EXPECT_TRUE(w->live_sessions().empty());
}

TEST_F(MasterTest, TaskIgnoringCancellationStillGivesUnavailable) {
  ps_->SetGetStatusMode(FakeWorker::Mode::kHangIgnoringCancel);
  MasterOptions o = DefaultOptions();
  o.discovery_timeout = absl::Milliseconds(50);
  RestartMaster(o);
  absl::StatusOr<std::string> h = CreateSession(PsWorkerGraph());
  ASSERT_TRUE(absl::IsUnavailable(h.status())) << h.status();
  EXPECT_THAT(std::string(h.status().message()),
              HasSubstr("/job:ps/replica:0/task:0 (127.0.0.1:2001) did not "
                        "answer GetStatus within 50 ms"));
}

// A task that answered once and then stops is down: discovery gives it
// kDownTaskPatience, not the session's minute, and answers Aborted (which
// TensorFlow's client does not retry) naming it.
TEST_F(MasterTest, TaskThatAnsweredAndStoppedIsAbortedNotWaitedFor) {
  ASSERT_TRUE(CreateSession(PsWorkerGraph()).ok());
  w1_->SetGetStatusMode(FakeWorker::Mode::kHang);
  tensorflow::ConfigProto config;
  config.set_operation_timeout_in_ms(600000);
  absl::StatusOr<std::string> h = CreateSession(PsWorkerGraph(), config);
  ASSERT_TRUE(absl::IsAborted(h.status())) << h.status();
  EXPECT_THAT(std::string(h.status().message()),
              HasSubstr("Task /job:worker/replica:0/task:1 (127.0.0.1:2003) "
                        "is down: it answered this master before"));
  EXPECT_THAT(std::string(h.status().message()), HasSubstr("device_filters"));
  // Back up: found again.
  w1_->SetGetStatusMode(FakeWorker::Mode::kAnswer);
  EXPECT_TRUE(CreateSession(PsWorkerGraph()).ok());
}

// Past the startup window, a task that never answered is down as well; before
// it, a task may still be starting and is waited for (the tests above).
TEST_F(MasterTest, TaskNeverSeenAfterTheStartupWindowIsDown) {
  MasterOptions o = DefaultOptions();
  o.task_startup_window = absl::ZeroDuration();
  RestartMaster(o);
  ps_->SetGetStatusMode(FakeWorker::Mode::kFail,
                        errors::Unavailable("Connection refused"));
  w1_->SetGetStatusMode(FakeWorker::Mode::kHang);
  tensorflow::ConfigProto config;
  config.set_operation_timeout_in_ms(600000);
  absl::StatusOr<std::string> h = CreateSession(PsWorkerGraph(), config);
  ASSERT_TRUE(absl::IsAborted(h.status())) << h.status();
  EXPECT_THAT(std::string(h.status().message()),
              HasSubstr("Task /job:ps/replica:0/task:0 (127.0.0.1:2001) is "
                        "down: the cluster has been up for a while"));
  EXPECT_THAT(std::string(h.status().message()),
              HasSubstr("Connection refused"));
  EXPECT_THAT(std::string(h.status().message()),
              HasSubstr("1 more task(s) did not answer either: "
                        "/job:worker/replica:0/task:1"));
}

TEST_F(MasterTest, FailingTaskIsUnavailableWithCause) {
  w0_->SetGetStatusMode(FakeWorker::Mode::kFail,
                        errors::Unavailable("Connection refused"));
  w1_->SetGetStatusMode(FakeWorker::Mode::kFail,
                        errors::Unavailable("Connection refused"));
  absl::StatusOr<std::string> h = CreateSession(PsWorkerGraph());
  ASSERT_TRUE(absl::IsUnavailable(h.status())) << h.status();
  EXPECT_THAT(std::string(h.status().message()),
              HasSubstr("/job:worker/replica:0/task:0 (127.0.0.1:2002)"));
  EXPECT_THAT(std::string(h.status().message()),
              HasSubstr("Connection refused"));
  EXPECT_THAT(std::string(h.status().message()),
              HasSubstr("/job:worker/replica:0/task:1"));
}

TEST_F(MasterTest, WorkerSessionFailureCleansUp) {
  w1_->SetCreateWorkerSessionError(errors::Internal("disk full"));
  absl::StatusOr<std::string> h = CreateSession(PsWorkerGraph());
  ASSERT_TRUE(absl::IsInternal(h.status())) << h.status();
  EXPECT_THAT(std::string(h.status().message()), HasSubstr("disk full"));
  WaitForBackgroundCalls();
  for (const auto& w : all_workers()) EXPECT_TRUE(w->live_sessions().empty());
  EXPECT_EQ(master_->num_sessions(), 0);
}

TEST_F(MasterTest, ClusterDefOtherThanOursIsUnimplemented) {
  tensorflow::ConfigProto config;
  auto* job = config.mutable_cluster_def()->add_job();
  job->set_name("worker");
  (*job->mutable_tasks())[0] = "otherhost:1";
  absl::StatusOr<std::string> h = CreateSession(PsWorkerGraph(), config);
  EXPECT_TRUE(absl::IsUnimplemented(h.status())) << h.status();
  EXPECT_THAT(std::string(h.status().message()), HasSubstr("cluster_def"));

  *config.mutable_cluster_def() = cluster_.AsClusterDef();
  EXPECT_TRUE(CreateSession(PsWorkerGraph(), config).ok());
}

// ---------------------------------------------------------------- steps

TEST_F(MasterTest, FeedsAndFetchesGoThroughTheClientTask) {
  absl::StatusOr<std::string> h = CreateSession(PsWorkerGraph());
  ASSERT_TRUE(h.ok()) << h.status();
  w0_->SetFetchValue("z:0", test::AsTensor<float>({5, 6}));
  std::vector<Tensor> out;
  absl::Status s = Run(*h, {{"x:0", test::AsTensor<float>({1, 2})}},
                       {"z:0", "x:0"}, {}, &out);
  ASSERT_TRUE(s.ok()) << s;
  ASSERT_EQ(out.size(), 2u);
  test::ExpectTensorEqual<float>(out[0], test::AsTensor<float>({5, 6}));
  test::ExpectTensorEqual<float>(out[1], test::AsTensor<float>({1, 2}));

  // One RunGraph per task, one step id, feeds and fetches only on the client
  // task, under client-terminated keys.
  const auto r0 = w0_->run_graph_requests();
  const auto r1 = w1_->run_graph_requests();
  const auto rp = ps_->run_graph_requests();
  ASSERT_EQ(r0.size(), 1u);
  ASSERT_EQ(r1.size(), 1u);
  ASSERT_EQ(rp.size(), 1u);
  const int64_t step = r0[0].proto.step_id();
  EXPECT_GT(step, 0);
  EXPECT_EQ(r1[0].proto.step_id(), step);
  EXPECT_EQ(rp[0].proto.step_id(), step);
  ASSERT_EQ(r0[0].send.size(), 1u);
  EXPECT_EQ(r0[0].send[0].first, ClientKey(*w0_, "x:0"));
  EXPECT_THAT(r0[0].proto.recv_key(),
              ElementsAre(ClientKey(*w0_, "z:0"), ClientKey(*w0_, "x:0")));
  EXPECT_TRUE(r1[0].send.empty());
  EXPECT_EQ(r1[0].proto.recv_key_size(), 0);
  EXPECT_EQ(rp[0].proto.recv_key_size(), 0);
  EXPECT_EQ(r0[0].proto.session_handle(), *h);
  EXPECT_TRUE(r0[0].proto.create_worker_session_called());

  // The step is cleaned up on every worker afterwards.
  WaitForBackgroundCalls();
  for (const auto& w : all_workers()) {
    EXPECT_THAT(w->cleanup_step_ids(), ElementsAre(step)) << w->task();
  }
}

TEST_F(MasterTest, RepeatedFetchesAreAnsweredInRequestOrder) {
  absl::StatusOr<std::string> h = CreateSession(PsWorkerGraph());
  ASSERT_TRUE(h.ok());
  w0_->SetFetchValue("z:0", test::AsTensor<float>({5, 6}));
  RunStepRequestMsg req;
  req.proto.set_session_handle(*h);
  req.feed.emplace_back("x:0", test::AsTensor<float>({1, 2}));
  req.proto.add_fetch("z:0");
  req.proto.add_fetch("x:0");
  req.proto.add_fetch("z:0");
  RunStepResponseMsg resp;
  ASSERT_TRUE(master_->RunStep(nullptr, req, &resp).ok());
  ASSERT_EQ(resp.tensor.size(), 3u);
  EXPECT_EQ(resp.tensor[0].first, "z:0");
  EXPECT_EQ(resp.tensor[1].first, "x:0");
  EXPECT_EQ(resp.tensor[2].first, "z:0");
  EXPECT_EQ(w0_->run_graph_requests()[0].proto.recv_key_size(), 2);
}

TEST_F(MasterTest, FeedsInTheProtoWorkToo) {
  absl::StatusOr<std::string> h = CreateSession(PsWorkerGraph());
  ASSERT_TRUE(h.ok());
  RunStepRequestMsg req;
  req.proto.set_session_handle(*h);
  auto* feed = req.proto.add_feed();
  feed->set_name("x:0");
  test::AsTensor<float>({3, 4}).AsProtoField(feed->mutable_tensor());
  req.proto.add_fetch("x:0");
  RunStepResponseMsg resp;
  ASSERT_TRUE(master_->RunStep(nullptr, req, &resp).ok());
  ASSERT_EQ(resp.tensor.size(), 1u);
  test::ExpectTensorEqual<float>(resp.tensor[0].second,
                                 test::AsTensor<float>({3, 4}));
}

TEST_F(MasterTest, StepWithoutRemoteSendsIsNotCleanedUpAfterSuccess) {
  // x fed and fetched: one partition, on the client task, with no value
  // for another task, so the worker forgets the step by itself.
  absl::StatusOr<std::string> h = CreateSession(PsWorkerGraph());
  ASSERT_TRUE(h.ok());
  RunStepRequestMsg req;
  req.proto.set_session_handle(*h);
  req.feed.emplace_back("x:0", test::AsTensor<float>({1, 2}));
  req.proto.add_fetch("x:0");
  RunStepResponseMsg resp;
  ASSERT_TRUE(master_->RunStep(nullptr, req, &resp).ok());
  WaitForBackgroundCalls();
  ASSERT_EQ(w0_->run_graph_requests().size(), 1u);
  EXPECT_TRUE(w0_->cleanup_step_ids().empty());

  // A failed step is still cleaned up: its state may be anywhere.
  w0_->FailRunGraphWith(errors::InvalidArgument("bad input"));
  EXPECT_TRUE(absl::IsInvalidArgument(master_->RunStep(nullptr, req, &resp)));
  WaitForBackgroundCalls();
  const int64_t failed = w0_->run_graph_requests().back().proto.step_id();
  EXPECT_THAT(w0_->cleanup_step_ids(), testing::Contains(failed));
}

TEST_F(MasterTest, GraphsAreRegisteredOncePerSignature) {
  absl::StatusOr<std::string> h = CreateSession(PsWorkerGraph());
  ASSERT_TRUE(h.ok());
  w0_->SetFetchValue("z:0", test::AsTensor<float>({5, 6}));
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(
        Run(*h, {{"x:0", test::AsTensor<float>({1, 2})}}, {"z:0"}, {}, nullptr)
            .ok());
  }
  for (const auto& w : all_workers()) {
    EXPECT_EQ(w->num_register_graph(), 1) << w->task();
    EXPECT_EQ(w->num_run_graph(), 3) << w->task();
  }
  // Every step has its own id.
  std::set<int64_t> ids;
  for (const auto& r : w0_->run_graph_requests()) ids.insert(r.proto.step_id());
  EXPECT_EQ(ids.size(), 3u);

  // Another signature registers again, only where it has a partition.
  std::vector<Tensor> out;
  ASSERT_TRUE(
      Run(*h, {{"x:0", test::AsTensor<float>({1, 2})}}, {"x:0"}, {}, &out)
          .ok());
  EXPECT_EQ(w0_->num_register_graph(), 2);
  EXPECT_EQ(w1_->num_register_graph(), 1);
  EXPECT_EQ(ps_->num_register_graph(), 1);
}

TEST_F(MasterTest, FeedOfTheWrongTypeIsInvalidArgument) {
  absl::StatusOr<std::string> h = CreateSession(PsWorkerGraph());
  ASSERT_TRUE(h.ok());
  absl::Status s =
      Run(*h, {{"x:0", test::AsTensor<int32_t>({1, 2})}}, {"z:0"}, {}, nullptr);
  EXPECT_TRUE(absl::IsInvalidArgument(s)) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr("float"));
  EXPECT_EQ(w0_->num_run_graph(), 0);
}

TEST_F(MasterTest, UnknownFetchIsNotFound) {
  absl::StatusOr<std::string> h = CreateSession(PsWorkerGraph());
  ASSERT_TRUE(h.ok());
  absl::Status s = Run(*h, {}, {"nope:0"}, {}, nullptr);
  EXPECT_TRUE(absl::IsNotFound(s)) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr("nope"));
}

// An allocator that never has memory: makes tensors without a buffer, as a
// variable that was never assigned has.
class NoMemoryAllocator : public Allocator {
 public:
  std::string Name() override { return "no_memory"; }
  void* AllocateRaw(size_t, size_t) override { return nullptr; }
  void DeallocateRaw(void*) override {}
};

TEST_F(MasterTest, UninitializedFetchIsFailedPrecondition) {
  absl::StatusOr<std::string> h = CreateSession(PsWorkerGraph());
  ASSERT_TRUE(h.ok());
  w0_->SetRunGraphHandler([](CallOptions*, const RunGraphRequestMsg& req,
                             RunGraphResponseMsg* resp, StatusCallback done) {
    static NoMemoryAllocator none;
    for (const auto& key : req.proto.recv_key()) {
      resp->recv.emplace_back(key, Tensor(&none, DT_FLOAT, TensorShape({2})));
    }
    done(absl::OkStatus());
  });
  absl::Status s = Run(*h, {}, {"v:0"}, {}, nullptr);
  EXPECT_TRUE(absl::IsFailedPrecondition(s)) << s;
  EXPECT_THAT(std::string(s.message()),
              HasSubstr("Attempting to use uninitialized value v"));
}

TEST_F(MasterTest, StepStatsAndPartitionGraphsAreMerged) {
  absl::StatusOr<std::string> h = CreateSession(PsWorkerGraph());
  ASSERT_TRUE(h.ok());
  for (const auto& w : all_workers()) {
    FakeWorker* fake = w.get();
    fake->SetRunGraphHandler([fake](CallOptions*, const RunGraphRequestMsg& req,
                                    RunGraphResponseMsg* resp,
                                    StatusCallback done) {
      EXPECT_TRUE(req.proto.exec_opts().record_timeline());
      EXPECT_TRUE(req.proto.exec_opts().record_partition_graphs());
      resp->proto.mutable_step_stats()->add_dev_stats()->set_device(
          fake->task() + "/device:CPU:0");
      fake->DefaultRunGraph(req, resp, std::move(done));
    });
  }
  tensorflow::RunOptions options;
  options.set_trace_level(tensorflow::RunOptions::FULL_TRACE);
  options.set_output_partition_graphs(true);
  tensorflow::RunMetadata md;
  std::vector<Tensor> out;
  ASSERT_TRUE(Run(*h, {{"x:0", test::AsTensor<float>({1, 2})}}, {"x:0"}, {"z"},
                  &out, options, &md)
                  .ok());
  std::set<std::string> devs;
  for (const auto& d : md.step_stats().dev_stats()) devs.insert(d.device());
  EXPECT_EQ(devs.size(), 3u);
  EXPECT_EQ(md.partition_graphs_size(), 3);
}

// The ps partition reports first, with a consequence of the real failure:
// the fallout of the step's abort, or worker 1's own error passed on to it
// (its RecvTensor answered with the sender's failure, marked derived).
// Worker 1's kernel error arrives later, worker 0 waits until cancelled: the
// client gets worker 1's error, and the step is cleaned up everywhere.
TEST_F(MasterTest, RootCauseIsReturnedAndTheStepCleanedUpEverywhere) {
  const absl::Status consequences[] = {
      errors::Aborted("RecvTensor for step aborted"),
      errors::MarkDerived(errors::InvalidArgument(
          "Incompatible shapes: [2] vs. [3] (passed on by the ps)")),
  };
  for (const absl::Status& consequence : consequences) {
    SCOPED_TRACE(consequence.ToString());
    absl::StatusOr<std::string> h = CreateSession(PsWorkerGraph());
    ASSERT_TRUE(h.ok());
    // What earlier iterations recorded.
    const size_t runs_before = w0_->run_graph_requests().size();
    std::map<std::string, size_t> cleanups_before;
    for (const auto& w : all_workers()) {
      cleanups_before[w->task()] = w->cleanup_step_ids().size();
    }
    ps_->FailRunGraphWith(consequence);
    w1_->FailRunGraphWith(errors::InvalidArgument(
        "Incompatible shapes: [2] vs. [3]\n\t [[node y (Add)]]"));
    w0_->HangRunGraphUntilCancelled();
    absl::Status s =
        Run(*h, {{"x:0", test::AsTensor<float>({1, 2})}}, {"z:0"}, {}, nullptr);
    EXPECT_TRUE(absl::IsInvalidArgument(s)) << s;
    EXPECT_THAT(std::string(s.message()), HasSubstr("node y"));
    EXPECT_THAT(std::string(s.message()), Not(HasSubstr("passed on")));

    WaitForBackgroundCalls();
    const int64_t step = w0_->run_graph_requests()[runs_before].proto.step_id();
    for (const auto& w : all_workers()) {
      const auto ids = w->cleanup_step_ids();
      EXPECT_GT(ids.size(), cleanups_before[w->task()]) << w->task();
      for (size_t i = cleanups_before[w->task()]; i < ids.size(); ++i) {
        EXPECT_EQ(ids[i], step) << w->task();
      }
    }
  }
}

// With passed-on errors only, the first of them is reported.
TEST_F(MasterTest, OnlyPassedOnErrorsGiveTheFirstOne) {
  absl::StatusOr<std::string> h = CreateSession(PsWorkerGraph());
  ASSERT_TRUE(h.ok());
  ps_->FailRunGraphWith(
      errors::MarkDerived(errors::Unavailable("peer went away")));
  absl::Status s = Run(*h, {{"x:0", test::AsTensor<float>({1, 2})}}, {"x:0"},
                       {"z"}, nullptr);
  EXPECT_TRUE(absl::IsUnavailable(s)) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr("peer went away"));
}

TEST_F(MasterTest, OnlyFalloutErrorsGiveTheFirstOne) {
  absl::StatusOr<std::string> h = CreateSession(PsWorkerGraph());
  ASSERT_TRUE(h.ok());
  ps_->FailRunGraphWith(
      errors::Aborted("incarnation 1234 of /job:ps is stale"));
  absl::Status s = Run(*h, {{"x:0", test::AsTensor<float>({1, 2})}}, {"x:0"},
                       {"z"}, nullptr);
  EXPECT_TRUE(absl::IsAborted(s)) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr("stale"));
}

TEST_F(MasterTest, FalloutErrorThenDeadlineGivesTheError) {
  absl::StatusOr<std::string> h = CreateSession(PsWorkerGraph());
  ASSERT_TRUE(h.ok());
  w0_->SetFetchValue("z:0", test::AsTensor<float>({5, 6}));
  ps_->FailRunGraphWith(
      errors::Aborted("incarnation 1234 of /job:ps is stale"));
  FakeWorker* w1 = w1_.get();
  // Ignores the cancellation the error causes, until the deadline.
  w1_->SetRunGraphHandler(
      [w1](CallOptions*, const RunGraphRequestMsg&, RunGraphResponseMsg*,
           StatusCallback done) { w1->HangForever(std::move(done)); });
  tensorflow::RunOptions options;
  options.set_timeout_in_ms(100);
  absl::Status s = Run(*h, {{"x:0", test::AsTensor<float>({1, 2})}}, {"z:0"},
                       {}, nullptr, options);
  EXPECT_TRUE(absl::IsAborted(s)) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr("stale"));
}

TEST_F(MasterTest, ErrorInTheResponseBodyCounts) {
  absl::StatusOr<std::string> h = CreateSession(PsWorkerGraph());
  ASSERT_TRUE(h.ok());
  w1_->SetRunGraphHandler([](CallOptions*, const RunGraphRequestMsg&,
                             RunGraphResponseMsg* resp, StatusCallback done) {
    resp->proto.set_status_code(tensorflow::error::OUT_OF_RANGE);
    resp->proto.set_status_error_message("End of sequence");
    done(absl::OkStatus());
  });
  absl::Status s = Run(*h, {{"x:0", test::AsTensor<float>({1, 2})}}, {"x:0"},
                       {"z"}, nullptr);
  EXPECT_TRUE(absl::IsOutOfRange(s)) << s;
}

TEST_F(MasterTest, StepTimeoutIsDeadlineExceeded) {
  absl::StatusOr<std::string> h = CreateSession(PsWorkerGraph());
  ASSERT_TRUE(h.ok());
  w0_->SetFetchValue("z:0", test::AsTensor<float>({5, 6}));
  w1_->HangRunGraphUntilCancelled();
  tensorflow::RunOptions options;
  options.set_timeout_in_ms(100);
  absl::Status s = Run(*h, {{"x:0", test::AsTensor<float>({1, 2})}}, {"z:0"},
                       {}, nullptr, options);
  EXPECT_TRUE(absl::IsDeadlineExceeded(s)) << s;
  EXPECT_THAT(std::string(s.message()),
              HasSubstr("100 ms (RunOptions.timeout_in_ms)"));
  EXPECT_THAT(std::string(s.message()), HasSubstr(kWorker1));
  WaitForBackgroundCalls();
  for (const auto& w : all_workers()) {
    EXPECT_FALSE(w->cleanup_step_ids().empty()) << w->task();
  }
}

TEST_F(MasterTest, OperationTimeoutBoundsStepsWhoseWorkerNeverAnswers) {
  tensorflow::ConfigProto config;
  config.set_operation_timeout_in_ms(100);
  absl::StatusOr<std::string> h = CreateSession(PsWorkerGraph(), config);
  ASSERT_TRUE(h.ok());
  w0_->SetFetchValue("z:0", test::AsTensor<float>({5, 6}));
  FakeWorker* ps = ps_.get();
  // Ignores cancellation altogether: the master must still answer.
  ps_->SetRunGraphHandler(
      [ps](CallOptions*, const RunGraphRequestMsg&, RunGraphResponseMsg*,
           StatusCallback done) { ps->HangForever(std::move(done)); });
  absl::Status s =
      Run(*h, {{"x:0", test::AsTensor<float>({1, 2})}}, {"z:0"}, {}, nullptr);
  EXPECT_TRUE(absl::IsDeadlineExceeded(s)) << s;
  EXPECT_THAT(std::string(s.message()),
              HasSubstr("ConfigProto.operation_timeout_in_ms"));
}

TEST_F(MasterTest, ClientCancellationCancelsTheStep) {
  absl::StatusOr<std::string> h = CreateSession(PsWorkerGraph());
  ASSERT_TRUE(h.ok());
  w0_->SetFetchValue("z:0", test::AsTensor<float>({5, 6}));
  absl::Notification running;
  w1_->HangRunGraphUntilCancelled(&running);
  CallOptions call;
  absl::Status s;
  std::thread t([&] {
    s = Run(*h, {{"x:0", test::AsTensor<float>({1, 2})}}, {"z:0"}, {}, nullptr,
            {}, nullptr, &call);
  });
  ASSERT_TRUE(running.WaitForNotificationWithTimeout(absl::Seconds(30)));
  call.StartCancel();
  t.join();
  EXPECT_TRUE(absl::IsCancelled(s)) << s;
}

TEST_F(MasterTest, ClosingTheSessionCancelsRunningSteps) {
  absl::StatusOr<std::string> h = CreateSession(PsWorkerGraph());
  ASSERT_TRUE(h.ok());
  w0_->SetFetchValue("z:0", test::AsTensor<float>({5, 6}));
  absl::Notification running;
  w1_->HangRunGraphUntilCancelled(&running);
  absl::Status s;
  std::thread t([&] {
    s = Run(*h, {{"x:0", test::AsTensor<float>({1, 2})}}, {"z:0"}, {}, nullptr);
  });
  ASSERT_TRUE(running.WaitForNotificationWithTimeout(absl::Seconds(30)));
  tensorflow::CloseSessionRequest req;
  req.set_session_handle(*h);
  tensorflow::CloseSessionResponse resp;
  EXPECT_TRUE(master_->CloseSession(req, &resp).ok());
  t.join();
  EXPECT_TRUE(absl::IsCancelled(s)) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr("closed"));
}

TEST_F(MasterTest, RegisterGraphErrorKeepsItsCodeAndIsNotCached) {
  absl::StatusOr<std::string> h = CreateSession(PsWorkerGraph());
  ASSERT_TRUE(h.ok());
  w1_->SetRegisterGraphError(errors::InvalidArgument(
      "No OpKernel was registered to support Op 'Add' used by node 'y'"));
  absl::Status s =
      Run(*h, {{"x:0", test::AsTensor<float>({1, 2})}}, {"z:0"}, {}, nullptr);
  EXPECT_TRUE(absl::IsInvalidArgument(s)) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr("node 'y'"));
  EXPECT_THAT(std::string(s.message()), HasSubstr(kWorker1));
  WaitForBackgroundCalls();
  // The partitions that did register were dropped again.
  EXPECT_TRUE(w0_->live_graphs().empty());
  EXPECT_TRUE(ps_->live_graphs().empty());

  w1_->SetRegisterGraphError(absl::OkStatus());
  w0_->SetFetchValue("z:0", test::AsTensor<float>({5, 6}));
  EXPECT_TRUE(
      Run(*h, {{"x:0", test::AsTensor<float>({1, 2})}}, {"z:0"}, {}, nullptr)
          .ok());
}

// ---------------------------------------------------------------- errors

TEST_F(MasterTest, UnknownSessionIsAborted) {
  RunStepRequestMsg req;
  req.proto.set_session_handle("nope");
  RunStepResponseMsg resp;
  absl::Status s = master_->RunStep(nullptr, req, &resp);
  EXPECT_TRUE(absl::IsAborted(s)) << s;
  EXPECT_EQ(s.message(), "Session nope is not found.");
}

TEST_F(MasterTest, StoreErrorsInResponseBody) {
  RunStepRequestMsg req;
  req.proto.set_session_handle("nope");
  req.proto.set_store_errors_in_response_body(true);
  RunStepResponseMsg resp;
  ASSERT_TRUE(master_->RunStep(nullptr, req, &resp).ok());
  EXPECT_EQ(resp.proto.status_code(), tensorflow::error::ABORTED);
  EXPECT_EQ(resp.proto.status_error_message(), "Session nope is not found.");

  absl::StatusOr<std::string> h = CreateSession(PsWorkerGraph());
  ASSERT_TRUE(h.ok());
  RunStepRequestMsg bad;
  bad.proto.set_session_handle(*h);
  bad.proto.add_fetch("missing:0");
  bad.proto.set_store_errors_in_response_body(true);
  RunStepResponseMsg bad_resp;
  ASSERT_TRUE(master_->RunStep(nullptr, bad, &bad_resp).ok());
  EXPECT_EQ(bad_resp.proto.status_code(), tensorflow::error::NOT_FOUND);
  EXPECT_TRUE(bad_resp.tensor.empty());
}

TEST_F(MasterTest, RetriedRequestIsRefused) {
  absl::StatusOr<std::string> h = CreateSession(PsWorkerGraph());
  ASSERT_TRUE(h.ok());
  RunStepRequestMsg req;
  req.proto.set_session_handle(*h);
  req.proto.set_request_id(12345);
  req.feed.emplace_back("x:0", test::AsTensor<float>({1, 2}));
  req.proto.add_fetch("x:0");
  RunStepResponseMsg resp;
  ASSERT_TRUE(master_->RunStep(nullptr, req, &resp).ok());
  absl::Status again = master_->RunStep(nullptr, req, &resp);
  EXPECT_TRUE(absl::IsAborted(again)) << again;
  EXPECT_THAT(std::string(again.message()),
              HasSubstr("The same RunStepRequest was received twice"));
  EXPECT_EQ(w0_->num_run_graph(), 1);
  // Untracked requests (id 0) run every time.
  req.proto.set_request_id(0);
  EXPECT_TRUE(master_->RunStep(nullptr, req, &resp).ok());
  EXPECT_TRUE(master_->RunStep(nullptr, req, &resp).ok());
}

TEST_F(MasterTest, UnsupportedRunOptionsSaySo) {
  absl::StatusOr<std::string> h = CreateSession(PsWorkerGraph());
  ASSERT_TRUE(h.ok());
  tensorflow::RunOptions options;
  options.mutable_debug_options()->add_debug_tensor_watch_opts();
  absl::Status s = Run(*h, {{"x:0", test::AsTensor<float>({1, 2})}}, {"x:0"},
                       {}, nullptr, options);
  EXPECT_TRUE(absl::IsUnimplemented(s)) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr("not supported"));
}

// ---------------------------------------------------------------- extend

TEST_F(MasterTest, ExtendChecksTheGraphVersion) {
  absl::StatusOr<std::string> h = CreateSession(PsWorkerGraph());
  ASSERT_TRUE(h.ok());
  tensorflow::ExtendSessionRequest req;
  req.set_session_handle(*h);
  *req.mutable_graph_def() = ParseGraph(R"pb(
    node {
      name: "w"
      op: "Identity"
      input: "x"
      attr {
        key: "T"
        value { type: DT_FLOAT }
      }
    }
  )pb");
  req.set_current_graph_version(0);
  tensorflow::ExtendSessionResponse resp;
  ASSERT_TRUE(master_->ExtendSession(req, &resp).ok());
  EXPECT_EQ(resp.new_graph_version(), 1);

  // A stale version is refused.
  *req.mutable_graph_def() = ParseGraph(R"pb(
    node {
      name: "w2"
      op: "Identity"
      input: "x"
      attr {
        key: "T"
        value { type: DT_FLOAT }
      }
    }
  )pb");
  absl::Status s = master_->ExtendSession(req, &resp);
  EXPECT_TRUE(absl::IsAborted(s)) << s;
  EXPECT_EQ(s.message(), "Current version is 1 but caller expected 0.");

  req.set_current_graph_version(1);
  ASSERT_TRUE(master_->ExtendSession(req, &resp).ok());
  EXPECT_EQ(resp.new_graph_version(), 2);

  // Redefining a node is refused.
  req.set_current_graph_version(2);
  absl::Status dup = master_->ExtendSession(req, &resp);
  EXPECT_TRUE(absl::IsInvalidArgument(dup)) << dup;

  // The new nodes run.
  w0_->SetFetchValue("w2:0", test::AsTensor<float>({7, 8}));
  std::vector<Tensor> out;
  ASSERT_TRUE(
      Run(*h, {{"x:0", test::AsTensor<float>({1, 2})}}, {"w2:0"}, {}, &out)
          .ok());
  test::ExpectTensorEqual<float>(out[0], test::AsTensor<float>({7, 8}));
}

TEST_F(MasterTest, EmptySessionExtendedLater) {
  absl::StatusOr<std::string> h = CreateSession(tensorflow::GraphDef());
  ASSERT_TRUE(h.ok()) << h.status();
  tensorflow::ExtendSessionRequest req;
  req.set_session_handle(*h);
  *req.mutable_graph_def() = PsWorkerGraph();
  tensorflow::ExtendSessionResponse resp;
  ASSERT_TRUE(master_->ExtendSession(req, &resp).ok());
  std::vector<Tensor> out;
  EXPECT_TRUE(
      Run(*h, {{"x:0", test::AsTensor<float>({1, 2})}}, {"x:0"}, {}, &out)
          .ok());
}

// ---------------------------------------------------------------- callables

TEST_F(MasterTest, Callables) {
  absl::StatusOr<std::string> h = CreateSession(PsWorkerGraph());
  ASSERT_TRUE(h.ok());
  w0_->SetFetchValue("z:0", test::AsTensor<float>({5, 6}));
  tensorflow::MakeCallableRequest make;
  make.set_session_handle(*h);
  make.mutable_options()->add_feed("x:0");
  make.mutable_options()->add_fetch("z:0");
  make.mutable_options()->add_fetch("x:0");
  make.mutable_options()->add_fetch("z:0");
  tensorflow::MakeCallableResponse made;
  ASSERT_TRUE(master_->MakeCallable(make, &made).ok());
  EXPECT_EQ(w0_->num_register_graph(), 1);

  tensorflow::RunCallableRequest run;
  run.set_session_handle(*h);
  run.set_handle(made.handle());
  test::AsTensor<float>({1, 2}).AsProtoTensorContent(run.add_feed());
  for (int i = 0; i < 2; ++i) {
    tensorflow::RunCallableResponse out;
    absl::Status s = master_->RunCallable(nullptr, run, &out);
    ASSERT_TRUE(s.ok()) << s;
    ASSERT_EQ(out.fetch_size(), 3);
    absl::StatusOr<Tensor> z = Tensor::FromProto(out.fetch(0));
    absl::StatusOr<Tensor> x = Tensor::FromProto(out.fetch(1));
    ASSERT_TRUE(z.ok() && x.ok());
    test::ExpectTensorEqual<float>(*z, test::AsTensor<float>({5, 6}));
    test::ExpectTensorEqual<float>(*x, test::AsTensor<float>({1, 2}));
  }
  EXPECT_EQ(w0_->num_register_graph(), 1);
  EXPECT_EQ(w0_->num_run_graph(), 2);

  // Wrong number of feeds.
  tensorflow::RunCallableRequest bad = run;
  bad.clear_feed();
  tensorflow::RunCallableResponse out;
  EXPECT_TRUE(
      absl::IsInvalidArgument(master_->RunCallable(nullptr, bad, &out)));

  tensorflow::ReleaseCallableRequest release;
  release.set_session_handle(*h);
  release.set_handle(made.handle());
  tensorflow::ReleaseCallableResponse released;
  ASSERT_TRUE(master_->ReleaseCallable(release, &released).ok());
  absl::Status s = master_->RunCallable(nullptr, run, &out);
  EXPECT_TRUE(absl::IsInvalidArgument(s)) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr("released"));
  run.set_handle(99);
  s = master_->RunCallable(nullptr, run, &out);
  EXPECT_THAT(std::string(s.message()), HasSubstr("No such callable handle"));
}

TEST_F(MasterTest, CallableTensorConnectionsAreUnimplemented) {
  absl::StatusOr<std::string> h = CreateSession(PsWorkerGraph());
  ASSERT_TRUE(h.ok());
  tensorflow::MakeCallableRequest make;
  make.set_session_handle(*h);
  make.mutable_options()->add_fetch("z:0");
  auto* c = make.mutable_options()->add_tensor_connection();
  c->set_from_tensor("z:0");
  c->set_to_tensor("x:0");
  tensorflow::MakeCallableResponse made;
  absl::Status s = master_->MakeCallable(make, &made);
  EXPECT_TRUE(absl::IsUnimplemented(s)) << s;
}

// ---------------------------------------------------------------- partial runs

TEST_F(MasterTest, PartialRuns) {
  absl::StatusOr<std::string> h = CreateSession(ParseGraph(R"pb(
    node {
      name: "a"
      op: "Placeholder"
      attr {
        key: "dtype"
        value { type: DT_FLOAT }
      }
    }
    node {
      name: "b"
      op: "Placeholder"
      attr {
        key: "dtype"
        value { type: DT_FLOAT }
      }
    }
    node {
      name: "c"
      op: "Identity"
      input: "a"
      device: "/job:ps"
      attr {
        key: "T"
        value { type: DT_FLOAT }
      }
    }
    node {
      name: "d"
      op: "Identity"
      input: "b"
      attr {
        key: "T"
        value { type: DT_FLOAT }
      }
    }
  )pb"));
  ASSERT_TRUE(h.ok()) << h.status();
  w0_->SetFetchValue("c:0", test::AsTensor<float>({1}));
  w0_->SetFetchValue("d:0", test::AsTensor<float>({2}));
  tensorflow::PartialRunSetupRequest setup;
  setup.set_session_handle(*h);
  setup.add_feed("a:0");
  setup.add_feed("b:0");
  setup.add_fetch("c:0");
  setup.add_fetch("d:0");
  tensorflow::PartialRunSetupResponse setup_resp;
  ASSERT_TRUE(master_->PartialRunSetup(setup, &setup_resp).ok());

  auto prun = [&](const NamedTensors& feeds,
                  const std::vector<std::string>& fetches,
                  RunStepResponseMsg* resp) {
    RunStepRequestMsg req;
    req.proto.set_session_handle(*h);
    req.proto.set_partial_run_handle(setup_resp.partial_run_handle());
    req.feed = feeds;
    for (const auto& f : fetches) req.proto.add_fetch(f);
    return master_->RunStep(nullptr, req, resp);
  };
  RunStepResponseMsg r;
  // d needs b, not fed yet.
  absl::Status s = prun({{"a:0", test::AsTensor<float>({1})}}, {"d:0"}, &r);
  EXPECT_TRUE(absl::IsInvalidArgument(s)) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr("can't be computed"));
  s = prun({{"q:0", test::AsTensor<float>({1})}}, {}, &r);
  EXPECT_THAT(std::string(s.message()),
              HasSubstr("was not specified in partial_run_setup"));

  ASSERT_TRUE(prun({{"a:0", test::AsTensor<float>({1})}}, {"c:0"}, &r).ok());
  s = prun({{"a:0", test::AsTensor<float>({1})}}, {}, &r);
  EXPECT_THAT(std::string(s.message()), HasSubstr("has already been fed"));
  ASSERT_TRUE(prun({{"b:0", test::AsTensor<float>({2})}}, {"d:0"}, &r).ok());
  ASSERT_EQ(r.tensor.size(), 1u);
  test::ExpectTensorEqual<float>(r.tensor[0].second,
                                 test::AsTensor<float>({2}));

  // Both calls went to every partition with one step id; only the second was
  // the last; the step was cleaned up once, after it.
  for (const auto& w : {ps_, w0_}) {
    const auto reqs = w->run_graph_requests();
    ASSERT_EQ(reqs.size(), 2u) << w->task();
    EXPECT_EQ(reqs[0].proto.step_id(), reqs[1].proto.step_id());
    EXPECT_TRUE(reqs[0].proto.is_partial());
    EXPECT_FALSE(reqs[0].proto.is_last_partial_run());
    EXPECT_TRUE(reqs[1].proto.is_last_partial_run());
  }
  WaitForBackgroundCalls();
  EXPECT_EQ(w0_->cleanup_step_ids().size(), 1u);
  // The handle is gone.
  s = prun({}, {"c:0"}, &r);
  EXPECT_TRUE(absl::IsInvalidArgument(s)) << s;
}

// ---------------------------------------------------------------- lifecycle

TEST_F(MasterTest, CloseSessionReleasesEverythingOnTheWorkers) {
  absl::StatusOr<std::string> h = CreateSession(PsWorkerGraph());
  ASSERT_TRUE(h.ok());
  w0_->SetFetchValue("z:0", test::AsTensor<float>({5, 6}));
  ASSERT_TRUE(
      Run(*h, {{"x:0", test::AsTensor<float>({1, 2})}}, {"z:0"}, {}, nullptr)
          .ok());
  for (const auto& w : all_workers()) EXPECT_FALSE(w->live_graphs().empty());

  tensorflow::CloseSessionRequest req;
  req.set_session_handle(*h);
  tensorflow::CloseSessionResponse resp;
  ASSERT_TRUE(master_->CloseSession(req, &resp).ok());
  for (const auto& w : all_workers()) {
    EXPECT_TRUE(w->live_graphs().empty()) << w->task();
    EXPECT_TRUE(w->live_sessions().empty()) << w->task();
  }
  EXPECT_TRUE(absl::IsAborted(master_->CloseSession(req, &resp)));
  EXPECT_TRUE(absl::IsAborted(
      Run(*h, {{"x:0", test::AsTensor<float>({1, 2})}}, {"z:0"}, {}, nullptr)));
}

TEST_F(MasterTest, IdleSessionsAreCollected) {
  absl::StatusOr<std::string> h = CreateSession(PsWorkerGraph());
  ASSERT_TRUE(h.ok());
  EXPECT_EQ(master_->CollectIdleSessions(absl::Now()), 0);
  EXPECT_EQ(master_->CollectIdleSessions(absl::Now() + absl::Hours(2)), 1);
  EXPECT_EQ(master_->num_sessions(), 0);
  for (const auto& w : all_workers()) EXPECT_TRUE(w->live_sessions().empty());
  absl::Status s =
      Run(*h, {{"x:0", test::AsTensor<float>({1, 2})}}, {"x:0"}, {}, nullptr);
  EXPECT_TRUE(absl::IsAborted(s)) << s;
}

TEST_F(MasterTest, CollectorThreadClosesIdleSessions) {
  MasterOptions o = DefaultOptions();
  o.idle_session_timeout = absl::Milliseconds(20);
  o.gc_interval = absl::Milliseconds(5);
  RestartMaster(o);
  absl::StatusOr<std::string> h = CreateSession(PsWorkerGraph());
  ASSERT_TRUE(h.ok());
  // Polls an observable condition, with a generous bound.
  const absl::Time give_up = absl::Now() + absl::Seconds(30);
  while (master_->num_sessions() > 0 && absl::Now() < give_up) {
    absl::SleepFor(absl::Milliseconds(5));
  }
  EXPECT_EQ(master_->num_sessions(), 0);
}

TEST_F(MasterTest, BusySessionsAreNotCollected) {
  absl::StatusOr<std::string> h = CreateSession(PsWorkerGraph());
  ASSERT_TRUE(h.ok());
  w0_->SetFetchValue("z:0", test::AsTensor<float>({5, 6}));
  absl::Notification running;
  w1_->HangRunGraphUntilCancelled(&running);
  CallOptions call;
  std::thread t([&] {
    Run(*h, {{"x:0", test::AsTensor<float>({1, 2})}}, {"z:0"}, {}, nullptr, {},
        nullptr, &call)
        .IgnoreError();
  });
  ASSERT_TRUE(running.WaitForNotificationWithTimeout(absl::Seconds(30)));
  EXPECT_EQ(master_->CollectIdleSessions(absl::Now() + absl::Hours(2)), 0);
  call.StartCancel();
  t.join();
}

TEST_F(MasterTest, ResetClosesSessionsAndCleansContainers) {
  ASSERT_TRUE(CreateSession(PsWorkerGraph()).ok());
  ASSERT_TRUE(CreateSession(PsWorkerGraph()).ok());
  tensorflow::ResetRequest req;
  req.add_container("c1");
  tensorflow::ResetResponse resp;
  ASSERT_TRUE(master_->Reset(req, &resp).ok());
  EXPECT_EQ(master_->num_sessions(), 0);
  for (const auto& w : all_workers()) {
    EXPECT_TRUE(w->live_sessions().empty());
    EXPECT_THAT(w->cleanup_all_containers(),
                ElementsAre(std::vector<std::string>{"c1"}));
  }
  req.add_device_filters("/job:ps");
  ASSERT_TRUE(master_->Reset(req, &resp).ok());
  EXPECT_EQ(ps_->cleanup_all_containers().size(), 2u);
  EXPECT_EQ(w0_->cleanup_all_containers().size(), 1u);
}

TEST_F(MasterTest, ShutdownClosesSessionsAndRefusesNewCalls) {
  ASSERT_TRUE(CreateSession(PsWorkerGraph()).ok());
  master_->Shutdown(absl::Seconds(1));
  for (const auto& w : all_workers()) EXPECT_TRUE(w->live_sessions().empty());
  absl::StatusOr<std::string> h = CreateSession(PsWorkerGraph());
  EXPECT_TRUE(absl::IsUnavailable(h.status())) << h.status();
}

}  // namespace
}  // namespace test
}  // namespace tributary
