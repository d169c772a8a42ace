#include "tests/gpu/gpu_test_util.h"

#include <random>
#include <utility>

#include "Eigen/Core"
#include "absl/strings/str_cat.h"
#include "common/framework/status.h"
#include "common/runtime/session/local_session.h"
#include "devices/gpu/cuda_driver.h"
#include "protos/tensor.pb.h"

namespace tributary {
namespace gpu_test {

std::string NoGpuReason() {
  absl::StatusOr<const CudaDriver*> driver = CudaDriver::Get();
  if (!driver.ok()) return std::string(driver.status().message());
  int count = 0;
  if ((*driver)->cuDeviceGetCount(&count) != CUDA_SUCCESS || count == 0) {
    return "the CUDA driver shows no GPU";
  }
  return std::string();
}

tensorflow::AttrValue TypeAttr(DataType dtype) {
  tensorflow::AttrValue value;
  value.set_type(static_cast<tensorflow::DataType>(dtype));
  return value;
}

tensorflow::NodeDef* AddNode(tensorflow::GraphDef* graph,
                             const std::string& name, const std::string& op,
                             const std::string& device) {
  tensorflow::NodeDef* node = graph->add_node();
  node->set_name(name);
  node->set_op(op);
  node->set_device(device);
  return node;
}

void AddConst(tensorflow::GraphDef* graph, const std::string& name,
              const Tensor& value, const std::string& device) {
  tensorflow::NodeDef* node = AddNode(graph, name, "Const", device);
  (*node->mutable_attr())["dtype"] = TypeAttr(value.dtype());
  value.AsProtoTensorContent((*node->mutable_attr())["value"].mutable_tensor());
}

void AddPlaceholder(tensorflow::GraphDef* graph, const std::string& name,
                    DataType dtype, const std::string& device) {
  tensorflow::NodeDef* node = AddNode(graph, name, "Placeholder", device);
  (*node->mutable_attr())["dtype"] = TypeAttr(dtype);
}

tensorflow::AttrValue BoolAttr(bool b) {
  tensorflow::AttrValue value;
  value.set_b(b);
  return value;
}

Tensor RandomTensor(DataType dtype, const TensorShape& shape, float lo,
                    float hi, uint32_t seed) {
  std::mt19937 engine(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  Tensor t(dtype, shape);
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    const float v = dist(engine);
    switch (dtype) {
      case DT_FLOAT:
        t.flat<float>()(i) = v;
        break;
      case DT_DOUBLE:
        t.flat<double>()(i) = v;
        break;
      case DT_HALF:
        t.flat<Eigen::half>()(i) = Eigen::half(v);
        break;
      case DT_BFLOAT16:
        t.flat<Eigen::bfloat16>()(i) = Eigen::bfloat16(v);
        break;
      default:
        break;
    }
  }
  return t;
}

absl::StatusOr<std::vector<Tensor>> RunOp(const OpCall& call,
                                          const std::string& device,
                                          tensorflow::ConfigProto config) {
  tensorflow::GraphDef graph;
  NamedTensorList feeds;
  tensorflow::NodeDef* node = AddNode(&graph, "op", call.op, device);
  bool has_t = false;
  for (const auto& [name, value] : call.attrs) {
    (*node->mutable_attr())[name] = value;
    has_t = has_t || name == "T";
  }
  if (!has_t && !call.inputs.empty()) {
    (*node->mutable_attr())["T"] = TypeAttr(call.inputs[0].dtype());
  }
  for (size_t i = 0; i < call.inputs.size(); ++i) {
    const std::string name = absl::StrCat("in", i);
    node->add_input(name);
    const Tensor& value = call.inputs[i];
    bool as_const = false;
    for (int c : call.const_inputs) {
      as_const = as_const || c == static_cast<int>(i);
    }
    if (as_const) {
      AddConst(&graph, name, value, device);
    } else {
      AddPlaceholder(&graph, name, value.dtype(), "/device:CPU:0");
      feeds.emplace_back(absl::StrCat(name, ":0"), value);
    }
  }
  std::vector<std::string> fetches;
  for (int i = 0; i < call.num_outputs; ++i) {
    fetches.push_back(absl::StrCat("op:", i));
  }
  TRIB_ASSIGN_OR_RETURN(std::unique_ptr<LocalSession> session,
                        LocalSession::New(config));
  TRIB_RETURN_IF_ERROR(session->Create(graph));
  std::vector<Tensor> outputs;
  absl::Status status = session->Run(feeds, fetches, {}, &outputs);
  TRIB_RETURN_IF_ERROR(session->Close());
  TRIB_RETURN_IF_ERROR(status);
  return outputs;
}

}  // namespace gpu_test
}  // namespace tributary
