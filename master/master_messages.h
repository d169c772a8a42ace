#ifndef TRIBUTARY_MASTER_MASTER_MESSAGES_H_
#define TRIBUTARY_MASTER_MASTER_MESSAGES_H_

// RunStep's request and response with their tensors kept as Tensors, as
// the step messages of common/distributed/tensor_messages.h: the gRPC
// service decodes feeds straight into tensors and encodes fetches straight
// from them (common/rpc/tensor_coding.h), and an in-process caller passes
// tensors without any encoding.

#include "common/distributed/tensor_messages.h"
#include "protos/master.pb.h"

namespace tributary {

// RunStepRequest; the feeds are in `feed` (names as the client gave them),
// not in proto.feed.
struct RunStepRequestMsg {
  tensorflow::RunStepRequest proto;
  NamedTensors feed;
};

// RunStepResponse; the fetched values are in `tensor`, one per requested
// fetch in the request's order (named as requested), not in proto.tensor.
struct RunStepResponseMsg {
  tensorflow::RunStepResponse proto;
  NamedTensors tensor;
};

}  // namespace tributary

#endif  // TRIBUTARY_MASTER_MASTER_MESSAGES_H_
