#ifndef TRIBUTARY_COMMON_FRAMEWORK_MALLOC_TUNING_H_
#define TRIBUTARY_COMMON_FRAMEWORK_MALLOC_TUNING_H_

// glibc's malloc settings for a process that moves big tensors over gRPC.
//
// Tensor buffers come from the caching allocator, but gRPC receives every
// message into buffers of its own from malloc. With glibc's defaults the
// freed receive buffers of a big message go back to the kernel (trimmed, or
// unmapped with their per-thread arena), and the next message faults every
// page in again, ~2-10 us per 4 KiB page on these machines: 32k faults for
// a 128 MiB tensor. These settings keep freed memory in the heap for reuse,
// in one arena (docs/operations.md, "Memory").
//
// The daemons apply them at start (PrepareDaemonProcess); `tributary` and a
// C++ client application that fetches big tensors should call this first
// in main, before threads exist. Process-wide; idempotent.

namespace tributary {

void TuneMallocForLargeTensors();

}  // namespace tributary

#endif  // TRIBUTARY_COMMON_FRAMEWORK_MALLOC_TUNING_H_
