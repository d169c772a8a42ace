// The raw limits the distributed benchmark compares against, measured on
// loopback with nothing but sockets and gRPC (no runtime):
//   - the machine: first touch of fresh 4 KiB / 2 MiB pages, memcpy;
//   - a TCP ping-pong and a minimal gRPC unary round trip (sync server,
//     empty WorkerService.GetStatus, i.e. protobuf on both sides), and the
//     same through a relay server (two hops, as client -> master -> worker);
//   - TCP transfers of 1..256 MiB from a reused, pre-touched buffer into a
//     reused one, and into a freshly mapped one (what a receiver that
//     allocates per transfer pays);
//   - the same empty round trip through the callback API (generic stub and
//     CallbackGenericService, what the daemons use);
//   - a gRPC unary call carrying N bytes as a grpc::ByteBuffer (generic
//     callback API, no protobuf): what gRPC itself costs per byte, with the
//     receiving server on glibc's default malloc settings and on the
//     daemons' (PrepareDaemonProcess), and its page faults per call.
// Every server is a forked child process (forked before this process touches
// gRPC), so sender and receiver are separate processes, as the daemons are.
//
// Prints one JSON object on stdout for distributed_benchmark.py, which prints
// the table. Run alone:
//   bazel run //tools/benchmarks:distributed_raw_baselines -- --sizes-mib 1,64
#include <arpa/inet.h>
#include <fcntl.h>
#include <malloc.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "common/framework/malloc_tuning.h"
#include "grpcpp/generic/async_generic_service.h"
#include "grpcpp/generic/generic_stub.h"
#include "grpcpp/grpcpp.h"
#include "nlohmann/json.hpp"
#include "protos/worker_service.grpc.pb.h"

