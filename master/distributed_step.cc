#include "master/distributed_step.h"

#include <algorithm>
#include <atomic>
#include <limits>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/random/random.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/distributed/wait_for_callback.h"
#include "common/framework/derived_status.h"
#include "common/framework/logging.h"
#include "common/framework/status.h"
#include "master/worker_calls.h"

namespace tributary {
namespace {

using RunGroup = WorkerCallGroup<RunGraphRequestMsg, RunGraphResponseMsg>;

// RunGraph, with an error stored in the response body (a worker asked for
// it or not) turned into the call's status.
void StartRunGraphChecked(WorkerInterface* worker, CallOptions* opts,
                          const RunGraphRequestMsg* request,
                          RunGraphResponseMsg* response, StatusCallback done) {
  worker->RunGraphAsync(
      opts, request, response,
      [response, done = std::move(done)](const absl::Status& s) {
        if (s.ok() && response->proto.status_code() != 0) {
          done(absl::Status(FromErrorCodeInt(response->proto.status_code()),
                            response->proto.status_error_message()));
          return;
        }
        done(s);
      });
}

}  // namespace

int64_t NewStepId() {
  thread_local absl::BitGen gen;
  return absl::Uniform<int64_t>(gen, 1, std::numeric_limits<int64_t>::max());
}

struct DistributedStep::Shared {
  // Fixed before any callback can run.
  DetachedCallEnv cleanup_env;
  std::vector<TaskWorker> workers;
  // What a successful step cleans up: workers keep a step only while a
  // peer may still fetch from it (remote_sends.h); partial runs keep theirs
  // until CleanupGraph.
  std::vector<TaskWorker> workers_after_success;
  int64_t step_id = 0;
  // Clean up when the last RunGraph completes even without an error (not
  // for the inner calls of a partial run).
  bool cleanup_when_done = true;
  std::atomic<size_t> remaining{0};
  DeadlineTimer* timer = nullptr;
  absl::Duration cancel_grace;
  absl::Time deadline = absl::InfiniteFuture();

  absl::Mutex mu;
  RunGroup group;
  bool started ABSL_GUARDED_BY(mu) = false;
  bool cancel_started ABSL_GUARDED_BY(mu) = false;
  // The master's own reason (Cancel(), the deadline); OK for a worker error.
  absl::Status cancel_reason ABSL_GUARDED_BY(mu);
  // The end of the step: runs once, from whichever comes first of the last
  // RunGraph, the grace after a failure, or the deadline.
  std::function<void(Shared& self, bool at_deadline)> finish
      ABSL_GUARDED_BY(mu);
  bool finished ABSL_GUARDED_BY(mu) = false;
  DeadlineTimer::Id deadline_timer ABSL_GUARDED_BY(mu) =
      DeadlineTimer::kNoTimer;
  DeadlineTimer::Id grace_timer ABSL_GUARDED_BY(mu) = DeadlineTimer::kNoTimer;

  // First caller cancels every RunGraph of the step and aborts the step on
  // every worker; later callers do nothing.
  void StartCancellation(const absl::Status& reason) {
    bool started_calls;
    {
      absl::MutexLock l(&mu);
      if (cancel_started) return;
      cancel_started = true;
      cancel_reason = reason;
      started_calls = started;
    }
    group.Interrupt();
    if (!started_calls) return;
    group.CancelAll();
    CleanupGraphAsync(cleanup_env, workers, step_id);
  }

  bool cancelling() {
    absl::MutexLock l(&mu);
    return cancel_started;
  }
  absl::Status reason() {
    absl::MutexLock l(&mu);
    return cancel_reason;
  }

  // After a RunGraph completed or the step was cancelled: finishes when
  // every call is done; once cancelling, waits at most the grace (never
  // past the deadline) for the rest, so the root cause can be told from
  // the fallout.
  static void Progress(const std::shared_ptr<Shared>& self) {
    std::function<void(Shared&, bool)> finish;
    {
      absl::MutexLock l(&self->mu);
      if (self->finished || !self->finish) return;
      if (self->group.all_done()) {
        finish = TakeFinishLocked(self.get());
      } else if (self->cancel_started &&
                 self->grace_timer == DeadlineTimer::kNoTimer) {
        const absl::Time until =
            std::min(self->deadline, DeadlineAfter(self->cancel_grace));
        std::weak_ptr<Shared> weak = self;
        self->grace_timer = self->timer->Schedule(until, [weak] {
          if (auto s = weak.lock()) Finish(s, /*at_deadline=*/false);
        });
      }
    }
    if (finish) finish(*self, false);
  }

  static void Finish(const std::shared_ptr<Shared>& self, bool at_deadline) {
    std::function<void(Shared&, bool)> finish;
    {
      absl::MutexLock l(&self->mu);
      if (self->finished || !self->finish) return;
      finish = TakeFinishLocked(self.get());
    }
    finish(*self, at_deadline);
  }

