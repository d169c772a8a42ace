#ifndef TRIBUTARY_KERNELS_SENDRECV_SENDRECV_OPS_H_
#define TRIBUTARY_KERNELS_SENDRECV_SENDRECV_OPS_H_

// _Send / _Recv (and the _HostSend / _HostRecv variants): the two halves of
// a graph edge cut by partitioning, meeting in the step's rendezvous
// (ctx->rendezvous()) under the key
//   send_device;send_device_incarnation;recv_device;tensor_name;frame:iter
// built from the node's attributes and the frame/iteration the executor
// runs it in. _Send never blocks; _Recv is asynchronous and completes when
// the value arrives, the rendezvous is aborted, or the step is cancelled.

#include <string>

#include "common/kernel/op_kernel.h"
#include "common/rendezvous/rendezvous.h"

namespace tributary {

class SendOp : public OpKernel {
 public:
  explicit SendOp(OpKernelConstruction* ctx);
  void Compute(OpKernelContext* ctx) override;

 private:
  std::string key_prefix_;
  // The key outside any loop (frame 0, iteration 0), parsed once: almost
  // every _Send runs there.
  RendezvousParsedKey parsed_key_;
};

class RecvOp : public AsyncOpKernel {
 public:
  explicit RecvOp(OpKernelConstruction* ctx);
  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override;

 private:
  std::string key_prefix_;
  RendezvousParsedKey parsed_key_;
};

}  // namespace tributary

#endif  // TRIBUTARY_KERNELS_SENDRECV_SENDRECV_OPS_H_
