// Measures MatMul throughput through the local session next to the same
// multiplication called directly (Eigen, OpenBLAS) in the same binary, and
// prints a table. The per-Run fixed cost is measured by
// //common/runtime/session:local_session_benchmark. Results and commands are
// recorded in docs/benchmarks.md.
//
//   bazel run //tools/benchmarks:local_runtime_benchmark [-- ROUNDS [THREADS]]
//
// THREADS (default: the hardware threads) sizes the session's intra-op pool,
// the direct Eigen pool and OpenBLAS's own threads for the direct call.
//
// OpenBLAS is the one the MatMul kernel uses, loaded the same way
// (kernels/math/blas_loader.h: dlopen after setting OPENBLAS_CORETYPE from
// cpuid, unless it is set already), so the direct column runs the best core
// type this machine's OpenBLAS has, and the session and the direct call share
// one library. The direct call uses OpenBLAS's own threading (THREADS
// threads, set around its blocks); the session's kernel calls it with one
// thread per block of rows on the intra-op pool; the "split" column does
// the same directly (functor::BlasMatMul), without the session.
// TRIBUTARY_MATMUL_BACKEND picks the session's backend as usual
// (docs/operations.md).
//
// How it measures, and why:
//  * Each contender runs in blocks of reps (two warm-up calls first), and the
//    blocks alternate (session, Eigen, OpenBLAS, split, session, ...) for ROUNDS
//    rounds (default 3), so load from other processes on this shared 2-core
//    machine falls on all of them alike. Reported: the median and the best
//    call of each contender over all rounds.
//  * A pause precedes each block: OpenBLAS's worker threads busy-wait for a
//    while after a call (and Eigen's spin briefly), which would otherwise
//    take cores from the next contender.
//  * GFLOP per CPU-second (process user + system time during a contender's
//    calls) compares how efficiently each uses the cycles it gets, which
//    holds up when other processes take cores away; wall-clock GFLOPS do
//    not.
//  * Minor page faults per call (getrusage) show whether each call still
//    faults fresh pages in (for the session: the caching host allocator's
//    job; Eigen's contraction mallocs its packing buffers on every call).
//  * The table header prints the core OpenBLAS runs and the session's
//    MatMul backend.
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "common/framework/caching_allocator.h"
#include "common/framework/logging.h"
#include "common/framework/tensor.h"
#include "common/runtime/session/local_session.h"
#include "kernels/math/blas_loader.h"
#include "kernels/math/matmul_backend.h"
#include "kernels/math/matmul_blas.h"
#include "protos/config.pb.h"
#include "protos/graph.pb.h"
#include "unsupported/Eigen/CXX11/Tensor"

namespace tributary {
namespace {

using Clock = std::chrono::steady_clock;

// A benchmark has no one to report a failed step to: stop loudly.
void Check(const absl::Status& status) { CHECK(status.ok()) << status; }

double Seconds(Clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

int64_t MinorFaults() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_minflt;
}

// User + system CPU seconds of the whole process (every thread).
double CpuSeconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  auto secs = [](const timeval& t) { return t.tv_sec + t.tv_usec * 1e-6; };
  return secs(usage.ru_utime) + secs(usage.ru_stime);
}

// One contender: its timed calls over all rounds.
struct Contender {
  std::string name;
  std::function<void()> fn;
  std::function<void()> before = [] {};  // around each block, untimed
  std::function<void()> after = [] {};
  std::vector<double> times;
  int64_t faults = 0;      // minor page faults during the timed calls
  double cpu_seconds = 0;  // process CPU time during the timed calls

