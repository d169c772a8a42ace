#ifndef TRIBUTARY_COMMON_FRAMEWORK_CONSTANT_BUFFERS_H_
#define TRIBUTARY_COMMON_FRAMEWORK_CONSTANT_BUFFERS_H_

// A process-wide registry of the buffers that Const kernels hand out: memory
// that is never written while registered. A kernel that derives something
// expensive from an input (a convolution that re-lays-out its filter) may
// keep the derived data between steps when its input's data pointer is
// registered, keyed by (pointer, id): a buffer freed and another one
// registered at the same address gets a new id, so a stale entry never
// matches.

#include <cstdint>

namespace tributary {

// Registers `data` (a Const kernel's buffer) and returns its id (> 0).
uint64_t RegisterConstantBuffer(const void* data);
// Removes `data`'s registration, before its buffer may be freed.
void UnregisterConstantBuffer(const void* data);
// The id `data` is registered under, or 0 when it is not a constant.
uint64_t ConstantBufferId(const void* data);

}  // namespace tributary

#endif  // TRIBUTARY_COMMON_FRAMEWORK_CONSTANT_BUFFERS_H_
