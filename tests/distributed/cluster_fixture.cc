#include "tests/distributed/cluster_fixture.h"

#include <signal.h>
#include <stdlib.h>

#include <algorithm>
#include <fstream>
#include <iostream>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "tools/cli/cluster_probe.h"
#include "tools/cli/daemon_readiness.h"

namespace tributary {
namespace test {
namespace {

std::string TaskName(const std::string& job, int task) {
  return absl::StrCat("/job:", job, "/replica:0/task:", task);
}

// `s` with what happened to the cluster, for Start and RestartTask failures.
absl::Status WithLogs(const absl::Status& s, const TestCluster& cluster) {
  return absl::Status(s.code(),
                      absl::StrCat(s.message(), "\n", cluster.LogTails()));
}

}  // namespace

// ---- TestCluster ------------------------------------------------------------

absl::StatusOr<std::unique_ptr<TestCluster>> TestCluster::Start(
    const ClusterOptions& options) {
  std::unique_ptr<TestCluster> cluster(new TestCluster(options));
  cluster->dir_ = MakeTempDir("cluster");
  const char* outputs = std::getenv("TEST_UNDECLARED_OUTPUTS_DIR");
  if (outputs != nullptr) {
    std::string templ = absl::StrCat(outputs, "/cluster_logs.XXXXXX");
    if (mkdtemp(templ.data()) != nullptr) cluster->log_dir_ = templ;
  }
  if (cluster->log_dir_.empty()) cluster->log_dir_ = cluster->dir_;

  int num_tasks = 0;
  for (const auto& [job, count] : options.jobs) num_tasks += count;
  auto ports = PickFreePorts(num_tasks + (options.start_master ? 1 : 0));
  if (!ports.ok()) return ports.status();
  size_t next_port = 0;
  std::vector<std::string> job_entries;
  for (const auto& [job, count] : options.jobs) {
    std::vector<std::string> addresses;
    for (int t = 0; t < count; ++t) {
      Task task;
      task.job = job;
      task.index = t;
      task.address = absl::StrCat("127.0.0.1:", (*ports)[next_port++]);
      addresses.push_back(absl::StrCat("\"", task.address, "\""));
      cluster->tasks_.push_back(std::move(task));
    }
    job_entries.push_back(
        absl::StrCat("\"", job, "\": [", absl::StrJoin(addresses, ", "), "]"));
  }
  if (options.start_master) {
    cluster->master_address_ =
        absl::StrCat("127.0.0.1:", (*ports)[next_port++]);
  }
  // TensorFlow's JSON form of a ClusterSpec.
  cluster->spec_json_ =
      absl::StrCat("{", absl::StrJoin(job_entries, ", "), "}");
  cluster->spec_path_ = cluster->dir_ + "/cluster.json";
  {
    std::ofstream out(cluster->spec_path_);
    out << cluster->spec_json_ << "\n";
    if (!out) {
      return absl::InternalError("cannot write " + cluster->spec_path_);
    }
  }

  const absl::Time deadline = absl::Now() + options.start_timeout;
  for (Task& task : cluster->tasks_) {
    absl::Status s = cluster->SpawnWorker(&task);
    if (!s.ok()) return WithLogs(s, *cluster);
  }
  for (Task& task : cluster->tasks_) {
    absl::Status s = cluster->WaitForWorker(&task, deadline);
    if (!s.ok()) return WithLogs(s, *cluster);
  }
  if (options.start_master) {
    absl::Status s = cluster->SpawnMaster();
    if (s.ok()) s = cluster->WaitForMaster();
    if (!s.ok()) return WithLogs(s, *cluster);
  }
  return cluster;
}

TestCluster::~TestCluster() {
  if (::testing::Test::HasFailure()) DumpLogs();
  if (master_) master_->Kill();
  for (Task& task : tasks_) {
    if (task.process) task.process->Kill();
  }
}

TestCluster::Task* TestCluster::FindTask(const std::string& job, int task) {
  for (Task& t : tasks_) {
    if (t.job == job && t.index == task) return &t;
  }
  return nullptr;
}

const TestCluster::Task* TestCluster::FindTask(const std::string& job,
                                               int task) const {
  return const_cast<TestCluster*>(this)->FindTask(job, task);
}

std::string TestCluster::TaskAddress(const std::string& job, int task) const {
  const Task* t = FindTask(job, task);
  return t ? t->address : "";
}

std::vector<std::string> TestCluster::TaskNames() const {
  std::vector<std::string> names;
  for (const Task& t : tasks_) names.push_back(TaskName(t.job, t.index));
  return names;
}

absl::Status TestCluster::SpawnWorker(Task* task) {
  std::vector<std::string> argv = {WorkerBinary(),
                                   "--cluster",
                                   spec_path_,
                                   "--job",
                                   task->job,
                                   "--task",
                                   absl::StrCat(task->index)};
  argv.insert(argv.end(), options_.worker_flags.begin(),
              options_.worker_flags.end());
  const std::string name = absl::StrCat(task->job, "-", task->index);
  auto process =
      StartTestProcess(name, argv, absl::StrCat(log_dir_, "/", name, ".log"));
  if (!process.ok()) return process.status();
  task->process = *std::move(process);
  return absl::OkStatus();
}

absl::Status TestCluster::SpawnMaster() {
  std::vector<std::string> argv = {MasterBinary(), "--cluster", spec_path_,
                                   "--listen", master_address_};
  argv.insert(argv.end(), options_.master_flags.begin(),
              options_.master_flags.end());
  auto process = StartTestProcess("master", argv, log_dir_ + "/master.log");
  if (!process.ok()) return process.status();
  master_ = *std::move(process);
  return absl::OkStatus();
}

absl::Status TestCluster::WaitForWorker(Task* task, absl::Time deadline) {
  ReadinessWait wait;
  wait.deadline = deadline;
  wait.timeout = options_.start_timeout;
  absl::StatusOr<tensorflow::GetStatusResponse> status =
      WaitForWorkerReady(*task->process, task->address, wait);
  if (!status.ok()) {
    return absl::Status(
        status.status().code(),
        absl::StrCat("worker ", task->process->name(), " at ", task->address,
                     " (", task->process->command_line(),
                     "): ", status.status().message()));
  }
  if (status->device_attributes_size() == 0) {
    return absl::InternalError(absl::StrCat("worker ", task->process->name(),
                                            " lists no devices in GetStatus"));
  }
  return absl::OkStatus();
}

absl::Status TestCluster::WaitForMaster() {
  ReadinessWait wait;
  wait.deadline = absl::Now() + options_.start_timeout;
  wait.timeout = options_.start_timeout;
  absl::StatusOr<tensorflow::ListDevicesResponse> devices =
      WaitForMasterReady(*master_, master_address_, wait);
  if (!devices.ok()) {
    return absl::Status(devices.status().code(),
                        absl::StrCat("master at ", master_address_, " (",
                                     master_->command_line(),
                                     "): ", devices.status().message()));
  }
  return absl::OkStatus();
}

absl::Status TestCluster::KillTask(const std::string& job, int task) {
  Task* t = FindTask(job, task);
  if (t == nullptr || !t->process) {
    return absl::NotFoundError(absl::StrCat("no task ", TaskName(job, task)));
  }
  t->process->Kill();
  return absl::OkStatus();
}

absl::Status TestCluster::RestartTask(const std::string& job, int task) {
  Task* t = FindTask(job, task);
  if (t == nullptr) {
    return absl::NotFoundError(absl::StrCat("no task ", TaskName(job, task)));
  }
  if (t->process && t->process->Running()) {
    return absl::FailedPreconditionError(
        absl::StrCat(TaskName(job, task), " is still running"));
  }
  t->process.reset();
  absl::Status s = SpawnWorker(t);
  if (s.ok()) s = WaitForWorker(t, absl::Now() + options_.start_timeout);
  return s.ok() ? s : WithLogs(s, *this);
}

bool TestCluster::TaskRunning(const std::string& job, int task) {
  Task* t = FindTask(job, task);
  return t != nullptr && t->process && t->process->Running();
}

absl::Status TestCluster::SignalTask(const std::string& job, int task,
                                     int signal) {
  Task* t = FindTask(job, task);
  if (t == nullptr || !t->process) {
    return absl::NotFoundError(absl::StrCat("no task ", TaskName(job, task)));
  }
  t->process->Signal(signal);
  return absl::OkStatus();
}

pid_t TestCluster::TaskPid(const std::string& job, int task) const {
  const Task* t = FindTask(job, task);
  return t != nullptr && t->process ? t->process->pid() : 0;
}

pid_t TestCluster::MasterPid() const { return master_ ? master_->pid() : 0; }

std::vector<pid_t> TestCluster::Pids() const {
  std::vector<pid_t> pids;
  for (ChildProcess* p : Processes()) pids.push_back(p->pid());
  return pids;
}

bool TestCluster::MasterRunning() { return master_ && master_->Running(); }

void TestCluster::KillMaster() {
  if (master_) master_->Kill();
}

std::vector<ChildProcess*> TestCluster::Processes() const {
  std::vector<ChildProcess*> out;
  for (const Task& t : tasks_) {
    if (t.process) out.push_back(t.process.get());
  }
  if (master_) out.push_back(master_.get());
  return out;
}

absl::Status TestCluster::TerminateAll(absl::Duration grace) {
  // Those already gone (a killed task) are not this stop's business.
  std::vector<ChildProcess*> running;
  for (ChildProcess* p : Processes()) {
    if (p->Running()) running.push_back(p);
  }
  // All at once, unlike `cluster up`'s master-first order: the daemons must
  // stop cleanly whatever the order.
  const std::vector<ChildProcess*> killed = StopChildren(running, grace);
  std::vector<std::string> problems;
  for (ChildProcess* p : running) {
    if (std::find(killed.begin(), killed.end(), p) != killed.end()) {
      problems.push_back(absl::StrCat(p->name(), " did not exit within ",
                                      absl::FormatDuration(grace),
                                      " of SIGTERM (killed)"));
    } else if (p->ExitCode() != 0) {
      problems.push_back(
          absl::StrCat(p->name(), " ", p->ExitDescription(), " after SIGTERM"));
    }
  }
  if (problems.empty()) return absl::OkStatus();
  return absl::InternalError(
      absl::StrCat(absl::StrJoin(problems, "; "), "\n", LogTails()));
}

std::unique_ptr<tensorflow::MasterService::Stub> TestCluster::NewMasterStub()
    const {
  return tensorflow::MasterService::NewStub(NewProbeChannel(master_address_));
}

std::unique_ptr<tensorflow::WorkerService::Stub> TestCluster::NewWorkerStub(
    const std::string& job, int task) const {
  return tensorflow::WorkerService::NewStub(
      NewProbeChannel(TaskAddress(job, task)));
}

std::string TestCluster::LogTails(int max_lines) const {
  std::string out;
  for (ChildProcess* p : Processes()) {
    absl::StrAppend(&out, "---- ", p->name(), " (", p->log_path(), ") ----\n",
                    TailOfFile(p->log_path(), max_lines));
  }
  return out;
}

void TestCluster::DumpLogs() const {
  std::cerr << "Cluster logs (full files in " << log_dir_ << "):\n"
            << LogTails() << std::flush;
}

}  // namespace test
}  // namespace tributary
