#ifndef TRIBUTARY_KERNELS_TESTING_GRAPH_CASE_EVALUATOR_H_
#define TRIBUTARY_KERNELS_TESTING_GRAPH_CASE_EVALUATOR_H_

// Evaluates a small TensorFlow GraphDef node by node with KernelRunner, for
// comparing our kernels with TensorFlow (run_kernel_cases, tf_oracle.py).
//
// Not an executor: it walks back from the fetched tensors, runs each needed
// node once (control inputs first), and stops at the first error. Const
// nodes run through the Const kernel when one is linked, else are decoded
// from their `value` attr (so the math oracle needs no array kernels); fed
// tensors ("x:0") replace their producers.
// No control flow (a cycle is an error). Ref outputs (VariableV2) flow into
// ref inputs (Assign) with their mutex, as under the executor.

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/kernel/device_base.h"
#include "common/framework/tensor.h"
#include "kernels/testing/kernel_runner.h"
#include "protos/graph.pb.h"

namespace tributary {
namespace test {

// What every kernel of one case shares. Pointers are not owned.
struct CaseEnvironment {
  ResourceMgr* resource_manager = nullptr;
  RendezvousInterface* rendezvous = nullptr;
  int64_t step_id = 1;
};

class GraphCaseEvaluator {
 public:
  // `device` and `env`'s pointees must outlive the evaluator.
  GraphCaseEvaluator(const tensorflow::GraphDef& graph, DeviceBase* device,
                     CaseEnvironment env);
  ~GraphCaseEvaluator();

  // Feeds `tensor` for tensor name `name` ("x", "x:0", "x:1").
  void Feed(const std::string& name, const Tensor& tensor);

  // Runs `targets` (node names, outputs ignored) then evaluates `fetches`
  // (tensor names), in order. The first failing kernel's status comes back
  // unchanged so its code can be compared with TensorFlow's.
  absl::StatusOr<std::vector<Tensor>> Run(
      const std::vector<std::string>& fetches,
      const std::vector<std::string>& targets);

 private:
  struct Value {
    Tensor tensor;                  // Non-ref value.
    Tensor* ref_tensor = nullptr;   // Ref value: the referenced tensor...
    absl::Mutex* ref_mu = nullptr;  // ...and its mutex.
  };
  struct NodeState {
    bool in_progress = false;
    bool done = false;
    std::vector<Value> outputs;
    // Kept alive for the whole case: ref outputs point into kernel state.
    std::unique_ptr<KernelRunner> runner;
  };

  absl::Status EvalNode(const std::string& name);
  absl::StatusOr<Value> EvalTensor(const std::string& tensor_name);

  std::map<std::string, const tensorflow::NodeDef*> nodes_;
  const tensorflow::GraphDef& graph_;
  DeviceBase* const device_;
  const CaseEnvironment env_;
  std::map<std::string, Tensor> feeds_;  // Canonical "node:k" names.
  std::map<std::string, NodeState> states_;
};

// Splits "x", "x:1", "^x" into node name and output index (-1 for control).
void ParseTensorNameForTest(const std::string& name, std::string* node,
                            int* index);

}  // namespace test
}  // namespace tributary

#endif  // TRIBUTARY_KERNELS_TESTING_GRAPH_CASE_EVALUATOR_H_
