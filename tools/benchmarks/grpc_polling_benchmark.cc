// How many threads poll a process's gRPC completion queue decides how many
// thread switches a call costs (docs/protocol.md, "One network thread per
// daemon"). This benchmark measures it without any Tributary code: a server
// and a relay (client -> relay -> server, the two hops of a trivial step),
// each served in one of three ways, and a client timing 8-byte calls.
//
//   bazel run //tools/benchmarks:grpc_polling_benchmark -- [CALLS [ROUNDS]]
//
// Prints a table: per way of serving, the p50 of one hop (client -> server)
// and of two hops (client -> relay -> server), and the context switches per
// call of the server and of the relay process.

#include <dirent.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "grpcpp/generic/async_generic_service.h"
#include "grpcpp/generic/generic_stub.h"
#include "grpcpp/grpcpp.h"

namespace {

const char kMethod[] = "/bench.Relay/Call";

std::shared_ptr<grpc::Channel> Channel(int port) {
  grpc::ChannelArguments args;
  args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  return grpc::CreateCustomChannel("127.0.0.1:" + std::to_string(port),
                                   grpc::InsecureChannelCredentials(), args);
}

// ---- Async generic server (optionally relaying), N threads on one queue.

struct Tag {
  std::function<void(bool)> fn;
};

struct AsyncCall {
  grpc::GenericServerContext ctx;
  grpc::GenericServerAsyncReaderWriter stream{&ctx};
  grpc::ByteBuffer request, response;
  grpc::ClientContext client_ctx;
  grpc::Status client_status;
  std::unique_ptr<grpc::GenericClientAsyncResponseReader> reader;
  Tag requested, read, relayed, finished;
};

void ServeAsync(int port, int next_port, int threads) {
  grpc::AsyncGenericService service;
  grpc::ServerBuilder builder;
  builder.AddListeningPort("127.0.0.1:" + std::to_string(port),
                           grpc::InsecureServerCredentials());
  builder.RegisterAsyncGenericService(&service);
  std::unique_ptr<grpc::ServerCompletionQueue> cq =
      builder.AddCompletionQueue();
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  std::unique_ptr<grpc::GenericStub> stub;
  if (next_port != 0) stub = std::make_unique<grpc::GenericStub>(Channel(next_port));
  std::function<void()> arm = [&] {
    auto* c = new AsyncCall;
    c->requested.fn = [&, c](bool ok) {
      if (!ok) {
        delete c;
        return;
      }
      arm();
      c->read.fn = [&, c](bool) {
        auto answer = [c](const grpc::Status& status) {
          c->finished.fn = [c](bool) { delete c; };
          c->stream.WriteAndFinish(c->response, grpc::WriteOptions(), status,
                                   &c->finished);
        };
        if (next_port == 0) {
          c->response = c->request;
          answer(grpc::Status::OK);
          return;
        }
        c->reader = stub->PrepareUnaryCall(&c->client_ctx, kMethod, c->request,
                                           cq.get());
        c->reader->StartCall();
        c->relayed.fn = [c, answer](bool) { answer(c->client_status); };
        c->reader->Finish(&c->response, &c->client_status, &c->relayed);
      };
      c->stream.Read(&c->request, &c->read);
    };
    service.RequestCall(&c->ctx, &c->stream, cq.get(), cq.get(), &c->requested);
  };
  arm();
  auto loop = [&] {
    void* tag;
    bool ok;
    while (cq->Next(&tag, &ok)) static_cast<Tag*>(tag)->fn(ok);
  };
  std::vector<std::thread> more;
  for (int i = 1; i < threads; ++i) more.emplace_back(loop);
  loop();
}

// ---- Callback-API generic server (optionally relaying).

class CallbackService : public grpc::CallbackGenericService {
 public:
  explicit CallbackService(int next_port) : next_port_(next_port) {
    if (next_port != 0) stub_ = std::make_unique<grpc::GenericStub>(Channel(next_port));
  }
  grpc::ServerGenericBidiReactor* CreateReactor(
      grpc::GenericCallbackServerContext*) override {
    class Reactor : public grpc::ServerGenericBidiReactor {
     public:
      explicit Reactor(CallbackService* service) : service_(service) {
        StartRead(&request_);
      }
      void OnReadDone(bool ok) override {
        if (!ok) {
          Finish(grpc::Status(grpc::StatusCode::INTERNAL, "no request"));
          return;
        }
        if (service_->next_port_ == 0) {
          response_ = request_;
          StartWriteAndFinish(&response_, grpc::WriteOptions(), grpc::Status::OK);
          return;
        }
        service_->stub_->UnaryCall(
            &client_ctx_, kMethod, grpc::StubOptions(), &request_, &response_,
            [this](grpc::Status s) {
              StartWriteAndFinish(&response_, grpc::WriteOptions(), s);
            });
      }
      void OnDone() override { delete this; }

     private:
      CallbackService* service_;
      grpc::ByteBuffer request_, response_;
      grpc::ClientContext client_ctx_;
    };
    return new Reactor(this);
  }

