// Behaviour of the local executor on small graphs of test ops (see
// executor_test_kernels.h) and the real TF1 control-flow kernels.

#include "common/runtime/executor/executor.h"

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "unsupported/Eigen/CXX11/ThreadPool"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "common/device/device.h"
#include "common/device/test_device.h"
#include "common/framework/tensor.h"
#include "common/graph/graph.h"
#include "common/graph/graph_def_import.h"
#include "common/kernel/cancellation.h"
#include "common/runtime/executor/call_frame.h"
#include "common/runtime/executor/executor_test_kernels.h"
#include "common/runtime/executor/step_stats_collector.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "protos/graph.pb.h"
#include "protos/step_stats.pb.h"

namespace tributary {
namespace {

constexpr char kDeviceName[] = "/job:localhost/replica:0/task:0/device:CPU:0";

using test::TestDevice;

// Runs closures on a fixed number of threads (the inter-op pool).
class Pool {
 public:
  explicit Pool(int n) : pool_(n) {}
  Executor::Runner runner() {
    return [this](std::function<void()> fn) { pool_.Schedule(std::move(fn)); };
  }

 private:
  Eigen::ThreadPool pool_;
};

class ExecutorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    executor_test::ResetCounts();
    executor_test::ResetRecordedOrder();
    executor_test::ResetConcurrency();
    executor_test::MailboxReset();
  }

  // Imports `graph_text` (a text GraphDef) and builds the executor.
  absl::Status Build(const std::string& graph_text) {
    tensorflow::GraphDef gdef;
    if (!google::protobuf::TextFormat::ParseFromString(graph_text, &gdef)) {
      return absl::InvalidArgumentError("bad graph text");
    }
    absl::StatusOr<std::unique_ptr<Graph>> graph = GraphFromGraphDef(gdef);
    if (!graph.ok()) return graph.status();
    LocalExecutorParams params;
    params.device = &device_;
    absl::StatusOr<std::unique_ptr<Executor>> exec =
        NewLocalExecutor(params, **graph);
    if (!exec.ok()) return exec.status();
    executor_ = std::move(*exec);
    return absl::OkStatus();
  }

  // Runs one step with `num_rets` int32 _Retval slots.
  absl::Status Run(int num_rets, std::vector<Tensor>* rets,
                   Executor::Args args = Executor::Args(),
                   bool allow_dead = false) {
    DataTypeVector ret_types(num_rets, DT_INT32);
    FunctionCallFrame frame({}, ret_types);
    args.call_frame = &frame;
    absl::Status s = executor_->Run(args);
    if (!s.ok()) return s;
    return frame.ConsumeRetvals(rets, allow_dead);
  }

  int32_t RunScalar(Executor::Args args = Executor::Args()) {
    std::vector<Tensor> rets;
    absl::Status s = Run(1, &rets, args);
    EXPECT_TRUE(s.ok()) << s;
    if (!s.ok() || rets.size() != 1) return -1;
    return rets[0].scalar<int32_t>()();
  }

  TestDevice device_{kDeviceName};
  std::unique_ptr<Executor> executor_;
};

std::string Node(const std::string& name, const std::string& op,
                 std::vector<std::string> inputs = {},
                 const std::string& attrs = "") {
  std::string s = absl::StrCat("node { name: '", name, "' op: '", op, "' ");
  for (const std::string& in : inputs) absl::StrAppend(&s, "input: '", in, "' ");
  absl::StrAppend(&s, attrs, " }\n");
  return s;
}
std::string IntAttr(const std::string& name, int64_t v) {
  return absl::StrCat("attr { key: '", name, "' value { i: ", v, " } }");
}
std::string TypeAttr(const std::string& name, const std::string& type) {
  return absl::StrCat("attr { key: '", name, "' value { type: ", type, " } }");
}
std::string StrAttr(const std::string& name, const std::string& v) {
  return absl::StrCat("attr { key: '", name, "' value { s: '", v, "' } }");
}
std::string BoolAttr(const std::string& name, bool v) {
  return absl::StrCat("attr { key: '", name, "' value { b: ",
                      v ? "true" : "false", " } }");
}
std::string Const(const std::string& name, int v,
                  std::vector<std::string> inputs = {}) {
  return Node(name, "XConst", inputs, IntAttr("value", v));
}
std::string Retval(const std::string& name, const std::string& input, int index,
                   const std::string& type = "DT_INT32") {
  return Node(name, "_Retval", {input},
              IntAttr("index", index) + TypeAttr("T", type));
}

