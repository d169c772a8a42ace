#include "tests/distributed/two_task_model.h"

#include "absl/strings/str_cat.h"
#include "worker/worker_test_util.h"

namespace tributary {
namespace distributed_test {

using worker_test::BinaryOp;
using worker_test::ParseGraph;

std::string Dev(const std::string& task, int cpu) {
  return task.empty() ? "" : absl::StrCat(task, "/device:CPU:", cpu);
}

tensorflow::GraphDef Model(const std::string& ps, const std::string& wk) {
  std::string text = absl::StrCat(
      "node { name: 'x' op: 'Placeholder' device: '", Dev(wk, 1),
      "' attr { key: 'dtype' value { type: DT_FLOAT } } }\n",
      "node { name: 'w' op: 'Const' device: '", Dev(ps, 0),
      "' attr { key: 'dtype' value { type: DT_FLOAT } } "
      "attr { key: 'value' value { tensor { dtype: DT_FLOAT tensor_shape { "
      "dim { size: 2 } dim { size: 2 } } float_val: 1 float_val: 2 "
      "float_val: 3 float_val: 4 } } } }\n",
      "node { name: 'b' op: 'Const' device: '", Dev(ps, 1),
      "' attr { key: 'dtype' value { type: DT_FLOAT } } "
      "attr { key: 'value' value { tensor { dtype: DT_FLOAT tensor_shape { "
      "dim { size: 2 } } float_val: -10 float_val: 0.5 } } } }\n",
      "node { name: 'mm' op: 'MatMul' input: 'x' input: 'w' device: '",
      Dev(ps, 0),
      "' attr { key: 'T' value { type: DT_FLOAT } } "
      "attr { key: 'transpose_b' value { b: true } } }\n",
      BinaryOp("bias", "BiasAdd", "mm", "b", Dev(wk, 0)),
      "node { name: 'relu' op: 'Relu' input: 'bias' device: '", Dev(ps, 1),
      "' attr { key: 'T' value { type: DT_FLOAT } } }\n",
      BinaryOp("y", "AddV2", "relu", "x", Dev(wk, 1)),
      "node { name: 'axes' op: 'Const' device: '", Dev(ps, 0),
      "' attr { key: 'dtype' value { type: DT_INT32 } } "
      "attr { key: 'value' value { tensor { dtype: DT_INT32 "
      "tensor_shape { dim { size: 2 } } int_val: 0 int_val: 1 } } } }\n",
      "node { name: 's' op: 'Sum' input: 'y' input: 'axes' device: '",
      Dev(ps, 1),
      "' attr { key: 'T' value { type: DT_FLOAT } } "
      "attr { key: 'Tidx' value { type: DT_INT32 } } }\n");
  return ParseGraph(text);
}

}  // namespace distributed_test
}  // namespace tributary