  double Median() {
    std::sort(times.begin(), times.end());
    return times[times.size() / 2];
  }
  double Best() { return *std::min_element(times.begin(), times.end()); }
};

void RunBlock(Contender* c, int reps) {
  c->before();
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  // Warm-up: two calls, so a session step has both of the output buffers it
  // alternates between (the caller still holds the previous step's output
  // while the next one is produced).
  c->fn();
  c->fn();
  const int64_t faults = MinorFaults();
  const double cpu = CpuSeconds();
  for (int i = 0; i < reps; ++i) {
    const auto start = Clock::now();
    c->fn();
    c->times.push_back(Seconds(Clock::now() - start));
  }
  c->cpu_seconds += CpuSeconds() - cpu;
  c->faults += MinorFaults() - faults;
  c->after();
}

tensorflow::NodeDef* AddNode(tensorflow::GraphDef* graph,
                             const std::string& name, const std::string& op) {
  tensorflow::NodeDef* node = graph->add_node();
  node->set_name(name);
  node->set_op(op);
  return node;
}

void SetType(tensorflow::NodeDef* node, const std::string& attr,
             tensorflow::DataType type) {
  (*node->mutable_attr())[attr].set_type(type);
}

std::unique_ptr<LocalSession> NewSession(int threads) {
  tensorflow::ConfigProto config;
  config.set_intra_op_parallelism_threads(threads);
  config.set_inter_op_parallelism_threads(1);
  auto session = LocalSession::New(config);
  CHECK(session.ok()) << session.status();
  return std::move(*session);
}

double Gflops(int n, double seconds) { return 2.0 * n * n * n / seconds / 1e9; }

void MatMul(int n, int threads, int rounds, const blas::OpenBlas* openblas) {
  Tensor a(DT_FLOAT, TensorShape({n, n})), b(DT_FLOAT, TensorShape({n, n}));
  for (int64_t i = 0; i < a.NumElements(); ++i) {
    a.flat<float>()(i) = static_cast<float>(i % 17) * 0.25f;
    b.flat<float>()(i) = static_cast<float>(i % 13) * 0.5f;
  }
  const int reps = n >= 2048 ? 5 : 15;

  // Through the session: two fed placeholders into a MatMul.
  tensorflow::GraphDef graph;
  for (const char* name : {"a", "b"}) {
    SetType(AddNode(&graph, name, "Placeholder"), "dtype",
            tensorflow::DT_FLOAT);
  }
  tensorflow::NodeDef* mm = AddNode(&graph, "mm", "MatMul");
  mm->add_input("a");
  mm->add_input("b");
  SetType(mm, "T", tensorflow::DT_FLOAT);
  std::unique_ptr<LocalSession> session = NewSession(threads);
  Check(session->Create(graph));
  std::vector<Tensor> out;
  const NamedTensorList feeds = {{"a", a}, {"b", b}};

  // Eigen directly, on a thread pool of the same size, into one output.
  Eigen::ThreadPool pool(threads);
  Eigen::ThreadPoolDevice device(&pool, threads);
  Tensor c(DT_FLOAT, TensorShape({n, n}));
  auto am = a.matrix<float>();
  auto bm = b.matrix<float>();
  auto cm = c.matrix<float>();
  const Eigen::array<Eigen::IndexPair<int>, 1> dims = {
      Eigen::IndexPair<int>(1, 0)};

  std::vector<Contender> contenders = {
      {"session", [&] { Check(session->Run(feeds, {"mm:0"}, {}, &out)); }},
      {"Eigen", [&] { cm.device(device) = am.contract(bm, dims); }},
  };
  if (openblas != nullptr) {
    // OpenBLAS with `threads` threads of its own, back to one thread (what
    // the kernel expects) after its block.
    contenders.push_back(
        {"OpenBLAS",
         [&] {
           openblas->sgemm(blas::kCblasRowMajor, blas::kCblasNoTrans,
                           blas::kCblasNoTrans, n, n, n, 1.0f,
                           a.flat<float>().data(), n, b.flat<float>().data(),
                           n, 0.0f, c.flat<float>().data(), n);
         },
         [&] { openblas->set_num_threads(threads); },
         [&] { openblas->set_num_threads(1); }});
    // What the kernel does, without the session: one single-threaded sgemm
    // per block of rows on the same Eigen pool as the Eigen column.
    contenders.push_back(
        {"OpenBLAS split", [&] {
           functor::BlasMatMul<float>(*openblas, &device,
                                      c.flat<float>().data(),
                                      a.flat<float>().data(),
                                      b.flat<float>().data(), n, n, n,
                                      false, false);
         }});
  }
  for (int r = 0; r < rounds; ++r) {
    for (Contender& con : contenders) RunBlock(&con, reps);
  }

  Contender& s = contenders[0];
  double best_direct_median = contenders[1].Median();
  double best_direct_best = contenders[1].Best();
  for (size_t i = 2; i < contenders.size(); ++i) {
    best_direct_median = std::min(best_direct_median, contenders[i].Median());
    best_direct_best = std::min(best_direct_best, contenders[i].Best());
  }
  std::printf("| %dx%d f32 |", n, n);
  for (Contender& con : contenders) {
    std::printf(" %.0f / %.0f |", Gflops(n, con.Median()),
                Gflops(n, con.Best()));
  }
  if (openblas == nullptr) std::printf(" n/a | n/a |");
  std::printf(" %.0f%% / %.0f%% |", 100.0 * best_direct_median / s.Median(),
              100.0 * best_direct_best / s.Best());
  for (Contender& con : contenders) {
    std::printf(" %.0f", static_cast<double>(con.faults) / (rounds * reps));
  }
  std::printf(" |");
  // GFLOP per CPU-second: what each contender gets out of the cycles it
  // actually ran, insensitive to other processes taking the cores away
  // (busy-waiting threads count against their owner).
  const double flop = 2.0 * n * n * n * rounds * reps;
  for (Contender& con : contenders) {
    std::printf(" %.0f", flop / con.cpu_seconds / 1e9);
  }
  std::printf(" |\n");
}

}  // namespace
}  // namespace tributary

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::max(1, std::atoi(argv[1])) : 3;
  const int threads =
      argc > 2
          ? std::max(1, std::atoi(argv[2]))
          : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const tributary::HostCacheOptions& cache =
      tributary::HostBlockCache::Global()->options();
  absl::StatusOr<const tributary::blas::OpenBlas*> openblas =
      tributary::blas::LoadOpenBlas();
  std::string openblas_line;
  if (openblas.ok()) {
    const tributary::blas::OpenBlas& lib = **openblas;
    openblas_line = "core " + lib.core +
                    (lib.user_core.empty() ? " (from cpuid)"
                                           : " (from OPENBLAS_CORETYPE)") +
                    ", " + std::to_string(threads) + " threads for the direct call (" +
                    lib.config + ")";
  } else {
    openblas_line = "not available: " + std::string(openblas.status().message());
  }
  std::printf(
      "local runtime benchmark: %u hardware threads, intra-op threads %d, "
      "%d rounds\n"
      "OpenBLAS: %s\nsession MatMul backend: %s\n"
      "host allocator cache cap %zu MiB, transparent huge pages: %s\n\n",
      std::thread::hardware_concurrency(), threads, rounds,
      openblas_line.c_str(),
      tributary::ActiveMatMulBackend().description.c_str(),
      cache.max_cached_bytes >> 20,
      tributary::TransparentHugePageMode().c_str());
  std::printf(
      "| MatMul | session GFLOPS median / best | Eigen direct | OpenBLAS "
      "direct, its own threads | OpenBLAS direct, split on the Eigen pool "
      "| session vs best direct (median / best) | minor page faults per call: "
      "session, Eigen, OpenBLAS, split | GFLOP per CPU-second: session, Eigen, "
      "OpenBLAS, split |\n|---|---|---|---|---|---|---|---|\n");
  const tributary::blas::OpenBlas* lib = openblas.ok() ? *openblas : nullptr;
  tributary::MatMul(1024, threads, rounds, lib);
  tributary::MatMul(2048, threads, rounds, lib);
  const tributary::HostCacheStats stats =
      tributary::HostBlockCache::Global()->GetStats();
  std::printf("\nhost block cache: %s\n", stats.DebugString().c_str());
  // How much of the process's memory the kernel backs with huge pages (the
  // cache asks for them; the kernel grants them when it has 2 MiB free).
  std::FILE* smaps = std::fopen("/proc/self/smaps_rollup", "r");
  if (smaps != nullptr) {
    char line[256];
    while (std::fgets(line, sizeof(line), smaps) != nullptr) {
      if (std::strncmp(line, "Rss:", 4) == 0 ||
          std::strncmp(line, "AnonHugePages:", 14) == 0) {
        std::printf("%s", line);
      }
    }
    std::fclose(smaps);
  }
  return 0;
}