// ---- Dataflow ----------------------------------------------------------------

TEST_F(ExecutorTest, Diamond) {
  ASSERT_TRUE(Build(Const("c", 3) + Node("a", "XAddOne", {"c"}) +
                    Node("b", "XAddOne", {"c"}) + Node("sum", "XAdd", {"a", "b"}) +
                    Retval("r", "sum", 0))
                  .ok());
  EXPECT_EQ(RunScalar(), 8);
  // Executors are reusable: a second step gives the same answer.
  EXPECT_EQ(RunScalar(), 8);
}

TEST_F(ExecutorTest, WideFanOutFanIn) {
  const int kWidth = 1000;
  std::string g = Const("c", 1);
  std::vector<std::string> ins;
  for (int i = 0; i < kWidth; ++i) {
    const std::string name = absl::StrCat("a", i);
    g += Node(name, "XAddOne", {"c"});
    ins.push_back(name);
  }
  g += Node("sum", "XAddN", ins, IntAttr("N", kWidth));
  g += Retval("r", "sum", 0);
  ASSERT_TRUE(Build(g).ok());
  EXPECT_EQ(RunScalar(), 2 * kWidth);

  Pool pool(4);
  Executor::Args args;
  args.runner = pool.runner();
  for (int i = 0; i < 5; ++i) EXPECT_EQ(RunScalar(args), 2 * kWidth);
}

TEST_F(ExecutorTest, ControlEdgesOrderExecution) {
  // b and c have no data inputs; only control edges order them after a.
  ASSERT_TRUE(Build(Node("a", "XRecord") + Node("b", "XRecord", {"^a"}) +
                    Node("c", "XRecord", {"^b"}) + Node("d", "XRecord"))
                  .ok());
  Pool pool(4);
  for (int step = 0; step < 20; ++step) {
    executor_test::ResetRecordedOrder();
    Executor::Args args;
    if (step % 2 == 1) args.runner = pool.runner();
    ASSERT_TRUE(executor_->Run(args).ok());
    std::vector<std::string> order = executor_test::RecordedOrder();
    ASSERT_EQ(order.size(), 4u);
    auto pos = [&](const std::string& n) {
      return std::find(order.begin(), order.end(), n) - order.begin();
    };
    EXPECT_LT(pos("a"), pos("b"));
    EXPECT_LT(pos("b"), pos("c"));
  }
}

TEST_F(ExecutorTest, EmptyGraphFinishesAtOnce) {
  ASSERT_TRUE(Build("").ok());
  EXPECT_TRUE(executor_->Run(Executor::Args()).ok());
}

// ---- Errors --------------------------------------------------------------------

TEST_F(ExecutorTest, FirstErrorEndsStepNamingNodeAndOp) {
  ASSERT_TRUE(Build(Const("c", 1) + Node("fail", "XFail", {"c"}) +
                    Node("after", "XCount", {"fail"}) + Retval("r", "after", 0))
                  .ok());
  std::vector<Tensor> rets;
  absl::Status s = Run(1, &rets);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("boom"), std::string::npos) << s;
  EXPECT_NE(s.message().find("{{node fail}}"), std::string::npos) << s;
  EXPECT_NE(s.message().find("XFail"), std::string::npos) << s;
  EXPECT_EQ(executor_test::CountOf("after"), 0);
}

TEST_F(ExecutorTest, NodesAfterTheErrorDoNotRun) {
  // A long inline chain after an independent failure: the failure marks
  // the step aborted and the chain is retired without running.
  std::string g = Const("c", 0) + Node("fail", "XFail", {"c"});
  std::string prev = "c";
  for (int i = 0; i < 50; ++i) {
    const std::string name = absl::StrCat("n", i);
    g += Node(name, "XCount", {prev});
    prev = name;
  }
  ASSERT_TRUE(Build(g).ok());
  absl::Status s = executor_->Run(Executor::Args());
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  // "fail" runs right after "c" (FIFO inline queue), before the chain.
  EXPECT_EQ(executor_test::CountOf("n49"), 0);
}

