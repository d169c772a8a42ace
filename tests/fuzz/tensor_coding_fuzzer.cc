// Fuzz target: the tensor wire coding (common/rpc/tensor_coding.h), which
// decodes RunStep feeds, RunGraph sends and RecvTensor responses straight
// into tensors instead of through protobuf. Its contract is protobuf's: it
// must accept exactly the bytes protobuf accepts and decode the same values.
// So this target is differential, with protobuf's generated code as the
// oracle: when ours accepts, protobuf must parse the same bytes, every
// tensor must equal Tensor::FromProto of protobuf's TensorProto and the rest
// of the message must equal protobuf's; when protobuf parses and every
// tensor converts, ours must accept.
//
// Input: byte 0 picks the message (bits 0-1: RunStepRequest, RunGraphRequest,
// RecvTensorResponse) and how many slices the bytes arrive in (bits 2-7), as
// gRPC hands a message over in pieces; the rest is the message.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/distributed/tensor_messages.h"
#include "common/framework/allocator.h"
#include "common/framework/tensor.h"
#include "common/rpc/tensor_coding.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/util/message_differencer.h"
#include "grpcpp/support/byte_buffer.h"
#include "grpcpp/support/slice.h"
#include "protos/master.pb.h"
#include "protos/worker.pb.h"
#include "tests/fuzz/fuzz_check.h"
#include "tests/fuzz/fuzz_tensors.h"

namespace tributary {
namespace fuzz {
namespace {

grpc::ByteBuffer InSlices(const uint8_t* data, size_t size, int slices) {
  std::vector<grpc::Slice> pieces;
  const size_t step = std::max<size_t>(1, size / slices);
  for (size_t at = 0; at < size; at += step) {
    const size_t n = std::min(step, size - at);
    pieces.emplace_back(data + at, n);
  }
  return grpc::ByteBuffer(pieces.data(), pieces.size());
}

// Ours (`decoded`, `status`) against protobuf's parse of the same bytes:
// `named` are protobuf's NamedTensorProtos, `rest` our other fields and
// `expected_rest` protobuf's message with the tensor field cleared.
void CompareNamed(
    const absl::Status& status, const NamedTensors& decoded, bool proto_parsed,
    const google::protobuf::RepeatedPtrField<tensorflow::NamedTensorProto>&
        named,
    const google::protobuf::Message& rest,
    const google::protobuf::Message& expected_rest) {
  bool all_convert = proto_parsed;
  std::vector<Tensor> expected;
  for (const tensorflow::NamedTensorProto& n : named) {
    if (!all_convert) break;
    absl::StatusOr<Tensor> t = Tensor::FromProto(n.tensor(), OracleAllocator());
    if (!t.ok()) {
      all_convert = false;
      break;
    }
    expected.push_back(*std::move(t));
  }
  if (!status.ok()) {
    CheckErrorCode(status,
                   {absl::StatusCode::kInvalidArgument,
                    absl::StatusCode::kResourceExhausted,
                    absl::StatusCode::kUnimplemented},
                   "DecodeWithNamedTensors");
    Check(!all_convert, "tensor coding refuses a message protobuf parses: " +
                            status.ToString());
    return;
  }
  Check(proto_parsed, "tensor coding accepts a message protobuf refuses");
  Check(all_convert, "tensor coding accepts a tensor FromProto refuses");
  Check(decoded.size() == expected.size(), "tensor count differs");
  for (size_t i = 0; i < decoded.size(); ++i) {
    Check(decoded[i].first == named.Get(i).name(),
          absl::StrCat("tensor name ", i, " differs"));
    Check(TensorBytes(decoded[i].second) == TensorBytes(expected[i]),
          absl::StrCat("tensor ", i,
                       " differs: ", decoded[i].second.DebugString(), " vs ",
                       expected[i].DebugString()));
  }
  Check(google::protobuf::util::MessageDifferencer::Equals(rest, expected_rest),
        "the message's other fields differ");
}

// A request whose field `field` holds NamedTensorProtos (RunStep's feeds,
// RunGraph's sends), decoded by us and parsed by protobuf.
template <typename Request>
void FuzzNamedTensorRequest(const grpc::ByteBuffer& in,
                            const std::string& bytes, int field) {
  Request rest;
  NamedTensors tensors;
  const absl::Status status =
      DecodeWithNamedTensors(in, field, BudgetedAllocator(), &rest, &tensors);
  Request expected;
  const bool parsed = expected.ParseFromString(bytes);
  const google::protobuf::FieldDescriptor* named_field =
      Request::descriptor()->FindFieldByNumber(field);
  Request expected_rest = expected;
  expected_rest.GetReflection()->ClearField(&expected_rest, named_field);
  CompareNamed(status, tensors, parsed,
               expected.GetReflection()
                   ->template GetRepeatedPtrField<tensorflow::NamedTensorProto>(
                       expected, named_field),
               rest, expected_rest);
}

void FuzzRecvTensorResponse(const grpc::ByteBuffer& in,
                            const std::string& bytes) {
  TensorResponse decoded;
  const absl::Status status =
      DecodeRecvTensorResponse(in, BudgetedAllocator(), &decoded);
  tensorflow::RecvTensorResponse expected;
  const bool parsed = expected.ParseFromString(bytes);
  absl::StatusOr<Tensor> expected_tensor =
      parsed ? Tensor::FromProto(expected.tensor(), OracleAllocator())
             : absl::InvalidArgumentError("not parsed");
  // A dead tensor needs no value (the receiver passes deadness on, never
  // the tensor); a live one must carry one.
  const bool dead_without_value =
      parsed && expected.is_dead() && !expected.has_tensor();
  if (!status.ok()) {
    CheckErrorCode(status,
                   {absl::StatusCode::kInvalidArgument,
                    absl::StatusCode::kResourceExhausted,
                    absl::StatusCode::kUnimplemented},
                   "DecodeRecvTensorResponse");
    Check(!expected_tensor.ok() && !dead_without_value,
          "tensor coding refuses a RecvTensorResponse protobuf parses: " +
              status.ToString());
    return;
  }
  Check(parsed, "tensor coding accepts a RecvTensorResponse protobuf refuses");
  Check(decoded.is_dead == expected.is_dead() &&
            decoded.send_start_micros == expected.send_start_micros(),
        "RecvTensorResponse fields differ");
  if (dead_without_value) return;
  Check(expected_tensor.ok(),
        "tensor coding accepts a RecvTensorResponse tensor FromProto refuses");
  Check(TensorBytes(decoded.tensor) == TensorBytes(*expected_tensor),
        "RecvTensorResponse tensor differs");
}

}  // namespace
}  // namespace fuzz
}  // namespace tributary

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace fuzz = tributary::fuzz;
  if (size == 0) return 0;
  const int message = data[0] & 3;
  const int slices = 1 + (data[0] >> 2);
  const std::string bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  const grpc::ByteBuffer in = fuzz::InSlices(data + 1, size - 1, slices);
  switch (message) {
    case 0:
      fuzz::FuzzNamedTensorRequest<tensorflow::RunStepRequest>(
          in, bytes, tributary::kRunStepRequestFeedField);
      break;
    case 1:
      fuzz::FuzzNamedTensorRequest<tensorflow::RunGraphRequest>(
          in, bytes, tributary::kRunGraphRequestSendField);
      break;
    default:
      fuzz::FuzzRecvTensorResponse(in, bytes);
      break;
  }
  return 0;
}
