// GPU benchmarks: each measured through the local session and as the same
// CUDA work done directly in this binary, in the same run, and printed as
// one table (docs/benchmarks.md, "GPU"). Without a GPU it prints why and
// exits 0.
//
//  * MatMul 4096^3, float and bfloat16: session steps (the product's node
//    on GPU:0, inputs as Consts in GPU memory, run as a target) against
//    Cublas::Gemm on the same GPU context; both end with a wait for the
//    GPU's compute stream, which the session's kernels share.
//  * host -> GPU: a step feeding 256 MiB to an Identity on GPU:0 (the
//    rendezvous copies it in) against cuMemcpyHtoDAsync from pinned memory.
//  * GPU -> host: a step fetching 256 MiB that lives on GPU:0 (the
//    rendezvous copies it out into pinned memory) against
//    cuMemcpyDtoHAsync into pinned memory.
//
// Usage: gpu_benchmark [--repeats N]

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/framework/tensor.h"
#include "common/runtime/session/local_session.h"
#include "devices/gpu/cublas.h"
#include "devices/gpu/cuda_driver.h"
#include "devices/gpu/gpu_context.h"
#include "devices/gpu/gpu_device_context.h"
#include "protos/graph.pb.h"
#include "protos/tensor.pb.h"
#include "tests/gpu/gpu_test_util.h"