TEST_F(ExecutorTest, KernelSetupErrorNamesNode) {
  absl::Status s = Build(Const("x", 1) + Node("nokernel", "XNoKernel"));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound) << s;
  EXPECT_NE(s.message().find("nokernel"), std::string::npos) << s;
}

TEST_F(ExecutorTest, UninitializedRefInputIsFailedPrecondition) {
  ASSERT_TRUE(Build(Node("w", "XUninitRef") +
                    Node("read", "XIdentity", {"w"}, TypeAttr("T", "DT_INT32")) +
                    Retval("r", "read", 0))
                  .ok());
  std::vector<Tensor> rets;
  absl::Status s = Run(1, &rets);
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition) << s;
  EXPECT_NE(s.message().find("Attempting to use uninitialized value w"),
            std::string::npos)
      << s;
}

TEST_F(ExecutorTest, RetvalOfUninitializedRefIsFailedPrecondition) {
  // A fetched VariableV2 that was never assigned: the executor itself
  // refuses it, as TensorFlow does, instead of returning an empty tensor.
  ASSERT_TRUE(Build(Node("w", "XUninitRef") + Retval("r", "w", 0)).ok());
  std::vector<Tensor> rets;
  absl::Status s = Run(1, &rets);
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition) << s;
  EXPECT_NE(s.message().find("Attempting to use uninitialized value w"),
            std::string::npos)
      << s;
  EXPECT_NE(s.message().find("{{node r}}"), std::string::npos) << s;

  // An initialised reference is fetched by value.
  ASSERT_TRUE(
      Build(Node("v", "XRefVar", {}, IntAttr("value", 5)) + Retval("r", "v", 0))
          .ok());
  EXPECT_EQ(RunScalar(), 5);
}

// ---- Where nodes run ---------------------------------------------------------

// A runner over a pool that counts the closures it is handed.
struct CountingRunner {
  explicit CountingRunner(int threads) : pool(threads) {}
  Executor::Runner runner() {
    return [this](std::function<void()> fn) {
      handed.fetch_add(1);
      pool.Schedule(std::move(fn));
    };
  }
  Eigen::ThreadPool pool;
  std::atomic<int> handed{0};
};

// Starts a step with `runner` and reports whether it had finished by the
// time RunAsync returned; waits for it either way.
bool FinishedInsideRunAsync(Executor* executor, Executor::Runner runner,
                            std::vector<Tensor>* rets) {
  FunctionCallFrame frame({}, {DT_INT32});
  Executor::Args args;
  args.call_frame = &frame;
  args.runner = std::move(runner);
  absl::Notification done;
  absl::Status status;
  executor->RunAsync(args, [&](const absl::Status& s) {
    status = s;
    done.Notify();
  });
  const bool finished = done.HasBeenNotified();
  EXPECT_TRUE(done.WaitForNotificationWithTimeout(absl::Seconds(30)));
  EXPECT_TRUE(status.ok()) << status;
  EXPECT_TRUE(frame.ConsumeRetvals(rets, false).ok());
  return finished;
}

TEST_F(ExecutorTest, InexpensiveRootsRunOnTheCallersThread) {
  ASSERT_TRUE(Build(Const("a", 1) + Const("b", 2) +
                    Node("s", "XAdd", {"a", "b"}) + Retval("r", "s", 0))
                  .ok());
  CountingRunner pool(2);
  std::vector<Tensor> rets;
  // Every node is cheap: the whole step runs inside RunAsync, no hop.
  EXPECT_TRUE(FinishedInsideRunAsync(executor_.get(), pool.runner(), &rets));
  EXPECT_EQ(pool.handed.load(), 0);
  ASSERT_EQ(rets.size(), 1u);
  EXPECT_EQ(rets[0].scalar<int32_t>()(), 3);
}

TEST_F(ExecutorTest, ExpensiveNodesReadyAtStartGoToTheRunner) {
  // The cheap root runs on the caller's thread; the two expensive nodes it
  // makes ready go to the pool, so RunAsync returns without running them.
  ASSERT_TRUE(Build(Const("c", 1) +
                    Node("s1", "XSleep", {"c"}, IntAttr("micros", 20000)) +
                    Node("s2", "XSleep", {"c"}, IntAttr("micros", 20000)) +
                    Node("sum", "XAdd", {"s1", "s2"}) + Retval("r", "sum", 0))
                  .ok());
  CountingRunner pool(2);
  std::vector<Tensor> rets;
  EXPECT_FALSE(FinishedInsideRunAsync(executor_.get(), pool.runner(), &rets));
  EXPECT_EQ(pool.handed.load(), 2);
  ASSERT_EQ(rets.size(), 1u);
  EXPECT_EQ(rets[0].scalar<int32_t>()(), 2);
}

