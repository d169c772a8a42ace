#include "tests/distributed/cluster_fixture.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/security/credentials.h"
#include "grpcpp/support/channel_arguments.h"
#include "gtest/gtest.h"

extern char** environ;

namespace tributary {
namespace test {
namespace {

std::string ErrnoText() { return std::strerror(errno); }

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string Tail(const std::string& text, int max_lines) {
  std::vector<absl::string_view> lines = absl::StrSplit(text, '\n');
  if (!lines.empty() && lines.back().empty()) lines.pop_back();
  const size_t start = lines.size() > static_cast<size_t>(max_lines)
                           ? lines.size() - max_lines
                           : 0;
  std::string out = start > 0 ? absl::StrCat("[... ", start, " lines]\n") : "";
  for (size_t i = start; i < lines.size(); ++i) {
    absl::StrAppend(&out, lines[i], "\n");
  }
  return out;
}

// Exit code the way a shell reports it.
int DecodeWaitStatus(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

std::string TaskName(const std::string& job, int task) {
  return absl::StrCat("/job:", job, "/replica:0/task:", task);
}

}  // namespace

std::string RunfilePath(const std::string& workspace_relative) {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  const char* workspace = std::getenv("TEST_WORKSPACE");
  if (srcdir != nullptr) {
    return absl::StrCat(srcdir, "/", workspace ? workspace : "tributary", "/",
                        workspace_relative);
  }
  // Run by hand: <binary>.runfiles next to the test binary.
  char self[4096];
  const ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
  if (n > 0) {
    self[n] = '\0';
    std::string candidate =
        absl::StrCat(self, ".runfiles/tributary/", workspace_relative);
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return workspace_relative;
}

std::string WorkerBinary() { return RunfilePath("worker/tributary-worker"); }
std::string MasterBinary() { return RunfilePath("master/tributary-master"); }

absl::StatusOr<std::vector<int>> PickFreePorts(int count) {
  std::vector<int> fds, ports;
  absl::Status status;
  for (int i = 0; i < count && status.ok(); ++i) {
    const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
      status = absl::InternalError(absl::StrCat("socket: ", ErrnoText()));
      break;
    }
    fds.push_back(fd);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = 0;
    socklen_t len = sizeof(addr);
    if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
        getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
      status = absl::InternalError(absl::StrCat("bind: ", ErrnoText()));
      break;
    }
    ports.push_back(ntohs(addr.sin_port));
  }
  // Held together until here, so the ports are distinct; closing an unused,
  // never-listened socket leaves no TIME_WAIT behind to block the daemons.
  for (int fd : fds) close(fd);
  if (!status.ok()) return status;
  return ports;
}

std::string MakeTempDir(const std::string& prefix) {
  const char* base = std::getenv("TEST_TMPDIR");
  std::string templ =
      absl::StrCat(base ? base : "/tmp", "/", prefix, ".XXXXXX");
  std::vector<char> buf(templ.begin(), templ.end());
  buf.push_back('\0');
  if (mkdtemp(buf.data()) == nullptr) {
    ADD_FAILURE() << "mkdtemp " << templ << ": " << ErrnoText();
    return "/tmp";
  }
  return std::string(buf.data());
}

std::shared_ptr<grpc::Channel> NewTestChannel(const std::string& address) {
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(-1);
  args.SetMaxSendMessageSize(-1);
  // A private subchannel pool and short reconnect backoff: a daemon that has
  // just started (or restarted) is reached at once, not after gRPC's default
  // 1 s..120 s backoff left over from an earlier attempt.
  args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 50);
  args.SetInt(GRPC_ARG_MIN_RECONNECT_BACKOFF_MS, 50);
  args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 500);
  return grpc::CreateCustomChannel(address, grpc::InsecureChannelCredentials(),
                                   args);
}

// ---- ChildProcess -----------------------------------------------------------

