#ifndef TRIBUTARY_TESTS_DISTRIBUTED_TWO_TASK_MODEL_H_
#define TRIBUTARY_TESTS_DISTRIBUTED_TWO_TASK_MODEL_H_

// The graph the in-process cluster tests share: a small dense layer spread
// over a ps task and a worker task, two CPUs each, so most edges cross
// tasks or devices. Fed x (float [n, 2]); y and s are the fetches.

#include <string>

#include "protos/graph.pb.h"

namespace tributary {
namespace distributed_test {

// "<task>/device:CPU:<cpu>"; "" for an empty task (an unplaced node).
std::string Dev(const std::string& task, int cpu);

// y = relu(x @ w^T + b) + x, s = sum(y), w = [[1, 2], [3, 4]],
// b = [-10, 0.5]. With empty task names every node is unplaced (a local
// session's reference run).
tensorflow::GraphDef Model(const std::string& ps, const std::string& wk);

}  // namespace distributed_test
}  // namespace tributary

#endif  // TRIBUTARY_TESTS_DISTRIBUTED_TWO_TASK_MODEL_H_