namespace tributary {
namespace {

using Clock = std::chrono::steady_clock;
using Json = nlohmann::json;

constexpr size_t kMiB = 1 << 20;
constexpr size_t kPage = 4096;
constexpr size_t kHugePage = 2 * kMiB;

// Minor page faults of process `pid` so far (/proc/PID/stat field 10).
double MinorFaults(pid_t pid) {
  char path[64];
  std::snprintf(path, sizeof(path), "/proc/%d/stat", static_cast<int>(pid));
  FILE* f = std::fopen(path, "r");
  if (f == nullptr) return 0;
  char buf[1024];
  size_t n = std::fread(buf, 1, sizeof(buf) - 1, f);
  std::fclose(f);
  buf[n] = 0;
  const char* p = std::strrchr(buf, ')');
  if (p == nullptr) return 0;
  // After ") ": state ppid pgrp session tty_nr tpgid flags minflt.
  double minflt = 0;
  std::sscanf(p + 2, "%*s %*s %*s %*s %*s %*s %*s %lf", &minflt);
  return minflt;
}

// Voluntary + involuntary context switches of `pid`'s live threads.
double ContextSwitches(pid_t pid) {
  double total = 0;
  const std::string dir = "/proc/" + std::to_string(pid) + "/task";
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    std::ifstream f(entry.path() / "status");
    for (std::string line; std::getline(f, line);) {
      if (line.find("ctxt_switches:") != std::string::npos) {
        total += std::stod(line.substr(line.find(':') + 1));
      }
    }
  }
  return total;
}

[[noreturn]] void Die(const std::string& what) {
  std::perror(what.c_str());
  std::exit(1);
}

double Seconds(Clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

double Percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  size_t i = static_cast<size_t>(p * (v.size() - 1) + 0.5);
  return v[std::min(i, v.size() - 1)];
}

// Repeats `fn` (one measured unit): `warmup` times unmeasured, then until at
// least `min_reps` and `min_seconds` are done (at most `max_reps`). Seconds
// per repetition.
std::vector<double> Repeat(int warmup, int min_reps, int max_reps,
                           double min_seconds,
                           const std::function<void()>& fn) {
  for (int i = 0; i < warmup; ++i) fn();
  std::vector<double> times;
  const auto begin = Clock::now();
  while (static_cast<int>(times.size()) < max_reps &&
         (static_cast<int>(times.size()) < min_reps ||
          Seconds(Clock::now() - begin) < min_seconds)) {
    const auto start = Clock::now();
    fn();
    times.push_back(Seconds(Clock::now() - start));
  }
  return times;
}

// An anonymous private mapping; `huge` asks for transparent huge pages
// (madvise mode) and aligns to 2 MiB so they can be used, else forbids them.
struct Mapping {
  Mapping(size_t bytes, bool huge) : size(bytes + (huge ? kHugePage : 0)) {
    raw = static_cast<char*>(mmap(nullptr, size, PROT_READ | PROT_WRITE,
                                  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    if (raw == MAP_FAILED) Die("mmap");
    data = raw;
    if (huge) {
      uintptr_t p = reinterpret_cast<uintptr_t>(raw);
      data = reinterpret_cast<char*>((p + kHugePage - 1) & ~(kHugePage - 1));
    }
    madvise(raw, size, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
  }
  ~Mapping() { munmap(raw, size); }
  Mapping(const Mapping&) = delete;
  Mapping& operator=(const Mapping&) = delete;

  void Touch(size_t bytes) {
    for (size_t i = 0; i < bytes; i += kPage) data[i] = 1;
  }

  size_t size;
  char* raw;
  char* data;
};

// ---- The machine --------------------------------------------------------

Json MeasureMemory() {
  constexpr size_t kBytes = 256 * kMiB;
  Json out;
  for (bool huge : {false, true}) {
    double best = 1e9;
    for (int i = 0; i < 3; ++i) {
      Mapping m(kBytes, huge);
      const auto start = Clock::now();
      m.Touch(kBytes);
      best = std::min(best, Seconds(Clock::now() - start));
    }
    if (huge) {
      out["fresh_2m_touch_gbps"] = kBytes / best / 1e9;
    } else {
      out["fresh_4k_page_us"] = best / (kBytes / kPage) * 1e6;
      out["fresh_4k_touch_gbps"] = kBytes / best / 1e9;
    }
  }
  Mapping src(kBytes, false), dst(kBytes, false);
  std::memset(src.data, 7, kBytes);
  std::memset(dst.data, 0, kBytes);
  std::vector<double> t = Repeat(1, 5, 5, 0, [&] {
    std::memcpy(dst.data, src.data, kBytes);
  });
  out["memcpy_gbps"] = kBytes / Percentile(t, 0.5) / 1e9;
  return out;
}

// ---- Raw TCP --------------------------------------------------------------

// Each request: a 16-byte header {payload bytes, mode}, then the payload; the
// server answers one byte once it has all of it. Payload 0 ends the server.
enum Mode : uint64_t { kReuse = 0, kFresh = 1 };

void ReadFully(int fd, char* p, size_t n) {
  while (n > 0) {
    ssize_t r = recv(fd, p, n, 0);
    if (r <= 0) Die("recv");
    p += r;
    n -= r;
  }
}

void WriteFully(int fd, const char* p, size_t n) {
  while (n > 0) {
    ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
    if (w <= 0) Die("send");
    p += w;
    n -= w;
  }
}

void SetNoDelay(int fd) {
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

int ListenLoopback(int* port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) Die("socket");
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    Die("bind");
  }
  if (listen(fd, 4) != 0) Die("listen");
  socklen_t len = sizeof(addr);
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  *port = ntohs(addr.sin_port);
  return fd;
}

[[noreturn]] void TcpServer(int listen_fd, size_t max_bytes) {
  int fd = accept(listen_fd, nullptr, nullptr);
  if (fd < 0) Die("accept");
  SetNoDelay(fd);
  Mapping reused(max_bytes, false);
  reused.Touch(max_bytes);
  for (;;) {
    uint64_t header[2];
    ReadFully(fd, reinterpret_cast<char*>(header), sizeof(header));
    if (header[0] == 0) _exit(0);
    if (header[1] == kFresh) {
      Mapping fresh(header[0], false);
      ReadFully(fd, fresh.data, header[0]);
    } else {
      ReadFully(fd, reused.data, header[0]);
    }
    char ack = 1;
    WriteFully(fd, &ack, 1);
  }
}

// Returns the pid of the forked server and its port.
pid_t ForkTcpServer(size_t max_bytes, int* port) {
  int listen_fd = ListenLoopback(port);
  pid_t pid = fork();
  if (pid < 0) Die("fork");
  if (pid == 0) TcpServer(listen_fd, max_bytes);
  close(listen_fd);
  return pid;
}

int Connect(int port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(port);
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    Die("connect");
  }
  SetNoDelay(fd);
  return fd;
}

Json MeasureTcp(const std::vector<int>& sizes_mib, int reps) {
  const size_t max_bytes =
      *std::max_element(sizes_mib.begin(), sizes_mib.end()) * kMiB;
  int port = 0;
  pid_t server = ForkTcpServer(max_bytes, &port);
  int fd = Connect(port);
  Json out;

  // Ping-pong: header and one payload byte in one send, one byte back.
  {
    char msg[17] = {};
    uint64_t header[2] = {1, kReuse};
    std::memcpy(msg, header, sizeof(header));
    std::vector<double> t = Repeat(1000, 20000, 20000, 0, [&] {
      WriteFully(fd, msg, sizeof(msg));
      char ack;
      ReadFully(fd, &ack, 1);
    });
    out["rtt_us"] = {{"p50", Percentile(t, 0.5) * 1e6},
                     {"p99", Percentile(t, 0.99) * 1e6}};
  }

  Mapping src(max_bytes, false);
  std::memset(src.data, 3, max_bytes);
  for (int mib : sizes_mib) {
    const size_t bytes = mib * kMiB;
    Json row{{"mib", mib}};
    for (Mode mode : {kReuse, kFresh}) {
      const double faults_before = MinorFaults(server);
      int calls = 0;
      std::vector<double> t = Repeat(2, reps, 200, 0.5, [&] {
        ++calls;
        uint64_t header[2] = {bytes, mode};
        WriteFully(fd, reinterpret_cast<char*>(header), sizeof(header));
        WriteFully(fd, src.data, bytes);
        char ack;
        ReadFully(fd, &ack, 1);
      });
      const std::string name = mode == kReuse ? "reuse" : "fresh";
      row[name + "_gbps"] = bytes / Percentile(t, 0.5) / 1e9;
      row[name + "_receiver_faults"] =
          (MinorFaults(server) - faults_before) / calls;
    }
    out["transfer"].push_back(row);
  }
  uint64_t bye[2] = {0, 0};
  WriteFully(fd, reinterpret_cast<char*>(bye), sizeof(bye));
  close(fd);
  waitpid(server, nullptr, 0);
  return out;
}

// ---- Raw gRPC -------------------------------------------------------------

// GetStatus answers at once with an empty response: a unary round trip with
// protobuf on both sides and nothing else.
class EchoWorkerService final : public tensorflow::WorkerService::Service {
  grpc::Status GetStatus(grpc::ServerContext*,
                         const tensorflow::GetStatusRequest*,
                         tensorflow::GetStatusResponse*) override {
    return grpc::Status::OK;
  }
};

// "/bench/Sink": reads the request ByteBuffer (all its bytes arrive in
// gRPC's own slices), answers an empty one.
class SinkReactor : public grpc::ServerGenericBidiReactor {
 public:
  SinkReactor() {
    // An empty but initialised ByteBuffer: gRPC refuses to send a default
    // constructed one.
    grpc::Slice empty;
    response_ = grpc::ByteBuffer(&empty, 1);
    StartRead(&request_);
  }
  void OnReadDone(bool ok) override {
    if (!ok) {
      Finish(grpc::Status::OK);
      return;
    }
    request_.Clear();
    StartWriteAndFinish(&response_, grpc::WriteOptions(), grpc::Status::OK);
  }
  void OnWriteDone(bool) override {}
  void OnDone() override { delete this; }

