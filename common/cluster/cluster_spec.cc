#include "common/cluster/cluster_spec.h"

#include <nlohmann/json.hpp>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/framework/status.h"

namespace tributary {

absl::StatusOr<ClusterSpec> ClusterSpec::FromClusterDef(
    const tensorflow::ClusterDef& cluster) {
  TRIB_RETURN_IF_ERROR(ValidateClusterDef(cluster));
  ClusterSpec spec;
  for (const tensorflow::JobDef& job : cluster.job()) {
    spec.jobs_[job.name()] = TaskMap(job.tasks().begin(), job.tasks().end());
  }
  return spec;
}

absl::StatusOr<ClusterSpec> ClusterSpec::FromJson(absl::string_view json_text) {
  TRIB_ASSIGN_OR_RETURN(tensorflow::ClusterDef cluster,
                        ParseClusterSpecJson(json_text));
  return FromClusterDef(cluster);
}

absl::StatusOr<ClusterSpec> ClusterSpec::FromJsonFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return errors::NotFound("cannot read cluster spec ", path, ": ",
                            std::strerror(errno));
  }
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return errors::DataLoss("cannot read cluster spec ", path);
  return FromJson(text.str());
}

std::vector<std::string> ClusterSpec::jobs() const {
  std::vector<std::string> out;
  out.reserve(jobs_.size());
  for (const auto& [job, tasks] : jobs_) out.push_back(job);
  return out;
}

bool ClusterSpec::HasJob(absl::string_view job) const {
  return jobs_.find(job) != jobs_.end();
}

int ClusterSpec::num_tasks(absl::string_view job) const {
  auto it = jobs_.find(job);
  return it == jobs_.end() ? 0 : static_cast<int>(it->second.size());
}

std::vector<int> ClusterSpec::task_indices(absl::string_view job) const {
  std::vector<int> out;
  auto it = jobs_.find(job);
  if (it == jobs_.end()) return out;
  out.reserve(it->second.size());
  for (const auto& [task, address] : it->second) out.push_back(task);
  return out;
}

absl::StatusOr<std::string> ClusterSpec::TaskAddress(absl::string_view job,
                                                     int task) const {
  auto it = jobs_.find(job);
  if (it == jobs_.end()) {
    return errors::NotFound("Job '", job, "' is not in the cluster (jobs: ",
                            absl::StrJoin(jobs(), ", "), ")");
  }
  auto task_it = it->second.find(task);
  if (task_it == it->second.end()) {
    return errors::NotFound("Task ", task, " of job '", job,
                            "' is not in the cluster (tasks: ",
                            absl::StrJoin(task_indices(job), ", "), ")");
  }
  return task_it->second;
}

std::vector<std::string> ClusterSpec::TaskNames() const {
  std::vector<std::string> out;
  for (const auto& [job, tasks] : jobs_) {
    for (const auto& [task, address] : tasks) {
      // Replica is always 0: TensorFlow's distributed runtime names every
      // task's devices with replica 0.
      out.push_back(absl::StrCat("/job:", job, "/replica:0/task:", task));
    }
  }
  return out;
}

tensorflow::ClusterDef ClusterSpec::AsClusterDef() const {
  tensorflow::ClusterDef cluster;
  for (const auto& [job, tasks] : jobs_) {
    tensorflow::JobDef* job_def = cluster.add_job();
    job_def->set_name(job);
    job_def->mutable_tasks()->insert(tasks.begin(), tasks.end());
  }
  return cluster;
}

std::string ClusterSpec::ToJson(int indent) const {
  // replace: addresses are validated ASCII, but never let dump() throw.
  return ClusterDefToJson(AsClusterDef())
      .dump(indent, ' ', /*ensure_ascii=*/false,
            nlohmann::json::error_handler_t::replace);
}

}  // namespace tributary
