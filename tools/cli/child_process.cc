#include "tools/cli/child_process.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <deque>
#include <fstream>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "absl/time/clock.h"
#include "common/framework/status.h"

extern char** environ;

namespace tributary {
namespace {

// How often WaitUntil looks at the child. waitpid has no timeout, and a
// launcher stopping a handful of daemons does not need better.
constexpr absl::Duration kPollInterval = absl::Milliseconds(10);

// Writes all of `data` to `fd`, retrying on EINTR; async-signal-safe.
void WriteAll(int fd, const void* data, size_t size) {
  const char* p = static_cast<const char*>(data);
  while (size > 0) {
    ssize_t n = write(fd, p, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    p += n;
    size -= static_cast<size_t>(n);
  }
}

absl::string_view VariableName(absl::string_view entry) {
  return entry.substr(0, entry.find('='));
}

// This process's environment without `options.unset_env` and the variables
// `options.set_env` replaces, then `options.set_env`. The pointers are into
// environ and `options`, which stay valid until the fork; the forked child
// has its own copy of both.
std::vector<char*> ChildEnvironment(const ChildProcessOptions& options) {
  absl::flat_hash_set<absl::string_view> dropped(options.unset_env.begin(),
                                                 options.unset_env.end());
  for (const std::string& entry : options.set_env) {
    dropped.insert(VariableName(entry));
  }
  std::vector<char*> envp;
  for (char** e = environ; *e != nullptr; ++e) {
    if (!dropped.contains(VariableName(*e))) envp.push_back(*e);
  }
  for (const std::string& entry : options.set_env) {
    envp.push_back(const_cast<char*>(entry.c_str()));
  }
  envp.push_back(nullptr);
  return envp;
}

// In the forked child, before exec: only async-signal-safe calls (the
// launcher has gRPC threads). Reports a failure's errno on `error_fd`.
[[noreturn]] void ExecChild(char* const* argv, char* const* envp, int log_fd,
                            int error_fd, int parent_death_signal,
                            pid_t parent) {
  setpgid(0, 0);
  prctl(PR_SET_PDEATHSIG, parent_death_signal);
  // The parent may have died before prctl took effect.
  if (getppid() != parent) _exit(1);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  struct sigaction dfl;
  memset(&dfl, 0, sizeof(dfl));
  dfl.sa_handler = SIG_DFL;
  sigaction(SIGPIPE, &dfl, nullptr);
  int null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (null_fd >= 0) dup2(null_fd, STDIN_FILENO);
  dup2(log_fd, STDOUT_FILENO);
  dup2(log_fd, STDERR_FILENO);
  execve(argv[0], argv, envp);
  int err = errno;
  WriteAll(error_fd, &err, sizeof(err));
  _exit(127);
}

}  // namespace

absl::StatusOr<std::unique_ptr<ChildProcess>> ChildProcess::Start(
    const std::vector<std::string>& argv, const std::string& log_path,
    const ChildProcessOptions& options) {
  if (argv.empty()) return errors::InvalidArgument("empty command line");
  int log_fd =
      open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (log_fd < 0) {
    return errors::NotFound("cannot open log file ", log_path, ": ",
                            strerror(errno));
  }
  // exec failure is reported through this pipe; a successful exec closes
  // it (O_CLOEXEC) and the parent reads EOF.
  int error_pipe[2];
  if (pipe2(error_pipe, O_CLOEXEC) != 0) {
    close(log_fd);
    return errors::Internal("pipe: ", strerror(errno));
  }
  std::vector<char*> c_argv;
  for (const std::string& arg : argv) {
    c_argv.push_back(const_cast<char*>(arg.c_str()));
  }
  c_argv.push_back(nullptr);
  // Built before fork: the child may only make async-signal-safe calls.
  const std::vector<char*> envp = ChildEnvironment(options);

  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) {
    const int err = errno;
    close(log_fd);
    close(error_pipe[0]);
    close(error_pipe[1]);
    return errors::ResourceExhausted("fork: ", strerror(err));
  }
  if (pid == 0) {
    ExecChild(c_argv.data(), envp.data(), log_fd, error_pipe[1],
              options.parent_death_signal, parent);
  }

