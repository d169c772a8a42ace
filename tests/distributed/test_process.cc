#include "tests/distributed/test_process.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"

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
  if (mkdtemp(templ.data()) == nullptr) {
    ADD_FAILURE() << "mkdtemp " << templ << ": " << ErrnoText();
    return "/tmp";
  }
  return templ;
}

ChildProcessOptions TestProcessOptions(const std::string& name,
                                       const std::vector<std::string>& env) {
  ChildProcessOptions options;
  options.name = name;
  options.parent_death_signal = SIGKILL;
  options.unset_env = {"TF_CONFIG"};
  options.set_env = env;
  return options;
}

absl::StatusOr<std::unique_ptr<ChildProcess>> StartTestProcess(
    const std::string& name, const std::vector<std::string>& argv,
    const std::string& log_path, const std::vector<std::string>& env) {
  {
    // Marks where this run's output starts in a log a restart appends to.
    std::ofstream log(log_path, std::ios::app);
    log << "==== started: " << absl::StrJoin(argv, " ") << " ====\n";
  }
  return ChildProcess::Start(argv, log_path, TestProcessOptions(name, env));
}

std::string ReadLog(const ChildProcess& process) {
  return ReadFile(process.log_path());
}

absl::StatusOr<ExitResult> RunToExit(const std::string& binary,
                                     const std::vector<std::string>& args,
                                     absl::Duration timeout,
                                     const std::vector<std::string>& env) {
  const std::string log = MakeTempDir("run_to_exit") + "/output.log";
  std::vector<std::string> argv = {binary};
  argv.insert(argv.end(), args.begin(), args.end());
  auto child = ChildProcess::Start(argv, log, TestProcessOptions(binary, env));
  if (!child.ok()) return child.status();
  if (!(*child)->WaitUntil(absl::Now() + timeout)) {
    (*child)->Kill();
    return absl::DeadlineExceededError(absl::StrCat(
        (*child)->command_line(), " did not exit within ",
        absl::FormatDuration(timeout), "; output:\n", ReadLog(**child)));
  }
  return ExitResult{(*child)->ExitCode().value_or(-1), ReadLog(**child)};
}

}  // namespace test
}  // namespace tributary
