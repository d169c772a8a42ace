#include "common/distributed/testing/fake_worker.h"

#include <atomic>
#include <thread>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/device/incarnation.h"
#include "common/framework/status.h"
#include "common/rendezvous/rendezvous_key.h"

namespace tributary {
namespace {

// Runs `done` at most once, whoever asks first (the caller's cancellation or
// the fake's destruction); says whether this was the one.
struct OnceCallback {
  explicit OnceCallback(StatusCallback d) : done(std::move(d)) {}
  bool Run(const absl::Status& s) {
    if (fired.exchange(true)) return false;
    done(s);
    return true;
  }
  std::atomic<bool> fired{false};
  StatusCallback done;
};

}  // namespace

struct FakeWorker::HangCounts {
  // Waits until `*count` (hung or cancelled) reaches `n`.
  bool WaitFor(const int* count, int n, absl::Duration timeout) {
    struct AtLeast {
      const int* count;
      int n;
    } arg{count, n};
    absl::MutexLock l(&mu);
    return mu.AwaitWithTimeout(
        absl::Condition(+[](AtLeast* a) { return *a->count >= a->n; }, &arg),
        timeout);
  }
  int Get(const int* count) {
    absl::MutexLock l(&mu);
    return *count;
  }

  absl::Mutex mu;
  int hung ABSL_GUARDED_BY(mu) = 0;
  int cancelled ABSL_GUARDED_BY(mu) = 0;
};

FakeWorker::FakeWorker(std::string task, int num_cpus)
    : task_(std::move(task)), hangs_(std::make_shared<HangCounts>()) {
  for (int i = 0; i < num_cpus; ++i) {
    tensorflow::DeviceAttributes d;
    d.set_name(absl::StrCat(task_, "/device:CPU:", i));
    d.set_device_type("CPU");
    d.set_memory_limit(1 << 30);
    d.set_incarnation(NewIncarnation());
    devices_.push_back(d);
  }
  absl::MutexLock l(&mu_);
  reported_ = devices_;
}

FakeWorker::~FakeWorker() {
  std::vector<StatusCallback> hanging;
  {
    absl::MutexLock l(&mu_);
    hanging.swap(hanging_);
  }
  for (auto& done : hanging) done(errors::Cancelled("fake worker destroyed"));
}

uint64_t FakeWorker::incarnation(const std::string& device) const {
  for (const auto& d : devices_) {
    if (d.name() == device) return d.incarnation();
  }
  return 0;
}

void FakeWorker::SetGetStatusMode(Mode mode, absl::Status error) {
  absl::MutexLock l(&mu_);
  get_status_mode_ = mode;
  get_status_error_ = std::move(error);
}

void FakeWorker::SetCreateWorkerSessionError(absl::Status error) {
  absl::MutexLock l(&mu_);
  create_session_error_ = std::move(error);
}

void FakeWorker::SetRegisterGraphError(absl::Status error) {
  absl::MutexLock l(&mu_);
  register_error_ = std::move(error);
}

void FakeWorker::SetReportedDevices(
    std::vector<tensorflow::DeviceAttributes> devices) {
  absl::MutexLock l(&mu_);
  reported_ = std::move(devices);
}

void FakeWorker::AnswerFromAnotherThread(bool on) {
  absl::MutexLock l(&mu_);
  answer_from_another_thread_ = on;
}

void FakeWorker::SetCallObserver(CallObserver observer) {
  absl::MutexLock l(&mu_);
  call_observer_ = std::move(observer);
}

void FakeWorker::SetRunGraphHandler(RunGraphHandler handler) {
  absl::MutexLock l(&mu_);
  run_graph_handler_ = std::move(handler);
}

void FakeWorker::FailRunGraphWith(absl::Status error) {
  SetRunGraphHandler([error](CallOptions*, const RunGraphRequestMsg&,
                             RunGraphResponseMsg*, StatusCallback done) {
    done(error);
  });
}

void FakeWorker::SetFetchValue(const std::string& tensor_name, Tensor value) {
  absl::MutexLock l(&mu_);
  fetch_values_[tensor_name] = std::move(value);
}

void FakeWorker::HangRunGraphUntilCancelled(absl::Notification* started) {
  SetRunGraphHandler([this, started](CallOptions* opts,
                                     const RunGraphRequestMsg&,
                                     RunGraphResponseMsg*, StatusCallback done) {
    HangUntilCancelled(opts, std::move(done));
    if (started != nullptr) started->Notify();
  });
}

void FakeWorker::SetRecvTensorHandler(RecvTensorHandler handler) {
  absl::MutexLock l(&mu_);
  recv_tensor_handler_ = std::move(handler);
}

void FakeWorker::HangUntilCancelled(CallOptions* opts, StatusCallback done) {
  auto once = std::make_shared<OnceCallback>(std::move(done));
  {
    absl::MutexLock l(&mu_);
    hanging_.push_back([once](const absl::Status& s) { once->Run(s); });
  }
  {
    absl::MutexLock l(&hangs_->mu);
    ++hangs_->hung;
  }
  if (opts != nullptr) {
    // Holds the counts, not the fake: the caller may cancel after the fake
    // completed the call in its destructor and is gone.
    opts->SetCancelCallback([once, hangs = hangs_] {
      if (once->Run(errors::Cancelled("call cancelled by the caller"))) {
        absl::MutexLock l(&hangs->mu);
        ++hangs->cancelled;
      }
    });
  }
}

void FakeWorker::HangForever(StatusCallback done) {
  absl::MutexLock l(&mu_);
  hanging_.push_back(std::move(done));
}

void FakeWorker::DefaultRunGraph(const RunGraphRequestMsg& request,
                                 RunGraphResponseMsg* response,
                                 StatusCallback done) {
  for (const std::string& key : request.proto.recv_key()) {
    Tensor value;
    bool found = false;
    for (const auto& [k, t] : request.send) {
      if (k == key) {
        value = t;
        found = true;
      }
    }
    if (!found) {
      absl::StatusOr<RendezvousParsedKey> parsed = ParseRendezvousKey(key);
      if (!parsed.ok()) {
        done(parsed.status());
        return;
      }
      absl::MutexLock l(&mu_);
      auto it = fetch_values_.find(std::string(parsed->edge_name));
      if (it != fetch_values_.end()) {
        value = it->second;
        found = true;
      }
    }
    if (!found) {
      done(errors::Internal("fake ", task_, " has no value for ", key));
      return;
    }
    response->recv.emplace_back(key, value);
  }
  done(absl::OkStatus());
}

int FakeWorker::num_get_status() const {
  absl::MutexLock l(&mu_);
  return num_get_status_;
}

int FakeWorker::num_register_graph() const {
  absl::MutexLock l(&mu_);
  return static_cast<int>(register_requests_.size());
}

int FakeWorker::num_run_graph() const {
  absl::MutexLock l(&mu_);
  return static_cast<int>(run_requests_.size());
}

std::vector<tensorflow::CreateWorkerSessionRequest>
FakeWorker::create_session_requests() const {
  absl::MutexLock l(&mu_);
  return create_requests_;
}

std::vector<tensorflow::RegisterGraphRequest> FakeWorker::register_requests()
    const {
  absl::MutexLock l(&mu_);
  return register_requests_;
}

std::vector<RunGraphRequestMsg> FakeWorker::run_graph_requests() const {
  absl::MutexLock l(&mu_);
  return run_requests_;
}

std::vector<int64_t> FakeWorker::cleanup_step_ids() const {
  absl::MutexLock l(&mu_);
  return cleanup_steps_;
}

std::vector<std::vector<std::string>> FakeWorker::cleanup_all_containers()
    const {
  absl::MutexLock l(&mu_);
  return cleanup_all_;
}

std::set<std::string> FakeWorker::live_sessions() const {
  absl::MutexLock l(&mu_);
  return sessions_;
}

std::set<std::string> FakeWorker::live_graphs() const {
  absl::MutexLock l(&mu_);
  return graphs_;
}

absl::Time FakeWorker::last_deadline() const {
  absl::MutexLock l(&mu_);
  return last_deadline_;
}

int FakeWorker::num_hung_calls() const { return hangs_->Get(&hangs_->hung); }

int FakeWorker::num_cancelled_calls() const {
  return hangs_->Get(&hangs_->cancelled);
}

bool FakeWorker::WaitForHungCalls(int n, absl::Duration timeout) const {
  return hangs_->WaitFor(&hangs_->hung, n, timeout);
}

bool FakeWorker::WaitForCancelledCalls(int n, absl::Duration timeout) const {
  return hangs_->WaitFor(&hangs_->cancelled, n, timeout);
}

StatusCallback FakeWorker::Begin(absl::string_view method, CallOptions* opts,
                                 StatusCallback done) {
  CallObserver observer;
  bool another_thread;
  {
    absl::MutexLock l(&mu_);
    last_deadline_ =
        opts != nullptr ? opts->deadline() : absl::InfiniteFuture();
    observer = call_observer_;
    another_thread = answer_from_another_thread_;
  }
  if (observer) observer(method);
  if (!another_thread) return done;
  return [done = std::move(done)](const absl::Status& s) {
    std::thread([done, s] { done(s); }).detach();
  };
}

void FakeWorker::GetStatusAsync(CallOptions* opts,
                                const tensorflow::GetStatusRequest*,
                                tensorflow::GetStatusResponse* response,
                                StatusCallback done) {
  done = Begin("GetStatus", opts, std::move(done));
  Mode mode;
  absl::Status error;
  {
    absl::MutexLock l(&mu_);
    ++num_get_status_;
    mode = get_status_mode_;
    error = get_status_error_;
    for (const auto& d : reported_) *response->add_device_attributes() = d;
  }
  switch (mode) {
    case Mode::kAnswer:
      done(absl::OkStatus());
      return;
    case Mode::kFail:
      done(error);
      return;
    case Mode::kHang:
      HangUntilCancelled(opts, std::move(done));
      return;
    case Mode::kHangIgnoringCancel:
      HangForever(std::move(done));
      return;
  }
}

void FakeWorker::CreateWorkerSessionAsync(
    CallOptions* opts, const tensorflow::CreateWorkerSessionRequest* request,
    tensorflow::CreateWorkerSessionResponse*, StatusCallback done) {
  done = Begin("CreateWorkerSession", opts, std::move(done));
  absl::Status s;
  {
    absl::MutexLock l(&mu_);
    create_requests_.push_back(*request);
    s = create_session_error_;
    if (s.ok()) sessions_.insert(request->session_handle());
  }
  done(s);
}

void FakeWorker::DeleteWorkerSessionAsync(
    CallOptions* opts, const tensorflow::DeleteWorkerSessionRequest* request,
    tensorflow::DeleteWorkerSessionResponse*, StatusCallback done) {
  done = Begin("DeleteWorkerSession", opts, std::move(done));
  {
    absl::MutexLock l(&mu_);
    sessions_.erase(request->session_handle());
    // Deleting a session drops its graphs, as a real worker does.
    for (auto it = graphs_.begin(); it != graphs_.end();) {
      if (it->rfind(request->session_handle() + "/", 0) == 0) {
        it = graphs_.erase(it);
      } else {
        ++it;
      }
    }
  }
  done(absl::OkStatus());
}

void FakeWorker::RegisterGraphAsync(
    CallOptions* opts, const tensorflow::RegisterGraphRequest* request,
    tensorflow::RegisterGraphResponse* response, StatusCallback done) {
  done = Begin("RegisterGraph", opts, std::move(done));
  absl::Status s;
  {
    absl::MutexLock l(&mu_);
    register_requests_.push_back(*request);
    s = register_error_;
    if (s.ok() && !sessions_.count(request->session_handle())) {
      s = errors::Aborted("Session ", request->session_handle(),
                          " is not found on ", task_);
    }
    if (s.ok()) {
      const std::string handle =
          absl::StrCat(request->session_handle(), "/graph_", next_graph_++);
      graphs_.insert(handle);
      response->set_graph_handle(handle);
    }
  }
  done(s);
}

void FakeWorker::DeregisterGraphAsync(
    CallOptions* opts, const tensorflow::DeregisterGraphRequest* request,
    tensorflow::DeregisterGraphResponse*, StatusCallback done) {
  done = Begin("DeregisterGraph", opts, std::move(done));
  {
    absl::MutexLock l(&mu_);
    graphs_.erase(request->graph_handle());
  }
  done(absl::OkStatus());
}

void FakeWorker::RunGraphAsync(CallOptions* opts,
                               const RunGraphRequestMsg* request,
                               RunGraphResponseMsg* response,
                               StatusCallback done) {
  done = Begin("RunGraph", opts, std::move(done));
  RunGraphHandler handler;
  bool registered;
  {
    absl::MutexLock l(&mu_);
    run_requests_.push_back(*request);
    registered = graphs_.count(request->proto.graph_handle()) > 0;
    handler = run_graph_handler_;
  }
  if (!registered) {
    done(errors::Aborted("Graph handle ", request->proto.graph_handle(),
                         " is not registered on ", task_));
    return;
  }
  if (handler) {
    handler(opts, *request, response, std::move(done));
  } else {
    DefaultRunGraph(*request, response, std::move(done));
  }
}

void FakeWorker::CleanupGraphAsync(CallOptions* opts,
                                   const tensorflow::CleanupGraphRequest* request,
                                   tensorflow::CleanupGraphResponse*,
                                   StatusCallback done) {
  done = Begin("CleanupGraph", opts, std::move(done));
  {
    absl::MutexLock l(&mu_);
    cleanup_steps_.push_back(request->step_id());
  }
  done(absl::OkStatus());
}

void FakeWorker::CleanupAllAsync(CallOptions* opts,
                                 const tensorflow::CleanupAllRequest* request,
                                 tensorflow::CleanupAllResponse*,
                                 StatusCallback done) {
  done = Begin("CleanupAll", opts, std::move(done));
  {
    absl::MutexLock l(&mu_);
    cleanup_all_.emplace_back(request->container().begin(),
                              request->container().end());
  }
  done(absl::OkStatus());
}

void FakeWorker::RecvTensorAsync(CallOptions* opts,
                                 const tensorflow::RecvTensorRequest* request,
                                 TensorResponse* response,
                                 StatusCallback done) {
  done = Begin("RecvTensor", opts, std::move(done));
  RecvTensorHandler handler;
  {
    absl::MutexLock l(&mu_);
    handler = recv_tensor_handler_;
  }
  if (!handler) {
    // The master never calls RecvTensor; a test that does says how to answer.
    done(errors::Unimplemented("fake ", task_, " has no RecvTensor handler"));
    return;
  }
  handler(opts, *request, response, std::move(done));
}

void FakeWorker::LoggingAsync(CallOptions* opts,
                              const tensorflow::LoggingRequest* request,
                              tensorflow::LoggingResponse* response,
                              StatusCallback done) {
  done = Begin("Logging", opts, std::move(done));
  for (int64_t id : request->fetch_step_id()) {
    response->add_step()->set_step_id(id);
  }
  done(absl::OkStatus());
}

void FakeWorker::TracingAsync(CallOptions* opts,
                              const tensorflow::TracingRequest*,
                              tensorflow::TracingResponse*,
                              StatusCallback done) {
  done = Begin("Tracing", opts, std::move(done));
  done(absl::OkStatus());
}

}  // namespace tributary
