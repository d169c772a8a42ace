#include "tests/fuzz/fuzz_tensors.h"

#include "common/framework/memory_budget.h"
#include "protos/tensor.pb.h"

namespace tributary {
namespace fuzz {

namespace {

Allocator* NewBudgetedAllocator(const char* owner) {
  auto* budget = new MemoryBudget(owner, int64_t{64} << 20, "(fuzzer budget)");
  return budget->Wrap(cpu_allocator());
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