absl::StatusOr<std::unique_ptr<ChildProcess>> ChildProcess::Spawn(
    const std::string& name, const std::string& binary,
    const std::vector<std::string>& args, const std::string& log_path,
    const std::vector<std::string>& env) {
  if (access(binary.c_str(), X_OK) != 0) {
    return absl::NotFoundError(
        absl::StrCat("cannot execute ", binary, ": ", ErrnoText()));
  }
  // Everything the child needs is prepared before fork(): between fork and
  // exec only async-signal-safe calls are allowed (this process has threads).
  std::vector<std::string> argv_strings = {binary};
  argv_strings.insert(argv_strings.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& s : argv_strings) argv.push_back(s.data());
  argv.push_back(nullptr);
  // The daemons read TF_CONFIG when it is set; the test's flags must decide.
  std::vector<char*> envp;
  for (char** e = environ; *e != nullptr; ++e) {
    if (std::strncmp(*e, "TF_CONFIG=", 10) != 0) envp.push_back(*e);
  }
  std::vector<std::string> extra_env = env;
  for (auto& e : extra_env) envp.push_back(e.data());
  envp.push_back(nullptr);

  const int log_fd =
      open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (log_fd < 0) {
    return absl::InternalError(
        absl::StrCat("open ", log_path, ": ", ErrnoText()));
  }
  const std::string header = absl::StrCat(
      "==== started: ", absl::StrJoin(argv_strings, " "), " ====\n");
  (void)!write(log_fd, header.data(), header.size());
  const int null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
  const pid_t parent = getpid();

  const pid_t pid = fork();
  if (pid < 0) {
    close(log_fd);
    if (null_fd >= 0) close(null_fd);
    return absl::InternalError(absl::StrCat("fork: ", ErrnoText()));
  }
  if (pid == 0) {
    // Die with the test (see the header); if it already died, do not run.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    if (null_fd >= 0) dup2(null_fd, STDIN_FILENO);
    dup2(log_fd, STDOUT_FILENO);
    dup2(log_fd, STDERR_FILENO);
    execve(argv[0], argv.data(), envp.data());
    static const char kExecFailed[] = "exec failed\n";
    (void)!write(STDERR_FILENO, kExecFailed, sizeof(kExecFailed) - 1);
    _exit(127);
  }
  close(log_fd);
  if (null_fd >= 0) close(null_fd);
  return std::unique_ptr<ChildProcess>(
      new ChildProcess(name, binary, args, log_path, pid));
}

ChildProcess::~ChildProcess() { Kill(); }

std::string ChildProcess::CommandLine() const {
  return absl::StrCat(binary_, " ", absl::StrJoin(args_, " "));
}

bool ChildProcess::Running() {
  if (exited_) return false;
  int status = 0;
  const pid_t r = waitpid(pid_, &status, WNOHANG);
  if (r == pid_) {
    exited_ = true;
    exit_code_ = DecodeWaitStatus(status);
  } else if (r < 0 && errno == ECHILD) {
    exited_ = true;  // Reaped elsewhere; the code is unknown.
  }
  return !exited_;
}

absl::StatusOr<int> ChildProcess::ExitCode() const {
  if (!exited_) {
    return absl::FailedPreconditionError(name_ + " has not exited");
  }
  return exit_code_;
}

absl::StatusOr<int> ChildProcess::WaitForExit(absl::Duration timeout) {
  const absl::Time deadline = absl::Now() + timeout;
  // Polled: a child's exit cannot be waited for with a timeout otherwise
  // (no pidfd on every kernel these tests run on).
  while (Running()) {
    if (absl::Now() >= deadline) {
      return absl::DeadlineExceededError(
          absl::StrCat(name_, " (pid ", pid_, ") did not exit within ",
                       absl::FormatDuration(timeout)));
    }
    absl::SleepFor(absl::Milliseconds(10));
  }
  return exit_code_;
}

absl::Status ChildProcess::SendSignal(int signal) {
  if (!Running()) {
    return absl::FailedPreconditionError(
        absl::StrCat(name_, " already exited with ", exit_code_));
  }
  if (kill(pid_, signal) != 0) {
    return absl::InternalError(absl::StrCat("kill ", pid_, ": ", ErrnoText()));
  }
  return absl::OkStatus();
}

void ChildProcess::Kill() {
  if (!Running()) return;
  kill(pid_, SIGKILL);
  int status = 0;
  // SIGKILL cannot be caught; the wait ends as soon as the kernel tears the
  // process down.
  if (waitpid(pid_, &status, 0) == pid_) exit_code_ = DecodeWaitStatus(status);
  exited_ = true;
}

std::string ChildProcess::ReadLog() const { return ReadFile(log_path_); }