  static std::function<void(Shared&, bool)> TakeFinishLocked(Shared* self)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(self->mu) {
    self->finished = true;
    // A timer that is not the caller never runs now; the caller's own
    // timer is already off the queue.
    self->timer->Cancel(self->deadline_timer);
    self->timer->Cancel(self->grace_timer);
    return std::move(self->finish);
  }
};

DistributedStep::DistributedStep(const MasterEnv* env,
                                 std::shared_ptr<const RegisteredGraph> graph,
                                 StepOptions options)
    : env_(env),
      graph_(std::move(graph)),
      options_(std::move(options)),
      shared_(std::make_shared<Shared>()) {
  shared_->cleanup_env = env_->detached();
  shared_->workers = graph_->workers();
  shared_->workers_after_success = options_.is_partial
                                       ? shared_->workers
                                       : graph_->workers_with_remote_sends();
  shared_->step_id = options_.step_id;
  shared_->cleanup_when_done =
      !options_.is_partial || options_.is_last_partial_run;
  // Every step's deadline and grace run on it (MasterEnv::timer).
  shared_->timer = CHECK_NOTNULL(env_->timer);
  shared_->cancel_grace = env_->cancel_grace;
  shared_->deadline = options_.deadline;
}

void DistributedStep::Cancel(const absl::Status& reason) {
  shared_->StartCancellation(reason);
  Shared::Progress(shared_);
}

absl::Status DistributedStep::Run(const NamedTensors& feeds,
                                  const std::vector<int>& fetches,
                                  std::vector<Tensor>* outputs,
                                  tensorflow::RunMetadata* metadata) {
  return WaitForCallback([&](StatusCallback done) {
    RunAsync(feeds, fetches, outputs, metadata, std::move(done));
  });
}

void DistributedStep::RunAsync(const NamedTensors& feeds,
                               const std::vector<int>& fetches,
                               std::vector<Tensor>* outputs,
                               tensorflow::RunMetadata* metadata,
                               StatusCallback done) {
  const RegisteredGraph& graph = *graph_;
  const StepSignature& sig = graph.signature();
  const int client = graph.client_partition();
  if (client < 0 && !fetches.empty()) {
    done(errors::Internal("Step has fetches but no client partition"));
    return;
  }

  // Requests.
  absl::flat_hash_map<std::string, int> feed_index;
  for (size_t i = 0; i < sig.feeds.size(); ++i) {
    feed_index[sig.feeds[i]] = static_cast<int>(i);
  }
  RunGroup& group = shared_->group;
  for (size_t p = 0; p < graph.partitions().size(); ++p) {
    const WorkerPartition& part = graph.partitions()[p];
    RunGroup::Call* call = group.Add(part.target.task, part.target.worker);
    tensorflow::RunGraphRequest& req = call->request.proto;
    req.set_session_handle(options_.session_handle);
    req.set_create_worker_session_called(true);
    req.set_graph_handle(part.graph_handle);
    req.set_step_id(options_.step_id);
    if (options_.trace) {
      req.mutable_exec_opts()->set_record_timeline(true);
      req.mutable_exec_opts()->set_record_costs(true);
    }
    if (options_.output_partition_graphs) {
      req.mutable_exec_opts()->set_record_partition_graphs(true);
    }
    req.set_is_partial(options_.is_partial);
    req.set_is_last_partial_run(options_.is_last_partial_run);
    if (static_cast<int>(p) == client) {
      for (const auto& [name, value] : feeds) {
        auto it = feed_index.find(name);
        if (it == feed_index.end()) {
          done(errors::Internal("Feed ", name, " is not in the signature"));
          return;
        }
        call->request.send.emplace_back(graph.feed_keys()[it->second], value);
      }
      for (int j : fetches) req.add_recv_key(graph.fetch_keys()[j]);
    }
  }
  const size_t n = group.size();
  if (n == 0) {
    if (outputs != nullptr) outputs->clear();
    done(absl::OkStatus());
    return;
  }

  std::shared_ptr<Shared> shared = shared_;
  bool cancelled_before_start = false;
  absl::Status reason;
  {
    absl::MutexLock l(&shared->mu);
    cancelled_before_start = shared->cancel_started;
    reason = shared->cancel_reason;
    if (!cancelled_before_start) {
      shared->started = true;
      // The step object may go before a late callback: the end of the step
      // holds what it reads.
      shared->finish = [graph = graph_, options = options_, fetches, outputs,
                        metadata, done = std::move(done)](Shared& self,
                                                          bool at_deadline) {
        done(Conclude(self, *graph, options, fetches, at_deadline, outputs,
                      metadata));
      };
      std::weak_ptr<Shared> weak = shared;
      shared->deadline_timer =
          shared->timer->Schedule(options_.deadline, [weak] {
            if (auto s = weak.lock()) Shared::Finish(s, /*at_deadline=*/true);
          });
    }
  }
  if (cancelled_before_start) {
    done(reason);
    return;
  }
  shared->remaining.store(n);
  group.Start(options_.deadline, StartRunGraphChecked,
              [shared](size_t, const absl::Status& s, RunGroup::Call&) {
                if (!s.ok()) shared->StartCancellation(absl::OkStatus());
                if (shared->remaining.fetch_sub(1) == 1) {
                  if (shared->cancelling()) {
                    CleanupGraphAsync(shared->cleanup_env, shared->workers,
                                      shared->step_id);
                  } else if (shared->cleanup_when_done &&
                             !shared->workers_after_success.empty()) {
                    CleanupGraphAsync(shared->cleanup_env,
                                      shared->workers_after_success,
                                      shared->step_id);
                  }
                }
                Shared::Progress(shared);
              });
}

absl::Status DistributedStep::Conclude(Shared& shared,
                                       const RegisteredGraph& graph,
                                       const StepOptions& options,
                                       const std::vector<int>& fetches,
                                       bool at_deadline,
                                       std::vector<Tensor>* outputs,
                                       tensorflow::RunMetadata* metadata) {
  RunGroup& group = shared.group;
  const size_t n = group.size();
  const StepSignature& sig = graph.signature();
  const int client = graph.client_partition();
  bool timed_out = false;
  absl::Status deadline_exceeded;
  std::vector<std::string> still_running;
  if (!group.all_done()) {
    for (size_t i = 0; i < n; ++i) {
      if (!group.done(i)) still_running.push_back(group.call(i).task);
    }
    if (at_deadline || absl::Now() >= options.deadline) {
      timed_out = true;
      deadline_exceeded = errors::DeadlineExceeded(
          "Step ", options.step_id, " did not finish within ",
          options.deadline_source, " and was cancelled; partitions still "
          "running on ", absl::StrJoin(still_running, ", "));
      shared.StartCancellation(deadline_exceeded);
    }
  }

  // The root cause among the completed calls, in completion order.
  absl::Status first_error;
  absl::Status root;
  for (size_t i : group.completion_order()) {
    absl::Status s = group.status(i, absl::OkStatus());
    if (s.ok()) continue;
    if (first_error.ok()) first_error = s;
    if (root.ok() && !errors::IsFallout(s)) root = s;
  }
  if (root.ok()) root = first_error;
  const absl::Status master_reason = shared.reason();

  // 1. A worker's own failure wins over everything it may have caused.
  if (!root.ok() && !errors::IsFallout(root) &&
      !absl::IsDeadlineExceeded(root)) {
    return root;
  }
  // 2. The master stopped the step (deadline, session closed, client
  //    cancelled) before any worker failed.
  if (!master_reason.ok()) return master_reason;
  // 3. A worker failed with fallout-like errors only: the first of them.
  if (!root.ok()) {
    if (absl::IsDeadlineExceeded(root) && !options.deadline_source.empty()) {
      return errors::DeadlineExceeded(
          "Step ", options.step_id, " did not finish within ",
          options.deadline_source, ": ", root.message());
    }
    return root;
  }
  if (timed_out) return deadline_exceeded;
  if (!group.all_done()) {
    return errors::Internal("Step ", options.step_id, " on ",
                            absl::StrJoin(still_running, ", "),
                            " did not report within the cancellation grace");
  }

  // Success. Every call is done, so every response may be read.
  if (metadata != nullptr) {
    for (size_t i = 0; i < n; ++i) {
      const tensorflow::RunGraphResponse& resp = group.call(i).response.proto;
      if (options.trace) {
        for (const auto& dev : resp.step_stats().dev_stats()) {
          *metadata->mutable_step_stats()->add_dev_stats() = dev;
        }
      }
      if (options.output_partition_graphs) {
        if (resp.partition_graph_size() > 0) {
          for (const auto& g : resp.partition_graph()) {
            *metadata->add_partition_graphs() = g;
          }
        } else {
          *metadata->add_partition_graphs() = graph.partitions()[i].graph_def;
        }
      }
    }
  }
  if (outputs != nullptr) {
    outputs->clear();
    if (!fetches.empty()) {
      NamedTensors& recv = group.call(client).response.recv;
      if (recv.size() != fetches.size()) {
        return errors::Internal("Worker ", group.call(client).task,
                                " answered ", recv.size(),
                                " tensors for ", fetches.size(), " fetches");
      }
      for (size_t j = 0; j < fetches.size(); ++j) {
        const Tensor& t = recv[j].second;
        if (!t.IsInitialized()) {
          return errors::FailedPrecondition(
              "Attempting to use uninitialized value ",
              sig.fetches[fetches[j]]);
        }
        outputs->push_back(std::move(recv[j].second));
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace tributary
