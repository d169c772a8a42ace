#include "worker/step_stats_log.h"

#include <utility>

namespace tributary {

StepStatsLog::StepStatsLog(size_t capacity)
    : capacity_(capacity == 0 ? 1 : capacity) {}

void StepStatsLog::set_rpc_logging(bool on) {
  absl::MutexLock l(&mu_);
  rpc_logging_ = on;
}

bool StepStatsLog::rpc_logging() const {
  absl::MutexLock l(&mu_);
  return rpc_logging_;
}

void StepStatsLog::Record(int64_t step_id, const tensorflow::StepStats& stats) {
  absl::MutexLock l(&mu_);
  for (tensorflow::LabeledStepStats& entry : steps_) {
    if (entry.step_id() == step_id) {
      entry.mutable_step_stats()->MergeFrom(stats);
      return;
    }
  }
  if (steps_.size() >= capacity_) steps_.pop_front();
  tensorflow::LabeledStepStats entry;
  entry.set_step_id(step_id);
  *entry.mutable_step_stats() = stats;
  steps_.push_back(std::move(entry));
}

void StepStatsLog::Retrieve(
    const google::protobuf::RepeatedField<int64_t>& step_ids,
    tensorflow::LoggingResponse* response) {
  absl::MutexLock l(&mu_);
  for (int64_t id : step_ids) {
    for (auto it = steps_.begin(); it != steps_.end(); ++it) {
      if (it->step_id() != id) continue;
      *response->add_step() = std::move(*it);
      steps_.erase(it);
      break;
    }
  }
}

void StepStatsLog::Clear() {
  absl::MutexLock l(&mu_);
  steps_.clear();
}

size_t StepStatsLog::size() const {
  absl::MutexLock l(&mu_);
  return steps_.size();
}

}  // namespace tributary