  close(log_fd);
  close(error_pipe[1]);
  int child_errno = 0;
  ssize_t n;
  do {
    n = read(error_pipe[0], &child_errno, sizeof(child_errno));
  } while (n < 0 && errno == EINTR);
  close(error_pipe[0]);
  std::unique_ptr<ChildProcess> child(
      new ChildProcess(pid, options.name.empty() ? argv[0] : options.name,
                       log_path, absl::StrJoin(argv, " ")));
  if (n == static_cast<ssize_t>(sizeof(child_errno))) {
    child->WaitUntil(absl::InfiniteFuture());  // It _exits at once.
    return errors::FailedPrecondition("cannot execute ", argv[0], ": ",
                                      strerror(child_errno));
  }
  return child;
}

ChildProcess::~ChildProcess() { Kill(); }

void ChildProcess::Kill() {
  if (Running()) {
    Signal(SIGKILL);
    WaitUntil(absl::InfiniteFuture());  // SIGKILL cannot be ignored.
  }
}

bool ChildProcess::Running() {
  if (wait_status_.has_value()) return false;
  int status = 0;
  pid_t r;
  do {
    r = waitpid(pid_, &status, WNOHANG);
  } while (r < 0 && errno == EINTR);
  if (r == pid_) {
    wait_status_ = status;
    return false;
  }
  if (r < 0) {  // Not our child any more (ECHILD): treat as gone.
    wait_status_ = -1;
    return false;
  }
  return true;
}

std::string ChildProcess::ExitDescription() const {
  if (!wait_status_.has_value()) return "is running";
  const int s = *wait_status_;
  if (s == -1) return "exited (status unknown)";
  if (WIFEXITED(s)) return absl::StrCat("exited with status ", WEXITSTATUS(s));
  if (WIFSIGNALED(s)) {
    return absl::StrCat("was killed by signal ", WTERMSIG(s), " (",
                        strsignal(WTERMSIG(s)), ")");
  }
  return absl::StrCat("ended with wait status ", s);
}

std::optional<int> ChildProcess::ExitCode() const {
  if (!wait_status_.has_value() || *wait_status_ == -1) return std::nullopt;
  const int s = *wait_status_;
  if (WIFEXITED(s)) return WEXITSTATUS(s);
  if (WIFSIGNALED(s)) return 128 + WTERMSIG(s);
  return std::nullopt;
}

void ChildProcess::Signal(int signal) {
  if (Running()) kill(pid_, signal);
}

bool ChildProcess::WaitUntil(absl::Time deadline) {
  while (Running()) {
    if (absl::Now() >= deadline) return false;
    absl::SleepFor(kPollInterval);
  }
  return true;
}

std::vector<ChildProcess*> StopChildren(
    const std::vector<ChildProcess*>& children, absl::Duration grace) {
  for (ChildProcess* child : children) child->Signal(SIGTERM);
  const absl::Time deadline = absl::Now() + grace;
  std::vector<ChildProcess*> killed;
  for (ChildProcess* child : children) {
    if (!child->WaitUntil(deadline)) {
      child->Signal(SIGKILL);
      killed.push_back(child);
    }
  }
  for (ChildProcess* child : killed) child->WaitUntil(absl::InfiniteFuture());
  return killed;
}

std::string TailOfFile(const std::string& path, int max_lines) {
  std::ifstream in(path);
  if (!in) return "";
  std::deque<std::string> lines;
  std::string line;
  while (std::getline(in, line)) {
    lines.push_back(std::move(line));
    if (static_cast<int>(lines.size()) > max_lines) lines.pop_front();
  }
  std::string out;
  for (const std::string& l : lines) absl::StrAppend(&out, l, "\n");
  return out;
}

}  // namespace tributary