 private:
  const int next_port_;
  std::unique_ptr<grpc::GenericStub> stub_;
};

void ServeCallback(int port, int next_port) {
  CallbackService service(next_port);
  grpc::ServerBuilder builder;
  builder.AddListeningPort("127.0.0.1:" + std::to_string(port),
                           grpc::InsecureServerCredentials());
  builder.RegisterCallbackGenericService(&service);
  builder.BuildAndStart()->Wait();
}

// ---- Client and driver.

long ContextSwitches(pid_t pid) {
  long total = 0;
  const std::string dir = "/proc/" + std::to_string(pid) + "/task";
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return 0;
  while (dirent* e = readdir(d)) {
    if (e->d_name[0] == '.') continue;
    std::ifstream status(dir + "/" + e->d_name + "/status");
    std::string line;
    while (std::getline(status, line)) {
      if (line.find("ctxt_switches:") != std::string::npos) {
        total += std::atol(line.c_str() + line.find(':') + 1);
      }
    }
  }
  closedir(d);
  return total;
}

// Times `calls` sequential 8-byte calls; returns the p50 in us and the
// switches per call of each pid.
double TimeCalls(int port, int calls, const std::vector<pid_t>& pids,
                 std::vector<double>* switches) {
  grpc::GenericStub stub(Channel(port));
  grpc::CompletionQueue cq;
  auto one = [&] {
    grpc::ClientContext ctx;
    grpc::Slice slice("abcdefgh", 8);
    grpc::ByteBuffer request(&slice, 1), response;
    grpc::Status status;
    auto reader = stub.PrepareUnaryCall(&ctx, kMethod, request, &cq);
    reader->StartCall();
    reader->Finish(&response, &status, reinterpret_cast<void*>(1));
    void* tag;
    bool ok;
    cq.Next(&tag, &ok);
    if (!status.ok()) {
      std::fprintf(stderr, "call failed: %s\n", status.error_message().c_str());
      std::exit(1);
    }
  };
  for (int i = 0; i < 200; ++i) one();  // Connect and warm up.
  std::vector<long> before;
  for (pid_t p : pids) before.push_back(ContextSwitches(p));
  std::vector<double> us;
  for (int i = 0; i < calls; ++i) {
    const auto start = std::chrono::steady_clock::now();
    one();
    us.push_back(std::chrono::duration<double, std::micro>(
                     std::chrono::steady_clock::now() - start)
                     .count());
  }
  switches->clear();
  for (size_t i = 0; i < pids.size(); ++i) {
    switches->push_back(double(ContextSwitches(pids[i]) - before[i]) / calls);
  }
  std::sort(us.begin(), us.end());
  return us[us.size() / 2];
}

int FreePort() {
  // Let a throwaway server pick one.
  int port = 0;
  grpc::ServerBuilder builder;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
  grpc::AsyncGenericService service;
  builder.RegisterAsyncGenericService(&service);
  auto cq = builder.AddCompletionQueue();
  auto server = builder.BuildAndStart();
  server->Shutdown();
  cq->Shutdown();
  void* tag;
  bool ok;
  while (cq->Next(&tag, &ok)) {
  }
  return port;
}

pid_t Spawn(const char* self, const std::string& mode, int port, int next) {
  const pid_t pid = fork();
  if (pid == 0) {
    const std::string p = std::to_string(port), n = std::to_string(next);
    execl(self, self, "--serve", mode.c_str(), p.c_str(), n.c_str(),
          static_cast<char*>(nullptr));
    _exit(127);
  }
  return pid;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 5 && std::string(argv[1]) == "--serve") {
    const std::string mode = argv[2];
    const int port = std::atoi(argv[3]), next = std::atoi(argv[4]);
    if (mode == "callback") ServeCallback(port, next);
    if (mode == "async-2") ServeAsync(port, next, 2);
    if (mode == "async-1") ServeAsync(port, next, 1);
    return 0;
  }
  const int calls = argc > 1 ? std::atoi(argv[1]) : 3000;
  const int rounds = argc > 2 ? std::atoi(argv[2]) : 3;
  std::printf("| serving (server and relay) | round | one hop p50 | two hops p50 | "
              "server switches/call | relay switches/call |\n|---|---|---|---|---|---|\n");
  for (const std::string mode : {"callback", "async-2", "async-1"}) {
    const int server_port = FreePort(), relay_port = FreePort();
    const pid_t server = Spawn(argv[0], mode, server_port, 0);
    const pid_t relay = Spawn(argv[0], mode, relay_port, server_port);
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    for (int r = 1; r <= rounds; ++r) {
      std::vector<double> one_sw, two_sw;
      const double one = TimeCalls(server_port, calls, {server}, &one_sw);
      const double two = TimeCalls(relay_port, calls, {server, relay}, &two_sw);
      std::printf("| %s | %d | %.0f us | %.0f us | %.1f | %.1f |\n", mode.c_str(),
                  r, one, two, one_sw[0], two_sw[1]);
      std::fflush(stdout);
    }
    kill(server, SIGKILL);
    kill(relay, SIGKILL);
    waitpid(server, nullptr, 0);
    waitpid(relay, nullptr, 0);
  }
  return 0;
}
