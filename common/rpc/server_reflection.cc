#include "common/rpc/server_reflection.h"

#include <algorithm>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "common/rpc/tensor_coding.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/descriptor.pb.h"
#include "grpc/reflection/v1/reflection.pb.h"

namespace tributary {
namespace {

namespace pb = ::google::protobuf;
namespace refl = ::grpc::reflection::v1;

const pb::DescriptorPool& Pool() {
  return *pb::DescriptorPool::generated_pool();
}

// `file` and, depth first, every file it imports, each once.
void AddFileWithImports(const pb::FileDescriptor* file,
                        absl::flat_hash_set<std::string>* seen,
                        refl::FileDescriptorResponse* out) {
  if (!seen->insert(file->name()).second) return;
  pb::FileDescriptorProto proto;
  file->CopyTo(&proto);
  out->add_file_descriptor_proto(proto.SerializeAsString());
  for (int i = 0; i < file->dependency_count(); ++i) {
    AddFileWithImports(file->dependency(i), seen, out);
  }
}

void SetError(grpc::StatusCode code, std::string message,
              refl::ServerReflectionResponse* response) {
  refl::ErrorResponse* error = response->mutable_error_response();
  error->set_error_code(code);
  error->set_error_message(std::move(message));
}

void AnswerFile(const pb::FileDescriptor* file, absl::string_view asked,
                refl::ServerReflectionResponse* response) {
  if (file == nullptr) {
    SetError(grpc::StatusCode::NOT_FOUND,
             absl::StrCat("No file or symbol '", asked, "' in this server"),
             response);
    return;
  }
  absl::flat_hash_set<std::string> seen;
  AddFileWithImports(file, &seen, response->mutable_file_descriptor_response());
}

}  // namespace

ServerReflection::ServerReflection(std::vector<std::string> services)
    : services_(std::move(services)) {
  services_.push_back(kV1);
  services_.push_back(kV1Alpha);
  std::sort(services_.begin(), services_.end());
  services_.erase(std::unique(services_.begin(), services_.end()),
                  services_.end());
}

grpc::Status ServerReflection::Answer(const grpc::ByteBuffer& request_bytes,
                                      grpc::ByteBuffer* response_bytes) const {
  refl::ServerReflectionRequest request;
  const absl::Status parsed = ParseFromByteBuffer(request_bytes, &request);
  if (!parsed.ok()) {
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                        "Not a ServerReflectionRequest");
  }
  refl::ServerReflectionResponse response;
  response.set_valid_host(request.host());
  *response.mutable_original_request() = request;
  switch (request.message_request_case()) {
    case refl::ServerReflectionRequest::kListServices:
      for (const std::string& name : services_) {
        response.mutable_list_services_response()->add_service()->set_name(
            name);
      }
      break;
    case refl::ServerReflectionRequest::kFileByFilename:
      AnswerFile(Pool().FindFileByName(request.file_by_filename()),
                 request.file_by_filename(), &response);
      break;
    case refl::ServerReflectionRequest::kFileContainingSymbol:
      AnswerFile(
          Pool().FindFileContainingSymbol(request.file_containing_symbol()),
          request.file_containing_symbol(), &response);
      break;
    case refl::ServerReflectionRequest::kFileContainingExtension: {
      const auto& asked = request.file_containing_extension();
      const pb::Descriptor* type =
          Pool().FindMessageTypeByName(asked.containing_type());
      const pb::FieldDescriptor* extension =
          type == nullptr
              ? nullptr
              : Pool().FindExtensionByNumber(type, asked.extension_number());
      AnswerFile(extension == nullptr ? nullptr : extension->file(),
                 absl::StrCat(asked.containing_type(), " extension ",
                              asked.extension_number()),
                 &response);
      break;
    }
    case refl::ServerReflectionRequest::kAllExtensionNumbersOfType: {
      const std::string& name = request.all_extension_numbers_of_type();
      const pb::Descriptor* type = Pool().FindMessageTypeByName(name);
      if (type == nullptr) {
        SetError(grpc::StatusCode::NOT_FOUND,
                 absl::StrCat("No message type '", name, "' in this server"),
                 &response);
        break;
      }
      std::vector<const pb::FieldDescriptor*> extensions;
      Pool().FindAllExtensions(type, &extensions);
      auto* numbers = response.mutable_all_extension_numbers_response();
      numbers->set_base_type_name(name);
      for (const pb::FieldDescriptor* e : extensions) {
        numbers->add_extension_number(e->number());
      }
      break;
    }
    default:
      SetError(grpc::StatusCode::INVALID_ARGUMENT,
               "The request asks for nothing this server knows", &response);
  }
  SerializeToByteBuffer(response, response_bytes);
  return grpc::Status::OK;
}

std::vector<RpcService> ServerReflection::Services(
    const ServerReflection* reflection) {
  std::vector<RpcService> services;
  for (const char* name : {kV1, kV1Alpha}) {
    services.emplace_back(name);
    services.back().AddStream(
        "ServerReflectionInfo",
        [reflection](const grpc::ByteBuffer& in, grpc::ByteBuffer* out) {
          return reflection->Answer(in, out);
        });
  }
  return services;
}

}  // namespace tributary
