#include "tools/cli/cluster_state.h"

#include <dirent.h>
#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/framework/status.h"

namespace tributary {
namespace {

using json = nlohmann::json;

constexpr char kPrefix[] = "cluster-";
constexpr char kSuffix[] = ".json";

// FNV-1a: stable across runs and builds (std::hash need not be).
uint64_t Fnv1a(const std::string& s) {
  uint64_t h = 14695981039346656037ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

// mkdir -p, owner-only for directories we create (the state names pids
// that `cluster down` will signal).
absl::Status MakeDirectories(const std::string& dir) {
  if (dir.empty()) return absl::OkStatus();
  struct stat st;
  if (stat(dir.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) return absl::OkStatus();
    return errors::FailedPrecondition(dir, " is not a directory");
  }
  const size_t slash = dir.find_last_of('/');
  if (slash != std::string::npos && slash > 0) {
    TRIB_RETURN_IF_ERROR(MakeDirectories(dir.substr(0, slash)));
  }
  if (mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
    return errors::PermissionDenied("cannot create directory ", dir, ": ",
                                    strerror(errno));
  }
  return absl::OkStatus();
}

}  // namespace

std::string StateDirectory(const std::string& flag) {
  if (!flag.empty()) return flag;
  if (const char* dir = std::getenv("TRIBUTARY_STATE_DIR"); dir && *dir) {
    return dir;
  }
  if (const char* run = std::getenv("XDG_RUNTIME_DIR"); run && *run) {
    return absl::StrCat(run, "/tributary");
  }
  return absl::StrCat("/tmp/tributary-", getuid());
}

std::string StateFilePath(const std::string& state_dir,
                          const std::string& cluster_file) {
  return absl::StrCat(state_dir, "/", kPrefix,
                      absl::StrFormat("%016x", Fnv1a(cluster_file)), kSuffix);
}

absl::Status WriteClusterState(const std::string& path,
                               const ClusterState& state) {
  const size_t slash = path.find_last_of('/');
  if (slash != std::string::npos) {
    TRIB_RETURN_IF_ERROR(MakeDirectories(path.substr(0, slash)));
  }
  json children = json::array();
  for (const ClusterState::Child& c : state.children) {
    children.push_back({{"name", c.name},
                        {"pid", c.pid},
                        {"binary", c.binary},
                        {"log", c.log}});
  }
  json doc = {{"pid", state.pid},
              {"cluster_file", state.cluster_file},
              {"master_target", state.master_target},
              {"log_dir", state.log_dir},
              {"children", children}};
  if (!state.tls_ca.empty()) {
    doc["tls_ca"] = state.tls_ca;
    doc["tls_cert"] = state.tls_cert;
    doc["tls_key"] = state.tls_key;
  }
  const std::string tmp = absl::StrCat(path, ".tmp.", getpid());
  {
    std::ofstream out(tmp, std::ios::trunc);
    if (!out) return errors::PermissionDenied("cannot write ", tmp);
    out << doc.dump(2) << "\n";
    if (!out) return errors::Internal("writing ", tmp, " failed");
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    std::remove(tmp.c_str());
    return errors::Internal("cannot rename ", tmp, " to ", path, ": ",
                            strerror(err));
  }
  return absl::OkStatus();
}

absl::StatusOr<ClusterState> ReadClusterState(const std::string& path) {
  std::ifstream in(path);
  if (!in) return errors::NotFound("no cluster state file ", path);
  std::stringstream text;
  text << in.rdbuf();
  const json doc = json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
  auto bad = [&path](const std::string& what) {
    return errors::DataLoss("cluster state file ", path, " is corrupt: ", what);
  };
  if (!doc.is_object()) return bad("not a JSON object");
  ClusterState state;
  if (!doc.contains("pid") || !doc["pid"].is_number_integer()) {
    return bad("no integer \"pid\"");
  }
  state.pid = doc["pid"].get<int>();
  auto string_field = [](const json& j, const char* key) {
    return j.contains(key) && j[key].is_string() ? j[key].get<std::string>()
                                                 : std::string();
  };
  state.cluster_file = string_field(doc, "cluster_file");
  state.master_target = string_field(doc, "master_target");
  state.log_dir = string_field(doc, "log_dir");
  state.tls_ca = string_field(doc, "tls_ca");
  state.tls_cert = string_field(doc, "tls_cert");
  state.tls_key = string_field(doc, "tls_key");
  if (doc.contains("children")) {
    if (!doc["children"].is_array()) return bad("\"children\" is not a list");
    for (const json& c : doc["children"]) {
      if (!c.is_object() || !c.contains("pid") ||
          !c["pid"].is_number_integer()) {
        return bad("a child without an integer \"pid\"");
      }
      ClusterState::Child child;
      child.pid = c["pid"].get<int>();
      child.name = string_field(c, "name");
      child.binary = string_field(c, "binary");
      child.log = string_field(c, "log");
      state.children.push_back(std::move(child));
    }
  }
  return state;
}

std::vector<std::string> ListStateFiles(const std::string& state_dir) {
  std::vector<std::string> files;
  DIR* d = opendir(state_dir.c_str());
  if (d == nullptr) return files;
  while (struct dirent* e = readdir(d)) {
    const std::string name = e->d_name;
    if (absl::StartsWith(name, kPrefix) && absl::EndsWith(name, kSuffix)) {
      files.push_back(absl::StrCat(state_dir, "/", name));
    }
  }
  closedir(d);
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace tributary