TEST_F(ExecutorTest, AsyncKernelCompletingAtOnceContinuesOnTheSameThread) {
  // The value is already in the mailbox: the async kernel's callback fires
  // inside ComputeAsync, and its consumers run in the same loop rather than
  // hopping to the pool.
  ASSERT_TRUE(Build(Node("recv", "XMailRecv", {}, StrAttr("key", "k")) +
                    Node("plus", "XAddOne", {"recv"}) + Retval("r", "plus", 0))
                  .ok());
  executor_test::MailboxPut("k", 41);
  CountingRunner pool(2);
  std::vector<Tensor> rets;
  EXPECT_TRUE(FinishedInsideRunAsync(executor_.get(), pool.runner(), &rets));
  EXPECT_EQ(pool.handed.load(), 0);
  ASSERT_EQ(rets.size(), 1u);
  EXPECT_EQ(rets[0].scalar<int32_t>()(), 42);
}

// ---- Async kernels, cancellation, done-once -----------------------------------

TEST_F(ExecutorTest, AsyncKernelValueAlreadyThere) {
  ASSERT_TRUE(Build(Node("recv", "XMailRecv", {}, StrAttr("key", "k")) +
                    Node("plus", "XAddOne", {"recv"}) + Retval("r", "plus", 0))
                  .ok());
  executor_test::MailboxPut("k", 41);
  EXPECT_EQ(RunScalar(), 42);
}

TEST_F(ExecutorTest, AsyncKernelCompletesLater) {
  ASSERT_TRUE(Build(Node("recv", "XMailRecv", {}, StrAttr("key", "k")) +
                    Node("plus", "XAddOne", {"recv"}) + Retval("r", "plus", 0))
                  .ok());
  FunctionCallFrame frame({}, {DT_INT32});
  Executor::Args args;
  args.call_frame = &frame;
  absl::Notification done;
  absl::Status status;
  executor_->RunAsync(args, [&](const absl::Status& s) {
    status = s;
    done.Notify();
  });
  // The step is parked on the async kernel; no thread is held.
  EXPECT_FALSE(done.WaitForNotificationWithTimeout(absl::Milliseconds(50)));
  executor_test::MailboxPut("k", 9);  // completes on this thread
  ASSERT_TRUE(done.WaitForNotificationWithTimeout(absl::Seconds(10)));
  ASSERT_TRUE(status.ok()) << status;
  std::vector<Tensor> rets;
  ASSERT_TRUE(frame.ConsumeRetvals(&rets, false).ok());
  EXPECT_EQ(rets[0].scalar<int32_t>()(), 10);
}

TEST_F(ExecutorTest, CancellationWakesEveryWaiter) {
  ASSERT_TRUE(Build(Node("w1", "XWaitCancel") + Node("w2", "XWaitCancel") +
                    Node("w3", "XWaitCancel"))
                  .ok());
  CancellationManager cm;
  Executor::Args args;
  args.cancellation_manager = &cm;
  std::atomic<int> done_calls{0};
  absl::Notification done;
  absl::Status status;
  executor_->RunAsync(args, [&](const absl::Status& s) {
    status = s;
    ++done_calls;
    done.Notify();
  });
  EXPECT_EQ(executor_test::NumWaitingForCancel(), 3);
  EXPECT_FALSE(done.HasBeenNotified());
  cm.StartCancel();
  ASSERT_TRUE(done.WaitForNotificationWithTimeout(absl::Seconds(10)));
  EXPECT_EQ(status.code(), absl::StatusCode::kCancelled) << status;
  EXPECT_EQ(executor_test::NumWaitingForCancel(), 0);
  absl::SleepFor(absl::Milliseconds(20));
  EXPECT_EQ(done_calls.load(), 1);
}

