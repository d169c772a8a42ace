#ifndef TRIBUTARY_COMMON_KERNEL_ALLOCATOR_ATTRIBUTES_H_
#define TRIBUTARY_COMMON_KERNEL_ALLOCATOR_ATTRIBUTES_H_

#include <cstdint>

namespace tributary {

// What a kernel asks of the memory behind a tensor. A device maps these to
// one of its allocators (a GPU device hands out pinned host memory for
// on_host()). Mirrors TensorFlow's AllocatorAttributes so kernels written
// against TensorFlow's API read the same; it lives beside the device rather
// than in common/framework/allocator.h because only devices interpret it.
struct AllocatorAttributes {
  void set_on_host(bool v) { SetBit(kOnHost, v); }
  bool on_host() const { return (value & kOnHost) != 0; }
  void set_nic_compatible(bool v) { SetBit(kNicCompatible, v); }
  bool nic_compatible() const { return (value & kNicCompatible) != 0; }
  void set_gpu_compatible(bool v) { SetBit(kGpuCompatible, v); }
  bool gpu_compatible() const { return (value & kGpuCompatible) != 0; }

  // Combines the requirements of two users of the same buffer.
  void Merge(AllocatorAttributes other) { value |= other.value; }

  bool operator==(const AllocatorAttributes& other) const {
    return value == other.value;
  }
  bool operator!=(const AllocatorAttributes& other) const {
    return value != other.value;
  }

  // Bit layout matches TensorFlow's (on_host = bit 0, nic = bit 1,
  // gpu = bit 2) so attribute values logged by either runtime compare.
  static constexpr uint32_t kOnHost = 1u << 0;
  static constexpr uint32_t kNicCompatible = 1u << 1;
  static constexpr uint32_t kGpuCompatible = 1u << 2;

  uint32_t value = 0;

 private:
  void SetBit(uint32_t bit, bool v) {
    value = v ? (value | bit) : (value & ~bit);
  }
};

}  // namespace tributary

#endif  // TRIBUTARY_COMMON_KERNEL_ALLOCATOR_ATTRIBUTES_H_
