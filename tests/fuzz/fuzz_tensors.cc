#include "tests/fuzz/fuzz_tensors.h"

#include <vector>

#include "common/framework/memory_budget.h"
#include "protos/tensor.pb.h"

namespace tributary {
namespace fuzz {

namespace {

// Budgets live for the whole process (kept here, so LeakSanitizer sees
// them reachable).
Allocator* NewBudgetedAllocator(const char* owner) {
  static std::vector<MemoryBudget*>* budgets = new std::vector<MemoryBudget*>;
  budgets->push_back(
      new MemoryBudget(owner, int64_t{64} << 20, "(fuzzer budget)"));
  return budgets->back()->Wrap(cpu_allocator());
}

}  // namespace

Allocator* BudgetedAllocator() {
  static Allocator* allocator = NewBudgetedAllocator("fuzz target");
  return allocator;
}

Allocator* OracleAllocator() {
  static Allocator* allocator = NewBudgetedAllocator("fuzz oracle");
  return allocator;
}

std::string TensorBytes(const Tensor& tensor) {
  tensorflow::TensorProto proto;
  tensor.AsProtoTensorContent(&proto);
  return proto.SerializeAsString();
}

}  // namespace fuzz
}  // namespace tributary