TEST_F(ExecutorTest, ErrorAbortsOutstandingOps) {
  // Waiters that would block forever are woken when another node fails;
  // the step reports the failure, not the cancellations it caused.
  ASSERT_TRUE(Build(Node("w1", "XWaitCancel") + Node("w2", "XWaitCancel") +
                    Const("c", 0) + Node("fail", "XFail", {"c"}))
                  .ok());
  Pool pool(2);
  for (int step = 0; step < 10; ++step) {
    CancellationManager cm;
    Executor::Args args;
    args.cancellation_manager = &cm;
    if (step % 2 == 1) args.runner = pool.runner();
    absl::Status s = executor_->Run(args, absl::Seconds(30));
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
    EXPECT_NE(s.message().find("{{node fail}}"), std::string::npos) << s;
  }
  EXPECT_EQ(executor_test::NumWaitingForCancel(), 0);
}

TEST_F(ExecutorTest, CancelRacingWithCompletion) {
  // Cancellation arriving at any point (before, during, after the last
  // node) must end every step exactly once, with OK or Cancelled.
  std::string g = Const("c", 0);
  std::string prev = "c";
  for (int i = 0; i < 8; ++i) {
    const std::string name = absl::StrCat("s", i);
    g += Node(name, "XSleep", {prev}, IntAttr("micros", 30));
    prev = name;
  }
  ASSERT_TRUE(Build(g).ok());
  Pool pool(3);
  for (int step = 0; step < 200; ++step) {
    CancellationManager cm;
    Executor::Args args;
    args.step_id = step;
    args.cancellation_manager = &cm;
    args.runner = pool.runner();
    std::atomic<int> calls{0};
    absl::Notification done;
    absl::Status status;
    executor_->RunAsync(args, [&](const absl::Status& s) {
      status = s;
      ++calls;
      done.Notify();
    });
    absl::SleepFor(absl::Microseconds((step * 37) % 400));
    cm.StartCancel();
    ASSERT_TRUE(done.WaitForNotificationWithTimeout(absl::Seconds(10)));
    EXPECT_TRUE(status.ok() || absl::IsCancelled(status)) << status;
    EXPECT_EQ(calls.load(), 1);
  }
}

TEST_F(ExecutorTest, AlreadyCancelledStepDoesNotRun) {
  ASSERT_TRUE(Build(Const("c", 0) + Node("n", "XCount", {"c"})).ok());
  CancellationManager cm;
  cm.StartCancel();
  Executor::Args args;
  args.cancellation_manager = &cm;
  EXPECT_EQ(executor_->Run(args).code(), absl::StatusCode::kCancelled);
  EXPECT_EQ(executor_test::CountOf("n"), 0);
}

TEST_F(ExecutorTest, RunWithTimeoutCancelsTheStep) {
  ASSERT_TRUE(Build(Node("w", "XWaitCancel")).ok());
  absl::Status s = executor_->Run(Executor::Args(), absl::Milliseconds(50));
  EXPECT_EQ(s.code(), absl::StatusCode::kDeadlineExceeded) << s;
  EXPECT_EQ(executor_test::NumWaitingForCancel(), 0);
}

TEST_F(ExecutorTest, DoneIsCalledExactlyOncePerStep) {
  std::string g = Const("c", 0);
  for (int i = 0; i < 20; ++i) {
    g += Node(absl::StrCat("s", i), "XSleep", {"c"}, IntAttr("micros", 100));
  }
  g += Node("fail", "XFail", {"s7"});
  ASSERT_TRUE(Build(g).ok());
  Pool pool(4);
  const int kSteps = 30;
  std::atomic<int> calls{0};
  std::atomic<int> errors{0};
  absl::Mutex mu;
  int finished = 0;
  for (int i = 0; i < kSteps; ++i) {
    Executor::Args args;
    args.step_id = i;
    args.runner = pool.runner();
    executor_->RunAsync(args, [&](const absl::Status& s) {
      ++calls;
      if (!s.ok()) ++errors;
      absl::MutexLock l(&mu);
      ++finished;
    });
  }
  {
    absl::MutexLock l(&mu);
    ASSERT_TRUE(mu.AwaitWithTimeout(
        absl::Condition(+[](int* f) { return *f == kSteps; }, &finished),
        absl::Seconds(60)));
  }
  absl::SleepFor(absl::Milliseconds(50));
  EXPECT_EQ(calls.load(), kSteps);
  EXPECT_EQ(errors.load(), kSteps);
}