namespace tributary {
namespace {

using Clock = std::chrono::steady_clock;

double SecondsOf(const std::function<void()>& body, int repeats) {
  body();  // warm-up: kernels loaded, memory taken, caches built
  const Clock::time_point start = Clock::now();
  for (int i = 0; i < repeats; ++i) body();
  return std::chrono::duration<double>(Clock::now() - start).count() / repeats;
}

void Check(const absl::Status& s, const char* what) {
  if (!s.ok()) {
    std::fprintf(stderr, "%s: %s\n", what, s.ToString().c_str());
    std::exit(1);
  }
}

using gpu_test::AddConst;
using gpu_test::AddNode;

// A local session holding `graph`; exits on failure.
std::unique_ptr<LocalSession> SessionWith(const tensorflow::GraphDef& graph) {
  absl::StatusOr<std::unique_ptr<LocalSession>> session =
      LocalSession::New(tensorflow::ConfigProto());
  Check(session.status(), "session");
  Check((*session)->Create(graph), "create");
  return std::move(session).value();
}

struct Row {
  std::string name;
  double session_s;
  double direct_s;
  std::string unit;
  double work;  // FLOPs or bytes per repeat
};

Row MatMulRow(DataType dtype, int repeats, GpuContext* gpu) {
  const int64_t n = 4096;
  const Tensor a = gpu_test::RandomTensor(dtype, TensorShape({n, n}), -1, 1, 1);
  const Tensor b = gpu_test::RandomTensor(dtype, TensorShape({n, n}), -1, 1, 2);
  tensorflow::GraphDef graph;
  AddConst(&graph, "a", a, "/device:GPU:0");
  AddConst(&graph, "b", b, "/device:GPU:0");
  tensorflow::NodeDef* mm = AddNode(&graph, "mm", "MatMul", "/device:GPU:0");
  mm->add_input("a");
  mm->add_input("b");
  (*mm->mutable_attr())["T"] = gpu_test::TypeAttr(dtype);
  std::unique_ptr<LocalSession> session = SessionWith(graph);
  std::vector<Tensor> none;
  const double session_s = SecondsOf(
      [&] {
        Check(session->Run({}, {}, {"mm"}, &none), "MatMul step");
        Check(gpu->Activate(), "activate");
        Check(gpu->SynchronizeStream(gpu->compute_stream()), "sync");
      },
      repeats);
  Check(session->Close(), "close");

  // The same product, straight to cuBLAS on the same context and stream.
  Check(gpu->Activate(), "activate");
  Tensor da(gpu->device_allocator(), dtype, a.shape());
  Tensor db(gpu->device_allocator(), dtype, b.shape());
  Tensor dc(gpu->device_allocator(), dtype, a.shape());
  absl::StatusOr<Cublas*> cublas = Cublas::For(gpu);
  Check(cublas.status(), "cublas");
  GemmArgs args;
  args.dtype = dtype;
  args.m = args.n = args.k = n;
  args.a = da.data();
  args.b = db.data();
  args.c = dc.data();
  const double direct_s = SecondsOf(
      [&] {
        Check((*cublas)->Gemm(args), "gemm");
        Check(gpu->SynchronizeStream(gpu->compute_stream()), "sync");
      },
      repeats);
  return {absl::StrCat("MatMul ", DataTypeString(dtype), " 4096^3"), session_s,
          direct_s, "TFLOP/s", 2.0 * n * n * n};
}

// Seconds per raw copy of `bytes` between pinned host memory and GPU memory
// on the copy stream of that direction: the baseline of the copy rows.
double DirectCopySeconds(GpuContext* gpu, bool to_device, int64_t bytes,
                         int repeats) {
  const CudaDriver& cu = gpu->driver();
  Check(gpu->Activate(), "activate");
  const TensorShape shape({bytes / 4});
  Tensor pinned(gpu->host_allocator(), DT_FLOAT, shape);
  Tensor device(gpu->device_allocator(), DT_FLOAT, shape);
  const CUdeviceptr device_ptr = reinterpret_cast<CUdeviceptr>(device.data());
  CUstream stream =
      to_device ? gpu->host_to_device_stream() : gpu->device_to_host_stream();
  return SecondsOf(
      [&] {
        const CUresult r =
            to_device ? cu.cuMemcpyHtoDAsync(device_ptr, pinned.data(),
                                             pinned.TotalBytes(), stream)
                      : cu.cuMemcpyDtoHAsync(pinned.data(), device_ptr,
                                             pinned.TotalBytes(), stream);
        Check(CudaCall(cu, r, "copy"), "copy");
        Check(gpu->SynchronizeStream(stream), "sync");
      },
      repeats);
}

Row HostToDeviceRow(int repeats, GpuContext* gpu) {
  const int64_t elements = int64_t{64} << 20;  // 256 MiB of floats
  Tensor host(DT_FLOAT, TensorShape({elements}));
  std::memset(host.data(), 1, host.TotalBytes());
  tensorflow::GraphDef graph;
  gpu_test::AddPlaceholder(&graph, "in", DT_FLOAT, "/device:CPU:0");
  tensorflow::NodeDef* id = AddNode(&graph, "id", "Identity", "/device:GPU:0");
  id->add_input("in");
  (*id->mutable_attr())["T"] = gpu_test::TypeAttr(DT_FLOAT);
  std::unique_ptr<LocalSession> session = SessionWith(graph);
  std::vector<Tensor> none;
  const double session_s = SecondsOf(
      [&] {
        Check(session->Run({{"in:0", host}}, {}, {"id"}, &none), "step");
      },
      repeats);
  Check(session->Close(), "close");

  const double direct_s =
      DirectCopySeconds(gpu, /*to_device=*/true, host.TotalBytes(), repeats);
  return {"host->GPU 256 MiB (feed)", session_s, direct_s, "GB/s",
          static_cast<double>(host.TotalBytes())};
}

Row DeviceToHostRow(int repeats, GpuContext* gpu) {
  // 256 MiB that live on the GPU: a Const (decoded and copied in once, when
  // the kernel is built), fetched through an Identity on the GPU.
  const int64_t elements = int64_t{64} << 20;
  const Tensor ones =
      gpu_test::RandomTensor(DT_FLOAT, TensorShape({elements}), 0, 1, 3);
  tensorflow::GraphDef graph;
  AddConst(&graph, "c", ones, "/device:GPU:0");
  tensorflow::NodeDef* id = AddNode(&graph, "id", "Identity", "/device:GPU:0");
  id->add_input("c");
  (*id->mutable_attr())["T"] = gpu_test::TypeAttr(DT_FLOAT);
  std::unique_ptr<LocalSession> session = SessionWith(graph);
  std::vector<Tensor> out;
  const double session_s = SecondsOf(
      [&] { Check(session->Run({}, {"id:0"}, {}, &out), "step"); }, repeats);
  Check(session->Close(), "close");

  const double direct_s =
      DirectCopySeconds(gpu, /*to_device=*/false, ones.TotalBytes(), repeats);
  return {"GPU->host 256 MiB (fetch)", session_s, direct_s, "GB/s",
          static_cast<double>(ones.TotalBytes())};
}

// The device context's copies alone (no session), to tell the copy from
// the step around it.
std::vector<Row> DeviceContextRows(int repeats, GpuContext* gpu) {
  const int64_t elements = int64_t{64} << 20;
  Tensor host(DT_FLOAT, TensorShape({elements}));
  std::memset(host.data(), 1, host.TotalBytes());
  GpuDeviceContext context(gpu, "/device:GPU:0");
  Tensor on_gpu;
  const double in_s = SecondsOf(
      [&] { Check(context.CopyHostToDeviceSync(host, &on_gpu), "copy in"); },
      repeats);
  Tensor back;
  const double out_s = SecondsOf(
      [&] { Check(context.CopyDeviceToHostSync(on_gpu, &back), "copy out"); },
      repeats);
  const double bytes = static_cast<double>(host.TotalBytes());
  const double direct_in =
      DirectCopySeconds(gpu, /*to_device=*/true, host.TotalBytes(), repeats);
  const double direct_out =
      DirectCopySeconds(gpu, /*to_device=*/false, host.TotalBytes(), repeats);
  return {
      {"host->GPU 256 MiB (device context, pageable source)", in_s, direct_in,
       "GB/s", bytes},
      {"GPU->host 256 MiB (device context)", out_s, direct_out, "GB/s", bytes}};
}

int Main(int argc, char** argv) {
  int repeats = 20;
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::string(argv[i]) == "--repeats") repeats = std::atoi(argv[i + 1]);
  }
  const std::string reason = gpu_test::NoGpuReason();
  if (!reason.empty()) {
    std::printf("gpu_benchmark: skipped: no GPU (%s)\n", reason.c_str());
    return 0;
  }
  absl::StatusOr<const CudaDriver*> driver = CudaDriver::Get();
  Check(driver.status(), "driver");
  absl::StatusOr<GpuContext*> gpu =
      GpuContext::Get(*driver, 0, tensorflow::GPUOptions());
  Check(gpu.status(), "GPU 0");
  std::printf("GPU 0: %s, compute capability %d.%d, %d multiprocessors\n",
              (*gpu)->properties().name.c_str(), (*gpu)->properties().cc_major,
              (*gpu)->properties().cc_minor,
              (*gpu)->properties().multiprocessors);
  std::vector<Row> rows;
  rows.push_back(MatMulRow(DT_FLOAT, repeats, *gpu));
  rows.push_back(MatMulRow(DT_BFLOAT16, repeats, *gpu));
  rows.push_back(HostToDeviceRow(repeats, *gpu));
  rows.push_back(DeviceToHostRow(repeats, *gpu));
  for (Row& row : DeviceContextRows(repeats, *gpu)) rows.push_back(row);
  std::printf("\n| benchmark | session | direct | session/direct |\n");
  std::printf("|---|---|---|---|\n");
  for (const Row& r : rows) {
    const double scale = r.unit == "TFLOP/s" ? 1e12 : 1e9;
    const double session_rate = r.work / r.session_s / scale;
    const double direct_rate = r.work / r.direct_s / scale;
    std::printf("| %s | %.1f %s (%.3f ms) | %.1f %s (%.3f ms) | %.0f%% |\n",
                r.name.c_str(), session_rate, r.unit.c_str(), r.session_s * 1e3,
                direct_rate, r.unit.c_str(), r.direct_s * 1e3,
                100.0 * session_rate / direct_rate);
  }
  return 0;
}

}  // namespace
}  // namespace tributary

int main(int argc, char** argv) { return tributary::Main(argc, argv); }
