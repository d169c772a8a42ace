#include "tools/cli/cluster_probe.h"

#include <fstream>

#include "common/rpc/grpc_channel.h"
#include "common/rpc/grpc_status.h"
#include "grpcpp/client_context.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/security/credentials.h"
#include "protos/master_service.grpc.pb.h"
#include "protos/worker_service.grpc.pb.h"

namespace tributary {
namespace {

std::unique_ptr<grpc::ClientContext> ProbeContext(absl::Time deadline) {
  auto context = std::make_unique<grpc::ClientContext>();
  context->set_deadline(absl::ToChronoTime(deadline));
  context->set_wait_for_ready(true);
  return context;
}

}  // namespace

std::shared_ptr<grpc::Channel> NewProbeChannel(
    const std::string& address,
    std::shared_ptr<grpc::ChannelCredentials> credentials) {
  // The arguments of the daemons' own channels, which already reconnect
  // quickly (100 ms .. 1 s) and lift the message size limits.
  grpc::ChannelArguments args = GrpcChannelArguments();
  // A private subchannel pool: a daemon that has just (re)started is reached
  // at once, not after a backoff left over in a subchannel another channel
  // to the same address shares (a test that killed and restarted a task).
  args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  if (credentials == nullptr) {
    credentials = grpc::InsecureChannelCredentials();
  }
  return grpc::CreateCustomChannel(address, credentials, args);
}

absl::StatusOr<tensorflow::GetStatusResponse> ProbeWorker(
    const std::shared_ptr<grpc::Channel>& channel, absl::Time deadline) {
  auto stub = tensorflow::WorkerService::NewStub(channel);
  auto context = ProbeContext(deadline);
  tensorflow::GetStatusResponse response;
  grpc::Status status =
      stub->GetStatus(context.get(), tensorflow::GetStatusRequest(), &response);
  if (!status.ok()) return FromGrpcStatus(status);
  return response;
}

absl::StatusOr<tensorflow::ListDevicesResponse> ProbeMaster(
    const std::shared_ptr<grpc::Channel>& channel, absl::Time deadline) {
  auto stub = tensorflow::MasterService::NewStub(channel);
  auto context = ProbeContext(deadline);
  tensorflow::ListDevicesResponse response;
  grpc::Status status = stub->ListDevices(
      context.get(), tensorflow::ListDevicesRequest(), &response);
  if (!status.ok()) return FromGrpcStatus(status);
  return response;
}

std::string ListeningAddressFromLog(const std::string& log_path) {
  static constexpr char kMarker[] = "listening on ";
  std::ifstream in(log_path);
  std::string line;
  std::string found;
  while (std::getline(in, line)) {
    const size_t at = line.find(kMarker);
    if (at == std::string::npos) continue;
    const size_t begin = at + sizeof(kMarker) - 1;
    size_t end = line.find_first_of(" \t\r,;", begin);
    if (end == std::string::npos) end = line.size();
    found = line.substr(begin, end - begin);
    if (found.rfind("grpc://", 0) == 0) found = found.substr(7);
  }
  return found;
}

}  // namespace tributary
