// Throughput of the heavier nn kernels (Conv2D, pooling, softmax, bias) run
// alone through KernelRunner on a thread pool as wide as the machine.
// Conv2D reports GFLOP/s (2 * multiply-adds) so shapes compare directly
// with TensorFlow's numbers for the same shapes (see README.md).
//
//   bazel run //kernels/nn:nn_benchmark -- --benchmark_filter=Conv
//   NN_BENCH_THREADS=1 bazel-bin/kernels/nn/nn_benchmark   # one thread

#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "benchmark/benchmark.h"
#include "common/framework/logging.h"
#include "common/framework/tensor.h"
#include "kernels/nn/conv2d_im2col.h"
#include "kernels/testing/kernel_runner.h"

namespace tributary {
namespace {

using test::KernelRunner;
using test::NodeDefBuilder;

// The intra-op pool width: $NN_BENCH_THREADS, else one per hardware thread.
int Threads() {
  if (const char* env = std::getenv("NN_BENCH_THREADS")) {
    const int n = std::atoi(env);
    if (n > 0) return n;
  }
  const unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 1 : static_cast<int>(n);
}

Tensor RandomFloats(const TensorShape& shape) {
  Tensor t(DT_FLOAT, shape);
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-1, 1);
  auto flat = t.flat<float>();
  for (int64_t i = 0; i < t.NumElements(); ++i) flat(i) = dist(rng);
  return t;
}

// Builds `node` once and runs it per iteration on `inputs`.
void RunLoop(benchmark::State& state, const tensorflow::NodeDef& node,
             const std::vector<Tensor>& inputs) {
  KernelRunner runner(Threads());
  CHECK(runner.Init(node).ok());
  for (auto _ : state) {
    auto out = runner.Run(inputs);
    CHECK(out.ok()) << out.status();
    benchmark::DoNotOptimize(out);
  }
}

// Args: batch, size (square image), in depth, out depth, filter, stride,
// dilation. $NN_BENCH_CONV_PATH=blocked|chunked forces one engine path
// (and so the im2col engine); TRIBUTARY_CONV_BACKEND=im2col|onednn picks the
// float backend (onednn_conv.h).
void BM_Conv2D(benchmark::State& state) {
  if (const char* path = std::getenv("NN_BENCH_CONV_PATH")) {
    nn::SetConv2DPathForTesting(std::string(path) == "blocked"
                                    ? nn::Conv2DPath::kBlocked
                                    : nn::Conv2DPath::kChunked);
  }
  const int64_t n = state.range(0), hw = state.range(1), ci = state.range(2),
                co = state.range(3), k = state.range(4), s = state.range(5),
                d = state.range(6);
  const tensorflow::NodeDef node = NodeDefBuilder("conv", "Conv2D")
                                       .Input("x")
                                       .Input("w")
                                       .Attr("T", DT_FLOAT)
                                       .Attr("strides", {1, s, s, 1})
                                       .Attr("dilations", {1, d, d, 1})
                                       .Attr("padding", "SAME")
                                       .Build();
  RunLoop(state, node,
          {RandomFloats(TensorShape({n, hw, hw, ci})),
           RandomFloats(TensorShape({k, k, ci, co}))});
  const int64_t out_hw = (hw + s - 1) / s;
  const double flops = 2.0 * n * out_hw * out_hw * co * k * k * ci;
  state.counters["GFLOP/s"] = benchmark::Counter(
      flops * state.iterations() / 1e9, benchmark::Counter::kIsRate);
}
BENCHMARK(BM_Conv2D)
    ->ArgNames({"n", "hw", "ci", "co", "k", "s", "d"})
    ->Args({1, 56, 64, 64, 3, 1, 1})    // ResNet stage 2
    ->Args({8, 28, 128, 128, 3, 1, 1})  // ResNet stage 3, batch 8
    ->Args({8, 28, 256, 64, 1, 1, 1})   // 1x1 bottleneck
    ->Args({32, 32, 3, 32, 5, 2, 1})    // CIFAR stem, few channels
    ->Args({4, 32, 32, 32, 3, 1, 2})    // dilated
    ->Args({1, 7, 512, 512, 3, 1, 1})   // ResNet stage 5, batch 1
    ->Args({1, 224, 3, 64, 7, 2, 1})    // ResNet stem, 7x7 stride 2
    ->Args({1, 56, 64, 256, 1, 1, 1})   // ResNet 1x1 expand, batch 1
    ->Args({1, 28, 512, 128, 1, 1, 1})  // ResNet 1x1 reduce, batch 1
    ->Args({1, 56, 256, 512, 1, 2, 1})  // ResNet 1x1 stride-2 shortcut
    ->Args({8, 14, 256, 256, 3, 1, 1})  // ResNet stage 4, batch 8
    ->Args({1, 112, 32, 16, 1, 1, 1})   // MobileNetV2 1x1 project
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// DepthwiseConv2dNative, multiplier 1, SAME. Args: batch, size, channels,
// stride. GFLOP/s as for Conv2D.
void BM_DepthwiseConv2D(benchmark::State& state) {
  const int64_t n = state.range(0), hw = state.range(1), c = state.range(2),
                s = state.range(3);
  const tensorflow::NodeDef node = NodeDefBuilder("dw", "DepthwiseConv2dNative")
                                       .Input("x")
                                       .Input("w")
                                       .Attr("T", DT_FLOAT)
                                       .Attr("strides", {1, s, s, 1})
                                       .Attr("padding", "SAME")
                                       .Build();
  RunLoop(state, node,
          {RandomFloats(TensorShape({n, hw, hw, c})),
           RandomFloats(TensorShape({3, 3, c, 1}))});
  const int64_t out_hw = (hw + s - 1) / s;
  const double flops = 2.0 * n * out_hw * out_hw * c * 9;
  state.counters["GFLOP/s"] = benchmark::Counter(
      flops * state.iterations() / 1e9, benchmark::Counter::kIsRate);
}
BENCHMARK(BM_DepthwiseConv2D)
    ->ArgNames({"n", "hw", "c", "s"})
    ->Args({1, 112, 96, 2})  // MobileNetV2 block 2
    ->Args({1, 56, 144, 1})  // MobileNetV2 block 3
    ->Args({1, 14, 576, 1})  // MobileNetV2 block 13
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// Conv2D + BiasAdd + Relu6 (MobileNet's block) as three kernels run one
// after another (fused = 0) against one _FusedConv2D [BiasAdd, Relu6]
// (fused = 1). Args: batch, size, in depth, out depth, filter, fused.
void BM_FusedConv2D(benchmark::State& state) {
  const int64_t n = state.range(0), hw = state.range(1), ci = state.range(2),
                co = state.range(3), k = state.range(4);
  const bool fused = state.range(5) != 0;
  const Tensor x = RandomFloats(TensorShape({n, hw, hw, ci}));
  const Tensor w = RandomFloats(TensorShape({k, k, ci, co}));
  const Tensor b = RandomFloats(TensorShape({co}));
  if (fused) {
    RunLoop(state,
            NodeDefBuilder("fused", "_FusedConv2D")
                .Input("x").Input("w").Input("b")
                .Attr("T", DT_FLOAT)
                .Attr("TArgs", std::vector<DataType>{DT_FLOAT})
                .Attr("num_args", int64_t{1})
                .Attr("fused_ops", std::vector<std::string>{"BiasAdd", "Relu6"})
                .Attr("strides", {1, 1, 1, 1})
                .Attr("padding", "SAME")
                .Build(),
            {x, w, b});
  } else {
    KernelRunner conv(Threads()), bias(Threads()), relu6(Threads());
    CHECK(conv.Init(NodeDefBuilder("conv", "Conv2D")
                        .Input("x").Input("w")
                        .Attr("T", DT_FLOAT)
                        .Attr("strides", {1, 1, 1, 1})
                        .Attr("padding", "SAME")
                        .Build()).ok());
    CHECK(bias.Init(NodeDefBuilder("bias", "BiasAdd")
                        .Input("x").Input("b").Attr("T", DT_FLOAT)
                        .Build()).ok());
    CHECK(relu6.Init(NodeDefBuilder("relu6", "Relu6")
                         .Input("x").Attr("T", DT_FLOAT).Build()).ok());
    for (auto _ : state) {
      auto y = conv.Run({x, w});
      CHECK(y.ok()) << y.status();
      auto z = bias.Run({(*y)[0], b});
      CHECK(z.ok()) << z.status();
      auto out = relu6.Run({(*z)[0]});
      CHECK(out.ok()) << out.status();
      benchmark::DoNotOptimize(out);
    }
  }
  const double flops = 2.0 * n * hw * hw * co * k * k * ci;
  state.counters["GFLOP/s"] = benchmark::Counter(
      flops * state.iterations() / 1e9, benchmark::Counter::kIsRate);
}
BENCHMARK(BM_FusedConv2D)
    ->ArgNames({"n", "hw", "ci", "co", "k", "fused"})
    ->Args({1, 112, 32, 16, 1, 0})  // MobileNetV2 1x1 project
    ->Args({1, 112, 32, 16, 1, 1})
    ->Args({1, 56, 24, 144, 1, 0})  // MobileNetV2 1x1 expand
    ->Args({1, 56, 24, 144, 1, 1})
    ->Args({1, 56, 64, 64, 3, 0})   // 3x3, ResNet stage 2
    ->Args({1, 56, 64, 64, 3, 1})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// The gradients of a SAME, unit-stride Conv2D. Args: batch, size, in depth,
// out depth, filter; filter 0 = Conv2DBackpropInput, 1 = ...Filter. Same
// GFLOP/s convention as BM_Conv2D (each gradient is one forward's work).
void BM_Conv2DBackprop(benchmark::State& state) {
  const int64_t n = state.range(0), hw = state.range(1), ci = state.range(2),
                co = state.range(3), k = state.range(4);
  const bool filter_grad = state.range(5) == 1;
  const tensorflow::NodeDef node =
      NodeDefBuilder(
          "grad", filter_grad ? "Conv2DBackpropFilter" : "Conv2DBackpropInput")
          .Input("a")
          .Input("b")
          .Input("c")
          .Attr("T", DT_FLOAT)
          .Attr("strides", {1, 1, 1, 1})
          .Attr("padding", "SAME")
          .Build();
  const Tensor dy = RandomFloats(TensorShape({n, hw, hw, co}));
  if (filter_grad) {
    Tensor sizes(DT_INT32, TensorShape({4}));
    const int32_t dims[] = {static_cast<int32_t>(k), static_cast<int32_t>(k),
                            static_cast<int32_t>(ci), static_cast<int32_t>(co)};
    for (int i = 0; i < 4; ++i) sizes.flat<int32_t>()(i) = dims[i];
    RunLoop(state, node,
            {RandomFloats(TensorShape({n, hw, hw, ci})), sizes, dy});
  } else {
    Tensor sizes(DT_INT32, TensorShape({4}));
    const int32_t dims[] = {static_cast<int32_t>(n), static_cast<int32_t>(hw),
                            static_cast<int32_t>(hw), static_cast<int32_t>(ci)};
    for (int i = 0; i < 4; ++i) sizes.flat<int32_t>()(i) = dims[i];
    RunLoop(state, node,
            {sizes, RandomFloats(TensorShape({k, k, ci, co})), dy});
  }
  const double flops = 2.0 * n * hw * hw * co * k * k * ci;
  state.counters["GFLOP/s"] = benchmark::Counter(
      flops * state.iterations() / 1e9, benchmark::Counter::kIsRate);
}
BENCHMARK(BM_Conv2DBackprop)
    ->ArgNames({"n", "hw", "ci", "co", "k", "filter"})
    ->Args({8, 28, 128, 128, 3, 0})
    ->Args({8, 28, 128, 128, 3, 1})
    ->Args({32, 32, 16, 32, 3, 0})
    ->Args({32, 32, 16, 32, 3, 1})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// Args: batch, size, depth, window, stride; op 0 = MaxPool, 1 = AvgPool.
void BM_Pool(benchmark::State& state) {
  const int64_t n = state.range(0), hw = state.range(1), c = state.range(2),
                k = state.range(3), s = state.range(4);
  const char* op = state.range(5) == 0 ? "MaxPool" : "AvgPool";
  const tensorflow::NodeDef node = NodeDefBuilder("pool", op)
                                       .Input("x")
                                       .Attr("T", DT_FLOAT)
                                       .Attr("ksize", {1, k, k, 1})
                                       .Attr("strides", {1, s, s, 1})
                                       .Attr("padding", "SAME")
                                       .Build();
  const Tensor input = RandomFloats(TensorShape({n, hw, hw, c}));
  RunLoop(state, node, {input});
  state.SetBytesProcessed(state.iterations() * input.TotalBytes());
}
BENCHMARK(BM_Pool)
    ->ArgNames({"n", "hw", "c", "k", "s", "avg"})
    ->Args({8, 56, 64, 3, 2, 0})
    ->Args({8, 56, 64, 3, 2, 1})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

void BM_Softmax(benchmark::State& state) {
  const tensorflow::NodeDef node =
      NodeDefBuilder("sm", "Softmax").Input("x").Attr("T", DT_FLOAT).Build();
  const Tensor input =
      RandomFloats(TensorShape({state.range(0), state.range(1)}));
  RunLoop(state, node, {input});
  state.SetBytesProcessed(state.iterations() * input.TotalBytes());
}
BENCHMARK(BM_Softmax)->Args({256, 1000})->UseRealTime();

void BM_BiasAdd(benchmark::State& state) {
  const tensorflow::NodeDef node = NodeDefBuilder("bias", "BiasAdd")
                                       .Input("x")
                                       .Input("b")
                                       .Attr("T", DT_FLOAT)
                                       .Build();
  const Tensor input = RandomFloats(TensorShape({8, 56, 56, 64}));
  RunLoop(state, node, {input, RandomFloats(TensorShape({64}))});
  state.SetBytesProcessed(state.iterations() * input.TotalBytes());
}
BENCHMARK(BM_BiasAdd)->UseRealTime();

}  // namespace
}  // namespace tributary

BENCHMARK_MAIN();