 private:
  grpc::ByteBuffer request_;
  grpc::ByteBuffer response_;
};

class SinkService final : public grpc::CallbackGenericService {
  grpc::ServerGenericBidiReactor* CreateReactor(
      grpc::GenericCallbackServerContext*) override {
    return new SinkReactor();
  }
};

// GetStatus answered by asking the next server the same (sync stub, sync
// server): the raw floor of a two-hop path such as a trivial RunStep
// (client -> master -> worker), with no runtime in between.
class RelayWorkerService final : public tensorflow::WorkerService::Service {
 public:
  explicit RelayWorkerService(int next_port)
      : stub_(tensorflow::WorkerService::NewStub(grpc::CreateChannel(
            "127.0.0.1:" + std::to_string(next_port),
            grpc::InsecureChannelCredentials()))) {}

 private:
  grpc::Status GetStatus(grpc::ServerContext*,
                         const tensorflow::GetStatusRequest* request,
                         tensorflow::GetStatusResponse* response) override {
    grpc::ClientContext ctx;
    return stub_->GetStatus(&ctx, *request, response);
  }

  std::unique_ptr<tensorflow::WorkerService::Stub> stub_;
};

// `daemon_malloc`: the glibc settings of PrepareDaemonProcess
// (common/daemon/daemon_process.cc), so freed receive buffers stay in the
// heap instead of going back to the kernel. With `relay_to_port`, GetStatus
// is relayed to the server on that port.
pid_t ForkGrpcServer(bool daemon_malloc, int* port, int relay_to_port = 0) {
  int pipe_fds[2];
  if (pipe(pipe_fds) != 0) Die("pipe");
  pid_t pid = fork();
  if (pid < 0) Die("fork");
  if (pid == 0) {
    close(pipe_fds[0]);
    if (daemon_malloc) TuneMallocForLargeTensors();
    EchoWorkerService echo;
    std::unique_ptr<RelayWorkerService> relay;
    if (relay_to_port != 0) {
      relay = std::make_unique<RelayWorkerService>(relay_to_port);
    }
    SinkService sink;
    grpc::ServerBuilder builder;
    int bound = 0;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(),
                             &bound);
    builder.SetMaxReceiveMessageSize(-1);
    builder.SetMaxSendMessageSize(-1);
    if (relay != nullptr) {
      builder.RegisterService(relay.get());
    } else {
      builder.RegisterService(&echo);
    }
    builder.RegisterCallbackGenericService(&sink);
    std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
    if (write(pipe_fds[1], &bound, sizeof(bound)) != sizeof(bound)) {
      _exit(1);
    }
    close(pipe_fds[1]);
    server->Wait();  // Until the parent kills us.
    _exit(0);
  }
  close(pipe_fds[1]);
  if (read(pipe_fds[0], port, sizeof(*port)) != sizeof(*port) || *port == 0) {
    Die("grpc server did not start");
  }
  close(pipe_fds[0]);
  return pid;
}

// A synchronous generic unary call: the callback API's completion, waited for.
grpc::Status GenericUnary(grpc::GenericStub* stub, const grpc::ByteBuffer& req,
                          grpc::ByteBuffer* resp) {
  grpc::ClientContext ctx;
  ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(60));
  std::mutex mu;
  std::condition_variable cv;
  bool done = false;
  grpc::Status result;
  stub->UnaryCall(&ctx, "/bench/Sink", grpc::StubOptions(), &req, resp,
                  [&](grpc::Status s) {
                    std::lock_guard<std::mutex> lock(mu);
                    result = std::move(s);
                    done = true;
                    cv.notify_one();
                  });
  std::unique_lock<std::mutex> lock(mu);
  cv.wait(lock, [&] { return done; });
  return result;
}