// ---- Deadness and TF1 control flow -------------------------------------------

TEST_F(ExecutorTest, DeadTensorsPropagateThroughSwitchAndMerge) {
  // pred is false: output_false is live, output_true is dead.
  std::string g =
      Const("data", 5) + Const("zero", 0) + Const("one", 1) +
      Node("pred", "XLess", {"one", "zero"}) +
      Node("sw", "Switch", {"data", "pred"}, TypeAttr("T", "DT_INT32")) +
      Node("live", "XAddOne", {"sw:0"}) + Node("dead", "XCount", {"sw:1"}) +
      Node("dead2", "XCount", {"dead"}) +
      Node("m", "Merge", {"live", "dead2"},
           TypeAttr("T", "DT_INT32") + IntAttr("N", 2)) +
      Retval("r0", "m", 0) + Retval("r1", "m:1", 1) + Retval("r2", "dead2", 2);
  ASSERT_TRUE(Build(g).ok());
  std::vector<Tensor> rets;
  ASSERT_TRUE(Run(3, &rets, Executor::Args(), /*allow_dead=*/true).ok());
  EXPECT_EQ(rets[0].scalar<int32_t>()(), 6);
  EXPECT_EQ(rets[1].scalar<int32_t>()(), 0);  // value_index
  EXPECT_EQ(rets[2].NumElements(), 0);        // the dead fetch: no value
  EXPECT_EQ(executor_test::CountOf("dead"), 0);
  EXPECT_EQ(executor_test::CountOf("dead2"), 0);

  // Without allow_dead, the missing fetch is an error.
  rets.clear();
  EXPECT_FALSE(Run(3, &rets).ok());
}

TEST_F(ExecutorTest, RefSwitchAndRefMergeForwardTheReference) {
  std::string g =
      Node("var", "XRefVar", {}, IntAttr("value", 7)) + Const("zero", 0) +
      Const("one", 1) + Node("pred", "XLess", {"zero", "one"}) +
      Node("sw", "RefSwitch", {"var", "pred"}, TypeAttr("T", "DT_INT32")) +
      Node("m", "RefMerge", {"sw:0", "sw:1"},
           TypeAttr("T", "DT_INT32") + IntAttr("N", 2)) +
      Node("read", "XIdentity", {"m"}, TypeAttr("T", "DT_INT32")) +
      Retval("r0", "read", 0) + Retval("r1", "m:1", 1);
  ASSERT_TRUE(Build(g).ok());
  std::vector<Tensor> rets;
  ASSERT_TRUE(Run(2, &rets).ok());
  EXPECT_EQ(rets[0].scalar<int32_t>()(), 7);
  EXPECT_EQ(rets[1].scalar<int32_t>()(), 1);
}

// The graph of tf1_while_counter.pbtxt, with test ops for Less/Add:
//   i = 0; while (i < 10) i = i + 1;
std::string WhileCounter(bool invariant_limit, int parallel_iterations) {
  std::string enter_attrs = TypeAttr("T", "DT_INT32") +
                            StrAttr("frame_name", "while/while_context") +
                            IntAttr("parallel_iterations", parallel_iterations);
  std::string g = Const("Const", 0) +
                  Node("while/Enter", "Enter", {"Const"}, enter_attrs) +
                  Node("while/Merge", "Merge",
                       {"while/Enter", "while/NextIteration"},
                       TypeAttr("T", "DT_INT32") + IntAttr("N", 2));
  if (invariant_limit) {
    // The limit comes from outside the loop as a loop invariant.
    g += Const("limit", 10) +
         Node("while/limit", "Enter", {"limit"},
              TypeAttr("T", "DT_INT32") +
                  StrAttr("frame_name", "while/while_context") +
                  IntAttr("parallel_iterations", parallel_iterations) +
                  BoolAttr("is_constant", true));
  } else {
    g += Const("while/limit", 10, {"^while/Merge"});
  }
  g += Node("while/Less", "XLess", {"while/Merge", "while/limit"}) +
       Node("while/LoopCond", "LoopCond", {"while/Less"}) +
       Node("while/Switch", "Switch", {"while/Merge", "while/LoopCond"},
            TypeAttr("T", "DT_INT32")) +
       Node("while/Identity", "XIdentity", {"while/Switch:1"},
            TypeAttr("T", "DT_INT32")) +
       Const("while/Add/y", 1, {"^while/Identity"}) +
       Node("while/Add", "XAdd", {"while/Identity", "while/Add/y"}) +
       Node("while/NextIteration", "NextIteration", {"while/Add"},
            TypeAttr("T", "DT_INT32")) +
       Node("while/Exit", "Exit", {"while/Switch"}, TypeAttr("T", "DT_INT32")) +
       Retval("r", "while/Exit", 0);
  return g;
}

