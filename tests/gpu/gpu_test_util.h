#ifndef TRIBUTARY_TESTS_GPU_GPU_TEST_UTIL_H_
#define TRIBUTARY_TESTS_GPU_GPU_TEST_UTIL_H_

// What the GPU tests share: whether this host has a GPU (tests that need
// one report "skipped: no GPU" through GTEST_SKIP, counted as skipped, never
// as passed), and sessions running one op on a chosen device, so a GPU
// kernel can be compared with the CPU kernel on the same inputs.

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/framework/tensor.h"
#include "protos/attr_value.pb.h"
#include "protos/config.pb.h"
#include "protos/graph.pb.h"

namespace tributary {
namespace gpu_test {

// Empty when a GPU is usable; otherwise why not (the driver's error).
std::string NoGpuReason();

#define TRIB_SKIP_WITHOUT_GPU()                                                \
  do {                                                                         \
    const std::string reason = ::tributary::gpu_test::NoGpuReason();           \
    if (!reason.empty()) GTEST_SKIP() << "skipped: no GPU (" << reason << ")"; \
  } while (false)

struct OpCall {
  std::string op;
  std::vector<Tensor> inputs;  // fed from the host
  std::vector<std::pair<std::string, tensorflow::AttrValue>> attrs;
  int num_outputs = 1;
  // Input indices fed as Const nodes on the op's device instead of
  // Placeholders (host-memory arguments such as shapes).
  std::vector<int> const_inputs;
};

// Runs `call` with the op placed on `device` ("/device:GPU:0",
// "/device:CPU:0") in a fresh local session and returns its outputs.
// The "T" attr defaults to the first input's dtype unless given.
absl::StatusOr<std::vector<Tensor>> RunOp(
    const OpCall& call, const std::string& device,
    tensorflow::ConfigProto config = tensorflow::ConfigProto());

tensorflow::AttrValue TypeAttr(DataType dtype);

// Graph building for the GPU tests and benchmark: a node of `op` placed on
// `device`; a Const holding `value`; a Placeholder of `dtype`.
tensorflow::NodeDef* AddNode(tensorflow::GraphDef* graph,
                             const std::string& name, const std::string& op,
                             const std::string& device);
void AddConst(tensorflow::GraphDef* graph, const std::string& name,
              const Tensor& value, const std::string& device);
void AddPlaceholder(tensorflow::GraphDef* graph, const std::string& name,
                    DataType dtype, const std::string& device);
tensorflow::AttrValue BoolAttr(bool value);

// Deterministic pseudo-random floats in [lo, hi).
Tensor RandomTensor(DataType dtype, const TensorShape& shape, float lo,
                    float hi, uint32_t seed);

}  // namespace gpu_test
}  // namespace tributary

#endif  // TRIBUTARY_TESTS_GPU_GPU_TEST_UTIL_H_
