#ifndef TRIBUTARY_COMMON_RPC_RPC_SERVICE_H_
#define TRIBUTARY_COMMON_RPC_RPC_SERVICE_H_

// A gRPC service as a table of method handlers (unary, and the simplest
// bidirectional streams: one response per request), served by GrpcServer
// on its network thread (common/rpc/rpc_loop.h). Requests and responses are
// the messages' bytes (grpc::ByteBuffer): tensor-carrying methods decode and
// encode them with tensor coding, the others through TypedHandler.
//
// A handler runs on the network thread. It must not block there: it starts
// the work (or hands it to a pool) and returns; the work ends the call with
// RpcServerCall::Finish, from any thread, exactly once, also when the call
// was cancelled (the server's shutdown waits for it).

#include <functional>
#include <memory>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "common/distributed/call_options.h"
#include "common/rpc/grpc_status.h"
#include "common/rpc/tensor_coding.h"
#include "grpcpp/support/byte_buffer.h"
#include "grpcpp/support/status.h"

namespace tributary {

// Who made a call, as its connection and metadata say (for authentication,
// master/client_auth.h, and for logs).
struct RpcCaller {
  // gRPC's peer string, "ipv4:10.0.0.2:51234".
  std::string address;
  // Whether the call came over TLS (false: a plaintext port).
  bool tls = false;
  // The subject of the client certificate the handshake verified; empty
  // without one.
  std::string certificate_subject;
  // The token of an "authorization: Bearer TOKEN" metadata entry; empty
  // without one. Never logged.
  std::string bearer_token;
};

// One call being served.
class RpcServerCall {
 public:
  virtual ~RpcServerCall() = default;
  // Who made the call; read from the connection and metadata on first use,
  // from the thread handling the call.
  virtual const RpcCaller& caller() const = 0;
  // caller().address alone ("ipv4:10.0.0.2:51234"), without reading the
  // call's authentication and metadata.
  virtual std::string peer() const = 0;
  // The request message's bytes.
  virtual const grpc::ByteBuffer& request() const = 0;
  // The client's deadline; StartCancel()ed when the call is cancelled
  // (client cancel, deadline, broken connection, server shutdown).
  virtual CallOptions* opts() = 0;
  // Answers `response` when `status` is OK, else only the status. The call
  // may be freed as soon as this returns.
  virtual void Finish(const grpc::Status& status,
                      grpc::ByteBuffer response) = 0;
};

using RpcHandler = std::function<void(RpcServerCall* call)>;

// A bidirectional-streaming method in which every request message gets one
// response message, made at once on the network thread, so it must be cheap
// and must not block (server reflection, common/rpc/server_reflection.h).
// A non-OK status ends the stream with it; the client's half-close ends it
// with OK.
using RpcStreamHandler = std::function<grpc::Status(
    const grpc::ByteBuffer& request, grpc::ByteBuffer* response)>;

// A server-streaming method that reports a value as it changes (the health
// service's Watch): the server calls `poll` with the one request at once and
// then every `period`, on the network thread (cheap, never blocking), and
// writes its response whenever the bytes differ from the last written.
// `poll` setting *last ends the call with OK after that response; a non-OK
// status ends it with that status. A cancelled call ends at the next poll.
struct RpcPollingStream {
  std::function<grpc::Status(const grpc::ByteBuffer& request,
                             grpc::ByteBuffer* response, bool* last)>
      poll;
  absl::Duration period = absl::Milliseconds(100);
};

class RpcService {
 public:
  // `name` as in the .proto: "tensorflow.WorkerService".
  explicit RpcService(std::string name) : name_(std::move(name)) {}

  // Serves "/<name>/<method>" with `handler`.
  void Add(absl::string_view method, RpcHandler handler);
  // Serves "/<name>/<method>" as a stream with `handler`.
  void AddStream(absl::string_view method, RpcStreamHandler handler);
  void AddPollingStream(absl::string_view method, RpcPollingStream stream);
  // The handler of a full method path, or nullptr.
  const RpcHandler* Find(absl::string_view path) const;
  const RpcStreamHandler* FindStream(absl::string_view path) const;
  const RpcPollingStream* FindPollingStream(absl::string_view path) const;
  const std::string& name() const { return name_; }