TEST_F(ExecutorTest, Tf1WhileLoopCountsToTen) {
  ASSERT_TRUE(Build(WhileCounter(false, 10)).ok());
  EXPECT_EQ(RunScalar(), 10);
  Pool pool(4);
  Executor::Args args;
  args.runner = pool.runner();
  for (int i = 0; i < 10; ++i) EXPECT_EQ(RunScalar(args), 10);
}

TEST_F(ExecutorTest, Tf1WhileLoopWithLoopInvariantAndOneIterationAtATime) {
  ASSERT_TRUE(Build(WhileCounter(true, 1)).ok());
  EXPECT_EQ(RunScalar(), 10);
  Pool pool(4);
  Executor::Args args;
  args.runner = pool.runner();
  for (int i = 0; i < 10; ++i) EXPECT_EQ(RunScalar(args), 10);
}

TEST_F(ExecutorTest, NestedTf1Loops) {
  // for i in [0, 3): for j in [0, 4): acc += 1  -> acc = 12. The inner
  // loop's accumulator enters from the outer loop body each iteration.
  auto loop_enter = [](const std::string& name, const std::string& in,
                       const std::string& frame, bool constant) {
    return Node(name, "Enter", {in},
                TypeAttr("T", "DT_INT32") + StrAttr("frame_name", frame) +
                    IntAttr("parallel_iterations", 10) +
                    BoolAttr("is_constant", constant));
  };
  auto merge = [](const std::string& name, const std::string& a,
                  const std::string& b) {
    return Node(name, "Merge", {a, b},
                TypeAttr("T", "DT_INT32") + IntAttr("N", 2));
  };
  auto sw = [](const std::string& name, const std::string& d,
               const std::string& p) {
    return Node(name, "Switch", {d, p}, TypeAttr("T", "DT_INT32"));
  };
  auto ty = TypeAttr("T", "DT_INT32");
  std::string g;
  // Outer loop over (i, acc).
  g += Const("zero", 0) + Const("three", 3) + Const("four", 4);
  g += loop_enter("o/i_enter", "zero", "outer", false);
  g += loop_enter("o/acc_enter", "zero", "outer", false);
  g += loop_enter("o/limit", "three", "outer", true);
  g += loop_enter("o/inner_limit", "four", "outer", true);
  g += merge("o/i", "o/i_enter", "o/i_next");
  g += merge("o/acc", "o/acc_enter", "o/acc_next");
  g += Node("o/less", "XLess", {"o/i", "o/limit"});
  g += Node("o/cond", "LoopCond", {"o/less"});
  g += sw("o/i_sw", "o/i", "o/cond");
  g += sw("o/acc_sw", "o/acc", "o/cond");
  g += Node("o/i_body", "XIdentity", {"o/i_sw:1"}, ty);
  g += Node("o/acc_body", "XIdentity", {"o/acc_sw:1"}, ty);
  // Inner loop over (j, acc), entered from the outer body.
  g += Const("o/jzero", 0, {"^o/i_body"});
  g += loop_enter("in/j_enter", "o/jzero", "inner", false);
  g += loop_enter("in/acc_enter", "o/acc_body", "inner", false);
  g += loop_enter("in/limit", "o/inner_limit", "inner", true);
  g += merge("in/j", "in/j_enter", "in/j_next");
  g += merge("in/acc", "in/acc_enter", "in/acc_next");
  g += Node("in/less", "XLess", {"in/j", "in/limit"});
  g += Node("in/cond", "LoopCond", {"in/less"});
  g += sw("in/j_sw", "in/j", "in/cond");
  g += sw("in/acc_sw", "in/acc", "in/cond");
  g += Node("in/j_plus", "XAddOne", {"in/j_sw:1"});
  g += Node("in/acc_plus", "XAddOne", {"in/acc_sw:1"});
  g += Node("in/j_next", "NextIteration", {"in/j_plus"}, ty);
  g += Node("in/acc_next", "NextIteration", {"in/acc_plus"}, ty);
  g += Node("in/acc_exit", "Exit", {"in/acc_sw"}, ty);
  g += Node("in/j_exit", "Exit", {"in/j_sw"}, ty);
  // Back in the outer body.
  g += Node("o/i_plus", "XAddOne", {"o/i_body"});
  g += Node("o/i_next", "NextIteration", {"o/i_plus"}, ty);
  g += Node("o/acc_next", "NextIteration", {"in/acc_exit"}, ty);
  g += Node("o/acc_exit", "Exit", {"o/acc_sw"}, ty);
  g += Node("o/i_exit", "Exit", {"o/i_sw"}, ty);
  g += Retval("r", "o/acc_exit", 0);
  ASSERT_TRUE(Build(g).ok());
  EXPECT_EQ(RunScalar(), 12);
  Pool pool(4);
  Executor::Args args;
  args.runner = pool.runner();
  for (int i = 0; i < 10; ++i) EXPECT_EQ(RunScalar(args), 12);
}