absl::StatusOr<ExitResult> RunToExit(const std::string& binary,
                                     const std::vector<std::string>& args,
                                     absl::Duration timeout,
                                     const std::vector<std::string>& env) {
  static int counter = 0;
  const std::string log =
      absl::StrCat(MakeTempDir("run_to_exit"), "/out", ++counter, ".log");
  auto child = ChildProcess::Spawn("command", binary, args, log, env);
  if (!child.ok()) return child.status();
  absl::StatusOr<int> code = (*child)->WaitForExit(timeout);
  if (!code.ok()) {
    (*child)->Kill();
    return absl::DeadlineExceededError(absl::StrCat(
        code.status().message(), "; output:\n", (*child)->ReadLog()));
  }
  // Without the header line the fixture wrote.
  std::string output = (*child)->ReadLog();
  const size_t newline = output.find('\n');
  if (newline != std::string::npos) output.erase(0, newline + 1);
  return ExitResult{*code, std::move(output)};
}

// ---- TestCluster ------------------------------------------------------------

absl::StatusOr<std::unique_ptr<TestCluster>> TestCluster::Start(
    const ClusterOptions& options) {
  std::unique_ptr<TestCluster> cluster(new TestCluster(options));
  cluster->dir_ = MakeTempDir("cluster");
  const char* outputs = std::getenv("TEST_UNDECLARED_OUTPUTS_DIR");
  if (outputs != nullptr) {
    std::string templ = absl::StrCat(outputs, "/cluster_logs.XXXXXX");
    std::vector<char> buf(templ.begin(), templ.end());
    buf.push_back('\0');
    if (mkdtemp(buf.data()) != nullptr) cluster->log_dir_ = buf.data();
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
  auto with_logs = [&](const absl::Status& s) {
    return absl::Status(s.code(),
                        absl::StrCat(s.message(), "\n", cluster->LogTails()));
  };
  for (Task& task : cluster->tasks_) {
    absl::Status s = cluster->SpawnWorker(&task);
    if (!s.ok()) return with_logs(s);
  }
  for (Task& task : cluster->tasks_) {
    absl::Status s = cluster->WaitForWorker(&task, deadline);
    if (!s.ok()) return with_logs(s);
  }
  if (options.start_master) {
    absl::Status s = cluster->SpawnMaster();
    if (s.ok()) {
      s = cluster->WaitForMaster(absl::Now() + options.start_timeout);
    }
    if (!s.ok()) return with_logs(s);
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
  std::vector<std::string> args = {"--cluster", spec_path_,
                                   "--job",     task->job,
                                   "--task",    absl::StrCat(task->index)};
  args.insert(args.end(), options_.worker_flags.begin(),
              options_.worker_flags.end());
  const std::string name = absl::StrCat(task->job, "-", task->index);
  auto process = ChildProcess::Spawn(name, WorkerBinary(), args,
                                     absl::StrCat(log_dir_, "/", name, ".log"));
  if (!process.ok()) return process.status();
  task->process = std::move(process).value();
  ++spawn_count_;
  return absl::OkStatus();
}

absl::Status TestCluster::SpawnMaster() {
  std::vector<std::string> args = {"--cluster", spec_path_, "--listen",
                                   master_address_};
  args.insert(args.end(), options_.master_flags.begin(),
              options_.master_flags.end());
  auto process = ChildProcess::Spawn("master", MasterBinary(), args,
                                     log_dir_ + "/master.log");
  if (!process.ok()) return process.status();
  master_ = std::move(process).value();
  return absl::OkStatus();
}

absl::Status TestCluster::WaitForWorker(Task* task, absl::Time deadline) {
  auto stub = tensorflow::WorkerService::NewStub(NewTestChannel(task->address));
  absl::Status last = absl::UnknownError("no attempt");
  while (true) {
    if (!task->process->Running()) {
      return absl::FailedPreconditionError(absl::StrCat(
          "worker ", task->process->name(), " (", task->process->CommandLine(),
          ") exited with ", task->process->ExitCode().value_or(-1),
          " before answering GetStatus"));
    }
    grpc::ClientContext ctx;
    ctx.set_wait_for_ready(true);
    ctx.set_deadline(
        absl::ToChronoTime(std::min(deadline, absl::Now() + absl::Seconds(1))));
    tensorflow::GetStatusRequest req;
    tensorflow::GetStatusResponse resp;
    grpc::Status s = stub->GetStatus(&ctx, req, &resp);
    if (s.ok()) {
      if (resp.device_attributes_size() == 0) {
        return absl::InternalError(
            absl::StrCat("worker ", task->process->name(),
                         " lists no devices in GetStatus"));
      }
      return absl::OkStatus();
    }
    last = absl::Status(static_cast<absl::StatusCode>(s.error_code()),
                        s.error_message());
    if (absl::Now() >= deadline) {
      return absl::DeadlineExceededError(
          absl::StrCat("worker ", task->process->name(), " at ", task->address,
                       " did not answer GetStatus in time: ", last.ToString()));
    }
  }
}

absl::Status TestCluster::WaitForMaster(absl::Time deadline) {
  auto stub =
      tensorflow::MasterService::NewStub(NewTestChannel(master_address_));
  absl::Status last = absl::UnknownError("no attempt");
  while (true) {
    if (!master_->Running()) {
      return absl::FailedPreconditionError(absl::StrCat(
          "master (", master_->CommandLine(), ") exited with ",
          master_->ExitCode().value_or(-1), " before answering ListDevices"));
    }
    grpc::ClientContext ctx;
    ctx.set_wait_for_ready(true);
    // ListDevices asks every worker; give it more than one reconnect period.
    ctx.set_deadline(
        absl::ToChronoTime(std::min(deadline, absl::Now() + absl::Seconds(5))));
    tensorflow::ListDevicesRequest req;
    tensorflow::ListDevicesResponse resp;
    grpc::Status s = stub->ListDevices(&ctx, req, &resp);
    if (s.ok()) return absl::OkStatus();
    last = absl::Status(static_cast<absl::StatusCode>(s.error_code()),
                        s.error_message());
    if (absl::Now() >= deadline) {
      return absl::DeadlineExceededError(absl::StrCat(
          "master at ", master_address_,
          " did not answer ListDevices in time: ", last.ToString()));
    }
  }
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
  if (!s.ok()) {
    return absl::Status(s.code(), absl::StrCat(s.message(), "\n", LogTails()));
  }
  return absl::OkStatus();
}

bool TestCluster::TaskRunning(const std::string& job, int task) {
  Task* t = FindTask(job, task);
  return t != nullptr && t->process && t->process->Running();
}

std::vector<pid_t> TestCluster::Pids() const {
  std::vector<pid_t> pids;
  for (ChildProcess* p : Processes()) pids.push_back(p->pid());
  return pids;
}

bool TestCluster::MasterRunning() { return master_ && master_->Running(); }

std::vector<ChildProcess*> TestCluster::Processes() const {
  std::vector<ChildProcess*> out;
  for (const Task& t : tasks_) {
    if (t.process) out.push_back(t.process.get());
  }
  if (master_) out.push_back(master_.get());
  return out;
}

absl::Status TestCluster::TerminateAll(absl::Duration grace) {
  std::vector<ChildProcess*> signalled;
  for (ChildProcess* p : Processes()) {
    if (p->Running() && p->SendSignal(SIGTERM).ok()) signalled.push_back(p);
  }
  const absl::Time deadline = absl::Now() + grace;
  std::vector<std::string> problems;
  for (ChildProcess* p : signalled) {
    absl::StatusOr<int> code =
        p->WaitForExit(std::max(absl::ZeroDuration(), deadline - absl::Now()));
    if (!code.ok()) {
      problems.push_back(absl::StrCat(p->name(), " did not exit within ",
                                      absl::FormatDuration(grace),
                                      " of SIGTERM (killed)"));
      p->Kill();
    } else if (*code != 0) {
      problems.push_back(
          absl::StrCat(p->name(), " exited with ", *code, " after SIGTERM"));
    }
  }
  if (problems.empty()) return absl::OkStatus();
  return absl::InternalError(
      absl::StrCat(absl::StrJoin(problems, "; "), "\n", LogTails()));
}

std::unique_ptr<tensorflow::MasterService::Stub> TestCluster::NewMasterStub()
    const {
  return tensorflow::MasterService::NewStub(NewTestChannel(master_address_));
}

std::unique_ptr<tensorflow::WorkerService::Stub> TestCluster::NewWorkerStub(
    const std::string& job, int task) const {
  return tensorflow::WorkerService::NewStub(
      NewTestChannel(TaskAddress(job, task)));
}

std::string TestCluster::LogTails(int max_lines) const {
  std::string out;
  for (ChildProcess* p : Processes()) {
    absl::StrAppend(&out, "---- ", p->name(), " (", p->log_path(), ") ----\n",
                    Tail(p->ReadLog(), max_lines));
  }
  return out;
}

void TestCluster::DumpLogs() const {
  std::cerr << "Cluster logs (full files in " << log_dir_ << "):\n"
            << LogTails() << std::flush;
}

}  // namespace test
}  // namespace tributary
