#include "tools/cli/binary_locator.h"

#include <dirent.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "common/framework/status.h"

namespace tributary {
namespace {

// How far up from the tributary binary the Bazel layout is searched:
// bazel-bin/tools/cli/tributary needs two levels.
constexpr int kMaxAncestors = 3;

bool IsExecutableFile(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
         access(path.c_str(), X_OK) == 0;
}

std::string Dirname(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

// Subdirectories of `dir` (the workspaces of a runfiles tree).
std::vector<std::string> Subdirectories(const std::string& dir) {
  std::vector<std::string> out;
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return out;
  while (struct dirent* e = readdir(d)) {
    const std::string name = e->d_name;
    if (name == "." || name == "..") continue;
    const std::string full = absl::StrCat(dir, "/", name);
    struct stat st;
    if (stat(full.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
      out.push_back(full);
    }
  }
  closedir(d);
  return out;
}

}  // namespace

std::string SelfExecutablePath() {
  char buf[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  if (n <= 0) return "";
  return std::string(buf, static_cast<size_t>(n));
}

std::string AbsolutePath(const std::string& path) {
  if (path.empty() || path[0] == '/') return path;
  char cwd[PATH_MAX];
  if (getcwd(cwd, sizeof(cwd)) == nullptr) return path;
  return absl::StrCat(cwd, "/", path);
}

absl::StatusOr<std::string> LocateDaemonBinary(const DaemonBinary& daemon,
                                               const std::string& explicit_path,
                                               const std::string& self_path,
                                               const std::string& path_env) {
  if (!explicit_path.empty()) {
    if (IsExecutableFile(explicit_path)) return AbsolutePath(explicit_path);
    return errors::NotFound(daemon.flag, " ", explicit_path,
                            " is not an executable file");
  }
  std::vector<std::string> candidates;
  if (!self_path.empty()) {
    std::string dir = Dirname(self_path);
    candidates.push_back(absl::StrCat(dir, "/", daemon.name));
    for (int i = 0; i <= kMaxAncestors; ++i) {
      candidates.push_back(
          absl::StrCat(dir, "/", daemon.package, "/", daemon.name));
      const std::string up = Dirname(dir);
      if (up == dir) break;
      dir = up;
    }
    for (const std::string& workspace :
         Subdirectories(absl::StrCat(self_path, ".runfiles"))) {
      candidates.push_back(
          absl::StrCat(workspace, "/", daemon.package, "/", daemon.name));
    }
  }
  for (absl::string_view dir : absl::StrSplit(path_env, ':')) {
    if (dir.empty()) continue;
    candidates.push_back(absl::StrCat(dir, "/", daemon.name));
  }
  for (const std::string& candidate : candidates) {
    if (IsExecutableFile(candidate)) return candidate;
  }
  return errors::NotFound("Cannot find ", daemon.name,
                          " (looked in: ", absl::StrJoin(candidates, ", "),
                          "); build it (bazel build //", daemon.package, ":",
                          daemon.name, ") or give ", daemon.flag);
}

}  // namespace tributary
