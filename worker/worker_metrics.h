#ifndef TRIBUTARY_WORKER_WORKER_METRICS_H_
#define TRIBUTARY_WORKER_WORKER_METRICS_H_

// The worker's metric families in metrics::Default() (docs/operations.md,
// "Metrics"): its RunGraphs (count, latency by outcome, in flight), the
// graphs registered, and the bytes its RecvTensor calls received, by the
// task that sent them. Made on first use; Get() is cheap after.

#include "common/metrics/metrics.h"
#include "common/metrics/step_metrics.h"

namespace tributary {

struct WorkerMetrics {
  static WorkerMetrics& Get();
  // graphs_registered += delta, when recording (metrics::RecordingEnabled).
  static void CountGraphs(double delta);

  metrics::StepMetrics run_graphs;        // tributary_worker_run_graph*
  metrics::GaugeCell* graphs_registered;  // tributary_worker_graphs_registered
  // tributary_recv_tensor_bytes_total{peer="/job:ps/replica:0/task:0"}
  metrics::CounterFamily* recv_tensor_bytes;
};

}  // namespace tributary

#endif  // TRIBUTARY_WORKER_WORKER_METRICS_H_
