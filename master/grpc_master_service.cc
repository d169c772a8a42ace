#include "master/grpc_master_service.h"

#include <utility>

#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "common/rpc/client_identity.h"
#include "common/rpc/grpc_status.h"
#include "common/rpc/rpc_service.h"
#include "common/rpc/tensor_coding.h"
#include "protos/master_service.pb.h"
#include "spdlog/spdlog.h"

namespace tributary {
namespace {

// The session a request is about; empty for requests about none.
template <typename Request>
auto SessionOf(const Request& request, int)
    -> decltype(request.session_handle(), std::string()) {
  return request.session_handle();
}
template <typename Request>
std::string SessionOf(const Request&, long) {  // NOLINT(runtime/int)
  return std::string();
}

// `make(client)`'s handler for each call, after the caller is
// authenticated (`client` null without authentication). A caller who is
// not is refused and logged (by address; never the token). The call's
// CallOptions::client(), the key of --max-steps-per-client, is the
// authenticated name, or without authentication the caller's host (read
// only when that limit is on: it costs a peer string per RunStep).
struct Callers {
  ClientAuth* auth = nullptr;  // null: no authentication
  bool key_clients = false;    // --max-steps-per-client is on
};

template <typename MakeHandler>
RpcHandler Authenticated(const Callers& callers, absl::string_view method,
                         MakeHandler make) {
  ClientAuth* auth = callers.auth;
  if (auth == nullptr) {
    RpcHandler handler = make(nullptr);
    if (!callers.key_clients) return handler;
    return [handler](RpcServerCall* call) {
      call->opts()->set_client(ClientKeyFromPeer(call->peer()));
      handler(call);
    };
  }
  return [auth, method = std::string(method), make](RpcServerCall* call) {
    absl::StatusOr<ClientIdentity> client = auth->Authenticate(call->caller());
    if (!client.ok()) {
      spdlog::warn("refused {} from {}: {}", method, call->caller().address,
                   std::string(client.status().message()));
      call->Finish(ToGrpcStatus(client.status()), grpc::ByteBuffer());
      return;
    }
    call->opts()->set_client(ClientKeyForPrincipal(client->name));
    make(std::make_shared<const ClientIdentity>(*std::move(client)))(call);
  };
}

// Whether `client` may make this call (OK without authentication).
absl::Status Authorize(ClientAuth* auth,
                       const std::shared_ptr<const ClientIdentity>& client,
                       absl::string_view method, const std::string& session) {
  if (auth == nullptr || client == nullptr) return absl::OkStatus();
  absl::Status allowed = auth->Authorize(*client, method, session);
  if (!allowed.ok()) {
    spdlog::warn("denied {} to client '{}': {}", std::string(method),
                 client->name, std::string(allowed.message()));
  }
  return allowed;
}

// RunStep: feeds decoded straight into tensors, fetches written from their
// own buffers. The step itself never blocks the network thread
// (Master::RunStepAsync); only copying big feeds out of the network buffers
// would, so calls with big requests are handled on a pool thread.
RpcHandler RunStepHandler(Master* master, BlockingCallPool* pool,
                          Allocator* allocator, const Callers& callers) {
  ClientAuth* auth = callers.auth;
  struct Messages {
    RunStepRequestMsg request;
    RunStepResponseMsg response;
  };
  auto make = [=](std::shared_ptr<const ClientIdentity> client) {
    return MessagesHandler<Messages>(
        [allocator](const grpc::ByteBuffer& in, Messages* m) {
          return DecodeWithNamedTensors(in, kRunStepRequestFeedField, allocator,
                                        &m->request.proto, &m->request.feed);
        },
        [master, auth, client](CallOptions* opts, Messages* m,
                               std::function<void(const absl::Status&)> done) {
          absl::Status allowed = Authorize(auth, client, "RunStep",
                                           m->request.proto.session_handle());
          if (!allowed.ok()) {
            done(allowed);
            return;
          }
          master->RunStepAsync(opts, m->request, &m->response, std::move(done));
        },
        [](const Messages& m, grpc::ByteBuffer* out) {
          EncodeWithNamedTensors(m.response.proto, kRunStepResponseTensorField,
                                 m.response.tensor, out);
        });
  };
  RpcHandler handler = Authenticated(callers, "RunStep", make);
  constexpr size_t kDecodeOnPoolBytes = 1 << 20;
  return [handler, pool](RpcServerCall* call) {
    if (call->request().Length() >= kDecodeOnPoolBytes) {
      pool->Schedule([handler, call] { handler(call); });
    } else {
      handler(call);
    }
  };
}

// A method whose Master call blocks (bounded) while workers work: it runs
// on a pool thread, never on the network thread, and so do the caller's
// authentication and the parsing of its request (a GraphDef may be hundreds
// of megabytes). `fn(opts, request, response, client)`; `client` is null
// without authentication.
template <typename Request, typename Response, typename Fn>
RpcHandler OnPool(BlockingCallPool* pool, const Callers& callers,
                  absl::string_view method, Fn fn,
                  GraphNodesLimit nodes = GraphNodesLimit()) {
  ClientAuth* auth = callers.auth;
  auto make = [auth, method = std::string(method), fn,
               nodes](std::shared_ptr<const ClientIdentity> client) {
    return LimitingGraphNodes(
        nodes, method,
        TypedHandler<Request, Response>(
            [auth, method, fn, client](
                CallOptions* opts, const Request* request, Response* response,
                std::function<void(const absl::Status&)> done) {
              absl::Status allowed =
                  Authorize(auth, client, method, SessionOf(*request, 0));
              done(allowed.ok() ? fn(opts, *request, response, client.get())
                                : allowed);
            }));
  };
  return RunOn(
      [pool](std::function<void()> work) { pool->Schedule(std::move(work)); },
      Authenticated(callers, method, make));
}

}  // namespace

std::unique_ptr<RpcService> NewGrpcMasterService(Master* master,
                                                 BlockingCallPool* pool,
                                                 Allocator* allocator,
                                                 ClientAuth* auth) {
  if (allocator == nullptr) allocator = cpu_allocator();
  auto service = std::make_unique<RpcService>("tensorflow.MasterService");
  const Callers callers{auth, master->limits_steps_per_client()};
  using tensorflow::CloseSessionRequest;
  using tensorflow::CloseSessionResponse;
  using tensorflow::CreateSessionRequest;
  using tensorflow::CreateSessionResponse;
  using tensorflow::ExtendSessionRequest;
  using tensorflow::ExtendSessionResponse;
  using tensorflow::ListDevicesRequest;
  using tensorflow::ListDevicesResponse;
  using tensorflow::MakeCallableRequest;
  using tensorflow::MakeCallableResponse;
  using tensorflow::PartialRunSetupRequest;
  using tensorflow::PartialRunSetupResponse;
  using tensorflow::ReleaseCallableRequest;
  using tensorflow::ReleaseCallableResponse;
  using tensorflow::ResetRequest;
  using tensorflow::ResetResponse;
  using tensorflow::RunCallableRequest;
  using tensorflow::RunCallableResponse;
  service->Add(
      "CreateSession",
      OnPool<CreateSessionRequest, CreateSessionResponse>(
          pool, callers, "CreateSession",
          [master, auth](CallOptions* opts, const auto& request, auto* response,
                         const ClientIdentity* client) {
            absl::Status created =
                master->CreateSession(opts, request, response);
            if (created.ok() && client != nullptr) {
              auth->RecordOwner(response->session_handle(), *client,
                                [master](const std::string& handle) {
                                  return master->HasSession(handle);
                                });
            }
            return created;
          },
          GraphNodesLimit{/*CreateSessionRequest.graph_def=*/1,
                          master->max_graph_nodes()}));
  service->Add("ExtendSession",
               OnPool<ExtendSessionRequest, ExtendSessionResponse>(
                   pool, callers, "ExtendSession",
                   [master](CallOptions*, const auto& request, auto* response,
                            const ClientIdentity*) {
                     return master->ExtendSession(request, response);
                   },
                   GraphNodesLimit{/*ExtendSessionRequest.graph_def=*/2,
                                   master->max_graph_nodes()}));
  service->Add("PartialRunSetup",
               OnPool<PartialRunSetupRequest, PartialRunSetupResponse>(
                   pool, callers, "PartialRunSetup",
                   [master](CallOptions*, const auto& request, auto* response,
                            const ClientIdentity*) {
                     return master->PartialRunSetup(request, response);
                   }));
  service->Add("CloseSession",
               OnPool<CloseSessionRequest, CloseSessionResponse>(
                   pool, callers, "CloseSession",
                   [master, auth](CallOptions*, const auto& request,
                                  auto* response, const ClientIdentity*) {
                     absl::Status closed =
                         master->CloseSession(request, response);
                     if (auth != nullptr) {
                       auth->ForgetSession(request.session_handle());
                     }
                     return closed;
                   }));
  service->Add("ListDevices",
               OnPool<ListDevicesRequest, ListDevicesResponse>(
                   pool, callers, "ListDevices",
                   [master](CallOptions* opts, const auto& request,
                            auto* response, const ClientIdentity*) {
                     return master->ListDevices(opts, request, response);
                   }));
  service->Add("Reset", OnPool<ResetRequest, ResetResponse>(
                            pool, callers, "Reset",
                            [master](CallOptions*, const auto& request,
                                     auto* response, const ClientIdentity*) {
                              return master->Reset(request, response);
                            }));
  service->Add("MakeCallable",
               OnPool<MakeCallableRequest, MakeCallableResponse>(
                   pool, callers, "MakeCallable",
                   [master](CallOptions*, const auto& request, auto* response,
                            const ClientIdentity*) {
                     return master->MakeCallable(request, response);
                   }));
  service->Add("RunCallable",
               OnPool<RunCallableRequest, RunCallableResponse>(
                   pool, callers, "RunCallable",
                   [master](CallOptions* opts, const auto& request,
                            auto* response, const ClientIdentity*) {
                     return master->RunCallable(opts, request, response);
                   }));
  service->Add("ReleaseCallable",
               OnPool<ReleaseCallableRequest, ReleaseCallableResponse>(
                   pool, callers, "ReleaseCallable",
                   [master](CallOptions*, const auto& request, auto* response,
                            const ClientIdentity*) {
                     return master->ReleaseCallable(request, response);
                   }));
  service->Add("RunStep", RunStepHandler(master, pool, allocator, callers));
  return service;
}

}  // namespace tributary
