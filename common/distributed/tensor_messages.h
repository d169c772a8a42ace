#ifndef TRIBUTARY_COMMON_DISTRIBUTED_TENSOR_MESSAGES_H_
#define TRIBUTARY_COMMON_DISTRIBUTED_TENSOR_MESSAGES_H_

// The messages of the step path whose payload is tensors, kept as Tensors
// rather than TensorProtos (TensorFlow's Mutable*Wrapper idea, simplified):
// an in-process worker hands tensors over without any encoding, and the gRPC
// transport writes them straight from / into tensor buffers
// (common/rpc/tensor_coding.h) instead of building TensorProtos.
//
// In each message the `proto` field holds everything else; its own tensor
// field (send / recv / tensor) stays empty and is ignored.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "common/framework/tensor.h"
#include "protos/worker.pb.h"

namespace tributary {

// (name, value) pairs in order: RunGraph's send / recv, RunStep's feed /
// fetch.
using NamedTensors = std::vector<std::pair<std::string, Tensor>>;

// RunGraphRequest; the feeds are in `send` (keys: rendezvous keys), not in
// proto.send.
struct RunGraphRequestMsg {
  tensorflow::RunGraphRequest proto;
  NamedTensors send;
};

// RunGraphResponse; the fetched values are in `recv` (one per recv_key, in
// the request's order), not in proto.recv. Errors: the call's status, and
// proto.status_code / status_error_message when the request asked for
// store_errors_in_response_body.
struct RunGraphResponseMsg {
  tensorflow::RunGraphResponse proto;
  NamedTensors recv;
};

// RecvTensorResponse as the receiver uses it: the tensor (decoded into
// memory from the receiver's allocator), and the rest of the fields.
struct TensorResponse {
  Tensor tensor;
  bool is_dead = false;
  int64_t send_start_micros = 0;
};

}  // namespace tributary

#endif  // TRIBUTARY_COMMON_DISTRIBUTED_TENSOR_MESSAGES_H_
