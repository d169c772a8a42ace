#include "kernels/sendrecv/sendrecv_ops.h"

#include <cstdint>
#include <string>
#include <utility>

#include "common/framework/status.h"
#include "common/kernel/device_base.h"
#include "common/kernel/kernel_registry.h"
#include "common/kernel/op_requires.h"

namespace tributary {
namespace {

// Reads the key attributes shared by both kernels and returns
// "send_device;incarnation;recv_device;tensor_name".
absl::Status KeyPrefixFromAttrs(OpKernelConstruction* ctx,
                                std::string* prefix) {
  std::string send_device, recv_device, tensor_name;
  int64_t send_device_incarnation = 0;
  TRIB_RETURN_IF_ERROR(ctx->GetAttr("send_device", &send_device));
  TRIB_RETURN_IF_ERROR(ctx->GetAttr("recv_device", &recv_device));
  TRIB_RETURN_IF_ERROR(
      ctx->GetAttr("send_device_incarnation", &send_device_incarnation));
  TRIB_RETURN_IF_ERROR(ctx->GetAttr("tensor_name", &tensor_name));
  // The attr is a signed int64 holding the bits of the uint64 incarnation.
  *prefix = CreateRendezvousKeyPrefix(
      send_device, static_cast<uint64_t>(send_device_incarnation), recv_device,
      tensor_name);
  return absl::OkStatus();
}

// Builds the key for `frame_iter`: the cached one at top level, a fresh
// parse inside a loop.
absl::Status KeyFor(const std::string& prefix, const RendezvousParsedKey& cached,
                    const FrameAndIter& frame_iter, RendezvousParsedKey* key,
                    const RendezvousParsedKey** out) {
  if (frame_iter == FrameAndIter(0, 0)) {
    *out = &cached;
    return absl::OkStatus();
  }
  TRIB_RETURN_IF_ERROR(
      ParseRendezvousKey(AppendFrameAndIter(prefix, frame_iter), key));
  *out = key;
  return absl::OkStatus();
}

absl::Status NoRendezvousError() {
  return errors::Internal("Op kernel context needs to provide a rendezvous.");
}

}  // namespace

SendOp::SendOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
  OP_REQUIRES_OK(ctx, KeyPrefixFromAttrs(ctx, &key_prefix_));
  // A bad device name in an attr fails graph setup, not every step.
  OP_REQUIRES_OK(ctx, ParseRendezvousKey(
                          AppendFrameAndIter(key_prefix_, FrameAndIter(0, 0)),
                          &parsed_key_));
  // Handing a tensor to the rendezvous is a table insert: run inline.
  expensive_ = false;
}

void SendOp::Compute(OpKernelContext* ctx) {
  OP_REQUIRES(ctx, ctx->rendezvous() != nullptr, NoRendezvousError());
  RendezvousParsedKey in_loop;
  const RendezvousParsedKey* key = nullptr;
  OP_REQUIRES_OK(ctx, KeyFor(key_prefix_, parsed_key_, ctx->frame_iter(),
                             &in_loop, &key));
  RendezvousInterface::Args args;
  args.alloc_attrs = ctx->input_alloc_attr(0);
  // A receiver on another device copies out of our memory through it.
  if (ctx->device() != nullptr) {
    args.device_context = ctx->device()->device_context();
  }
  // A dead input (untaken branch) still has to reach the receiver, which
  // then propagates deadness on its side; its value is meaningless and the
  // executor may not have one, so none is read.
  if (ctx->is_input_dead()) {
    ctx->SetStatus(ctx->rendezvous()->Send(*key, args, Tensor(),
                                           /*is_dead=*/true));
    return;
  }
  ctx->SetStatus(ctx->rendezvous()->Send(*key, args, ctx->input(0),
                                         /*is_dead=*/false));
}

RecvOp::RecvOp(OpKernelConstruction* ctx) : AsyncOpKernel(ctx) {
  OP_REQUIRES_OK(ctx, KeyPrefixFromAttrs(ctx, &key_prefix_));
  OP_REQUIRES_OK(ctx, ParseRendezvousKey(
                          AppendFrameAndIter(key_prefix_, FrameAndIter(0, 0)),
                          &parsed_key_));
  // Waiting costs no CPU; the executor must not tie up a pool thread.
  expensive_ = false;
}

void RecvOp::ComputeAsync(OpKernelContext* ctx, DoneCallback done) {
  OP_REQUIRES_ASYNC(ctx, ctx->rendezvous() != nullptr, NoRendezvousError(),
                    done);
  RendezvousParsedKey in_loop;
  const RendezvousParsedKey* key = nullptr;
  OP_REQUIRES_OK_ASYNC(ctx,
                       KeyFor(key_prefix_, parsed_key_, ctx->frame_iter(),
                              &in_loop, &key),
                       done);
  RendezvousInterface::Args args;
  args.alloc_attrs = ctx->output_alloc_attr(0);
  // A sender on another device's memory copies into ours through it.
  if (ctx->device() != nullptr) {
    args.device_context = ctx->device()->device_context();
  }
  // TensorFlow 1 relies on the session aborting the rendezvous alone; we
  // also register with the step's cancellation manager so that cancelling
  // a step releases every waiting _Recv even if nobody aborts.
  args.cancellation_manager = ctx->cancellation_manager();
  ctx->rendezvous()->RecvAsync(
      *key, args,
      [ctx, done = std::move(done)](const absl::Status& s,
                                    const RendezvousInterface::Args&,
                                    const RendezvousInterface::Args&,
                                    const Tensor& value, bool is_dead) {
        ctx->SetStatus(s);
        // A dead value leaves the output unset: the executor treats a
        // _Recv without output as dead, as TensorFlow's does. set_output
        // checks the dtype against tensor_type.
        if (s.ok() && !is_dead) ctx->set_output(0, value);
        done();
      });
}

REGISTER_KERNEL_BUILDER(Name("_Send").Device(DEVICE_CPU), SendOp);
REGISTER_KERNEL_BUILDER(Name("_Recv").Device(DEVICE_CPU), RecvOp);
// On a CPU device host memory is the only memory, so the _Host variants are
// the same kernels.
REGISTER_KERNEL_BUILDER(Name("_HostSend").Device(DEVICE_CPU), SendOp);
REGISTER_KERNEL_BUILDER(Name("_HostRecv").Device(DEVICE_CPU), RecvOp);
// On a GPU the value stays where it is (device memory for _Send/_Recv, host
// memory for the _Host variants); the rendezvous' copy moves it to where
// the receiver wants it through the devices' DeviceContexts.
REGISTER_KERNEL_BUILDER(Name("_Send").Device(DEVICE_GPU), SendOp);
REGISTER_KERNEL_BUILDER(Name("_Recv").Device(DEVICE_GPU), RecvOp);
REGISTER_KERNEL_BUILDER(Name("_HostSend").Device(DEVICE_GPU).HostMemory("tensor"),
                        SendOp);
REGISTER_KERNEL_BUILDER(Name("_HostRecv").Device(DEVICE_GPU).HostMemory("tensor"),
                        RecvOp);

}  // namespace tributary
