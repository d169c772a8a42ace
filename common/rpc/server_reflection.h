#ifndef TRIBUTARY_COMMON_RPC_SERVER_REFLECTION_H_
#define TRIBUTARY_COMMON_RPC_SERVER_REFLECTION_H_

// gRPC server reflection (grpc.reflection.v1 and v1alpha's
// ServerReflectionInfo), so grpcurl-style tools can list a daemon's services
// and describe their methods and messages without the .proto files.
//
// Answers one ServerReflectionRequest with one ServerReflectionResponse from
// the process's generated descriptor pool:
//   list_services                  the names given at construction;
//   file_by_filename               that file and every file it imports;
//   file_containing_symbol         the file defining a service, method,
//                                  message, enum or field, with its imports;
//   file_containing_extension,
//   all_extension_numbers_of_type  from the pool's extensions;
// an unknown name answers an error_response with NOT_FOUND, a request with
// none of these INVALID_ARGUMENT (the stream goes on, as gRPC's own server
// does). Bytes that are not a request end the stream with INVALID_ARGUMENT.
// Both versions' messages have the same fields and numbers, so one answerer
// serves both. Stateless and thread-safe.

#include <string>
#include <vector>

#include "common/rpc/rpc_service.h"
#include "grpcpp/support/byte_buffer.h"
#include "grpcpp/support/status.h"

namespace tributary {

class ServerReflection {
 public:
  // `services`: the full names the server serves ("tensorflow.MasterService").
  explicit ServerReflection(std::vector<std::string> services);

  // One request's bytes in, one response's bytes out (an RpcStreamHandler).
  grpc::Status Answer(const grpc::ByteBuffer& request,
                      grpc::ByteBuffer* response) const;

  // The names served, the reflection services' own included.
  const std::vector<std::string>& services() const { return services_; }

  // The two reflection services, each with ServerReflectionInfo answered by
  // `reflection` (which must outlive them).
  static constexpr const char* kV1 = "grpc.reflection.v1.ServerReflection";
  static constexpr const char* kV1Alpha =
      "grpc.reflection.v1alpha.ServerReflection";
  static std::vector<RpcService> Services(const ServerReflection* reflection);

 private:
  std::vector<std::string> services_;
};

}  // namespace tributary

#endif  // TRIBUTARY_COMMON_RPC_SERVER_REFLECTION_H_
