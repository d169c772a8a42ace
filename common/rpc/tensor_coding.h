#ifndef TRIBUTARY_COMMON_RPC_TENSOR_CODING_H_
#define TRIBUTARY_COMMON_RPC_TENSOR_CODING_H_

// Tensor coding: protobuf wire format written straight from tensor buffers
// into a grpc::ByteBuffer, and read straight from the received slices into
// tensor buffers, without building TensorProto messages or intermediate
// strings (TensorFlow's grpc_tensor_coding idea; our own code).
//
// Encoding: the message's non-tensor fields are serialised normally (small);
// each tensor becomes a TensorProto {dtype, tensor_shape, tensor_content}
// whose tensor_content bytes are a grpc::Slice pointing at the Tensor's
// buffer, holding a reference to it until gRPC has sent it. No copy of the
// tensor bytes is made. DT_STRING (and other non-memcpy types) fall back to
// TensorProto's typed fields.
//
// Decoding: the slices of the received ByteBuffer are walked field by field;
// tensor_content is copied once, directly from the network slices into a
// buffer from `allocator` (a reusing allocator, so no fresh pages are
// faulted in per transfer); contents of 8 MiB and more are copied by 2-4
// threads, since this copy cannot overlap the transfer. TensorProtos using
// typed fields (float_val, ..., as TensorFlow's Python client may send) are
// parsed the ordinary way. Malformed input is InvalidArgument naming what was
// wrong; it never crashes.
//
// One limit protobuf does not have: a TensorProto may carry fewer typed
// values than its shape holds (the last value repeats, none gives zeros),
// so a 20-byte request could ask for a tensor of terabytes. A tensor that
// expands so, beyond kMaxExpandedTensorBytes, is ResourceExhausted before
// anything is allocated. TensorFlow's clients and ours always send every
// value (tensor_content), so only hand-made requests meet it; graphs' Const
// values are not decoded here (kernels allocate them within the session's
// memory budget).
//
// The wire bytes are exactly what protobuf would accept for the same
// message: a peer using generated code (TensorFlow itself) reads and writes
// them unchanged.

#include <cstdint>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/distributed/tensor_messages.h"
#include "common/framework/allocator.h"
#include "common/framework/tensor.h"
#include "google/protobuf/message.h"
#include "grpcpp/support/byte_buffer.h"

namespace tributary {

// Largest tensor a request's TensorProto may describe without carrying its
// values (see above).
inline constexpr int64_t kMaxExpandedTensorBytes = int64_t{64} << 20;

// RecvTensorResponse {tensor = 1, is_dead = 2, send_start_micros = 3}.
void EncodeRecvTensorResponse(const Tensor& tensor, bool is_dead,
                              int64_t send_start_micros, grpc::ByteBuffer* out);
absl::Status DecodeRecvTensorResponse(const grpc::ByteBuffer& in,
                                      Allocator* allocator,
                                      TensorResponse* out);

// The tensor-carrying NamedTensorProto fields of the step messages.
inline constexpr int kRunGraphRequestSendField = 3;
inline constexpr int kRunGraphResponseRecvField = 1;
inline constexpr int kRunStepRequestFeedField = 2;
inline constexpr int kRunStepResponseTensorField = 1;

// A message with one repeated NamedTensorProto field (NamedTensorProto
// {name = 1, tensor = 2}) whose tensors are given apart from the message,
// e.g. the four fields above.
// `rest` is serialised as it is (its own field `field_number` should be
// empty) and the tensors are appended as that field, in order.
void EncodeWithNamedTensors(const google::protobuf::Message& rest,
                            int field_number, const NamedTensors& tensors,
                            grpc::ByteBuffer* out);
// Splits a received message: field `field_number` (NamedTensorProtos) into
// `tensors`, everything else parsed into `rest` (cleared first).
absl::Status DecodeWithNamedTensors(const grpc::ByteBuffer& in,
                                    int field_number, Allocator* allocator,
                                    google::protobuf::Message* rest,
                                    NamedTensors* tensors);

// How many nodes the GraphDef in field `graph_def_field` of the request in
// `in` carries, its library's functions' nodes included, counted on the wire
// without parsing anything (repeated occurrences of the field merge, as
// protobuf merges them). For --max-graph-nodes: parsing a GraphDef of ten
// million minimal nodes (110 MB) takes a process to 3.3 GB for 12 s, so the
// count must come first. InvalidArgument for bytes protobuf would not parse
// (the caller may leave the error to the parser).
absl::StatusOr<int64_t> CountGraphNodesOnWire(const grpc::ByteBuffer& in,
                                              int graph_def_field);

// Plain proto <-> ByteBuffer, for the messages that carry no tensors.
void SerializeToByteBuffer(const google::protobuf::Message& message,
                           grpc::ByteBuffer* out);
absl::Status ParseFromByteBuffer(const grpc::ByteBuffer& in,
                                 google::protobuf::Message* message);

}  // namespace tributary

#endif  // TRIBUTARY_COMMON_RPC_TENSOR_CODING_H_
