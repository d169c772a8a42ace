// A real cluster for integration tests: one tributary-worker process per task
// of a ClusterSpec and a tributary-master, all on 127.0.0.1 with ports the
// kernel hands out, started from the test's runfiles.
//
//   auto cluster = TestCluster::Start();          // 1 ps + 2 workers + master
//   ASSERT_TRUE(cluster.ok()) << cluster.status();
//   auto session = NewSession((*cluster)->master_target());
//   ...
//   (*cluster)->KillTask("worker", 1);            // kill -9
//   (*cluster)->RestartTask("worker", 1);         // same address, waits ready
//   EXPECT_TRUE((*cluster)->TerminateAll(absl::Seconds(20)).ok());  // SIGTERM
//
// The daemons are started and awaited the way `tributary cluster up` does it
// (tools/cli: ChildProcess, WaitForWorkerReady, WaitForMasterReady), as test
// processes (test_process.h). Start() returns once every worker answers
// GetStatus and the master answers ListDevices (each bounded by
// ClusterOptions::start_timeout); a daemon that exits or never answers fails
// Start() with its log in the message.
//
// No process outlives the test: the destructor SIGKILLs and reaps whatever is
// still running, and every daemon gets SIGKILL when the test dies, so even a
// crashing test binary takes its daemons with it. (The death signal follows
// the thread that started the daemon; the fixture must be used from the
// test's main thread, as gtest runs tests.)
//
// Logs: each daemon's stdout and stderr go to "<name>.log" (ps-0.log,
// worker-1.log, master.log) in $TEST_UNDECLARED_OUTPUTS_DIR when Bazel sets
// it (so they are kept in outputs.zip), else in a temporary directory. The
// destructor prints the tail of every log when the current test has failed.

#ifndef TRIBUTARY_TESTS_DISTRIBUTED_CLUSTER_FIXTURE_H_
#define TRIBUTARY_TESTS_DISTRIBUTED_CLUSTER_FIXTURE_H_

#include <sys/types.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "grpcpp/channel.h"
#include "protos/master_service.grpc.pb.h"
#include "protos/worker_service.grpc.pb.h"
#include "tests/distributed/test_process.h"
#include "tools/cli/child_process.h"

namespace tributary {
namespace test {

struct ClusterOptions {
  // Job name -> number of tasks (indices 0..n-1).
  std::map<std::string, int> jobs = {{"ps", 1}, {"worker", 2}};
  bool start_master = true;
  // Extra flags for every worker / the master.
  std::vector<std::string> worker_flags;
  std::vector<std::string> master_flags;
  // Bound on each daemon becoming ready (Start, RestartTask).
  absl::Duration start_timeout = absl::Seconds(60);
};

class TestCluster {
 public:
  static absl::StatusOr<std::unique_ptr<TestCluster>> Start(
      const ClusterOptions& options = ClusterOptions());

  ~TestCluster();

  // "127.0.0.1:port" and "grpc://127.0.0.1:port" of the master.
  const std::string& master_address() const { return master_address_; }
  std::string master_target() const { return "grpc://" + master_address_; }
  // "127.0.0.1:port" of a task (empty when the cluster has no such task).
  std::string TaskAddress(const std::string& job, int task) const;
  // "/job:<job>/replica:0/task:<t>" of every task, job then task order.
  std::vector<std::string> TaskNames() const;
  // The cluster spec file the daemons were given, and its JSON text.
  const std::string& cluster_spec_path() const { return spec_path_; }
  const std::string& cluster_spec_json() const { return spec_json_; }
  const std::string& log_dir() const { return log_dir_; }

  // kill -9 of one task's worker; returns once it is reaped.
  absl::Status KillTask(const std::string& job, int task);
  // Starts the task's worker again (after KillTask or a crash) on the same
  // address and waits until it answers GetStatus.
  absl::Status RestartTask(const std::string& job, int task);
  bool TaskRunning(const std::string& job, int task);
  // Sends `signal` to one task's worker (SIGSTOP/SIGCONT: a hung task).
  absl::Status SignalTask(const std::string& job, int task, int signal);
  // Process ids of the daemons started (workers, then the master); of one
  // task's worker and of the master (0 when not running).
  std::vector<pid_t> Pids() const;
  pid_t TaskPid(const std::string& job, int task) const;
  pid_t MasterPid() const;
  bool MasterRunning();
  // kill -9 of the master; returns once it is reaped.
  void KillMaster();

  // SIGTERM to every running daemon, then waits up to `grace` for each to
  // exit. OK when all exited with status 0; otherwise an error naming each
  // daemon that did not (those still running are then killed).
  absl::Status TerminateAll(absl::Duration grace);

  // Raw gRPC stubs, for what the Session API does not expose.
  std::unique_ptr<tensorflow::MasterService::Stub> NewMasterStub() const;
  std::unique_ptr<tensorflow::WorkerService::Stub> NewWorkerStub(
      const std::string& job, int task) const;

  // The last `max_lines` lines of every daemon's log, with headers.
  std::string LogTails(int max_lines = 80) const;
  // Prints LogTails() to stderr.
  void DumpLogs() const;

 private:
  struct Task {
    std::string job;
    int index;
    std::string address;
    std::unique_ptr<ChildProcess> process;
  };

  explicit TestCluster(ClusterOptions options) : options_(std::move(options)) {}

  Task* FindTask(const std::string& job, int task);
  const Task* FindTask(const std::string& job, int task) const;
  absl::Status SpawnWorker(Task* task);
  absl::Status SpawnMaster();
  absl::Status WaitForWorker(Task* task, absl::Time deadline);
  absl::Status WaitForMaster();
  std::vector<ChildProcess*> Processes() const;

  const ClusterOptions options_;
  std::string dir_;
  std::string log_dir_;
  std::string spec_path_;
  std::string spec_json_;
  std::vector<Task> tasks_;
  std::string master_address_;
  std::unique_ptr<ChildProcess> master_;
};

}  // namespace test
}  // namespace tributary

#endif  // TRIBUTARY_TESTS_DISTRIBUTED_CLUSTER_FIXTURE_H_