// Sends `bytes` from `src` as one ByteBuffer slice (no copy on this side)
// to /bench/Sink of `channel`; median GB/s and the server's faults per call.
Json MeasureGrpcTransfer(const std::shared_ptr<grpc::Channel>& channel,
                         pid_t server, const char* src, size_t bytes,
                         int reps) {
  grpc::GenericStub stub(channel);
  grpc::Slice slice(src, bytes, grpc::Slice::STATIC_SLICE);
  grpc::ByteBuffer req(&slice, 1);
  const double faults_before = MinorFaults(server);
  int calls = 0;
  std::vector<double> t = Repeat(2, reps, 200, 0.5, [&] {
    ++calls;
    grpc::ByteBuffer resp;
    grpc::Status s = GenericUnary(&stub, req, &resp);
    if (!s.ok()) {
      std::fprintf(stderr, "Sink: %s\n", s.error_message().c_str());
      std::exit(1);
    }
  });
  return {{"gbps", bytes / Percentile(t, 0.5) / 1e9},
          {"receiver_faults", (MinorFaults(server) - faults_before) / calls}};
}

std::shared_ptr<grpc::Channel> Channel(int port) {
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(-1);
  args.SetMaxSendMessageSize(-1);
  return grpc::CreateCustomChannel("127.0.0.1:" + std::to_string(port),
                                   grpc::InsecureChannelCredentials(), args);
}

