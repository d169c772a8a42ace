#ifndef TRIBUTARY_WORKER_STEP_STATS_LOG_H_
#define TRIBUTARY_WORKER_STEP_STATS_LOG_H_

// The step stats a worker keeps for its Logging service (TensorFlow's
// WorkerCacheLogger / GraphMgr logs, simplified): the StepStats of recent
// steps that recorded them (RunGraph with exec_opts.record_timeline or
// record_costs, or any step while RPC logging is on), in a bounded ring so a
// long-running worker never grows. LoggingRequest.fetch_step_id hands them
// over and forgets them, as TensorFlow's RetrieveLogs does. Thread-safe.

#include <cstddef>
#include <cstdint>
#include <deque>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "protos/step_stats.pb.h"
#include "protos/worker.pb.h"

namespace tributary {

class StepStatsLog {
 public:
  static constexpr size_t kDefaultCapacity = 128;

  explicit StepStatsLog(size_t capacity = kDefaultCapacity);

  // LoggingRequest.enable_rpc_logging / disable_rpc_logging: while on,
  // every step collects its stats (and its RecvTensor transfers) here.
  void set_rpc_logging(bool on);
  bool rpc_logging() const;

  // Keeps `stats` for `step_id`, merged into what the step already has
  // (a partial run, or several graphs of one step). The oldest step is
  // dropped when the ring is full.
  void Record(int64_t step_id, const tensorflow::StepStats& stats);

  // Moves the stats of each of `step_ids` that is kept into `response`.
  void Retrieve(const google::protobuf::RepeatedField<int64_t>& step_ids,
                tensorflow::LoggingResponse* response);

  // LoggingRequest.clear.
  void Clear();

  size_t size() const;

 private:
  const size_t capacity_;
  mutable absl::Mutex mu_;
  bool rpc_logging_ ABSL_GUARDED_BY(mu_) = false;
  std::deque<tensorflow::LabeledStepStats> steps_ ABSL_GUARDED_BY(mu_);
};

}  // namespace tributary

#endif  // TRIBUTARY_WORKER_STEP_STATS_LOG_H_
