#include "common/metrics/process_collector.h"

#include <dirent.h>
#include <sys/resource.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"

namespace tributary {
namespace metrics {
namespace {

std::string ReadFile(const char* path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The fields of /proc/self/stat after the command name, numbered as in
// proc(5) from field 3 (state) on.
std::vector<std::string> StatFields() {
  const std::string stat = ReadFile("/proc/self/stat");
  const size_t close = stat.rfind(')');
  if (close == std::string::npos) return {};
  return absl::StrSplit(stat.substr(close + 2), ' ', absl::SkipEmpty());
}

double Field(const std::vector<std::string>& fields, int number) {
  const size_t index = number - 3;
  double value = 0;
  if (index >= fields.size() || !absl::SimpleAtod(fields[index], &value)) {
    return -1;
  }
  return value;
}

int CountOpenFds() {
  DIR* dir = opendir("/proc/self/fd");
  if (dir == nullptr) return -1;
  int count = 0;
  while (dirent* entry = readdir(dir)) {
    if (entry->d_name[0] != '.') ++count;
  }
  closedir(dir);
  return count - 1;  // the directory stream's own descriptor
}

double BootTimeSeconds() {
  std::istringstream stat(ReadFile("/proc/stat"));
  std::string line;
  while (std::getline(stat, line)) {
    double value;
    if (line.rfind("btime ", 0) == 0 &&
        absl::SimpleAtod(line.substr(6), &value)) {
      return value;
    }
  }
  return -1;
}

void Add(std::vector<CollectedFamily>* out, const char* name, const char* help,
         const char* type, double value) {
  if (value < 0) return;
  out->push_back(CollectedFamily{name, help, type, {Sample{{}, value}}});
}

void Collect(std::vector<CollectedFamily>* out) {
  const double ticks = static_cast<double>(sysconf(_SC_CLK_TCK));
  const double page = static_cast<double>(sysconf(_SC_PAGESIZE));
  const std::vector<std::string> fields = StatFields();
  const double utime = Field(fields, 14), stime = Field(fields, 15);
  if (utime >= 0 && stime >= 0) {
    Add(out, "process_cpu_seconds_total",
        "User and system CPU time spent in seconds.", "counter",
        (utime + stime) / ticks);
  }
  Add(out, "process_threads", "Number of OS threads in the process.", "gauge",
      Field(fields, 20));
  const double vsize = Field(fields, 23), rss = Field(fields, 24);
  Add(out, "process_virtual_memory_bytes", "Virtual memory size in bytes.",
      "gauge", vsize);
  Add(out, "process_resident_memory_bytes", "Resident memory size in bytes.",
      "gauge", rss < 0 ? -1 : rss * page);
  const double start_ticks = Field(fields, 22), boot = BootTimeSeconds();
  if (start_ticks >= 0 && boot >= 0) {
    Add(out, "process_start_time_seconds",
        "Start time of the process since unix epoch in seconds.", "gauge",
        boot + start_ticks / ticks);
  }
  Add(out, "process_open_fds", "Number of open file descriptors.", "gauge",
      CountOpenFds());
  rlimit limit;
  if (getrlimit(RLIMIT_NOFILE, &limit) == 0 &&
      limit.rlim_cur != RLIM_INFINITY) {
    Add(out, "process_max_fds", "Maximum number of open file descriptors.",
        "gauge", static_cast<double>(limit.rlim_cur));
  }
}

}  // namespace

void AddProcessCollector(Registry* registry) {
  static absl::Mutex mu(absl::kConstInit);
  static auto* added = new absl::flat_hash_set<Registry*>;
  absl::MutexLock l(&mu);
  if (!added->insert(registry).second) return;
  registry->AddCollector(Collect);
}

}  // namespace metrics
}  // namespace tributary
