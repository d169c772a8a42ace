// FailingAllocator (testonly): an Allocator whose every AllocateRaw returns
// nullptr, so tests can reach the out-of-memory paths of Tensor and
// Tensor::FromProto. Its Name() is "failing", which those paths put in
// their error messages.
#ifndef TRIBUTARY_COMMON_FRAMEWORK_FAILING_ALLOCATOR_H_
#define TRIBUTARY_COMMON_FRAMEWORK_FAILING_ALLOCATOR_H_

#include <cstddef>
#include <string>

#include "common/framework/allocator.h"

namespace tributary {
namespace test {

class FailingAllocator : public Allocator {
 public:
  std::string Name() override { return "failing"; }
  void* AllocateRaw(size_t, size_t) override { return nullptr; }
  // Nothing was ever handed out, so there is nothing to free.
  void DeallocateRaw(void*) override {}
};

}  // namespace test
}  // namespace tributary

#endif  // TRIBUTARY_COMMON_FRAMEWORK_FAILING_ALLOCATOR_H_
