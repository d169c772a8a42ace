// The executor on a real TensorFlow GraphDef: tf1_while_counter.pbtxt, a TF1
// while loop (Enter/Merge/Switch/LoopCond/NextIteration/Exit) counting from
// 0 to 10, run with the real Const/Identity/Less/Add kernels. The graph comes
// from tests/testdata/tf_graphs (common/framework/tf_graphs_testutil.h).

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "unsupported/Eigen/CXX11/ThreadPool"
#include "devices/cpu/cpu_device.h"
#include "common/framework/tensor.h"
#include "common/framework/tf_graphs_testutil.h"
#include "common/graph/graph.h"
#include "common/graph/graph_def_import.h"
#include "common/op/node_def_util.h"
#include "common/runtime/executor/call_frame.h"
#include "common/runtime/executor/executor.h"
#include "gtest/gtest.h"
#include "protos/graph.pb.h"

namespace tributary {
namespace {

TEST(ExecutorTfGraphsTest, Tf1WhileCounterCountsToTen) {
  absl::StatusOr<tensorflow::GraphDef> loaded =
      test::LoadTfGraph("tf1_while_counter.pbtxt");
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  tensorflow::GraphDef gdef = *std::move(loaded);

  // Fetch while/Exit through the call frame, as the session's rewrite does.
  tensorflow::NodeDef* ret = gdef.add_node();
  ret->set_name("while_exit_retval");
  ret->set_op("_Retval");
  ret->add_input("while/Exit");
  AddNodeAttr("T", DT_INT32, ret);
  AddNodeAttr("index", int64_t{0}, ret);

  absl::StatusOr<std::unique_ptr<Graph>> graph = GraphFromGraphDef(gdef);
  ASSERT_TRUE(graph.ok()) << graph.status();
  std::unique_ptr<CpuDevice> device =
      CpuDevice::Create("/job:localhost/replica:0/task:0/device:CPU:0");
  LocalExecutorParams params;
  params.device = device.get();
  absl::StatusOr<std::unique_ptr<Executor>> exec =
      NewLocalExecutor(params, **graph);
  ASSERT_TRUE(exec.ok()) << exec.status();

  Eigen::ThreadPool pool(3);
  for (bool pooled : {false, true}) {
    FunctionCallFrame frame({}, {DT_INT32});
    Executor::Args args;
    args.call_frame = &frame;
    if (pooled) {
      args.runner = [&pool](std::function<void()> fn) {
        pool.Schedule(std::move(fn));
      };
    }
    absl::Status s = (*exec)->Run(args, absl::Seconds(30));
    ASSERT_TRUE(s.ok()) << s;
    std::vector<Tensor> rets;
    ASSERT_TRUE(frame.ConsumeRetvals(&rets, false).ok());
    EXPECT_EQ(rets[0].scalar<int32_t>()(), 10);
  }
}

}  // namespace
}  // namespace tributary
