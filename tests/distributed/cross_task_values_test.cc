// Graphs whose nodes are spread over the ps task and two worker tasks give,
// through the master, the same fetches as the local session running the same
// graph with the devices stripped (values, dtypes, shapes; float tolerance).

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/distributed/cluster_fixture.h"
#include "tests/distributed/shared_cluster_test.h"
#include "tests/distributed/distributed_test_util.h"
#include "tools/client/graph_builder.h"
#include "tools/client/tensor_helpers.h"

namespace tributary {
namespace test {
namespace {

class CrossTaskValuesTest : public SharedClusterTest {};

template <typename T>
Tensor Make(const std::vector<T>& values, const std::vector<int64_t>& dims) {
  return MakeTensor<T>(values, dims).value();
}

std::vector<float> Ramp(int n, float scale) {
  std::vector<float> v(n);
  for (int i = 0; i < n; ++i) v[i] = std::sin(scale * i);
  return v;
}

TEST_F(CrossTaskValuesTest, DenseLayersOverThreeTasks) {
  GraphBuilder b;
  Output x = b.Placeholder(tensorflow::DT_FLOAT, {-1, 4},
                           NodeOptions("x").WithDevice(Cpu(kWorker0)));
  Output w1 = b.Const<float>(Ramp(12, 0.7f), {4, 3},
                             NodeOptions("w1").WithDevice(Cpu(kPs)));
  Output b1 = b.Const<float>({0.1f, -0.2f, 0.3f}, {3},
                             NodeOptions("b1").WithDevice(Cpu(kPs)));
  Output h = b.Relu(b.BiasAdd(b.MatMul(x, w1), b1,
                              NodeOptions("bias").WithDevice(Cpu(kWorker0))),
                    NodeOptions("h").WithDevice(Cpu(kWorker0)));
  Output w2 = b.Const<float>(Ramp(6, 1.3f), {3, 2},
                             NodeOptions("w2").WithDevice(Cpu(kWorker1)));
  Output logits = b.MatMul(h, w2, false, false,
                           NodeOptions("logits").WithDevice(Cpu(kWorker1)));
  b.Softmax(logits, NodeOptions("softmax").WithDevice(Cpu(kPs)));
  b.Sum(logits, b.Const<int32_t>({1}, {1}), false,
        NodeOptions("row_sum").WithDevice(Cpu(kWorker0)));
  auto graph = b.Build();
  ASSERT_TRUE(graph.ok()) << graph.status();

  std::vector<Step> steps;
  for (int i = 0; i < 5; ++i) {
    steps.push_back(
        {{{"x", Make<float>(Ramp(8 + 4 * i, 0.3f + i), {2 + i, 4})}},
         {"h", "logits", "softmax", "row_sum"},
         {}});
  }
  ExpectSameAsLocal(target(), *graph, steps);
}

TEST_F(CrossTaskValuesTest, IntegerBoolAndStringTensorsCrossTasks) {
  GraphBuilder b;
  Output a = b.Placeholder(tensorflow::DT_INT32, {-1},
                           NodeOptions("a").WithDevice(Cpu(kPs)));
  Output big = b.Cast(a, tensorflow::DT_INT64,
                      NodeOptions("big").WithDevice(Cpu(kWorker0)));
  Output sq = b.Mul(big, big, NodeOptions("sq").WithDevice(Cpu(kWorker1)));
  Output less = b.Less(sq, b.Const<int64_t>({10}, {}),
                       NodeOptions("less").WithDevice(Cpu(kPs)));
  b.Select(less, a, b.Neg(a, NodeOptions("neg").WithDevice(Cpu(kWorker0))),
           NodeOptions("select").WithDevice(Cpu(kWorker1)));
  Output words = b.Placeholder(tensorflow::DT_STRING, {-1},
                               NodeOptions("words").WithDevice(Cpu(kWorker1)));
  // String tensors cross tasks twice (no string kernel beyond Identity).
  Output words_ps =
      b.Identity(words, NodeOptions("words_ps").WithDevice(Cpu(kPs)));
  b.Identity(words_ps, NodeOptions("joined").WithDevice(Cpu(kWorker0)));
  auto graph = b.Build();
  ASSERT_TRUE(graph.ok()) << graph.status();

  Tensor words_value(tensorflow::DT_STRING, TensorShape({3}));
  words_value.flat<std::string>()(0) = "";
  words_value.flat<std::string>()(1) = "\xc3\xa9t\xc3\xa9";
  words_value.flat<std::string>()(2) = std::string("nul\0inside", 10);
  ExpectSameAsLocal(target(), *graph,
                    {{{{"a", Make<int32_t>({-4, 1, 3, 0, 7}, {5})}},
                      {"big", "sq", "less", "select"},
                      {}},
                     {{{"words", words_value}}, {"joined", "words_ps"}, {}},
                     // A fed tensor fetched back as it is.
                     {{{"a", Make<int32_t>({2}, {1})}}, {"a"}, {}}});
}

TEST_F(CrossTaskValuesTest, ManyStepsOfOneSignatureAndOfSeveral) {
  // The master caches each (feeds, fetches, targets) signature; alternate
  // between signatures so cached and fresh registrations interleave.
  GraphBuilder b;
  Output x = b.Placeholder(tensorflow::DT_FLOAT, {-1},
                           NodeOptions("x").WithDevice(Cpu(kWorker1)));
  Output y =
      b.Mul(x, b.Scalar<float>(3.0f), NodeOptions("y").WithDevice(Cpu(kPs)));
  Output z = b.Add(y, x, NodeOptions("z").WithDevice(Cpu(kWorker0)));
  b.Exp(b.Neg(z, NodeOptions("nz").WithDevice(Cpu(kWorker1))),
        NodeOptions("e").WithDevice(Cpu(kPs)));
  auto graph = b.Build();
  ASSERT_TRUE(graph.ok()) << graph.status();
  std::vector<Step> steps;
  for (int i = 0; i < 20; ++i) {
    Tensor xv = Make<float>({0.1f * i, -0.2f * i, 1.0f}, {3});
    switch (i % 4) {
      case 0:
        steps.push_back({{{"x", xv}}, {"z"}, {}});
        break;
      case 1:
        steps.push_back({{{"x", xv}}, {"y", "e"}, {}});
        break;
      case 2:
        steps.push_back({{{"x", xv}}, {"e", "z", "y"}, {}});
        break;
      default:
        steps.push_back({{{"y", xv}}, {"z", "e"}, {}});
        break;  // feed y
    }
  }
  ExpectSameAsLocal(target(), *graph, steps);
}

TEST_F(CrossTaskValuesTest, LargeTensorsBetweenWorkersAndToTheClient) {
  // 32 MiB produced on worker 0, consumed on worker 1 and on ps, and fetched
  // through the master: big RecvTensor and RunStep messages.
  constexpr int64_t kElements = 8 << 20;
  GraphBuilder b;
  Output fill = b.Fill(b.Const<int32_t>({static_cast<int32_t>(kElements)}, {1}),
                       b.Scalar<float>(0.5f),
                       NodeOptions("fill").WithDevice(Cpu(kWorker0)));
  Output scaled =
      b.Mul(fill,
            b.Placeholder(tensorflow::DT_FLOAT, {},
                          NodeOptions("scale").WithDevice(Cpu(kWorker0))),
            NodeOptions("scaled").WithDevice(Cpu(kWorker0)));
  Output plus = b.Add(scaled, b.Scalar<float>(1.0f),
                      NodeOptions("plus").WithDevice(Cpu(kWorker1)));
  b.Sum(plus, b.Const<int32_t>({0}, {1}), false,
        NodeOptions("total").WithDevice(Cpu(kPs)));
  b.Max(plus, b.Const<int32_t>({0}, {1}), false,
        NodeOptions("max").WithDevice(Cpu(kWorker1)));
  auto graph = b.Build();
  ASSERT_TRUE(graph.ok()) << graph.status();
  ExpectSameAsLocal(target(), *graph,
                    {{{{"scale", Tensor(4.0f)}}, {"total", "max"}, {}},
                     {{{"scale", Tensor(2.0f)}}, {"plus", "total"}, {}}},
                    /*rtol=*/1e-4);
}

TEST_F(CrossTaskValuesTest, UnplacedNodesAndPartialDeviceSpecs) {
  // No device, a job only, a job and task: the master completes them
  // (unplaced -> /job:worker/task:0).
  GraphBuilder b;
  Output a = b.Const<float>({1, 2, 3, 4}, {2, 2}, NodeOptions("a"));
  Output c = b.Square(a, NodeOptions("c").WithDevice("/job:ps"));
  Output d = b.MatMul(c, a, false, true,
                      NodeOptions("d").WithDevice("/job:worker/task:1"));
  b.Transpose(d, b.Const<int32_t>({1, 0}, {2}),
              NodeOptions("t").WithDevice("/job:worker/task:1/device:CPU:0"));
  auto graph = b.Build();
  ASSERT_TRUE(graph.ok()) << graph.status();
  ExpectSameAsLocal(target(), *graph, {{{}, {"c", "d", "t"}, {}}});
}

TEST_F(CrossTaskValuesTest, ErrorsMatchTheLocalSession) {
  GraphBuilder b;
  Output a = b.Placeholder(tensorflow::DT_FLOAT, PartialTensorShape(),
                           NodeOptions("a").WithDevice(Cpu(kWorker0)));
  Output c = b.Placeholder(tensorflow::DT_FLOAT, PartialTensorShape(),
                           NodeOptions("c").WithDevice(Cpu(kPs)));
  b.MatMul(a, c, false, false, NodeOptions("mm").WithDevice(Cpu(kWorker1)));
  b.Add(a, c, NodeOptions("add").WithDevice(Cpu(kPs)));
  auto graph = b.Build();
  ASSERT_TRUE(graph.ok()) << graph.status();
  Tensor two_by_three = Make<float>({1, 2, 3, 4, 5, 6}, {2, 3});
  ExpectSameAsLocal(
      target(), *graph,
      {{{{"a", two_by_three}, {"c", two_by_three}}, {"mm"}, {}},  // shapes
       {{{"a", two_by_three}}, {"add"}, {}},                      // unfed
       {{{"a", two_by_three}}, {"no_such_node"}, {}},             // fetch
       {{{"a", two_by_three}}, {"a:3"}, {}},                      // slot
       {{{"a", two_by_three}, {"c", Make<float>({1, 1, 1}, {3, 1})}},
        {"mm"},
        {}}});
}

}  // namespace
}  // namespace test
}  // namespace tributary
