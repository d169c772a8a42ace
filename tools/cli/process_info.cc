#include "tools/cli/process_info.h"

#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"

namespace tributary {
namespace {

// Polling: a process that is not our child cannot be waited for.
constexpr absl::Duration kPollInterval = absl::Milliseconds(20);

}  // namespace

bool ProcessAlive(pid_t pid) {
  if (pid <= 0) return false;
  std::ifstream stat(absl::StrCat("/proc/", pid, "/stat"));
  if (!stat) return false;
  std::string text((std::istreambuf_iterator<char>(stat)),
                   std::istreambuf_iterator<char>());
  // "pid (comm) S ...": the state follows the last ')' (comm may hold one).
  const size_t paren = text.rfind(')');
  if (paren == std::string::npos || paren + 2 >= text.size()) return false;
  const char state = text[paren + 2];
  return state != 'Z' && state != 'X';
}

std::string ProcessExecutable(pid_t pid) {
  char buf[PATH_MAX];
  const std::string link = absl::StrCat("/proc/", pid, "/exe");
  const ssize_t n = readlink(link.c_str(), buf, sizeof(buf) - 1);
  if (n <= 0) return "";
  return std::string(buf, static_cast<size_t>(n));
}

std::vector<std::string> ProcessCommandLine(pid_t pid) {
  std::ifstream in(absl::StrCat("/proc/", pid, "/cmdline"));
  std::vector<std::string> args;
  std::string arg;
  while (std::getline(in, arg, '\0')) {
    if (!arg.empty()) args.push_back(arg);
  }
  return args;
}

bool WaitForProcessExit(pid_t pid, absl::Time deadline) {
  while (ProcessAlive(pid)) {
    if (absl::Now() >= deadline) return false;
    absl::SleepFor(kPollInterval);
  }
  return true;
}

std::string RealPathOr(const std::string& path) {
  char buf[PATH_MAX];
  if (realpath(path.c_str(), buf) == nullptr) return path;
  return buf;
}

}  // namespace tributary