TEST_F(ExecutorTest, ExitWithoutEnterIsRejected) {
  absl::Status s = Build(Const("c", 0) +
                         Node("x", "Exit", {"c"}, TypeAttr("T", "DT_INT32")));
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
}

// ---- Threads and stats -------------------------------------------------------

TEST_F(ExecutorTest, InterOpThreadsAreHonoured) {
  std::string g = Const("c", 0);
  std::vector<std::string> ins;
  for (int i = 0; i < 12; ++i) {
    const std::string name = absl::StrCat("s", i);
    g += Node(name, "XSleep", {"c"}, IntAttr("micros", 20000));
    ins.push_back(name);
  }
  g += Node("sum", "XAddN", ins, IntAttr("N", 12)) + Retval("r", "sum", 0);
  ASSERT_TRUE(Build(g).ok());

  // No runner: everything on the calling thread.
  EXPECT_EQ(RunScalar(), 0);
  EXPECT_EQ(executor_test::MaxConcurrency(), 1);

  // Three inter-op threads: the expensive nodes run three at a time, never
  // more.
  executor_test::ResetConcurrency();
  Pool pool(3);
  Executor::Args args;
  args.runner = pool.runner();
  EXPECT_EQ(RunScalar(args), 0);
  EXPECT_EQ(executor_test::MaxConcurrency(), 3);
}

TEST_F(ExecutorTest, StepStatsCollected) {
  ASSERT_TRUE(Build(Const("c", 3) + Node("a", "XAddOne", {"c"}) +
                    Retval("r", "a", 0))
                  .ok());
  tensorflow::StepStats step_stats;
  StepStatsCollector collector(&step_stats);
  Executor::Args args;
  args.stats_collector = &collector;
  EXPECT_EQ(RunScalar(args), 4);
  collector.Finalize();
  ASSERT_EQ(step_stats.dev_stats_size(), 1);
  const tensorflow::DeviceStepStats& dev = step_stats.dev_stats(0);
  EXPECT_EQ(dev.device(), kDeviceName);
  ASSERT_EQ(dev.node_stats_size(), 3);
  bool saw_a = false;
  for (const tensorflow::NodeExecStats& ns : dev.node_stats()) {
    EXPECT_GT(ns.all_start_micros(), 0);
    EXPECT_GE(ns.all_end_rel_nanos(), ns.op_end_rel_nanos());
    EXPECT_GE(ns.op_end_rel_nanos(), ns.op_start_rel_nanos());
    if (ns.node_name() == "a") {
      saw_a = true;
      ASSERT_EQ(ns.output_size(), 1);
      EXPECT_EQ(ns.output(0).slot(), 0);
      EXPECT_EQ(ns.output(0).tensor_description().dtype(),
                tensorflow::DT_INT32);
      EXPECT_EQ(ns.output(0)
                    .tensor_description()
                    .allocation_description()
                    .requested_bytes(),
                4);
      EXPECT_EQ(ns.timeline_label(), "a = XAddOne(c)");
    }
  }
  EXPECT_TRUE(saw_a);
}

}  // namespace
}  // namespace tributary