 private:
  const std::string name_;
  absl::flat_hash_map<std::string, RpcHandler> handlers_;
  absl::flat_hash_map<std::string, RpcStreamHandler> stream_handlers_;
  absl::flat_hash_map<std::string, RpcPollingStream> polling_streams_;
};

// A handler in three parts, for a method whose call keeps its request and
// response in a `Messages` struct: `decode` fills it from the request bytes
// (an error ends the call with it), `run` starts the work and reports its
// status, and `encode` writes the response bytes when that status is OK.
// `run` is called on the network thread (see above).
template <typename Messages>
RpcHandler MessagesHandler(
    std::function<absl::Status(const grpc::ByteBuffer&, Messages*)> decode,
    std::function<void(CallOptions*, Messages*,
                       std::function<void(const absl::Status&)>)>
        run,
    std::function<void(const Messages&, grpc::ByteBuffer*)> encode) {
  // Shared, so a call's completion holds a reference, not a copy of the
  // functions (this runs for every RunGraph, RecvTensor and RunStep).
  struct Parts {
    std::function<absl::Status(const grpc::ByteBuffer&, Messages*)> decode;
    std::function<void(CallOptions*, Messages*,
                       std::function<void(const absl::Status&)>)>
        run;
    std::function<void(const Messages&, grpc::ByteBuffer*)> encode;
  };
  auto parts = std::make_shared<const Parts>(
      Parts{std::move(decode), std::move(run), std::move(encode)});
  return [parts](RpcServerCall* call) {
    auto* messages = new Messages;
    const absl::Status decoded = parts->decode(call->request(), messages);
    if (!decoded.ok()) {
      delete messages;
      call->Finish(ToGrpcStatus(decoded), grpc::ByteBuffer());
      return;
    }
    parts->run(call->opts(), messages,
               [call, messages, parts](const absl::Status& status) {
                 grpc::ByteBuffer response;
                 if (status.ok()) parts->encode(*messages, &response);
                 delete messages;
                 call->Finish(ToGrpcStatus(status), std::move(response));
               });
  };
}

// A handler for a method with protobuf request and response messages: the
// request is parsed, `method` runs, and its response is serialised when it
// reports OK.
template <typename Request, typename Response>
RpcHandler TypedHandler(
    std::function<void(CallOptions*, const Request*, Response*,
                       std::function<void(const absl::Status&)>)>
        method) {
  struct Messages {
    Request request;
    Response response;
  };
  return MessagesHandler<Messages>(
      [](const grpc::ByteBuffer& in, Messages* m) {
        return ParseFromByteBuffer(in, &m->request);
      },
      [method = std::move(method)](
          CallOptions* opts, Messages* m,
          std::function<void(const absl::Status&)> done) {
        method(opts, &m->request, &m->response, std::move(done));
      },
      [](const Messages& m, grpc::ByteBuffer* out) {
        SerializeToByteBuffer(m.response, out);
      });
}

// Runs a closure on some thread other than the network thread (a pool).
using RpcRunner = std::function<void(std::function<void()>)>;

// `handler`, started on `runner` instead of the network thread: for methods
// whose work (parsing a big request included) would hold the network thread
// up. A null runner leaves the handler as it is.
RpcHandler RunOn(RpcRunner runner, RpcHandler handler);

// Refuses, before its request is parsed, a call whose GraphDef (request
// field `graph_field`) has more than `limit` nodes, its functions' included
// (--max-graph-nodes: parsing ten million minimal nodes would take
// gigabytes; CountGraphNodesOnWire). ResourceExhausted naming `method` and
// the flag. Bytes that do not parse are left to `handler`'s parser.
struct GraphNodesLimit {
  int graph_field = 0;  // 0: the request carries no GraphDef
  int64_t limit = 0;    // <= 0: unlimited
};
RpcHandler LimitingGraphNodes(const GraphNodesLimit& nodes,
                              absl::string_view method, RpcHandler handler);

// A handler that answers Unimplemented with `why`.
RpcHandler UnimplementedHandler(std::string why);

}  // namespace tributary

#endif  // TRIBUTARY_COMMON_RPC_RPC_SERVICE_H_
