#include "common/framework/file_access_policy.h"

#include <dirent.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace tributary {
namespace {

std::string RealPath(const std::string& path, int* error) {
  char buf[PATH_MAX];
  if (realpath(path.c_str(), buf) == nullptr) {
    *error = errno;
    return "";
  }
  *error = 0;
  return buf;
}

bool IsUnder(const std::string& path, const std::string& dir) {
  if (dir == "/") return true;
  return path == dir ||
         (absl::StartsWith(path, dir) && path.size() > dir.size() &&
          path[dir.size()] == '/');
}

}  // namespace

absl::StatusOr<FileAccessPolicy> FileAccessPolicy::Create(
    const std::vector<std::string>& dirs) {
  FileAccessPolicy policy;
  for (const std::string& dir : dirs) {
    if (dir.empty()) {
      return absl::InvalidArgumentError("--allowed-path: empty directory");
    }
    int error = 0;
    std::string real = RealPath(dir, &error);
    if (real.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--allowed-path ", dir, ": ", std::strerror(error)));
    }
    struct stat st;
    if (stat(real.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
      return absl::InvalidArgumentError(
          absl::StrCat("--allowed-path ", dir, ": not a directory"));
    }
    policy.dirs_.push_back(std::move(real));
  }
  return policy;
}

absl::StatusOr<std::string> FileAccessPolicy::Resolve(absl::string_view path) {
  if (path.empty()) return absl::InvalidArgumentError("empty path");
  std::string p(path);
  if (p[0] != '/') {
    char cwd[PATH_MAX];
    if (getcwd(cwd, sizeof(cwd)) == nullptr) {
      return absl::InternalError("cannot read the working directory");
    }
    p = absl::StrCat(cwd, "/", p);
  }
  // Walk up to the deepest ancestor that exists; the parts below it must be
  // plain names (no "..", which would climb out of what was resolved).
  std::vector<std::string> missing;
  std::string existing = p;
  while (true) {
    int error = 0;
    std::string real = RealPath(existing, &error);
    if (!real.empty()) {
      for (auto it = missing.rbegin(); it != missing.rend(); ++it) {
        if (real.back() != '/') real += '/';
        real += *it;
      }
      return real;
    }
    if (error != ENOENT && error != ENOTDIR) {
      return absl::PermissionDeniedError(
          absl::StrCat("cannot resolve '", path, "': ", std::strerror(error)));
    }
    while (existing.size() > 1 && existing.back() == '/') existing.pop_back();
    const size_t slash = existing.rfind('/');
    if (slash == std::string::npos) {
      return absl::InternalError(absl::StrCat("cannot resolve '", path, "'"));
    }
    const std::string name = existing.substr(slash + 1);
    if (name == "..") {
      return absl::PermissionDeniedError(absl::StrCat(
          "'", path, "' climbs (..) out of a directory that does not exist"));
    }
    if (!name.empty() && name != ".") missing.push_back(name);
    existing = slash == 0 ? "/" : existing.substr(0, slash);
  }
}

absl::Status FileAccessPolicy::Check(absl::string_view path,
                                     absl::string_view op) const {
  if (!restricted()) return absl::OkStatus();
  absl::StatusOr<std::string> real = Resolve(path);
  if (!real.ok()) {
    return absl::PermissionDeniedError(
        absl::StrCat(op, " may not touch '", path, "': ", real.status().message()));
  }
  for (const std::string& dir : dirs_) {
    if (IsUnder(*real, dir)) return absl::OkStatus();
  }
  return absl::PermissionDeniedError(absl::StrCat(
      op, " may not touch '", path, "' (resolved: ", *real,
      "): it is not under an --allowed-path directory of this task (",
      absl::StrJoin(dirs_, ", "), ")"));
}

absl::Status FileAccessPolicy::CheckCheckpointPrefix(
    absl::string_view prefix, absl::string_view op) const {
  if (!restricted()) return absl::OkStatus();
  // The prefix itself: where its files go.
  if (absl::Status s = Check(prefix, op); !s.ok()) return s;
  // Its existing files, each resolved (a symlink named PREFIX.index that
  // points elsewhere is refused).
  const std::string p(prefix);
  const size_t slash = p.rfind('/');
  const std::string dir =
      slash == std::string::npos ? "." : (slash == 0 ? "/" : p.substr(0, slash));
  const std::string base = slash == std::string::npos ? p : p.substr(slash + 1);
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return absl::OkStatus();  // Nothing there yet.
  absl::Status result;
  while (struct dirent* e = readdir(d)) {
    const absl::string_view name = e->d_name;
    if (!absl::StartsWith(name, base) || name.size() == base.size()) continue;
    const absl::string_view rest = name.substr(base.size());
    if (!absl::StartsWith(rest, ".index") && !absl::StartsWith(rest, ".data-")) {
      continue;
    }
    result = Check(absl::StrCat(dir, "/", name), op);
    if (!result.ok()) break;
  }
  closedir(d);
  return result;
}

}  // namespace tributary
