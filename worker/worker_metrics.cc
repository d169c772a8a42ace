#include "worker/worker_metrics.h"

namespace tributary {

WorkerMetrics& WorkerMetrics::Get() {
  static WorkerMetrics* metrics = new WorkerMetrics{
      metrics::StepMetrics(&metrics::Default(), "tributary_worker_run_graph",
                           "graph runs (RunGraph) on this worker"),
      metrics::Default()
          .Gauge("tributary_worker_graphs_registered",
                 "Graph partitions registered on this worker.")
          ->With({}),
      metrics::Default().Counter(
          "tributary_recv_tensor_bytes_total",
          "Tensor bytes this task received with RecvTensor, by the task that "
          "sent them.",
          {"peer"})};
  return *metrics;
}

void WorkerMetrics::CountGraphs(double delta) {
  if (metrics::RecordingEnabled()) Get().graphs_registered->Add(delta);
}

}  // namespace tributary