Json MeasureGrpc(const std::vector<int>& sizes_mib, int reps) {
  // Both servers are forked before this process initialises gRPC.
  int port = 0, port_daemon = 0, port_relay = 0;
  // Every server is forked before this process touches gRPC.
  pid_t server = ForkGrpcServer(false, &port);
  pid_t server_daemon = ForkGrpcServer(true, &port_daemon);
  pid_t relay = ForkGrpcServer(false, &port_relay, /*relay_to_port=*/port);
  auto channel = Channel(port);
  auto channel_daemon = Channel(port_daemon);
  Json out;
  // The empty GetStatus round trip, sync stub and sync server, to `target`
  // (server pid `pid`).
  auto measure_rtt = [](const std::shared_ptr<grpc::Channel>& target,
                        pid_t pid) -> Json {
    auto stub = tensorflow::WorkerService::NewStub(target);
    const double switches_before = ContextSwitches(pid);
    std::vector<double> t = Repeat(500, 5000, 5000, 0, [&] {
      grpc::ClientContext ctx;
      tensorflow::GetStatusRequest req;
      tensorflow::GetStatusResponse resp;
      grpc::Status s = stub->GetStatus(&ctx, req, &resp);
      if (!s.ok()) {
        std::fprintf(stderr, "GetStatus: %s\n", s.error_message().c_str());
        std::exit(1);
      }
    });
    return {{"p50", Percentile(t, 0.5) * 1e6},
            {"p99", Percentile(t, 0.99) * 1e6},
            {"server_switches",
             (ContextSwitches(pid) - switches_before) / (t.size() + 500)}};
  };
  out["rtt_us"] = measure_rtt(channel, server);
  // Client -> relay -> server: the two hops of a trivial RunStep.
  out["relay_rtt_us"] = measure_rtt(Channel(port_relay), relay);
  {
    // The same empty round trip through the callback API on both sides
    // (generic stub, CallbackGenericService), which the daemons use.
    grpc::GenericStub stub(channel);
    grpc::Slice empty;
    grpc::ByteBuffer req(&empty, 1);
    const double switches_before = ContextSwitches(server);
    std::vector<double> t = Repeat(500, 5000, 5000, 0, [&] {
      grpc::ByteBuffer resp;
      grpc::Status s = GenericUnary(&stub, req, &resp);
      if (!s.ok()) {
        std::fprintf(stderr, "Sink: %s\n", s.error_message().c_str());
        std::exit(1);
      }
    });
    out["callback_rtt_us"] = {
        {"p50", Percentile(t, 0.5) * 1e6},
        {"p99", Percentile(t, 0.99) * 1e6},
        {"server_switches",
         (ContextSwitches(server) - switches_before) / (t.size() + 500)}};
  }
  const size_t max_bytes =
      *std::max_element(sizes_mib.begin(), sizes_mib.end()) * kMiB;
  Mapping src(max_bytes, false);
  std::memset(src.data, 5, max_bytes);
  for (int mib : sizes_mib) {
    const size_t bytes = mib * kMiB;
    out["transfer"].push_back(
        {{"mib", mib},
         {"default_malloc",
          MeasureGrpcTransfer(channel, server, src.data, bytes, reps)},
         {"daemon_malloc", MeasureGrpcTransfer(channel_daemon, server_daemon,
                                               src.data, bytes, reps)}});
  }
  for (pid_t pid : {server, server_daemon, relay}) {
    kill(pid, SIGKILL);
    waitpid(pid, nullptr, 0);
  }
  return out;
}

int Main(int argc, char** argv) {
  CLI::App app{"Raw loopback limits for the distributed benchmark (JSON)."};
  std::string sizes = "1,16,64,128,256";
  int reps = 5;
  app.add_option("--sizes-mib", sizes, "Transfer sizes in MiB, comma-separated");
  app.add_option("--reps", reps, "Minimum measured repetitions per size");
  CLI11_PARSE(app, argc, argv);
  std::vector<int> sizes_mib;
  for (size_t pos = 0; pos < sizes.size();) {
    size_t comma = sizes.find(',', pos);
    if (comma == std::string::npos) comma = sizes.size();
    sizes_mib.push_back(std::stoi(sizes.substr(pos, comma - pos)));
    pos = comma + 1;
  }

  Json out;
  out["memory"] = MeasureMemory();
  out["tcp"] = MeasureTcp(sizes_mib, reps);  // Before any gRPC: fork-safe.
  out["grpc"] = MeasureGrpc(sizes_mib, reps);
  std::printf("%s\n", out.dump(1).c_str());
  return 0;
}

}  // namespace
}  // namespace tributary

int main(int argc, char** argv) { return tributary::Main(argc, argv); }
