// Every GPU kernel against the CPU kernel on the same inputs (the CPU
// kernels are themselves checked against TensorFlow by the kernel tests),
// one session per op with the op on /device:GPU:0 and its inputs fed from
// the host, so each case also crosses the host-to-device and
// device-to-host copies of the rendezvous. Skipped without a GPU.
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "common/framework/tensor.h"
#include "common/framework/status.h"
#include "common/framework/tensor_testutil.h"
#include "common/runtime/session/local_session.h"
#include "protos/graph.pb.h"
#include "gtest/gtest.h"
#include "tests/gpu/gpu_test_util.h"

namespace tributary {
namespace {

using gpu_test::BoolAttr;
using gpu_test::OpCall;
using gpu_test::RandomTensor;
using gpu_test::RunOp;
using gpu_test::TypeAttr;

// Largest |a - b| / (1 + |b|) over the elements, as doubles.
double MaxRelativeError(const Tensor& a, const Tensor& b) {
  auto at = [](const Tensor& t, int64_t i) -> double {
    switch (t.dtype()) {
      case DT_FLOAT:
        return t.flat<float>()(i);
      case DT_DOUBLE:
        return t.flat<double>()(i);
      case DT_HALF:
        return static_cast<float>(t.flat<Eigen::half>()(i));
      case DT_BFLOAT16:
        return static_cast<float>(t.flat<Eigen::bfloat16>()(i));
      case DT_INT32:
        return t.flat<int32_t>()(i);
      case DT_INT64:
        return static_cast<double>(t.flat<int64_t>()(i));
      default:
        return NAN;
    }
  };
  double worst = 0;
  for (int64_t i = 0; i < a.NumElements(); ++i) {
    const double x = at(a, i), y = at(b, i);
    if (std::isnan(x) && std::isnan(y)) continue;
    if (x == y) continue;  // equal infinities too
    const double e = std::fabs(x - y) / (1.0 + std::fabs(y));
    if (!(e <= worst)) worst = e;  // NaN on one side only counts as worst
  }
  return worst;
}

// Runs `call` on the GPU and on the CPU and compares every output.
void ExpectGpuMatchesCpu(const OpCall& call, double tolerance) {
  absl::StatusOr<std::vector<Tensor>> gpu = RunOp(call, "/device:GPU:0");
  ASSERT_TRUE(gpu.ok()) << call.op << " on GPU: " << gpu.status();
  absl::StatusOr<std::vector<Tensor>> cpu = RunOp(call, "/device:CPU:0");
  ASSERT_TRUE(cpu.ok()) << call.op << " on CPU: " << cpu.status();
  ASSERT_EQ(gpu->size(), cpu->size());
  for (size_t i = 0; i < gpu->size(); ++i) {
    const Tensor& g = (*gpu)[i];
    const Tensor& c = (*cpu)[i];
    ASSERT_EQ(g.dtype(), c.dtype()) << call.op;
    ASSERT_EQ(g.shape(), c.shape())
        << call.op << ": " << g.shape().DebugString() << " vs "
        << c.shape().DebugString();
    EXPECT_LE(MaxRelativeError(g, c), tolerance)
        << call.op << " " << DataTypeString(g.dtype()) << " "
        << g.shape().DebugString();
  }
}

double ToleranceFor(DataType dtype) {
  switch (dtype) {
    case DT_DOUBLE:
      return 1e-12;
    case DT_HALF:
      return 2e-2;
    case DT_BFLOAT16:
      return 1e-1;
    default:
      return 2e-5;
  }
}

OpCall MatMulCall(DataType dtype, int64_t m, int64_t k, int64_t n, bool ta,
                  bool tb) {
  OpCall call;
  call.op = "MatMul";
  call.inputs = {
      RandomTensor(dtype, ta ? TensorShape({k, m}) : TensorShape({m, k}), -1,
                   1, 11),
      RandomTensor(dtype, tb ? TensorShape({n, k}) : TensorShape({k, n}), -1,
                   1, 12)};
  call.attrs = {{"transpose_a", BoolAttr(ta)}, {"transpose_b", BoolAttr(tb)}};
  return call;
}

TEST(GpuKernelsTest, MatMulEveryDtypeAndTranspose) {
  TRIB_SKIP_WITHOUT_GPU();
  for (DataType dtype : {DT_FLOAT, DT_DOUBLE, DT_HALF, DT_BFLOAT16}) {
    for (bool ta : {false, true}) {
      for (bool tb : {false, true}) {
        // Relative to the sum's size: k products of values in [-1, 1].
        ExpectGpuMatchesCpu(MatMulCall(dtype, 67, 129, 35, ta, tb),
                            ToleranceFor(dtype) * 16);
      }
    }
  }
  // Empty inner dimension: zeros; empty output: nothing to do.
  ExpectGpuMatchesCpu(MatMulCall(DT_FLOAT, 3, 0, 4, false, false), 0);
  ExpectGpuMatchesCpu(MatMulCall(DT_FLOAT, 0, 5, 4, false, false), 0);
}

TEST(GpuKernelsTest, MatMulShapeErrorsMatchTheCpu) {
  TRIB_SKIP_WITHOUT_GPU();
  OpCall call = MatMulCall(DT_FLOAT, 3, 4, 5, false, false);
  call.inputs[1] = RandomTensor(DT_FLOAT, TensorShape({3, 5}), -1, 1, 1);
  absl::StatusOr<std::vector<Tensor>> gpu = RunOp(call, "/device:GPU:0");
  absl::StatusOr<std::vector<Tensor>> cpu = RunOp(call, "/device:CPU:0");
  ASSERT_FALSE(gpu.ok());
  ASSERT_FALSE(cpu.ok());
  EXPECT_EQ(gpu.status().code(), cpu.status().code());
  EXPECT_EQ(gpu.status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(GpuKernelsTest, BatchMatMulV2WithBroadcasting) {
  TRIB_SKIP_WITHOUT_GPU();
  struct Case {
    TensorShape x, y;
    bool adj_x, adj_y;
  };
  const std::vector<Case> cases = {
      {TensorShape({4, 5, 6}), TensorShape({4, 6, 7}), false, false},
      {TensorShape({4, 6, 5}), TensorShape({4, 7, 6}), true, true},
      {TensorShape({4, 5, 6}), TensorShape({6, 7}), false, false},
      {TensorShape({5, 6}), TensorShape({3, 6, 7}), false, false},
      {TensorShape({2, 1, 5, 6}), TensorShape({1, 3, 6, 7}), false, false},
      {TensorShape({0, 5, 6}), TensorShape({0, 6, 7}), false, false},
  };
  for (DataType dtype : {DT_FLOAT, DT_DOUBLE, DT_HALF, DT_BFLOAT16}) {
    for (const Case& c : cases) {
      OpCall call;
      call.op = "BatchMatMulV2";
      call.inputs = {RandomTensor(dtype, c.x, -1, 1, 3),
                     RandomTensor(dtype, c.y, -1, 1, 4)};
      call.attrs = {{"adj_x", BoolAttr(c.adj_x)}, {"adj_y", BoolAttr(c.adj_y)}};
      ExpectGpuMatchesCpu(call, ToleranceFor(dtype) * 4);
    }
  }
}

TEST(GpuKernelsTest, UnaryOpsMatchTheCpu) {
  TRIB_SKIP_WITHOUT_GPU();
  for (DataType dtype : {DT_FLOAT, DT_DOUBLE}) {
    for (const char* op : {"Neg", "Abs", "Square", "Exp", "Tanh", "Sigmoid",
                           "Relu", "Relu6", "Reciprocal"}) {
      OpCall call;
      call.op = op;
      call.inputs = {RandomTensor(dtype, TensorShape({7, 151}), -8, 8, 21)};
      ExpectGpuMatchesCpu(call, ToleranceFor(dtype) * 4);
    }
    for (const char* op : {"Sqrt", "Rsqrt", "Log"}) {
      OpCall call;
      call.op = op;
      call.inputs = {RandomTensor(dtype, TensorShape({1000}), 0.01f, 9, 22)};
      ExpectGpuMatchesCpu(call, ToleranceFor(dtype) * 4);
    }
  }
}

TEST(GpuKernelsTest, GradientOpsMatchTheCpu) {
  TRIB_SKIP_WITHOUT_GPU();
  for (DataType dtype : {DT_FLOAT, DT_DOUBLE}) {
    for (const char* op :
         {"ReluGrad", "Relu6Grad", "SigmoidGrad", "TanhGrad"}) {
      OpCall call;
      call.op = op;
      call.inputs = {RandomTensor(dtype, TensorShape({33, 17}), -7, 7, 23),
                     RandomTensor(dtype, TensorShape({33, 17}), -7, 7, 24)};
      ExpectGpuMatchesCpu(call, ToleranceFor(dtype) * 4);
    }
  }
}

TEST(GpuKernelsTest, BinaryOpsWithBroadcastingMatchTheCpu) {
  TRIB_SKIP_WITHOUT_GPU();
  const std::vector<std::pair<TensorShape, TensorShape>> shapes = {
      {TensorShape({64, 33}), TensorShape({64, 33})},
      {TensorShape({3, 1, 5}), TensorShape({4, 1})},
      {TensorShape({}), TensorShape({10, 3})},
      {TensorShape({2, 3, 4, 5}), TensorShape({5})},
      {TensorShape({0, 3}), TensorShape({3})},
  };
  for (DataType dtype : {DT_FLOAT, DT_DOUBLE}) {
    for (const char* op : {"Add", "AddV2", "Sub", "Mul", "RealDiv", "Div",
                           "Maximum", "Minimum", "SquaredDifference"}) {
      for (const auto& [x, y] : shapes) {
        OpCall call;
        call.op = op;
        call.inputs = {RandomTensor(dtype, x, -4, 4, 25),
                       RandomTensor(dtype, y, 0.5f, 4, 26)};
        ExpectGpuMatchesCpu(call, ToleranceFor(dtype) * 4);
      }
    }
  }
  // Shapes that do not broadcast fail alike.
  OpCall bad;
  bad.op = "Add";
  bad.inputs = {RandomTensor(DT_FLOAT, TensorShape({3, 4}), 0, 1, 1),
                RandomTensor(DT_FLOAT, TensorShape({5}), 0, 1, 2)};
  absl::StatusOr<std::vector<Tensor>> gpu = RunOp(bad, "/device:GPU:0");
  ASSERT_FALSE(gpu.ok());
  EXPECT_EQ(gpu.status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(GpuKernelsTest, BiasAddAndItsGradientMatchTheCpu) {
  TRIB_SKIP_WITHOUT_GPU();
  tensorflow::AttrValue nchw;
  nchw.set_s("NCHW");
  for (DataType dtype : {DT_FLOAT, DT_DOUBLE}) {
    OpCall nhwc;
    nhwc.op = "BiasAdd";
    nhwc.inputs = {RandomTensor(dtype, TensorShape({2, 5, 5, 8}), -1, 1, 27),
                   RandomTensor(dtype, TensorShape({8}), -1, 1, 28)};
    ExpectGpuMatchesCpu(nhwc, ToleranceFor(dtype));
    OpCall first = nhwc;
    first.inputs[0] = RandomTensor(dtype, TensorShape({2, 8, 5, 5}), -1, 1, 29);
    first.attrs = {{"data_format", nchw}};
    ExpectGpuMatchesCpu(first, ToleranceFor(dtype));
    OpCall grad;
    grad.op = "BiasAddGrad";
    grad.inputs = {RandomTensor(dtype, TensorShape({16, 9, 9, 8}), -1, 1, 30)};
    ExpectGpuMatchesCpu(grad, ToleranceFor(dtype) * 64);
  }
}

TEST(GpuKernelsTest, AliasingOpsKeepTheData) {
  TRIB_SKIP_WITHOUT_GPU();
  const Tensor x = RandomTensor(DT_FLOAT, TensorShape({2, 3, 4}), -1, 1, 5);
  for (const char* op : {"Identity", "StopGradient"}) {
    OpCall call;
    call.op = op;
    call.inputs = {x};
    ExpectGpuMatchesCpu(call, 0);
  }
  // A float Const on the GPU is decoded on the host and copied in.
  OpCall from_const;
  from_const.op = "Identity";
  from_const.inputs = {x};
  from_const.const_inputs = {0};
  ExpectGpuMatchesCpu(from_const, 0);
  OpCall reshape;
  reshape.op = "Reshape";
  reshape.inputs = {x, test::AsTensor<int32_t>({4, -1}, TensorShape({2}))};
  reshape.const_inputs = {1};
  ExpectGpuMatchesCpu(reshape, 0);
  OpCall expand;
  expand.op = "ExpandDims";
  expand.inputs = {x, test::AsTensor<int32_t>({1}, TensorShape({}))};
  expand.const_inputs = {1};
  ExpectGpuMatchesCpu(expand, 0);
  OpCall squeeze;
  squeeze.op = "Squeeze";
  squeeze.inputs = {RandomTensor(DT_FLOAT, TensorShape({1, 3, 1}), -1, 1, 6)};
  ExpectGpuMatchesCpu(squeeze, 0);
}

// A small network's forward pass with every node on the GPU: kernels that
// follow each other on the compute stream, Consts in device memory, one
// feed copied in and one fetch copied out.
absl::StatusOr<Tensor> RunMlp(const std::string& device, const Tensor& x) {
  tensorflow::GraphDef graph;
  auto add = [&](const std::string& name, const std::string& op,
                 std::vector<std::string> inputs) {
    tensorflow::NodeDef* node = gpu_test::AddNode(&graph, name, op, device);
    for (const std::string& in : inputs) node->add_input(in);
    (*node->mutable_attr())["T"] = gpu_test::TypeAttr(DT_FLOAT);
  };
  gpu_test::AddPlaceholder(&graph, "x", DT_FLOAT, "/device:CPU:0");
  gpu_test::AddConst(&graph, "w1",
                     RandomTensor(DT_FLOAT, TensorShape({32, 64}), -0.5, 0.5, 41),
                     device);
  gpu_test::AddConst(&graph, "b1",
                     RandomTensor(DT_FLOAT, TensorShape({64}), -0.5, 0.5, 42),
                     device);
  gpu_test::AddConst(&graph, "w2",
                     RandomTensor(DT_FLOAT, TensorShape({64, 10}), -0.5, 0.5, 43),
                     device);
  add("h", "MatMul", {"x", "w1"});
  add("hb", "BiasAdd", {"h", "b1"});
  add("r", "Relu", {"hb"});
  add("o", "MatMul", {"r", "w2"});
  add("y", "Sigmoid", {"o"});
  TRIB_ASSIGN_OR_RETURN(std::unique_ptr<LocalSession> session,
                        LocalSession::New(tensorflow::ConfigProto()));
  TRIB_RETURN_IF_ERROR(session->Create(graph));
  std::vector<Tensor> out;
  for (int step = 0; step < 3; ++step) {  // steps reuse the freed memory
    TRIB_RETURN_IF_ERROR(session->Run({{"x:0", x}}, {"y:0"}, {}, &out));
  }
  TRIB_RETURN_IF_ERROR(session->Close());
  return out[0];
}

TEST(GpuKernelsTest, ANetworkOnTheGpuMatchesTheCpu) {
  TRIB_SKIP_WITHOUT_GPU();
  const Tensor x = RandomTensor(DT_FLOAT, TensorShape({128, 32}), -1, 1, 40);
  absl::StatusOr<Tensor> gpu = RunMlp("/device:GPU:0", x);
  ASSERT_TRUE(gpu.ok()) << gpu.status();
  absl::StatusOr<Tensor> cpu = RunMlp("/device:CPU:0", x);
  ASSERT_TRUE(cpu.ok()) << cpu.status();
  EXPECT_LE(MaxRelativeError(*gpu, *cpu), 1e-5);
}

// ---- Cast, Fill, Transpose, reductions, ArgMax, softmax, cross entropy ----

TEST(GpuKernelsTest, CastBetweenFloatingTypesMatchesTheCpu) {
  TRIB_SKIP_WITHOUT_GPU();
  for (DataType src : {DT_FLOAT, DT_DOUBLE, DT_HALF}) {
    for (DataType dst : {DT_FLOAT, DT_DOUBLE, DT_HALF}) {
      for (const TensorShape& shape :
           {TensorShape({37, 29}), TensorShape({0, 3})}) {
        OpCall call;
        call.op = "Cast";
        // Values drawn as floats: every conversion rounds at most once, so
        // the GPU and the CPU agree exactly.
        call.inputs = {RandomTensor(src, shape, -60000, 60000, 31)};
        call.attrs = {{"SrcT", TypeAttr(src)}, {"DstT", TypeAttr(dst)}};
        ExpectGpuMatchesCpu(call, 0);
      }
    }
  }
}

TEST(GpuKernelsTest, FillZerosLikeAndOnesLikeMatchTheCpu) {
  TRIB_SKIP_WITHOUT_GPU();
  for (DataType dtype : {DT_FLOAT, DT_DOUBLE, DT_HALF}) {
    for (const char* op : {"ZerosLike", "OnesLike"}) {
      for (const TensorShape& shape :
           {TensorShape({5, 7, 3}), TensorShape({}), TensorShape({0, 4})}) {
        OpCall call;
        call.op = op;
        call.inputs = {RandomTensor(dtype, shape, -3, 3, 32)};
        ExpectGpuMatchesCpu(call, 0);
      }
    }
    // Fill: dims (host memory; int32, as int64 index arguments have no GPU
    // kernel yet) then the value, whose dtype is T.
    OpCall fill;
    fill.op = "Fill";
    fill.inputs = {test::AsTensor<int32_t>({3, 4, 5}, TensorShape({3})),
                   RandomTensor(dtype, TensorShape({}), -3, 3, 33)};
    fill.attrs = {{"T", TypeAttr(dtype)}};
    fill.const_inputs = {0};
    ExpectGpuMatchesCpu(fill, 0);
    OpCall fill64 = fill;
    fill64.inputs[0] = test::AsTensor<int32_t>({1000, 7}, TensorShape({2}));
    ExpectGpuMatchesCpu(fill64, 0);
    OpCall empty = fill;
    empty.inputs[0] = test::AsTensor<int32_t>({0, 4}, TensorShape({2}));
    ExpectGpuMatchesCpu(empty, 0);
  }
  // A negative dimension fails alike.
  OpCall bad;
  bad.op = "Fill";
  bad.inputs = {test::AsTensor<int32_t>({2, -1}, TensorShape({2})),
                RandomTensor(DT_FLOAT, TensorShape({}), 0, 1, 34)};
  bad.attrs = {{"T", TypeAttr(DT_FLOAT)}};
  bad.const_inputs = {0};
  absl::StatusOr<std::vector<Tensor>> gpu = RunOp(bad, "/device:GPU:0");
  ASSERT_FALSE(gpu.ok());
  EXPECT_EQ(gpu.status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(GpuKernelsTest, TransposeMatchesTheCpu) {
  TRIB_SKIP_WITHOUT_GPU();
  struct Case {
    TensorShape shape;
    std::vector<int32_t> perm;
  };
  const std::vector<Case> cases = {
      {TensorShape({33, 65}), {1, 0}},
      {TensorShape({4, 5, 6}), {0, 1, 2}},  // identity
      {TensorShape({4, 5, 6}), {0, 2, 1}},
      {TensorShape({4, 5, 6}), {2, 0, 1}},
      {TensorShape({4, 5, 6}), {-1, 0, 1}},  // negative entries count back
      {TensorShape({2, 3, 4, 5}), {3, 1, 0, 2}},
      {TensorShape({2, 3, 4, 5}), {0, 2, 3, 1}},
      {TensorShape({3, 1, 4}), {1, 0, 2}},  // no element moves
      {TensorShape({3, 1, 4}), {2, 1, 0}},
      {TensorShape({0, 3}), {1, 0}},
  };
  for (DataType dtype : {DT_FLOAT, DT_DOUBLE, DT_HALF}) {
    for (const Case& c : cases) {
      OpCall call;
      call.op = "Transpose";
      call.inputs = {RandomTensor(dtype, c.shape, -5, 5, 35),
                     test::AsTensor<int32_t>(
                         c.perm, TensorShape({static_cast<int64_t>(
                                     c.perm.size())}))};
      call.const_inputs = {1};
      ExpectGpuMatchesCpu(call, 0);
    }
  }
  // A permutation from a Const on the GPU (int32: host memory).
  OpCall perm64;
  perm64.op = "Transpose";
  perm64.inputs = {RandomTensor(DT_FLOAT, TensorShape({6, 7, 8}), -1, 1, 36),
                   test::AsTensor<int32_t>({2, 1, 0}, TensorShape({3}))};
  perm64.const_inputs = {1};
  ExpectGpuMatchesCpu(perm64, 0);
  // A permutation that repeats a dimension fails alike.
  OpCall bad = perm64;
  bad.inputs[1] = test::AsTensor<int32_t>({0, 0, 1}, TensorShape({3}));
  absl::StatusOr<std::vector<Tensor>> gpu = RunOp(bad, "/device:GPU:0");
  ASSERT_FALSE(gpu.ok());
  EXPECT_EQ(gpu.status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(GpuKernelsTest, ReductionsMatchTheCpu) {
  TRIB_SKIP_WITHOUT_GPU();
  const std::vector<std::vector<int32_t>> axes_cases = {
      {0}, {1}, {0, 2}, {}, {-1}, {2, 0}};
  for (DataType dtype : {DT_FLOAT, DT_DOUBLE}) {
    for (const char* op : {"Sum", "Mean", "Max", "Min", "Prod"}) {
      // Prod of values near 1 stays representable.
      const bool prod = std::string(op) == "Prod";
      const Tensor x = RandomTensor(dtype, TensorShape({4, 5, 6}),
                                    prod ? 0.5f : -4.0f, prod ? 1.5f : 4.0f,
                                    37);
      for (const std::vector<int32_t>& axes : axes_cases) {
        for (bool keep_dims : {false, true}) {
          OpCall call;
          call.op = op;
          call.inputs = {
              x, test::AsTensor<int32_t>(
                     axes, TensorShape({static_cast<int64_t>(axes.size())}))};
          call.attrs = {{"keep_dims", BoolAttr(keep_dims)}};
          call.const_inputs = {1};
          ExpectGpuMatchesCpu(call, ToleranceFor(dtype) * 8);
        }
      }
      // Shapes that take each kernel: contiguous reduced elements (a block
      // per output), strided ones with many outputs (a thread per output),
      // few outputs with long strided reductions, and alternating
      // reduced/kept dimensions.
      struct Big {
        TensorShape shape;
        std::vector<int32_t> axes;
      };
      const std::vector<Big> bigs = {
          {TensorShape({64, 1000}), {1}},
          {TensorShape({50, 2000}), {0}},
          {TensorShape({3000, 20}), {0}},
          {TensorShape({3, 4, 5, 6}), {1, 3}},
          {TensorShape({2, 3, 4, 5, 6}), {0, 2, 4}},
          {TensorShape({1, 7, 1}), {0, 2}},  // only size-1 axes
          {TensorShape({0, 5}), {0}},        // empty: the identity
          {TensorShape({5, 0}), {0}},        // empty output
      };
      for (const Big& b : bigs) {
        OpCall call;
        call.op = op;
        call.inputs = {
            RandomTensor(dtype, b.shape, prod ? 0.99f : -1.0f,
                         prod ? 1.01f : 1.0f, 38),
            test::AsTensor<int32_t>(
                b.axes, TensorShape({static_cast<int64_t>(b.axes.size())}))};
        call.const_inputs = {1};
        ExpectGpuMatchesCpu(call, ToleranceFor(dtype) * 64);
      }
    }
  }
  // A negative axis; an axis out of range fails alike.
  OpCall axes64;
  axes64.op = "Mean";
  axes64.inputs = {RandomTensor(DT_FLOAT, TensorShape({6, 7}), -1, 1, 39),
                   test::AsTensor<int32_t>({-2}, TensorShape({1}))};
  axes64.const_inputs = {1};
  ExpectGpuMatchesCpu(axes64, ToleranceFor(DT_FLOAT) * 8);
  OpCall bad = axes64;
  bad.inputs[1] = test::AsTensor<int32_t>({2}, TensorShape({1}));
  absl::StatusOr<std::vector<Tensor>> gpu = RunOp(bad, "/device:GPU:0");
  ASSERT_FALSE(gpu.ok());
  EXPECT_EQ(gpu.status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(GpuKernelsTest, ArgMaxAndArgMinMatchTheCpu) {
  TRIB_SKIP_WITHOUT_GPU();
  for (DataType dtype : {DT_FLOAT, DT_DOUBLE}) {
    for (const char* op : {"ArgMax", "ArgMin"}) {
      for (int32_t dim : {0, 1, 2, -1}) {
        OpCall call;
        call.op = op;
        call.inputs = {RandomTensor(dtype, TensorShape({7, 33, 5}), -9, 9, 40),
                       test::AsTensor<int32_t>({dim}, TensorShape({}))};
        call.const_inputs = {1};
        ExpectGpuMatchesCpu(call, 0);
      }
    }
  }
  // Ties resolve to the first index, as on the CPU.
  OpCall ties;
  ties.op = "ArgMax";
  ties.inputs = {test::AsTensor<float>({1, 3, 3, 2, 2, 0}, TensorShape({2, 3})),
                 test::AsTensor<int32_t>({1}, TensorShape({}))};
  ties.const_inputs = {1};
  ExpectGpuMatchesCpu(ties, 0);
}

TEST(GpuKernelsTest, SoftmaxAndLogSoftmaxMatchTheCpu) {
  TRIB_SKIP_WITHOUT_GPU();
  for (DataType dtype : {DT_FLOAT, DT_DOUBLE}) {
    for (const char* op : {"Softmax", "LogSoftmax"}) {
      for (const TensorShape& shape :
           {TensorShape({7, 33}), TensorShape({5, 1000}),
            TensorShape({3, 4, 10}), TensorShape({1}), TensorShape({0, 4})}) {
        OpCall call;
        call.op = op;
        // Large logits: without the max shift exp would overflow.
        call.inputs = {RandomTensor(dtype, shape, -100, 100, 41)};
        ExpectGpuMatchesCpu(call, ToleranceFor(dtype) * 8);
      }
    }
  }
}

TEST(GpuKernelsTest, SoftmaxCrossEntropiesMatchTheCpu) {
  TRIB_SKIP_WITHOUT_GPU();
  for (DataType dtype : {DT_FLOAT, DT_DOUBLE}) {
    for (const auto& [b, c] : std::vector<std::pair<int64_t, int64_t>>{
             {8, 10}, {3, 700}, {1, 1}, {0, 5}}) {
      OpCall dense;
      dense.op = "SoftmaxCrossEntropyWithLogits";
      dense.inputs = {RandomTensor(dtype, TensorShape({b, c}), -10, 10, 42),
                      RandomTensor(dtype, TensorShape({b, c}), 0, 1, 43)};
      dense.num_outputs = 2;
      ExpectGpuMatchesCpu(dense, ToleranceFor(dtype) * 64);

      if (b == 0) continue;
      std::vector<int64_t> labels(b);
      for (int64_t i = 0; i < b; ++i) labels[i] = (i * 7 + 3) % c;
      OpCall sparse;
      sparse.op = "SparseSoftmaxCrossEntropyWithLogits";
      sparse.inputs = {RandomTensor(dtype, TensorShape({b, c}), -10, 10, 44),
                       test::AsTensor<int64_t>(labels, TensorShape({b}))};
      sparse.num_outputs = 2;
      ExpectGpuMatchesCpu(sparse, ToleranceFor(dtype) * 64);
    }
    // Labels broadcast along the batch.
    OpCall broadcast;
    broadcast.op = "SoftmaxCrossEntropyWithLogits";
    broadcast.inputs = {RandomTensor(dtype, TensorShape({6, 9}), -5, 5, 45),
                        RandomTensor(dtype, TensorShape({1, 9}), 0, 1, 46)};
    broadcast.num_outputs = 2;
    ExpectGpuMatchesCpu(broadcast, ToleranceFor(dtype) * 64);
  }
  // An out-of-range sparse label: NaN in its row on the GPU (the CPU kernel
  // fails instead), the other rows unaffected.
  OpCall bad;
  bad.op = "SparseSoftmaxCrossEntropyWithLogits";
  bad.inputs = {RandomTensor(DT_FLOAT, TensorShape({2, 4}), -1, 1, 47),
                test::AsTensor<int64_t>({1, 4}, TensorShape({2}))};
  bad.num_outputs = 2;
  absl::StatusOr<std::vector<Tensor>> gpu = RunOp(bad, "/device:GPU:0");
  ASSERT_TRUE(gpu.ok()) << gpu.status();
  EXPECT_FALSE(std::isnan((*gpu)[0].flat<float>()(0)));
  EXPECT_TRUE(std::isnan((*gpu)[0].flat<float>()(1)));
  for (int k = 0; k < 4; ++k) {
    EXPECT_FALSE(std::isnan((*gpu)[1].flat<float>()(k)));
    EXPECT_TRUE(std::isnan((*gpu)[1].flat<float>()(4 + k)));
  }
}

}  // namespace
}  // namespace tributary
